#!/bin/bash
# An experiment is run by one lab at a time: a second `lab ab --resume` of
# it is refused while the first runs, and may go once the first is gone,
# however it went.
. "$(dirname "$0")/lib.sh"

FAKE=$TOP/tests/fixtures/fake-guest.sh
export FAKE_SEED_FILE=$TRASH/seed
# an array, not a function: "${ab[@]}" & is the lab itself, so $! is its pid
ab=("$LAB" ab --db lab.db --runner local --guest "$FAKE" --workload zeroing
	--a-cmdline "scale=1.0 sleep=0.3" --b-cmdline "scale=1.1 sleep=0.3" --boots 6 --iters 5)
ok_runs() {
	sql lab.db "SELECT count(*) FROM runs WHERE experiment_id = 1 AND status = 'OK'"
}

test_expect_success 'setup: an experiment interrupted after a few boots' '
	"${ab[@]}" >out 2>err &
	lab=$! &&
	test_when_finished "kill $lab 2>/dev/null || :" &&
	test_wait_until 30 "test \"\$(ok_runs 2>/dev/null)\" -ge 2" &&
	kill -TERM $lab && { wait $lab || true; } &&
	test "$(ok_runs)" -lt 12
'

test_expect_success 'two resumes at once: the second is refused, naming the first' '
	"${ab[@]}" --resume E1 >out1 2>err1 &
	first=$! &&
	test_when_finished "kill $first 2>/dev/null || :" &&
	test_wait_until 30 "grep -q \"experiment E1: resumed\" err1" &&
	rc=0 && "${ab[@]}" --resume E1 >out2 2>err2 || rc=$? &&
	first_rc=0 && wait $first || first_rc=$? &&
	test $first_rc = 1 && test $rc = 2 &&
	expect_one_line_naming err2 "experiment E1 is being run by another lab (pid $first)" &&
	test "$(ok_runs)" = 12 &&
	test "$(sql lab.db "SELECT count(*) FROM samples s JOIN runs r ON r.id = s.run_id WHERE r.experiment_id = 1")" = 60
'

test_expect_success 'the lock goes with a lab killed by SIGKILL' '
	rm -rf lab.db*
	"${ab[@]}" >out 2>err &
	lab=$! &&
	test_when_finished "kill $lab 2>/dev/null || :" &&
	test_wait_until 30 "test \"\$(ok_runs 2>/dev/null)\" -ge 2" &&
	kill -9 $lab && { wait $lab || true; } &&
	rc=0 && "${ab[@]}" --resume E1 >out 2>err || rc=$? &&
	test $rc = 1 && grep -q " REGRESSION$" out &&
	test "$(ok_runs)" = 12
'

test_done
