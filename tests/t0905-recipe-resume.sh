#!/bin/bash
# lab recipe --resume finds an earlier A/B by what it is (kernels, command
# lines, workloads, parameters, points), not by how its command was
# written: a recipe killed in the middle of an A/B goes on with that A/B.
# Ctrl-C stops it between boots as it stops lab ab, saying how it goes on.
# A small repository whose build.command makes a program the local
# runner runs (tests/fixtures/fake-guest.sh), a recipe of two variants.
. "$(dirname "$0")/lib.sh"

export FAKE=$TOP/tests/fixtures/fake-guest.sh
export FAKE_SEED_FILE=$TRASH/seed

test_expect_success 'setup: a repository with a base and a slower commit, a recipe' '
	scaled_project repo "#!/bin/sh\nexec \"\$FAKE\" \"\$@\" scale=%s sleep=0.3\n" &&
	cat >two.recipe <<-\EOF
	[recipe]
		title = two variants
		ref = base
		workload = zeroing
		metric = zeroing.t
	[variant "base"]
		ref = base
	[variant "slow"]
		ref = slow
	EOF
'

test_expect_success 'Ctrl-C during lab recipe: its A/B INTERRUPTED, the boot under way INFRA, how to resume' '
	with_sigint "$LAB" recipe two.recipe --repo repo --db int.db --boots 6 --iters 3 >out 2>err &
	lab=$! &&
	test_when_finished "kill $lab 2>/dev/null || :" &&
	test_wait_until 120 "test \"\$(sql int.db \"SELECT count(*) FROM runs WHERE status = '\''OK'\''\" 2>/dev/null)\" -ge 3" &&
	kill -INT $lab && { wait $lab; echo $? >rc; } &&
	cat err &&
	test "$(cat rc)" = 130 &&
	test "$(sql int.db "SELECT status FROM experiments WHERE id = 1")" = INTERRUPTED &&
	test "$(sql int.db "SELECT count(*) FROM runs WHERE status NOT IN ('\''OK'\'', '\''INFRA'\'')")" = 0 &&
	test "$(sql int.db "SELECT count(*) FROM runs WHERE status = '\''INFRA'\'' AND error != '\''interrupted'\''")" = 0 &&
	sed -n "/^recipe two.recipe: interrupted, its finished boots kept; resume it with:\$/,\$p" err >said &&
	test "$(sed 1d said)" = "  lab recipe two.recipe --repo repo --db int.db --boots 6 --iters 3 --resume"
'

test_expect_success 'the command it said resumes the recipe to its end' '
	resume=$(sed -e 1d -e "2s/^ *lab //" said) &&
	test_expect_code 1 eval "\"\$LAB\" $resume" >out 2>err &&
	grep -q "^experiment E1: resumed" err &&
	test "$(sql int.db "SELECT status FROM experiments WHERE id = 1")" = DONE &&
	test "$(sql int.db "SELECT count(*) FROM runs WHERE experiment_id = 1 AND status = '\''OK'\''")" = 12
'

test_expect_success 'a recipe killed during its A/B leaves the experiment RUNNING' '
	"$LAB" recipe two.recipe --repo repo --db lab.db --boots 6 --iters 3 >out 2>err &
	lab=$! &&
	test_when_finished "kill $lab 2>/dev/null || :" &&
	test_wait_until 120 "test \"\$(sql lab.db \"SELECT count(*) FROM runs WHERE status = '\''OK'\''\" 2>/dev/null)\" -ge 3" &&
	kill -9 $lab && { wait $lab || true; } &&
	test "$(sql lab.db "SELECT count(*) FROM experiments")" = 1 &&
	test "$(sql lab.db "SELECT status FROM experiments WHERE id = 1")" = RUNNING &&
	sql lab.db "SELECT count(*) FROM runs WHERE experiment_id = 1 AND status = '\''OK'\''" >ok-before &&
	test "$(cat ok-before)" -lt 12
'

test_expect_success '--resume, with the options in another order and spelling, goes on with it' '
	test_expect_code 1 "$LAB" recipe --iters=3 --resume two.recipe --db=lab.db --boots 6 --repo repo >out 2>err &&
	grep -q "^experiment E1: resumed" err &&
	test "$(sql lab.db "SELECT count(*) FROM experiments")" = 1 &&
	test "$(sql lab.db "SELECT status FROM experiments WHERE id = 1")" = DONE &&
	test "$(sql lab.db "SELECT count(*) FROM runs WHERE experiment_id = 1 AND status = '\''OK'\''")" = 12 &&
	grep -q "^  slow .* (E1)$" out
'

test_expect_success '--resume again reuses the finished experiment' '
	test_expect_code 1 "$LAB" recipe two.recipe --repo repo --db lab.db --iters 3 --boots 6 --resume >out 2>err &&
	grep -q "^experiment E1: done before, reused" err &&
	test "$(sql lab.db "SELECT count(*) FROM experiments")" = 1
'

test_expect_success '--resume with another parameter is another experiment' '
	{ "$LAB" recipe two.recipe --repo repo --db lab.db --iters 4 --boots 2 --resume >out 2>err;
	  test $? -le 1; } &&
	! grep -q "E1: done before" err &&
	test "$(sql lab.db "SELECT count(*) FROM experiments")" = 2 &&
	test "$(sql lab.db "SELECT DISTINCT params FROM runs WHERE experiment_id = 2")" = \
		"lab.workload=zeroing lab.iters=4"
'

test_done
