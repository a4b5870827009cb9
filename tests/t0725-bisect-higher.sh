#!/bin/bash
# lab bisect of a metric for which higher is better (a rate a program
# announces, as stress-ng's bogo ops/s): "bad" is fewer ops, so the culprit
# is where the rate dropped, found as a cost's rise would be.
. "$(dirname "$0")/lib.sh"

export FAKE=$TOP/tests/fixtures/fake-guest.sh
export FAKE_SEED_FILE=$TRASH/seed

IMAGE='#!/bin/sh\nexec "$FAKE" "$@" scale=%s metrics=ops higher=1\n'

test_expect_success 'setup: 12 commits, 10 % fewer ops/s from change 7 on' '
	scaled_history repo "$IMAGE" 12 7 0.90
'

test_expect_success 'bisect --metric: the drop of a higher-is-better metric is the regression' '
	rc=0 && "$LAB" bisect --db lab.db --good base --bad main --workload zeroing --iters 10 \
		--metric ops >out 2>err || rc=$? &&
	cat out && test "$rc" = 0 &&
	grep -q "^culprit: $(git -C repo rev-parse culprit)" out &&
	grep -q "^ops: higher is better" err &&
	test "$(sql lab.db "SELECT culprit FROM bisections WHERE experiment_id = 1")" = "$(git -C repo rev-parse culprit)"
'

test_expect_success 'without --metric the drop is chosen as the regression to bisect' '
	rc=0 && "$LAB" bisect --db lab.db --good base --bad main --workload zeroing --iters 10 >out 2>err || rc=$? &&
	cat out && test "$rc" = 0 &&
	grep -q "^  ops .* REGRESSION" err &&
	grep -q "^culprit: $(git -C repo rev-parse culprit)" out &&
	test "$(sql lab.db "SELECT metric FROM bisections WHERE experiment_id = 2")" = ops
'

test_expect_success 'a rise of the rate is an improvement: nothing to bisect' '
	git -C repo checkout -q -b up base &&
	echo 1.10 >repo/scale && commit repo faster && echo more >repo/notes.txt && commit repo after &&
	git -C repo checkout -q main &&
	rc=0 && "$LAB" bisect --db lab.db --good base --bad up --workload zeroing --iters 10 \
		--metric ops >out 2>err || rc=$? &&
	cat out && test "$rc" = 1 && grep -q "nothing to bisect" out
'

# The lab's own guest program as what the commits build, running a
# [workload] section's program whose rate drops at the culprit.
GUEST_IMAGE='#!/bin/sh\nLAB_SCALE=%s exec "$GUEST_BIN" "$@"\n'

test_expect_success 'bisect --workload NAME of a section, stored as its spec: a resume needs the section no more' '
	fake_project sec "$GUEST_IMAGE" && fake_history sec 6 scale_from sec 4 0.80 &&
	cat >rate.sh <<-\EOS &&
	#!/bin/sh
	awk -v s="${LAB_SCALE:-1}" -v seed="$$" "BEGIN { srand(seed); printf \"ops %.3f ops/s\\n\", 1000 * s * (1 + rand() / 100) }"
	EOS
	chmod +x rate.sh &&
	printf "[core]\n\trepo = %s/sec\n[build]\n\tcommand = ./build.sh\n\tartifact = out/image\n[run]\n\trunner = local\n[workload \"rate\"]\n\tprogram = rate.sh\n\thigher = ops\n" "$PWD" >sec.conf &&
	rc=0 && GUEST_BIN=$GUEST "$LAB" bisect --config sec.conf --db sec.db --good base --bad main \
		--workload rate --iters 3 >out 2>err || rc=$? &&
	cat out && test "$rc" = 0 &&
	grep -q "^culprit: $(git -C sec rev-parse culprit)" out &&
	test "$(sql sec.db "SELECT workload_list FROM bisect_specs WHERE experiment_id = 1")" = "[rate higher=ops] exec:$TRASH/rate.sh" &&
	sed "/^\[workload/,\$d" sec.conf >nosec.conf && ! grep -q rate nosec.conf &&
	rc=0 && GUEST_BIN=$GUEST "$LAB" bisect --config nosec.conf --db sec.db --resume 1 >out 2>err || rc=$? &&
	test "$rc" = 0 && grep -q "^culprit: $(git -C sec rev-parse culprit)" out
'

test_done
