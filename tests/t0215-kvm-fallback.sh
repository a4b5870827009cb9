#!/bin/bash
# accel = auto: the accelerator is settled once, before the first boot. A KVM
# start that ends or stays silent before the kernel prints means TCG, for every
# boot of the experiment. The verdict, either way, is noted with its reason for
# the host as it is (its kernel, /dev/kvm, QEMU): the next lab is spared the
# probe until one of them changes, and a probe is announced before it starts.
# On a host without /dev/kvm the lab runs with a fake one (lib-fakekvm.sh).
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
	test "$(head -n 1 err)" = "lab: probing kvm (up to 20 s, once per host kernel)" &&
	unwrapped err | grep -qx "lab: warning: kvm is unusable here (qemu stopped the guest under kvm: qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69): using tcg" &&
	test "$(sql lab.db "SELECT status || accel FROM runs")" = OKtcg &&
	test "$(sed -n 2p cache/kvm-verdict)" = "kvm unusable: qemu stopped the guest under kvm: qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69: using tcg" &&
	key=$(sed -n 1p cache/kvm-verdict) &&
	case "$key" in
	"key host=$(hostname) cpu="*" release=$(uname -r) build=$(uname -v | tr " " .) kvm="*"@1700000000 qemu=QEMU.emulator.version.$(qemu-system-x86_64 --version | sed -n "1s/^QEMU emulator version //p" | tr " " .)") ;;
	*) echo "bad key: $key"; false ;;
	esac
'

test_expect_success FAKEKVM,TCG 'the note spares the next lab the probe, and its announcement' '
	fake_kvm "$LAB" run --config aborts.conf --db lab.db --kernel "$KERNEL" --workload boot \
		--mem 512M --iters 2 --timeout 240 >out 2>err &&
	! grep -q "kvm" err &&
	test "$(sql lab.db "SELECT status || accel FROM runs WHERE id = 2")" = OKtcg
'

test_expect_success FAKEKVM 'a target of accel kvm is missing kvm while the note says it fails' '
	printf "[target \"k\"]\n\trunner = qemu\n\taccel = kvm\n[core]\n\tstate = %s\n" "$TRASH" >k.conf &&
	test_expect_code 1 fake_kvm "$LAB" target check --config k.conf >wrapped &&
	within_columns wrapped && unwrapped wrapped >out &&
	grep -qx "target .k. (qemu, qemu-system-x86_64, accel kvm): missing kvm that works ($TRASH/cache/kvm-verdict says it did not on this host kernel: qemu stopped the guest under kvm: qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69)" out
'

test_expect_success FAKEKVM,TCG 'a note of another host kernel or another /dev/kvm is probed again' '
	sed "1s/ release=[^ ]* / release=0.0.0-other /" cache/kvm-verdict >other &&
	mv other cache/kvm-verdict &&
	fake_kvm "$LAB" run --config aborts.conf --db lab.db --kernel "$KERNEL" --workload boot \
		--mem 512M --iters 1 --timeout 240 >out 2>err &&
	test "$(grep -c "^lab: probing kvm (up to 20 s, once per host kernel)$" err)" = 1 &&
	grep -q " release=$(uname -r) " cache/kvm-verdict &&
	FAKEKVM_MTIME=1700000600 fake_kvm "$LAB" run --config aborts.conf --db lab.db \
		--kernel "$KERNEL" --workload boot --mem 512M --iters 1 --timeout 240 >out 2>err &&
	test "$(grep -c "^lab: probing kvm" err)" = 1 &&
	grep -q "@1700000600 " cache/kvm-verdict &&
	test "$(sql lab.db "SELECT group_concat(status || accel) FROM runs WHERE id > 2")" = OKtcg,OKtcg
'

# QEMU where KVM works: its KVM starts are TCG's (the fake /dev/kvm runs nothing).
cat >qemu-kvm-works <<SH
#!/bin/sh
case " \$* " in *" -accel kvm "*) echo probe >>$TRASH/kvm.calls ;; esac
for a; do
	shift
	case \$a in kvm) a=tcg ;; host) a=max ;; esac
	set -- "\$@" "\$a"
done
exec qemu-system-x86_64 "\$@"
SH
chmod +x qemu-kvm-works
printf '[qemu "x86_64"]\n\tbinary = %s/qemu-kvm-works\n[qemu]\n\taccel = auto\n[core]\n\tstate = %s/works\n' \
	"$PWD" "$PWD" >works.conf

test_expect_success FAKEKVM,TCG 'KVM that works is noted too: the next lab neither probes nor says so' '
	fake_kvm "$LAB" run --config works.conf --db works.db --kernel "$KERNEL" --workload boot \
		--mem 512M --iters 1 --timeout 240 >out 2>err &&
	grep -qx "lab: probing kvm (up to 20 s, once per host kernel)" err &&
	test "$(sed -n 2p works/cache/kvm-verdict)" = "kvm usable: the kernel printed under kvm" &&
	fake_kvm "$LAB" run --config works.conf --db works.db --kernel "$KERNEL" --workload boot \
		--mem 512M --iters 1 --timeout 240 >out 2>err &&
	! grep -q "probing kvm" err &&
	test "$(sql works.db "SELECT group_concat(status || accel) FROM runs")" = OKkvm,OKkvm &&
	# the probe, then one boot each: the second lab probed nothing
	test "$(wc -l <kvm.calls)" = 3
'

test_expect_success FAKEKVM,TCG 'an A/B on auto uses one accelerator for every boot and is not refused' '
	rm -f cache/kvm-verdict &&
	fake_kvm "$LAB" ab --aa --config aborts.conf --db lab.db --kernel "$KERNEL" --workload boot \
		--mem 512M --iters 2 --boots 2 --timeout 240 >out 2>err &&
	cat out &&
	test "$(grep -c "kvm is unusable" err)" = 1 &&
	test "$(sql lab.db "SELECT DISTINCT accel FROM runs WHERE experiment_id = 1")" = tcg &&
	test "$(sql lab.db "SELECT count(*) FROM runs WHERE experiment_id = 1 AND status = '\''OK'\''")" = 4 &&
	test "$(sql lab.db "SELECT status FROM experiments WHERE id = 1")" = DONE
'

test_done
