#!/bin/bash
# The real kernel history: builds of the fixture's commits, the seeded
# regression found by A/B and by bisect, the fix found as an improvement.
. "$(dirname "$0")/../lib.sh"

: "${FIXTURE:?make check-kernel sets FIXTURE}"
# Builds are kept between runs: the artifact cache and build trees live beside this db.
DB=$TOP/state/check-kernel.db
DEMOTE="--workload demote --mem 4G --cmdline hugetlb_free_vmemmap=on"

test_expect_success 'the fixture builds, and asking again is a cache hit' '
	"$LAB" build --db "$DB" --repo "$FIXTURE" fixture-base >path 2>err && cat err &&
	test -s "$(cat path)" &&
	"$LAB" build --db "$DB" --repo "$FIXTURE" fixture-base >path2 2>err &&
	grep -q CACHED err && cmp path path2
'

test_expect_success 'the image is the vmlinux with the PVH entry point, its bzImage kept beside it' '
	test "$(basename "$(cat path)")" = vmlinux &&
	test -s "$(dirname "$(cat path)")/image" &&
	readelf -n "$(cat path)" | grep -q "Xen .*(0x00000012)"
'

test_expect_success 'A/B: the seeded commit is a REGRESSION on demote' '
	rc=0 && "$LAB" ab --db "$DB" --repo "$FIXTURE" --a fixture-base --b fixture-regression \
		$DEMOTE --boots 5 >out 2>err || rc=$? &&
	cat out && test "$rc" = 1 &&
	grep -q "^demote.demote_page_wall .* REGRESSION$" out &&
	exp=$(sed -n "s/^experiment E\([0-9]*\).*/\1/p" out | head -n 1) &&
	test "$(sql "$DB" "SELECT DISTINCT m.value FROM run_meta m JOIN runs r ON r.id = m.run_id
		WHERE r.experiment_id = $exp AND m.key = '\''qemu.boot'\''" | sed "s/+.*//")" = pvh
'

test_expect_success 'A/B: the batching fix is an IMPROVEMENT over the regression' '
	rc=0 && "$LAB" ab --db "$DB" --repo "$FIXTURE" --a fixture-regression --b fixture-fix \
		$DEMOTE --boots 5 >out 2>err || rc=$? &&
	cat out && test "$rc" = 0 &&
	exp=$(sed -n "s/^experiment E\([0-9]*\).*/\1/p" out | head -n 1) &&
	test "$(sql "$DB" "SELECT verdict FROM verdicts WHERE experiment_id = $exp AND
		metric = '\''demote_page_wall'\''")" = IMPROVEMENT
'

# The bisect decides on per-boot medians, so the clock's spread between
# boots sets how many boots it takes: both clocks are run, and both counts
# printed. Wall time on a loaded TCG host may not find the culprit at all.
bisect_boots() {
	sed -n "s/.* steps, [0-9]* builds, \([0-9]*\) boots$/\1/p" "$1" | tail -n 1
}

test_expect_success 'bisect finds the seeded commit in virtual time (icount)' '
	start=$(date +%s) &&
	rc=0 && "$LAB" bisect --db "$DB" --repo "$FIXTURE" --good fixture-base --bad fixture-fix~1 \
		$DEMOTE --clock icount --metric demote_page_wall >out 2>err || rc=$? &&
	cat out && echo "$(( $(date +%s) - start ))" >icount.s && cp out icount.out &&
	cp err icount.err &&
	test "$rc" = 0 &&
	grep -q "^culprit: $(git -C "$FIXTURE" rev-parse fixture-regression)" out &&
	test -n "$(bisect_boots out)"
'

test_expect_success 'in virtual time a step takes at most 1.5 boots, each printed with its wall time' '
	sed -n "s/^step [0-9]*: .*; \([0-9]*\) boots*, \([0-9]*\) s)$/\1 \2/p" icount.err >steps &&
	grep "^step " icount.err && test -s steps &&
	awk "{ b += \$1; t += \$2; n++ } END { printf \"%d steps, %.2f boots and %.0f s a step\\n\", n, b / n, t / n; exit !(b <= 1.5 * n) }" steps
'

test_expect_success 'the same bisect in wall time, for its boot count' '
	start=$(date +%s) &&
	rc=0 && "$LAB" bisect --db "$DB" --repo "$FIXTURE" --good fixture-base --bad fixture-fix~1 \
		$DEMOTE --clock wall --metric demote_page_wall >out 2>err || rc=$? &&
	cat out && echo "exit $rc" &&
	wall=$(bisect_boots out) &&
	echo "boots to the culprit: icount $(bisect_boots icount.out) ($(cat icount.s) s)," \
		"wall ${wall:-?} ($(( $(date +%s) - start )) s, exit $rc)" >boots.line &&
	test "$rc" != 2
'
test -s boots.line && echo "# $(cat boots.line)"

test_done
