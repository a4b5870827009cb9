#!/bin/bash
# lab ab on near-deterministic samples (what QEMU's icount clock gives): the
# adaptive schedule ends at its first look, SAME for A/A and a clean verdict
# for a real shift, with no NaN anywhere.
. "$(dirname "$0")/lib.sh"

FAKE=$TOP/tests/fixtures/fake-guest.sh
export FAKE_SEED_FILE=$TRASH/seed
ab() {
	"$LAB" ab --db lab.db --runner local --guest "$FAKE" --workload zeroing "$@"
}
boots() {
	sql lab.db "SELECT count(*) FROM runs WHERE experiment_id = $1 AND status = 'OK'"
}

test_expect_success 'A/A, CV 0.0001 %, 3 samples a boot: SAME after 2 boots a side' '
	rc=0 && ab --aa --a-cmdline cv=0.000001 --b-cmdline cv=0.000001 --iters 3 >out 2>err || rc=$? &&
	cat out && test "$rc" = 0 &&
	test "$(sql lab.db "SELECT verdict FROM verdicts WHERE experiment_id = 1")" = SAME &&
	test "$(boots 1)" = 4 &&
	test "$(sql lab.db "SELECT n_a || \" \" || n_b FROM verdicts WHERE experiment_id = 1")" = "6 6"
'

test_expect_success 'identical samples on both sides: SAME, ratio 1 [1, 1], MDE 0, nothing NaN' '
	rc=0 && ab --aa --a-cmdline cv=0 --b-cmdline cv=0 --iters 3 >out 2>err || rc=$? &&
	cat out && test "$rc" = 0 &&
	test "$(sql lab.db "SELECT verdict FROM verdicts WHERE experiment_id = 2")" = SAME &&
	test "$(sql lab.db "SELECT ratio = 1 AND ci_low = 1 AND ci_high = 1 AND mde = 0 AND p = 1 FROM verdicts WHERE experiment_id = 2")" = 1 &&
	! grep -qi nan out
'

test_expect_success 'a 1 % shift, CV 0.0001 %: SMALL at the first look (a real change below delta)' '
	rc=0 && ab --a-cmdline cv=0.000001 --b-cmdline "cv=0.000001 scale=1.01" --iters 3 >out 2>err || rc=$? &&
	cat out && test "$rc" = 0 &&
	test "$(sql lab.db "SELECT verdict FROM verdicts WHERE experiment_id = 3")" = SMALL &&
	test "$(boots 3)" = 4
'

test_expect_success 'a 5 % shift, CV 0.0001 %: REGRESSION, exit 1, at the first look' '
	rc=0 && ab --a-cmdline cv=0.000001 --b-cmdline "cv=0.000001 scale=1.05" --iters 3 >out 2>err || rc=$? &&
	cat out && test "$rc" = 1 &&
	test "$(sql lab.db "SELECT verdict FROM verdicts WHERE experiment_id = 4")" = REGRESSION &&
	test "$(sql lab.db "SELECT ci_low > 1.0499 AND ci_high < 1.0501 FROM verdicts WHERE experiment_id = 4")" = 1 &&
	test "$(boots 4)" = 4
'

test_done
