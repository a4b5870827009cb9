#!/bin/bash
# Virtual time for guests of several vCPUs: QEMU 8.1 and later share the
# instructions between them, an older QEMU stalls the boot in "Booting SMP
# configuration". --clock auto asks the QEMU that will run; --clock icount
# is refused up front with an older one.
. "$(dirname "$0")/lib.sh"

KERNEL=$(debian_kernel)
SYSTEM_QEMU=$(qemu-system-x86_64 --version 2>/dev/null |
	sed -n "1s/^QEMU emulator version \([0-9]*\.[0-9]*\.[0-9]*\).*/\1/p")

# The QEMU make deps installs (10.0 from bookworm-backports) shares the
# instructions; Debian 12's own (7.2) does not.
test_lazy_prereq QEMU_SPLITS_ICOUNT '
	test_have_prereq QEMU &&
	case "$SYSTEM_QEMU" in [0-7].*|8.0.*|"") false ;; *) true ;; esac
'

# A QEMU of the given version that logs how it was started and boots nothing;
# it takes any guest size.
fake_qemu () {
	cat >"qemu-$1" <<SH
#!/bin/sh
echo "\$*" >>$TRASH/argv-$1
case "\$1" in --version) echo "QEMU emulator version $1 (Debian)"; exit 0 ;; esac
# the guest size check's kernel does not exist: named, as QEMU names it
while test \$# -gt 1; do
	test "\$1" = -kernel && ! test -e "\$2" &&
		echo "qemu: could not open kernel file '\$2': No such file or directory" >&2 && exit 1
	shift
done
echo "qemu-$1 starts no guest" >&2
exit 1
SH
	chmod +x "qemu-$1" &&
	printf '[qemu "x86_64"]\n\tbinary = %s/qemu-%s\n' "$TRASH" "$1" >"qemu-$1.conf"
}

# The system QEMU, its starts logged, naming itself as Debian 12's own QEMU
# does: 7.2, whatever runs.
cat >qemu-logged <<SH
#!/bin/sh
echo "\$*" >>$TRASH/argv-logged
case "\$1" in --version) echo "QEMU emulator version 7.2.22 (Debian 1:7.2+dfsg-7+deb12u18+b3)"; exit 0 ;; esac
exec qemu-system-x86_64 "\$@"
SH
chmod +x qemu-logged
printf '[qemu "x86_64"]\n\tbinary = %s/qemu-logged\n' "$TRASH" >logged.conf

test_expect_success QEMU '--clock icount --cpus 2 under QEMU 7.2 is refused before any boot, naming the version' '
	test_expect_code 2 "$LAB" run --db lab.db --config logged.conf --kernel "$KERNEL" \
		--workload boot --cpus 2 --clock icount >out 2>err &&
	test "$(cat err)" = "lab: clock '\''icount'\'': QEMU 7.2.22 < 8.1 cannot run 2 vCPUs in virtual time: use --clock wall" &&
	test "$(cat argv-logged)" = --version &&
	! test -e lab.db
'

test_expect_success KERNEL 'so is an A/B, before its experiment exists; one vCPU is not' '
	fake_qemu 8.0.5 &&
	test_expect_code 2 "$LAB" ab --aa --db ab.db --config qemu-8.0.5.conf --kernel "$KERNEL" \
		--workload boot --cpus 1,4 --clock icount >out 2>err &&
	expect_one_line_naming err "^lab: clock .icount.: QEMU 8.0.5 < 8.1 cannot run 4 vCPUs in virtual time: " &&
	! grep -v -e "^--version$" -e " -kernel /nonexistent/lab-size-check " argv-8.0.5 &&
	! test -e ab.db &&
	test_expect_code 1 "$LAB" run --db one.db --config qemu-8.0.5.conf --kernel "$KERNEL" \
		--workload boot --cpus 1 --clock icount >out 2>err &&
	test "$(sql one.db "SELECT clock || \" \" || cpus || \" \" || status FROM runs")" = "icount shift=0 1 INFRA"
'

test_expect_success KERNEL 'a QEMU that names no version is not trusted with icount of 2 vCPUs' '
	fake_qemu 8.x &&
	test_expect_code 2 "$LAB" run --db lab.db --config qemu-8.x.conf --kernel "$KERNEL" \
		--workload boot --cpus 2 --clock icount >out 2>err &&
	expect_one_line_naming err "^lab: clock .icount.: QEMU .$TRASH/qemu-8.x. names no version (.QEMU emulator version 8.x (Debian).), and one before 8.1 cannot run 2 vCPUs in virtual time: " &&
	! test -e lab.db
