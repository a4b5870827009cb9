#!/bin/bash
# A recipe whose workloads are a user's: an exec: program beside the
# recipe, and a [workload] section of the recipe that runs it with an
# argument and says its metric is a rate. Built by a build.command (a
# wrapper of the lab's guest program that sets the variant's speed), run
# by the local runner: each gets its verdict row, the rate's judged as such.
. "$(dirname "$0")/lib.sh"

export GUEST_BIN=$GUEST

test_expect_success 'setup: a base and a slower commit, a program, a recipe naming it twice' '
	user_recipe
'

test_expect_success 'lab recipe runs both; each metric has its verdict row, the rate as higher-is-better' '
	test_expect_code 1 "$LAB" recipe user.recipe --repo repo --db lab.db --boots 4 --iters 3 >out 2>err &&
	cat out &&
	test "$(sql lab.db "SELECT DISTINCT workloads FROM runs")" = "work,rate" &&
	test "$(sql lab.db "SELECT direction || \" \" || verdict FROM verdicts WHERE workload = \"work\" AND metric = \"work\"")" = "lower REGRESSION" &&
	test "$(sql lab.db "SELECT direction || \" \" || verdict FROM verdicts WHERE workload = \"rate\" AND metric = \"ops\"")" = "higher REGRESSION" &&
	test "$(sql lab.db "SELECT DISTINCT value FROM run_meta WHERE key = \"workload.rate.args\"")" = --ops &&
	grep -q "^work.work" out && grep -q "^rate.ops" out
'

test_expect_success 'lab recipe exits as lab ab does: 1 for a REGRESSION in its table, 0 for none' '
	sed -e "/^\[variant \"slow\"\]/,\$d" user.recipe >same.recipe &&
	printf "[variant \"again\"]\n\tref = base\n" >>same.recipe &&
	test_expect_code 0 "$LAB" recipe same.recipe --repo repo --db same.db --boots 4 --iters 3 >out 2>err &&
	test "$(sql same.db "SELECT count(*) FROM verdicts WHERE verdict = \"REGRESSION\"")" = 0 &&
	test_expect_code 1 "$LAB" ab --repo repo --db ab.db --a base --b slow --workload exec:bench/work.sh \
		--boots 4 --iters 3 >out 2>err
'

test_done
