#!/bin/bash
# Known answers from real boots of Debian's prebuilt kernel under TCG, in wall time
# (t0225 has the same kind of A/A in virtual time).
. "$(dirname "$0")/lib.sh"

KERNEL=$(debian_kernel)
ab() {
	"$LAB" ab --db lab.db --accel tcg --clock wall --kernel "$KERNEL" --timeout 300 "$@"
}
# exited RC: lab ab printed its table (shown) and exited RC; else its last words.
exited() {
	cat out
	test "$rc" = "$1" || { echo "lab ab exited $rc, not $1:"; tail -n 5 err; return 1; }
}
verdict() {
	sql lab.db "SELECT verdict FROM verdicts WHERE experiment_id = $1 AND workload = '$2' AND metric = '$3'"
}

# The A/As run beside other tests in make check -j2: a neighbour's load during
# one side's boots is a real change of wall time, and lab ab would be right to
# report it. Their --delta 10% asks for a larger change than such load
# usually makes, so that the lab, not the neighbour, is what they test.
test_expect_success TCG 'A/A: the same kernel and command line is never a change' '
	rc=0 && ab --aa --delta 10% --workload zeroing --iters 10 --boots 3 --mem 1G >out 2>err || rc=$? &&
	exited 0 &&
	test "$(sql lab.db "SELECT count(*) FROM verdicts WHERE experiment_id = 1")" -ge 1 &&
	test "$(sql lab.db "SELECT count(*) FROM verdicts WHERE experiment_id = 1 AND verdict IN ('\''REGRESSION'\'', '\''IMPROVEMENT'\'')")" = 0
'

# A host busy elsewhere can make one boot of four slow enough to overlap the
# other side; the adaptive schedule then boots more instead of giving up.
test_expect_success TCG 'THP never is slower than THP always on the touch test' '
	rc=0 && ab --workload zeroing --iters 10 --max-boots 8 --mem 1G --cmdline init_on_alloc=0 \
		--a-cmdline transparent_hugepage=always --b-cmdline transparent_hugepage=never >out 2>err || rc=$? &&
	exited 1 &&
	test "$(verdict 2 zeroing touch)" = REGRESSION &&
	test "$(sql lab.db "SELECT ratio > 1.2 FROM verdicts WHERE experiment_id = 2 AND metric = '\''touch'\''")" = 1
'

test_expect_success TCG 'HVO on makes demote slower than HVO off' '
	rc=0 && ab --workload demote --boots 4 --mem 4G --cmdline nokaslr \
		--a-cmdline hugetlb_free_vmemmap=off --b-cmdline hugetlb_free_vmemmap=on >out 2>err || rc=$? &&
	exited 1 &&
	test "$(verdict 3 demote demote_page_wall)" = REGRESSION
'

test_expect_success TCG 'a memory sweep gives a verdict per point, laid out as seed 004' '
	rc=0 && ab --aa --delta 10% --workload boot --boots 2 --mem 1G,2G >out 2>err || rc=$? &&
	exited 0 &&
	# one kernel against itself: no point is a change
	test "$(sql lab.db "SELECT count(*) FROM verdicts WHERE experiment_id = 4 AND verdict IN ('\''REGRESSION'\'', '\''IMPROVEMENT'\'')")" = 0 &&
	test "$(sql lab.db "SELECT count(DISTINCT mem_mib) FROM verdicts WHERE experiment_id = 4 AND metric = '\''to_init'\''")" = 2 &&
	# each point compared from both sides, the memory size its runs had
	test "$(sql lab.db "SELECT count(*) FROM verdicts WHERE experiment_id = 4 AND (n_a < 2 OR n_b < 2)")" = 0 &&
	test "$(sql lab.db "SELECT group_concat(DISTINCT mem_mib) FROM (SELECT mem_mib FROM runs WHERE experiment_id = 4 AND status = '\''OK'\'' ORDER BY mem_mib)")" = "1024,2048" &&
	grep -q "a row per variant, a column per memory size" out &&
	grep -A3 "^boot.to_init, median" out | grep -q "1024M *2048M"
'

test_done
