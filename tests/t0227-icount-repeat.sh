#!/bin/bash
# Boots of several vCPUs in virtual time repeat to the instruction: two
# boots of one kernel give the same samples. Each boot's nonce still binds
# its console lines, but reaches the guest in an initramfs archive of its
# own (/lab.nonce): on the kernel command line Linux mixed it into its
# entropy pool, and two boots of 2 vCPUs then differed by some 0.03 %.
. "$(dirname "$0")/lib.sh"

KERNEL=$(debian_kernel)
# "iteration value" of each touch sample of run $2 in database $1
touches () {
	sql "$1" "SELECT iteration || \" \" || value FROM samples WHERE run_id = $2 AND workload = \"zeroing\" AND metric = \"touch\" ORDER BY iteration"
}

# the median of run $2's timed touch samples, as lab show prints it
median () {
	"$LAB" show --db "$1" "$2" | awk '$1 == "zeroing.touch" { print $4 }'
}

test_expect_success QEMU_8_1 'two boots of 2 vCPUs in icount: the same samples, the same medians' '
	"$LAB" run --db two.db --accel tcg --clock icount --cpus 2 --kernel "$KERNEL" \
		--workload zeroing,boot --iters 4 --param zeroing_mb=16 --mem 512M --boots 2 \
		--timeout 600 --cmdline nokaslr >out 2>err &&
	test "$(sql two.db "SELECT group_concat(status || \" \" || cpus || \" \" || clock) FROM runs")" = \
		"OK 2 icount shift=0,OK 2 icount shift=0" &&
	touches two.db 1 >touch1 && touches two.db 2 >touch2 &&
	test "$(wc -l <touch1)" = 4 &&
	diff touch1 touch2 &&
	test "$(median two.db 1)" = "$(median two.db 2)" &&
	test "$(sql two.db "SELECT count(DISTINCT value) FROM samples WHERE metric = \"to_init\"")" = 1
'

test_expect_success QEMU_8_1 'each boot had its own nonce, in every console line and not on the command line' '
	n1=$(sql two.db "SELECT value FROM run_meta WHERE run_id = 1 AND key = \"lab.nonce\"") &&
	n2=$(sql two.db "SELECT value FROM run_meta WHERE run_id = 2 AND key = \"lab.nonce\"") &&
	echo "$n1" | grep -qx "[0-9a-f]\{16\}" && test "$n1" != "$n2" &&
	log=$(sql two.db "SELECT console_log FROM runs WHERE id = 2") &&
	test "$(grep -c "^@lab $n2 " "$log")" = "$(grep -c "^@lab " "$log")" &&
	grep -q "^@lab $n2 hello 2 guest " "$log" &&
	test "$(sql two.db "SELECT count(*) FROM dropped_lines")" = 0 &&
	test "$(sql two.db "SELECT value FROM run_meta WHERE run_id = 2 AND key = \"kernel.cmdline\"")" = \
		"console=ttyS0 panic=-1 lab.workload=zeroing,boot lab.iters=4 lab.zeroing_mb=16 nokaslr" &&
	! grep -q "lab.nonce" "$log"
'

test_expect_success QEMU_8_1 'no initramfs is left behind, of a boot or of the plan' '
	test -d cache && ls -A cache >left &&
	! grep initramfs left
'

# Debian's arm64 cloud kernel (fetched once into state/, no cross build):
# the same under qemu-system-aarch64 -M virt, on 2 and 4 vCPUs, demote too.
test_lazy_prereq ARM64_KERNEL '
	qemu_splits_icount qemu-system-aarch64 &&
	test -x "$TOP/build/guest/aarch64/lab-guest" &&
	"$TOP/tests/fixtures/debian-arm64-kernel.sh" >/dev/null
'

for n in 2 4; do
	test_expect_success ARM64_KERNEL "arm64, two boots of $n vCPUs in icount: every sample the same" '
		kernel=$("$TOP/tests/fixtures/debian-arm64-kernel.sh") &&
		"$LAB" run --db arm$n.db --accel tcg --clock icount --cpus $n --kernel "$kernel" \
			--workload zeroing,demote,boot --iters 3 --param zeroing_mb=16 --mem 4G \
			--boots 2 --timeout 900 --cmdline nokaslr >out 2>err &&
		test "$(sql arm$n.db "SELECT group_concat(status || \" \" || cpus || \" \" || clock) FROM runs")" = \
			"OK $n icount shift=0,OK $n icount shift=0" &&
		for r in 1 2; do
			sql arm$n.db "SELECT workload, metric, iteration, value FROM samples WHERE run_id = $r ORDER BY id" >samples$r || return 1
		done &&
		test "$(grep -c "^zeroing|touch|" samples1)" = 3 &&
		test "$(grep -c "^demote|demote_page_wall|" samples1)" -ge 1 &&
		grep -q "^boot|to_init|" samples1 &&
		diff samples1 samples2 &&
		# TCG emulates a PMUv3: its counters too, the same boot after boot
		test "$(sql arm$n.db "SELECT value FROM run_meta WHERE run_id = 1 AND key = \"pmu\"")" = \
			"cycles instructions" &&
		for r in 1 2; do
			sql arm$n.db "SELECT workload, metric, iteration, value FROM events WHERE run_id = $r AND metric IN (\"ev.cycles\", \"ev.instructions\") ORDER BY id" >counters$r || return 1
		done &&
		test "$(grep -c "^zeroing|ev.instructions|" counters1)" = 3 &&
		diff counters1 counters2 &&
		test "$(sql arm$n.db "SELECT value FROM run_meta WHERE run_id = 2 AND key = \"kernel.cmdline\"")" = \
			"console=ttyAMA0 panic=-1 lab.workload=zeroing,demote,boot lab.iters=3 lab.zeroing_mb=16 nokaslr"
	'
done

test_done
