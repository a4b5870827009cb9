#!/bin/bash
# KVM that fails after the kernel printed (a nested host whose KVM cannot
# emulate an xrstor): QEMU says "KVM internal error", stops the guest and
# waits. The boot ends at once as INFRA; under accel auto it is booted
# again under TCG, and KVM is noted unusable for the next labs. A guest
# QEMU refuses (its memory, its CPUs) is refused before anything is stored,
# and is never taken for KVM failing.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib-fakekvm.sh"

KERNEL=$(debian_kernel)

# QEMU as on that host: under KVM the kernel's first lines, a moment later
# QEMU's own words on stderr, and a wait for a monitor that is not there. The size
# check (a kernel that does not exist) and every TCG start are the real
# QEMU's; so is a start whose command line asks the fake to refuse, under
# either accelerator, as QEMU refusing an option would. A command line with
# lab.fake=tcg-panic panics under TCG too, as a kernel bug would.
cat >qemu-nested <<SH
#!/bin/sh
echo "\$*" >>$TRASH/qemu.calls
case " \$* " in
*" lab.fake=refuse"*)
	echo "qemu-system-x86_64: -append: this qemu refuses the guest" >&2
	exit 1 ;;
*" -accel tcg "*" lab.fake=tcg-panic"*|*" lab.fake=tcg-panic"*" -accel tcg "*)
	# a kernel that fails under either accelerator: a bug of its own
	echo "Linux version 6.1.0-nested (lab@build) #1 SMP PREEMPT_DYNAMIC"
	echo "Kernel panic - not syncing: Attempted to kill init! exitcode=0x0000000b"
	exit 0 ;;
*" -kernel /nonexistent/"*)
	for a; do
		shift
		case \$a in kvm) a=tcg ;; host) a=max ;; esac
		set -- "\$@" "\$a"
	done ;;
*" -accel kvm "*)
	echo "Linux version 6.1.0-nested (lab@build) #1 SMP PREEMPT_DYNAMIC"
	echo "x86/fpu: Supporting XSAVE feature 0x001: 'x87 floating point registers'"
	# later than a probe that stops at the first line waits
	sleep 1
	{
		echo "KVM internal error. Suberror: 1"
		echo "extra data[0]: 0x0000000000000000"
		echo "extra data[1]: 0x0000000000000030"
		echo "emulation failure"
		echo "RAX=0000000000000007 RBX=ffffffff82a03e80 RCX=0000000000000000 RDX=0000000000000000"
		echo "Code=48 c7 c0 ff ff ff ff 48 89 c2 48 c1 ea 20 <48> 0f ae 2f 5d c3 cc cc cc"
	} >&2
	exec sleep 300 ;;
esac
exec qemu-system-x86_64 "\$@"
SH
chmod +x qemu-nested
printf '[qemu "x86_64"]\n\tbinary = %s/qemu-nested\n[qemu]\n\taccel = auto\n[core]\n\tstate = %s/state\n' \
	"$TRASH" "$TRASH" >nested.conf
NOTE=$TRASH/state/cache/kvm-verdict

# kvm_boots: how many starts of the fake were boots under KVM (not the size check)
kvm_boots() {
	grep -- "-accel kvm" qemu.calls | grep -vc -- "-kernel /nonexistent/"
}

test_expect_success FAKEKVM,TCG 'KVM internal error after the kernel printed: the boot ends at once, again under TCG' '
	start=$(date +%s) &&
	fake_kvm "$LAB" run --config nested.conf --db lab.db --kernel "$KERNEL" --workload boot \
		--mem 512M --timeout 150 >out 2>err &&
	end=$(date +%s) &&
	cat err &&
	test $((end - start)) -lt 150 &&
	unwrapped err | grep -qx "lab: warning: qemu stopped the guest under kvm: KVM internal error. Suberror: 1: booting again under tcg" &&
	test "$(sql lab.db "SELECT status || accel FROM runs")" = OKtcg &&
	test "$(sql lab.db "SELECT value FROM run_meta WHERE run_id = 1 AND key = '\''qemu.kvm_failed'\''")" = \
		"qemu stopped the guest under kvm: KVM internal error. Suberror: 1" &&
	grep -qx "\[lab: kvm failed; the boot again under tcg\]" "$(sql lab.db "SELECT console_log FROM runs WHERE id = 1")" &&
	test "$(kvm_boots)" = 2
'

test_expect_success FAKEKVM,TCG 'the note says KVM is unusable, and the next lab does not try it' '
	grep -qx "kvm unusable: qemu stopped the guest under kvm: KVM internal error. Suberror: 1: using tcg" "$NOTE" &&
	: >qemu.calls &&
	fake_kvm "$LAB" run --config nested.conf --db lab.db --kernel "$KERNEL" --workload boot \
		--mem 512M --timeout 150 >out 2>err &&
	! grep -q "kvm" err &&
	test "$(kvm_boots)" = 0 &&
	test "$(sql lab.db "SELECT status || accel FROM runs WHERE id = 2")" = OKtcg
