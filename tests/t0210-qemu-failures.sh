#!/bin/bash
# Boots that go wrong end in a stored status, never in a stuck process.
. "$(dirname "$0")/lib.sh"

KERNEL=$(debian_kernel)
MARK=labtest$$

test_expect_success TCG 'a kernel that panics is stored BOOT_FAILED with its console tail' '
	rc=0 && { "$LAB" run --db lab.db --accel tcg --kernel "$KERNEL" --workload boot --mem 512M \
		--timeout 240 --cmdline "rdinit=/nonexistent root=/dev/nonexistent" 2>err >out || rc=$?; } &&
	cat err && test "$rc" = 1 &&
	test "$(sql lab.db "SELECT status FROM runs WHERE id = 1")" = BOOT_FAILED &&
	sql lab.db "SELECT error FROM runs WHERE id = 1" | grep -q "Kernel panic" &&
	sql lab.db "SELECT console_tail FROM runs WHERE id = 1" | grep -q "Kernel panic - not syncing" &&
	grep -q "Kernel panic" "$(sql lab.db "SELECT console_log FROM runs WHERE id = 1")" &&
	test "$(sql lab.db "SELECT count(*) FROM samples WHERE run_id = 1")" = 0
'

# A thousand passes over 100 MB cannot end in 2 s, however fast the host.
test_expect_success TCG 'a boot past its deadline ends TIMEOUT with no qemu left behind' '
	start=$(date +%s) &&
	{ "$LAB" run --db lab.db --accel tcg --kernel "$KERNEL" --workload zeroing \
		--iters 1000 --mem 512M --timeout 2 --cmdline "lab.mark=$MARK" 2>err >out &
	  pid=$!; } &&
	# the qemu to be killed is seen running first, so that its absence later means something
	test_wait_until 20 "pgrep -f \"qemu-system.*lab.mark=$MARK\" >/dev/null" &&
	rc=0 && wait $pid || rc=$? &&
	! pgrep -f "qemu-system.*lab.mark=$MARK" &&
	end=$(date +%s) &&
	cat err && test "$rc" = 1 &&
	test $((end - start)) -lt 30 &&
	test "$(sql lab.db "SELECT status FROM runs WHERE id = 2")" = TIMEOUT
'

test_expect_success KERNEL 'a missing qemu binary is INFRA, not a kernel verdict' '
	printf "[qemu \"x86_64\"]\n\tbinary = /nonexistent/qemu\n" >bad.conf &&
	rc=0 && { "$LAB" run --config bad.conf --db infra.db --kernel "$KERNEL" --workload boot 2>err || rc=$?; } &&
	cat err && test "$rc" = 1 &&
	test "$(sql infra.db "SELECT status FROM runs")" = INFRA &&
	grep -q "/nonexistent/qemu" err
'

test_done
