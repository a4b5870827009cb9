#!/bin/bash
# A kernel image is read once, when the command resolves it, and recorded
# in the database once, and the guest's initramfs written once per content: an A/B over a sweep of three points
# re-reads neither at each point, side or boot (LAB_DEBUG=1 says what the
# lab read and wrote; strace, where it is installed, counts the opens).
. "$(dirname "$0")/lib.sh"

KERNEL=$(debian_kernel)
FAKE=$TOP/tests/fixtures/fake-guest.sh
export FAKE_SEED_FILE=$TRASH/seed
test_lazy_prereq STRACE 'strace -o /dev/null true'

# count PATTERN FILE: lines of FILE matching PATTERN (grep -F), 0 when none
count() {
	grep -cF -- "$1" "$2" || :
}

test_expect_success 'local runner: a 3-point sweep resolves the program once' '
	LAB_DEBUG=1 "$LAB" ab --aa --db lab.db --runner local --kernel "$FAKE" --workload zeroing \
		--mem 1G,2G,3G --boots 2 --iters 5 --a-cmdline scale=1.0 --b-cmdline scale=1.0 \
		>out 2>err &&
	test "$(count "lab: debug: kernel '\''$FAKE'\'' resolved" err)" = 1 &&
	test "$(count "lab: debug: kernel '\''$FAKE'\'' recorded as row 1" err)" = 1 &&
	test "$(sql lab.db "SELECT count(*) FROM runs WHERE experiment_id = 1")" = 12 &&
	test "$(sql lab.db "SELECT count(DISTINCT kernel_id) FROM runs")" = 1 &&
	test "$(sql lab.db "SELECT hash FROM kernels")" = "$(git hash-object "$FAKE")"
'

test_expect_success STRACE 'local runner: the lab opens the program once, whatever the points' '
	{
		strace -o trace -e trace=openat "$LAB" ab --aa --db lab2.db --runner local \
			--kernel "$FAKE" --workload zeroing --mem 1G,2G,3G --boots 2 --iters 5 \
			--a-cmdline scale=1.0 --b-cmdline scale=1.0 >out 2>err || {
			rc=$? && cat err && test "$rc" = 1
		}
	} &&
	{ grep -F "\"$FAKE\"" trace >opens || :; } &&
	cat opens &&
	test "$(wc -l <opens)" = 1 &&
	test "$(sql lab2.db "SELECT count(*) FROM runs WHERE experiment_id = 1")" -ge 12
'

test_expect_success TCG 'qemu: a 3-point A/B hashes the kernel once and writes one initramfs' '
	LAB_DEBUG=1 "$LAB" ab --db qemu.db --accel tcg --clock wall --timeout 300 \
		--kernel "$KERNEL" --workload boot --mem 512M,640M,768M --boots 1 \
		--a-cmdline quiet --b-cmdline "quiet nokaslr" >out 2>err || {
		rc=$? && cat err && test "$rc" = 1
	} &&
	test "$(count "lab: debug: kernel '\''$KERNEL'\'' resolved: x86_64" err)" = 1 &&
	test "$(count "lab: debug: initramfs '\''" err)" = 1 &&
	test "$(count "lab: debug: kernel '\''$KERNEL'\'' recorded as row" err)" = 1 &&
	test "$(sql qemu.db "SELECT count(*) FROM runs WHERE experiment_id = 1")" = 6 &&
	test "$(sql qemu.db "SELECT count(DISTINCT mem_mib) FROM runs")" = 3 &&
	test "$(sql qemu.db "SELECT count(*) FROM kernels")" = 1 &&
	test "$(sql qemu.db "SELECT hash || \" \" || arch FROM kernels")" = "$(git hash-object "$KERNEL") x86_64" &&
	test "$(sql qemu.db "SELECT count(DISTINCT kernel_id) FROM runs")" = 1
'

test_expect_success TCG 'qemu: the one initramfs, written where the lab said, is gone when it is done' '
	path=$(sed -n "s/^lab: debug: initramfs .\(.*\). written.*/\1/p" err) &&
	test -n "$path" && case $path in /*) ;; *) false ;; esac &&
	test -d "$(dirname "$path")" && test ! -e "$path" &&
	test -z "$(find . "$(dirname "$path")" -name "initramfs-*")"
'

test_expect_success 'a garbage file as --kernel: one line naming it, exit 2, nothing booted' '
	echo garbage >bad &&
	test_expect_code 2 "$LAB" ab --db bad.db --kernel bad --workload boot --boots 1 \
		--a-cmdline quiet --b-cmdline nokaslr >out 2>err &&
	test "$(unwrapped err)" = "lab: '\''bad'\'' is not a kernel image (neither an x86 bzImage, an x86 vmlinux with the PVH entry point, nor an arm64 Image)" &&
	test_expect_code 2 "$LAB" run --db bad.db --kernel bad --workload boot 2>err &&
	test "$(unwrapped err)" = "lab: '\''bad'\'' is not a kernel image (neither an x86 bzImage, an x86 vmlinux with the PVH entry point, nor an arm64 Image)" &&
	{ ! test -s bad.db || test "$(sql bad.db "SELECT count(*) FROM runs")" = 0; }
'

test_done