'

test_expect_success FAKEKVM,TCG '--accel kvm asked for KVM: INFRA with QEMU'\''s words, no TCG boot, nothing noted' '
	rm -f "$NOTE" && : >qemu.calls &&
	start=$(date +%s) &&
	test_expect_code 1 fake_kvm "$LAB" run --config nested.conf --db lab.db --kernel "$KERNEL" \
		--workload boot --mem 512M --accel kvm --timeout 150 >out 2>err &&
	end=$(date +%s) &&
	cat err &&
	test $((end - start)) -lt 30 &&
	test "$(sql lab.db "SELECT status || accel FROM runs WHERE id = 3")" = INFRAkvm &&
	test "$(sql lab.db "SELECT error FROM runs WHERE id = 3")" = \
		"qemu stopped the guest under kvm: KVM internal error. Suberror: 1" &&
	! grep -q -- "-accel tcg" qemu.calls &&
	! test -e "$NOTE"
'

test_expect_success FAKEKVM,TCG '--mem 16T is refused in QEMU'\''s words before any boot, KVM not blamed' '
	: >qemu.calls &&
	test_expect_code 2 fake_kvm "$LAB" run --config nested.conf --db lab.db --kernel "$KERNEL" \
		--workload boot --mem 16T >out 2>err &&
	cat err &&
	test "$(unwrapped err)" = "lab: qemu refuses a guest of 16777216M and 1 CPU (accel tcg): qemu-system-x86_64: Address space limit 0xffffffffff < 0x10ffbfffffff phys-bits too low (40)" &&
	test "$(sql lab.db "SELECT count(*) FROM runs")" = 3 &&
	test "$(kvm_boots)" = 0 &&
	! test -e "$NOTE"
'

test_expect_success FAKEKVM,TCG 'an A/B of a guest QEMU refuses leaves no experiment RUNNING' '
	test_expect_code 2 fake_kvm "$LAB" ab --aa --config nested.conf --db lab.db --kernel "$KERNEL" \
		--workload boot --cpus 1024 --boots 2 >out 2>err &&
	cat err &&
	expect_one_line_naming err "^lab: qemu refuses a guest of 2048M and 1024 CPUs (accel tcg): qemu-system-x86_64: Invalid SMP CPUs 1024. The max CPUs supported by machine .pc-i440fx-[0-9.]*. is 255$" &&
	test "$(sql lab.db "SELECT count(*) FROM experiments")" = 0 &&
	"$LAB" list --db lab.db >list &&
	! grep -q RUNNING list &&
	! test -e "$NOTE"
'

test_expect_success FAKEKVM,TCG 'a start that fails under TCG too is not noted as KVM failing' '
	: >qemu.calls &&
	test_expect_code 1 fake_kvm "$LAB" run --config nested.conf --db lab.db --kernel "$KERNEL" \
		--workload boot --mem 512M --cmdline lab.fake=refuse --timeout 60 >out 2>err &&
	cat err &&
	unwrapped err | grep -q "kvm did not start this guest (qemu ended before the kernel printed: qemu-system-x86_64: -append: this qemu refuses the guest), nor did tcg (qemu ended before the kernel printed: .*): using tcg, kvm not noted as unusable" &&
	test "$(sql lab.db "SELECT status || accel FROM runs WHERE id = 4")" = INFRAtcg &&
	! test -e "$NOTE"
'

test_expect_success FAKEKVM,TCG 'KVM internal error, then the boot fails under TCG too: its outcome is TCG'\''s, KVM not noted' '
	rm -f "$NOTE" && : >qemu.calls &&
	test_expect_code 1 fake_kvm "$LAB" run --config nested.conf --db lab.db --kernel "$KERNEL" \
		--workload boot --mem 512M --cmdline lab.fake=tcg-panic --timeout 60 >out 2>err &&
	cat err &&
	unwrapped err | grep -qx "lab: warning: qemu stopped the guest under kvm: KVM internal error. Suberror: 1: booting again under tcg" &&
	grep -qx "lab: warning: the boot under tcg ended BOOT_FAILED too: kvm not noted as unusable" err &&
	test "$(sql lab.db "SELECT status || accel FROM runs WHERE id = 5")" = BOOT_FAILEDtcg &&
	test "$(sql lab.db "SELECT value FROM run_meta WHERE run_id = 5 AND key = '\''qemu.kvm_failed'\''")" = \
		"qemu stopped the guest under kvm: KVM internal error. Suberror: 1" &&
	test "$(kvm_boots)" = 2 &&
	# the probe saw the kernel print under KVM: the failure after it is none of KVM
	test "$(sed -n 2p "$NOTE")" = "kvm usable: the kernel printed under kvm"
'

test_done
