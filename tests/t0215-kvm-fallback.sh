#!/bin/bash
# accel = auto: the accelerator is settled once, before the first boot. A KVM
# start that ends or stays silent before the kernel prints means TCG, for every
# boot of the experiment, and a note spares the next lab the probe. On a host
# without /dev/kvm the lab runs with a fake one (lib-fakekvm.sh).
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib-fakekvm.sh"

KERNEL=$(debian_kernel)

# QEMU as it dies on some AMD hosts under KVM; any other start is the real one.
cat >qemu-kvm-aborts <<'SH'
#!/bin/sh
case " $* " in
*" -accel kvm "*)
	echo "qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69" >&2
	echo "qemu-system-x86_64: ../../target/i386/kvm/kvm.c:3114: kvm_buf_set_msrs: Assertion failed." >&2
	kill -ABRT $$ ;;
esac
exec qemu-system-x86_64 "$@"
SH
chmod +x qemu-kvm-aborts
printf '[qemu "x86_64"]\n\tbinary = %s/qemu-kvm-aborts\n[qemu]\n\taccel = auto\n' "$PWD" >aborts.conf

test_expect_success FAKEKVM,TCG 'KVM aborting at start is redone under TCG, not a boot failure' '
	fake_kvm "$LAB" run --config aborts.conf --db lab.db --kernel "$KERNEL" --workload boot \
		--mem 512M --iters 2 --timeout 240 >out 2>err &&
	cat err &&
	grep -qx "lab: warning: kvm is unusable here (qemu stopped the guest under kvm: qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69): using tcg" err &&
	test "$(sql lab.db "SELECT status || accel FROM runs")" = OKtcg &&
	grep -qx "kvm unusable: qemu stopped the guest under kvm: qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69: using tcg" cache/kvm-hangs
'

test_expect_success FAKEKVM,TCG 'the note spares the next lab the probe' '
	fake_kvm "$LAB" run --config aborts.conf --db lab.db --kernel "$KERNEL" --workload boot \
		--mem 512M --iters 2 --timeout 240 >out 2>err &&
	! grep -q "kvm is unusable" err &&
	test "$(sql lab.db "SELECT status || accel FROM runs WHERE id = 2")" = OKtcg
'

test_expect_success FAKEKVM,TCG 'an A/B on auto uses one accelerator for every boot and is not refused' '
	rm -f cache/kvm-hangs &&
	fake_kvm "$LAB" ab --aa --config aborts.conf --db lab.db --kernel "$KERNEL" --workload boot \
		--mem 512M --iters 2 --boots 2 --timeout 240 >out 2>err &&
	cat out &&
	test "$(grep -c "kvm is unusable" err)" = 1 &&
	test "$(sql lab.db "SELECT DISTINCT accel FROM runs WHERE experiment_id = 1")" = tcg &&
	test "$(sql lab.db "SELECT count(*) FROM runs WHERE experiment_id = 1 AND status = '\''OK'\''")" = 4 &&
	test "$(sql lab.db "SELECT status FROM experiments WHERE id = 1")" = DONE
'

test_done
