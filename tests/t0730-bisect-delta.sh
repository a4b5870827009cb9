#!/bin/bash
# lab bisect --delta: an effect of 0.5 % that the samples resolve exactly
# (as virtual time does) is SMALL under the default 2 % band, so there is
# nothing to bisect, and is bisected to its commit with a band of 0.2 %;
# the band is stored with the bisection, and a resume keeps it.
. "$(dirname "$0")/lib.sh"

export FAKE=$TOP/tests/fixtures/fake-guest.sh
export FAKE_SEED_FILE=$TRASH/seed

IMAGE='#!/bin/sh\nexec "$FAKE" "$@" scale=%s cv=0.0005\n'

test_expect_success 'setup: 12 commits, 0.5 % slower from change 7 on, a spread of 0.05 %' '
	scaled_history repo "$IMAGE" 12 7 1.005
'

test_expect_success 'the default band: 0.5 % is SMALL, and the message names the band and --delta' '
	rc=0 && "$LAB" bisect --db lab.db --good base --bad main --workload zeroing --iters 10 \
		>out 2>err || rc=$? &&
	cat out && test "$rc" = 1 &&
	grep -qx "no metric regressed beyond the 2 % band from good to bad (--delta sets it): nothing to bisect" out &&
	grep -q "^  t  *+0\.[456][0-9]* % \[.*\] (.*% CI) SMALL$" err &&
	test "$(sql lab.db "SELECT count(*) FROM bisect_steps")" = 0 &&
	test "$(sql lab.db "SELECT delta IS NULL FROM bisect_specs WHERE experiment_id = 1")" = 1
'

test_expect_success 'with --metric too: no regression beyond the band, named with the effect' '
	rc=0 && "$LAB" bisect --db lab.db --good base --bad main --workload zeroing --iters 10 \
		--metric t >out 2>err || rc=$? &&
	cat out && test "$rc" = 1 &&
	grep -qx "no regression beyond the 2 % band between good and bad (--delta sets the band); nothing to bisect" out &&
	grep -q "^  t: +0\.[456][0-9]* % \[.*\] (.*% CI)$" out
'

test_expect_success '--delta 0.2%: the culprit, its effect, the band stored' '
	rc=0 && "$LAB" bisect --db lab.db --good base --bad main --workload zeroing --iters 10 \
		--delta 0.2% >out 2>err || rc=$? &&
	cat out && test "$rc" = 0 &&
	id=$(sql lab.db "SELECT max(experiment_id) FROM bisections") &&
	grep -q "^culprit: $(git -C repo rev-parse culprit)" out &&
	test "$(sql lab.db "SELECT culprit FROM bisections WHERE experiment_id = $id")" = \
		"$(git -C repo rev-parse culprit)" &&
	test "$(sql lab.db "SELECT delta FROM bisect_specs WHERE experiment_id = $id")" = 0.002 &&
	test "$(sql lab.db "SELECT round(effect, 3) FROM bisections WHERE experiment_id = $id")" = 1.005
'

test_expect_success 'the band is part of what a bisection is: --resume takes it, and refuses another' '
	id=$(sql lab.db "SELECT max(experiment_id) FROM bisections") &&
	test_expect_code 2 "$LAB" bisect --db lab.db --resume $id --delta 1% >out 2>err &&
	expect_one_line_naming err "^lab: --delta cannot be given with --resume: bisection E$id goes on"
'

test_expect_success 'a band that is no fraction is refused, naming it, before anything is stored' '
	for bad in 150% -1% x 0; do
		test_expect_code 2 "$LAB" bisect --db lab.db --good base --bad main --workload zeroing \
			--delta "$bad" >out 2>err &&
		expect_one_line_naming err "delta" || return 1
	done &&
	test "$(sql lab.db "SELECT count(*) FROM bisections")" = 3
'

test_done
