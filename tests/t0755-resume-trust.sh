#!/bin/bash
# A resume runs only programs lab.conf or the command line name: a guest
# program written into a bisection's stored spec (by whoever can write
# the database) is refused, naming both, and never runs.
. "$(dirname "$0")/lib.sh"

export FAKE=$TOP/tests/fixtures/fake-guest.sh
export FAKE_SEED_FILE=$TRASH/seed

test_expect_success 'setup: a project whose image is the stand-in guest, 4 commits, a program that leaves a mark' '
	fake_project repo "#!/bin/sh\nexec \"\$FAKE\" \"\$@\" scale=%s\n" &&
	fake_history repo 4 scale_from repo 3 1.30 &&
	local_conf "$PWD/repo" >lab.conf &&
	printf "#!/bin/sh\ntouch \"%s/ran\"\nexec \"\$FAKE\" \"\$@\"\n" "$TRASH" >other.sh &&
	chmod +x other.sh
'

test_expect_success 'a bisection stopped by its budget, resumable' '
	rc=0 && timeout 120 "$LAB" bisect --db lab.db --good base --bad main --workload zeroing \
		--iters 5 --max-boots 2 >out 2>err || rc=$? &&
	test "$rc" = 2 && grep -q "continue it with: lab bisect --db lab.db --resume E1$" err &&
	test "$(sql lab.db "SELECT count(*) FROM runs")" = 2 &&
	test "$(sql lab.db "SELECT COALESCE(guest, '\''-'\'') FROM bisect_specs WHERE experiment_id = 1")" = -
'

test_expect_success 'a guest program written into the database: the resume is refused, the program never runs' '
	sql lab.db "UPDATE bisect_specs SET guest = '\''$TRASH/other.sh'\'' WHERE experiment_id = 1" &&
	rc=0 && timeout 120 "$LAB" bisect --db lab.db --resume 1 --max-boots 4 >out 2>err || rc=$? &&
	test "$rc" = 2 &&
	test "$(unwrapped err | head -1)" = "lab: cannot resume bisection E1: its guest program is '\''$TRASH/other.sh'\'' in the database, '\''(the default)'\'' now: a program is run only as lab.conf or the command line names it" &&
	! grep -q "continue it with" err &&
	test ! -e ran &&
	test "$(sql lab.db "SELECT count(*) FROM runs")" = 2 &&
	test "$(sql lab.db "SELECT COALESCE(outcome, '\''RUNNING'\'') FROM bisections WHERE experiment_id = 1")" = RUNNING
'

test_expect_success 'put back as it was, the bisection resumes and boots on' '
	sql lab.db "UPDATE bisect_specs SET guest = NULL WHERE experiment_id = 1" &&
	rc=0 && timeout 120 "$LAB" bisect --db lab.db --resume 1 --max-boots 4 >out 2>err || rc=$? &&
	test "$rc" = 2 && grep -q "^lab: boot budget of 4 boots used up" err &&
	test "$(sql lab.db "SELECT count(*) FROM runs")" = 4 &&
	test ! -e ran
'

test_done
