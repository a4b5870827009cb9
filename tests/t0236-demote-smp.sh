#!/bin/bash
# demote with a second CPU online, in virtual time: a real boot of Debian's
# kernel on 2 vCPUs under icount (QEMU 8.1 or later shares the instructions
# between them), so that demote's grace periods run with another CPU to
# wait for. One boot of two pages.
. "$(dirname "$0")/lib.sh"

KERNEL=$(debian_kernel)
meta() {
	sql lab.db "SELECT value FROM run_meta WHERE run_id = 1 AND key = '$1'"
}

test_expect_success QEMU_8_1 'two vCPUs in icount: both online, two pages demoted, their events kept' '
	"$LAB" run --db lab.db --accel tcg --kernel "$KERNEL" --timeout 900 --workload demote \
		--mem 4G --cpus 2 --clock icount --iters 2 \
		--cmdline "hugetlb_free_vmemmap=on nokaslr" >out &&
	cat out &&
	test "$(sql lab.db "SELECT status || \" \" || cpus || \" \" || clock FROM runs WHERE id = 1")" = \
		"OK 2 icount shift=0" &&
	test "$(meta cpu.online)" = 2 &&
	test "$(meta demote.hvo)" = on &&
	test "$(meta demote.verified)" = yes &&
	test "$(sql lab.db "SELECT count(*) FROM samples WHERE run_id = 1 AND metric = '\''demote_page_wall'\'' AND value > 0")" = 2 &&
	test "$(sql lab.db "SELECT group_concat(iteration) FROM (SELECT iteration FROM events WHERE run_id = 1 AND metric = '\''ev.ctxsw'\'' ORDER BY iteration)")" = 0,1
'

test_done
