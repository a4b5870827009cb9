#!/bin/bash
# Real boots under TCG, in wall time, of Debian's prebuilt kernel: each workload's samples
# land in the database with values that make sense.
. "$(dirname "$0")/lib.sh"

KERNEL=$(debian_kernel)
run() {
	"$LAB" run --db lab.db --accel tcg --clock wall --kernel "$KERNEL" --timeout 240 "$@"
}

test_expect_success TCG 'zeroing: 100 samples per boot, first one flagged warm-up' '
	run --workload zeroing --iters 100 --mem 1G >out &&
	cat out &&
	test "$(sql lab.db "SELECT status FROM runs WHERE id = 1")" = OK &&
	test "$(sql lab.db "SELECT count(*) FROM samples WHERE run_id = 1 AND metric = '\''touch'\''")" = 100 &&
	test "$(sql lab.db "SELECT count(*) FROM samples WHERE run_id = 1 AND metric = '\''touch'\'' AND flags = 1")" = 1 &&
	test "$(sql lab.db "SELECT min(value) > 1000 AND max(value) < 10000000 FROM samples WHERE metric = '\''touch'\''")" = 1 &&
	grep -q "^zeroing.touch .* 99 " out
'

test_expect_success TCG 'zeroing: metadata names kernel, cpu, memory and THP mode' '
	for k in kernel.release kernel.cmdline cpu.model mem.total_kb thp.enabled; do
		test -n "$(sql lab.db "SELECT value FROM run_meta WHERE run_id = 1 AND key = '\''$k'\''")" ||
		{ echo "missing $k"; sql lab.db "SELECT key FROM run_meta WHERE run_id = 1"; exit 1; }
	done &&
	sql lab.db "SELECT value FROM run_meta WHERE run_id = 1 AND key = '\''kernel.release'\''" | grep -q cloud-amd64 &&
	# TCG emulates no x86 PMU: no counter opens, and the run says why
	sql lab.db "SELECT value FROM run_meta WHERE run_id = 1 AND key = '\''pmu'\''" >pmu &&
	grep -qx "none: perf_event_open: .*" pmu &&
	test "$(sql lab.db "SELECT count(*) FROM events WHERE run_id = 1 AND metric IN ('\''ev.cycles'\'', '\''ev.instructions'\'')")" = 0
'

test_expect_success TCG 'demote: one 1 GiB page demoted, pool counts verified, HVO on' '
	run --workload demote --iters 1 --mem 4G --cmdline "hugetlb_free_vmemmap=on nokaslr" >out &&
	cat out &&
	test "$(sql lab.db "SELECT status FROM runs WHERE id = 2")" = OK &&
	test "$(sql lab.db "SELECT value FROM run_meta WHERE run_id = 2 AND key = '\''demote.verified'\''")" = yes &&
	test "$(sql lab.db "SELECT value FROM run_meta WHERE run_id = 2 AND key = '\''demote.hvo'\''")" = on &&
	test "$(sql lab.db "SELECT count(*) FROM samples WHERE run_id = 2 AND metric = '\''demote_page_wall'\'' AND value > 0")" = 1
'

test_expect_success TCG 'boot: to_init of the order of the host'\''s, host_to_init below the boot'\''s wall time' '
	run --workload boot --mem 1G >out &&
	cat out &&
	to_init=$(sql lab.db "SELECT value FROM samples WHERE run_id = 3 AND metric = '\''to_init'\''") &&
	host=$(sql lab.db "SELECT value FROM samples WHERE run_id = 3 AND metric = '\''host_to_init'\''") &&
	wall=$(sql lab.db "SELECT wall_s FROM runs WHERE id = 3") &&
	echo "to_init $to_init host_to_init $host wall $wall" &&
	# the guest calibrates its clock against a host that may be loaded: its
	# time to init can run ahead of the host time, never by a factor of two
	test "$(echo "$to_init > 0 && $to_init < 2 * $host && $host < $wall" | bc)" = 1 &&
	test "$(sql lab.db "SELECT count(*) FROM samples WHERE run_id = 3 AND metric LIKE '\''deferred_init_%'\''")" -ge 1
'

test_expect_success TCG 'lab list and lab show print the stored runs' '
	"$LAB" list --db lab.db >list &&
	test "$(grep -c " OK " list)" = 3 &&
	"$LAB" show --db lab.db 2 >show &&
	grep -q "demote.verified *yes" show &&
	grep -q "console log *.*run-2.log" show &&
	test -s "$(sql lab.db "SELECT console_log FROM runs WHERE id = 2")"
'

test_done
