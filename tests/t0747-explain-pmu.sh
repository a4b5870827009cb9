#!/bin/bash
# lab explain where the PMU samples: Debian's arm64 cloud kernel (no function
# profiler) under qemu-system-aarch64, whose TCG emulates a PMUv3 with a
# cycle counter that interrupts at its period. Each function's samples of
# cycles, the table saying so; THP never (A) against always (B) on zeroing:
# A's time goes to the 4 KiB page-fault path, which B hardly enters. Where
# there is no PMU (TCG x86), the boot says so: t0745.
. "$(dirname "$0")/lib.sh"

test_lazy_prereq ARM64_KERNEL '
	qemu_splits_icount qemu-system-aarch64 &&
	test -x "$TOP/build/guest/aarch64/lab-guest" &&
	"$TOP/tests/fixtures/debian-arm64-kernel.sh" >/dev/null
'

explain() {
	"$LAB" explain --db lab.db --accel tcg --clock icount --cpus 2 \
		--kernel "$("$TOP/tests/fixtures/debian-arm64-kernel.sh")" --workload zeroing \
		--mem 1G --iters 3 --timeout 900 --a-cmdline "transparent_hugepage=never nokaslr" \
		--b-cmdline "transparent_hugepage=always nokaslr" "$@"
}

# the samples of function $2 in the profile of run $1
samples() {
	sql lab.db "SELECT coalesce(sum(calls), 0) FROM profiles WHERE run_id = $1 AND function = '$2'"
}

test_expect_success ARM64_KERNEL 'a kernel without the profiler: explained by sampled cycles' '
	explain --top 0 >out 2>err &&
	cat out && test "$(LC_ALL=C.UTF-8 wc -L <out)" -le 100 &&
	grep -q "^  by sampled cycles (PMU), a sample every 500000 cycles on 2 CPUs: " out &&
	grep -q "^  one boot a side, sampled over the whole workload: a function.s time is its own$" out &&
	grep -qE "^function +samples A samples B +time A +time B +change +share$" out &&
	! grep -q "function profiler" out
'

test_expect_success ARM64_KERNEL 'a sample a period counted, none lost, each named by kallsyms' '
	a=$(sql lab.db "SELECT a_run_id FROM explanations") &&
	for r in $a $(sql lab.db "SELECT b_run_id FROM explanations"); do
		by=$(sql lab.db "SELECT value FROM run_meta WHERE run_id = $r AND key = '\''guest.profile_by'\''") &&
		n=$(echo "$by" | sed -n "s/.*: \([0-9]*\) samples of \([0-9]*\) periods counted, 0 lost$/\1 \2/p") &&
		set -- $n && test $# = 2 && test "$1" -gt 100 &&
		# the cycle counter interrupts at its period, none lost: a sample a period,
		# but for a CPU.s last, whose interrupt may be pending as the counter stops
		test "$1" -le "$2" && test "$1" -ge $(($2 - 2)) &&
		test "$(sql lab.db "SELECT sum(calls) FROM profiles WHERE run_id = $r")" = "$1" || return 1
	done &&
	# a sample is 500000 cycles, a virtual nanosecond each under TCG
	test "$(sql lab.db "SELECT count(*) FROM profiles WHERE run_id = $a AND abs(ns - calls * 500000.0) > calls * 5000.0")" = 0 &&
	test "$(samples $a handle_mm_fault)" -gt 0 && test "$(samples $a "[user]")" -gt 0
'

test_expect_success ARM64_KERNEL 'A faults 4 KiB pages where B faults 2 MiB ones: the fault path is A.s' '
	a=$(sql lab.db "SELECT a_run_id FROM explanations") &&
	b=$(sql lab.db "SELECT b_run_id FROM explanations") &&
	fa=$(($(samples $a handle_mm_fault) + $(samples $a __handle_mm_fault))) &&
	fb=$(($(samples $b handle_mm_fault) + $(samples $b __handle_mm_fault))) &&
	test "$fa" -ge $((10 * fb + 10)) &&
	# nothing is traced: zeroing keeps its own tracer of clear_huge_page, 50 pages an iteration
	test "$(sql lab.db "SELECT count(*) FROM samples WHERE run_id = $b AND metric = '\''clear_huge_page'\''")" = 150 &&
	x=$(sql lab.db "SELECT id FROM explanations") &&
	"$LAB" explain --db lab.db "X$x" --format json >x.json &&
	python3 -c "
import json
d = json.load(open(\"x.json\"))
assert d[\"profiled_by\"] == \"pmu\", d[\"profiled_by\"]
"
'

test_done
