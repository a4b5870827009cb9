#!/bin/bash
# lab explain on Debian's prebuilt kernel, which has no function profiler,
# under TCG x86, which has no PMU to sample: the boot fails saying both and
# offering --functions, and with --functions
# the chosen functions are timed by function_graph instead. THP never (A)
# against always (B) on zeroing, in virtual time: the page-fault path runs
# once a 4 KiB page in A and once a 2 MiB page in B, and the calls say so,
# as do the event counts of the same boots printed under the table.
. "$(dirname "$0")/lib.sh"

KERNEL=$(debian_kernel)
PAGES=$((100 * 1024 * 1024 / 4096))
THP="--a-cmdline transparent_hugepage=never --b-cmdline transparent_hugepage=always"
explain() {
	"$LAB" explain --db lab.db --accel tcg --clock icount --kernel "$KERNEL" --workload zeroing \
		--mem 1G --iters 3 --timeout 600 $THP "$@"
}

test_expect_success TCG 'no function profiler: the boot fails naming it, --functions offered, nothing stored' '
	test_expect_code 2 explain >out 2>err &&
	unwrapped err >joined &&
	grep -q "^lab: A.s profiled boot ended FAILED: .*CONFIG_FUNCTION_PROFILER is not set" joined &&
	# TCG x86 has no PMU: what was tried first, and why it could not be used
	grep -q "profile: no PMU sampling (perf_event_open: no PMU the kernel drives), and this kernel has no function profiler" joined &&
	grep -q "^hint: build the kernel with CONFIG_FUNCTION_PROFILER=y" err &&
	grep -q "^  time chosen functions by function_graph: --functions F1,F2$" err &&
	test "$(sql lab.db "SELECT count(*) FROM explanations")" = 0
'

test_expect_success TCG 'with --functions: function_graph times them, 4 KiB faults in A, 2 MiB ones in B' '
	explain --functions handle_mm_fault,clear_huge_page,vma_alloc_folio --top 0 >out 2>err &&
	cat out && test "$(LC_ALL=C.UTF-8 wc -L <out)" -le 100 &&
	grep -q "^  this kernel has no function profiler: by function_graph on handle_mm_fault" out &&
	sed -n "/^function /,/^\$/p" out | sed 1d | grep . >rows &&
	test "$(wc -l <rows)" = 3 &&
	grep -qE "^clear_huge_page +- +[0-9]+ .* new$" rows &&
	ca=$(awk "/^handle_mm_fault / { print \$2 }" rows) &&
	cb=$(awk "/^handle_mm_fault / { print \$3 }" rows) &&
	# A faults once a 4 KiB page of each of the three iterations, B once a 2 MiB page
	test "$ca" -ge $((3 * PAGES * 9 / 10)) && test "$cb" -le $((3 * PAGES / 100)) &&
	x=$(sql lab.db "SELECT id FROM explanations") &&
	a=$(sql lab.db "SELECT a_run_id FROM explanations WHERE id = $x") &&
	test "$(sql lab.db "SELECT calls FROM profiles WHERE run_id = $a AND function = '\''handle_mm_fault'\''")" = "$ca" &&
	test "$(sql lab.db "SELECT count(*) FROM run_meta WHERE run_id = $a AND key = '\''guest.profile_graph'\''")" = 1 &&
	# the kernel counters of the same boots, under the table: a fault a page, a fault a 2 MiB page
	fa=$(awk "/^zeroing.ev.pgfault / { print \$2 }" out) &&
	fb=$(awk "/^zeroing.ev.pgfault / { print \$3 }" out) &&
	test "$fa" -ge $((PAGES * 9 / 10)) && test "$fb" -le $((PAGES / 100)) &&
	"$LAB" explain --db lab.db "X$x" --format json >x.json &&
	python3 -c "
import json
d = json.load(open(\"x.json\"))
e = {x[\"metric\"]: x for x in d[\"events\"]}
assert e[\"ev.pgfault\"][\"median_a\"] == $fa and e[\"ev.pgfault\"][\"median_b\"] == $fb, e
assert d[\"boots_a\"] == 1 and not d[\"noisy\"], d
"
'

test_done