'

test_expect_success KERNEL '--clock auto --cpus 2 under QEMU 10 is icount, and says nothing' '
	fake_qemu 10.0.2 &&
	test_expect_code 1 "$LAB" run --db ten.db --config qemu-10.0.2.conf --kernel "$KERNEL" \
		--workload boot --cpus 2 --accel tcg >out 2>err &&
	! grep -q "wall time" err &&
	test "$(sql ten.db "SELECT clock || \" \" || cpus || \" \" || qemu_version FROM runs")" = \
		"icount shift=0 2 QEMU emulator version 10.0.2 (Debian)" &&
	grep -q -- " -smp 2 .* -icount shift=0,sleep=off " argv-10.0.2
'

# In virtual time nothing of the host's time or chance may reach the guest:
# with them two boots of 2 vCPUs (QEMU 10) gave the same console to the byte.
test_expect_success KERNEL 'an icount boot has a seeded RDRAND and an RTC on virtual time; a wall-time one neither' '
	grep -q -- " -icount shift=0,sleep=off -rtc base=2024-01-01T00:00:00,clock=vm -seed 1 " argv-10.0.2 &&
	test_expect_code 1 "$LAB" run --db wall.db --config qemu-10.0.2.conf --kernel "$KERNEL" \
		--workload boot --cpus 2 --accel tcg --clock wall >out 2>err &&
	test "$(sql wall.db "SELECT clock FROM runs")" = wall &&
	test "$(grep -c -- " -seed \| -rtc " argv-10.0.2)" = 1
'

test_expect_success KERNEL '--clock auto --cpus 2 under QEMU 8.0 is wall time, said once for an A/B' '
	rm -f argv-8.0.5 &&
	test_expect_code 2 "$LAB" ab --aa --db ab8.db --config qemu-8.0.5.conf --kernel "$KERNEL" \
		--workload boot --cpus 2 --accel tcg --boots 1 >out 2>err &&
	test "$(grep -c "wall time" err)" = 1 &&
	grep -qx "lab: QEMU 8.0.5 < 8.1 cannot run 2 vCPUs in virtual time: wall time" err &&
	test "$(sql ab8.db "SELECT group_concat(DISTINCT clock) FROM runs")" = wall &&
	! grep -q -- "-icount" argv-8.0.5
'

test_expect_success TCG '--clock auto --cpus 2 under QEMU 7.2 boots in wall time and says why' '
	rm -f argv-logged &&
	"$LAB" run --db auto.db --config logged.conf --kernel "$KERNEL" --workload boot \
		--mem 512M --cpus 2 --accel tcg --timeout 300 >out 2>err &&
	grep -qx "lab: QEMU 7.2.22 < 8.1 cannot run 2 vCPUs in virtual time: wall time" err &&
	test "$(sql auto.db "SELECT clock || \" \" || cpus || \" \" || accel || \" \" || status FROM runs")" = "wall 2 tcg OK" &&
	test "$(sql auto.db "SELECT count(*) FROM samples WHERE metric = \"to_init\"")" = 1 &&
	! grep -q -- "-icount" argv-logged
'

test_expect_success KERNEL '--clock auto --cpus 1 under QEMU 8.0 is still icount' '
	test_expect_code 1 "$LAB" run --db one8.db --config qemu-8.0.5.conf --kernel "$KERNEL" \
		--workload boot --cpus 1 --accel tcg >out 2>err &&
	! grep -q "wall time" err &&
	test "$(sql one8.db "SELECT clock || \" \" || cpus FROM runs")" = "icount shift=0 1"
'

test_expect_success TCG,QEMU_SPLITS_ICOUNT '--clock auto --cpus 2 under the system QEMU boots in virtual time' '
	"$LAB" run --db smp.db --kernel "$KERNEL" --workload boot --mem 512M --cpus 2 \
		--accel tcg --timeout 300 >out 2>err &&
	! grep -q "wall time" err &&
	test "$(sql smp.db "SELECT clock || \" \" || cpus || \" \" || status FROM runs")" = "icount shift=0 2 OK" &&
	test "$(sql smp.db "SELECT count(*) FROM samples WHERE metric = \"to_init\"")" = 1
'

test_done
