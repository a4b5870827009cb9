#!/bin/bash
# The ssh runner on a real arm64 host, target arm1 of lab.conf: Debian
# bookworm under qemu-system-aarch64 (TCG) booted by UEFI firmware with
# ACPI, made once by make-host.sh and cached. lab target check finds
# nothing missing; the fixture kernel, cross-built with the server fragment
# (kernels/configs/arm64-server.config) and its virtio disk and NIC drivers
# as modules (modular.config), is kexec'd there with the lab's initramfs
# (the modules loaded, its root found by UUID, then the host's own systemd and
# network), measured, checked to be the image built, and the host goes
# back to its default kernel; a kernel that does not boot (Debian's own,
# whose virtio is modular) is BOOT_FAILED by what the target's console
# showed the lab, and the reset brings the host back; a host back in
# another kernel is INFRA. Each stage's seconds are printed.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/remote/lib-remote.sh"
lab() { "$LAB" "$1" --config "$TRASH/lab.conf" --db "$DB" "${@:2}"; }
# how long each case took, for the record
stage=$(date +%s)
took() { echo "# $1: $(( $(date +%s) - stage )) s"; stage=$(date +%s); }

test_expect_success 'lab target check: the host lacks nothing, and booted as a server does' '
	lab target check arm1 >wrapped &&
	cat wrapped &&
	within_columns wrapped && unwrapped wrapped >out &&
	test "$(sed -n 1p out)" = "target '\''arm1'\'' (ssh, root@127.0.0.1:$PORT): ready" &&
	# UEFI firmware with ACPI, not a device tree; its root by UUID; its network by DHCP
	grep -qx "  firmware: UEFI with ACPI, Secure Boot \(off\|unknown\); lockdown none" out &&
	grep -qx "  root: ext4 on vda (by UUID), drivers virtio_blk virtio_pci" out &&
	grep -qx "  network: e[a-z0-9]* (DHCP), drivers virtio_net virtio_pci" out
'
took "target check"
meta() { # RUN KEY
	sql "$DB" "SELECT value FROM run_meta WHERE run_id = $1 AND key = '$2'"
}

test_expect_success 'without a kernel: the arm64 guest program on the host'\''s own kernel' '
	lab run --target arm1 --workload zeroing --iters 3 --param zeroing_mb=16 >out 2>err &&
	cat out err &&
	id=$(sql "$DB" "SELECT max(id) FROM runs") &&
	test "$(sql "$DB" "SELECT status FROM runs WHERE id = $id")" = OK &&
	test "$(sql "$DB" "SELECT count(*) FROM samples WHERE run_id = $id AND metric = \"touch\"")" = 3 &&
	test "$(meta $id kernel.release)" = "$DEFAULT" &&
	test "$(meta $id guest.arch)" = aarch64
'
took "zeroing on the host's kernel"

test_expect_success 'a kernel that panics: BOOT_FAILED with its console'\''s panic line, the reset run, the host back' '
	# Debian'\''s own image has virtio as modules, which the lab'\''s initramfs does not carry
	sed "s/deadline = 400/deadline = 90/" "$TRASH/lab.conf" >short.conf &&
	test_expect_code 1 "$LAB" run --config short.conf --db "$DB" --target arm1 \
		--kernel "$IMG/vmlinuz" --workload zeroing --iters 1 >out 2>err &&
	id=$(sql "$DB" "SELECT max(id) FROM runs") &&
	test "$(sql "$DB" "SELECT status FROM runs WHERE id = $id")" = BOOT_FAILED &&
	sql "$DB" "SELECT error FROM runs WHERE id = $id" >error && cat error &&
	grep -q "^kernel failed: lab-rootinit: no block device is root=UUID=[0-9a-f-]* (seen: .*), then .*Kernel panic - not syncing: .*(host .root@127.0.0.1. did not come back within 90s of kexec)$" error &&
	# the lab read it through the target'\''s console: the run'\''s own log has the kernel'\''s boot
	log=$(sql "$DB" "SELECT console_log FROM runs WHERE id = $id") &&
	grep -q "Linux version" "$log" && grep -q "^lab-rootinit: no block device is root=UUID=" "$log" &&
	test "$(meta $id ssh.reset)" = "exit 0" &&
	for _ in $(seq 400); do hssh true 2>/dev/null && break; sleep 1; done &&
	test "$(hssh uname -r)" = "$DEFAULT"
'
took "a kernel that does not boot, the reset, the host back"

test_expect_success 'the fixture kernel builds for arm64 with the host fragment, its disk and NIC as modules' '
	lab build --repo "$FIXTURE" --arch aarch64 --fragment "$FRAG" --fragment "$MODULAR" \
		fixture-base >path 2>err && cat err &&
	test -s "$(cat path)" &&
	mods=$(dirname "$(cat path)")/modules/lib/modules &&
	test -s "$mods"/*/modules.dep &&
	test -s "$mods"/*/kernel/drivers/block/virtio_blk.ko &&
	test -s "$mods"/*/kernel/drivers/net/virtio_net.ko
'
took "the arm64 fixture kernel (built or cached)"

test_expect_success 'a kexec boot stores zeroing and boot samples, and the host is back in its default kernel' '
	lab run --target arm1 --kernel "$(cat path)" --workload zeroing,boot --iters 5 \
		--param zeroing_mb=16 >out 2>err &&
	cat out err &&
	id=$(sql "$DB" "SELECT max(id) FROM runs") &&
	test "$(sql "$DB" "SELECT status || \" \" || runner FROM runs WHERE id = $id")" = "OK ssh" &&
	test "$(sql "$DB" "SELECT target || \" \" || class FROM run_targets WHERE run_id = $id")" = "arm1 arm" &&
	test "$(sql "$DB" "SELECT count(*) FROM samples WHERE run_id = $id AND metric = \"touch\"")" = 5 &&
	test "$(sql "$DB" "SELECT count(*) FROM samples WHERE run_id = $id AND metric = \"to_init\"")" = 1 &&
	# the kernel measured is the image the lab built: its own banner, release and build
	LC_ALL=C grep -a -m1 -o "Linux version [0-9][^%]* #[0-9].*" "$(cat path)" >banner &&
	test "$(meta $id ssh.kernel)" = "$(cat banner)" &&
	meta $id ssh.kernel >kernel && ! grep -q "$DEFAULT" kernel &&
	test "$(meta $id kernel.release)" != "$DEFAULT" &&
	test "$(meta $id ssh.restore)" = reboot &&
	test "$(hssh uname -r)" = "$DEFAULT" &&
	! hssh grep -q lab.nonce /proc/cmdline &&
	# the lab'\''s kernel came up as the host had: ACPI from the UEFI firmware, the root
	# the lab'\''s initramfs found by UUID, the host'\''s own systemd and its DHCP network
	log=$(sql "$DB" "SELECT console_log FROM runs WHERE id = $id") &&
	grep -q "ACPI: RSDP" "$log" && grep -q "efi: EFI v" "$log" &&
	# its disk and NIC drivers, modules, loaded from the lab'\''s initramfs
	grep -q "^lab-rootinit: loaded \([2-9]\|[1-9][0-9]\+\) modules of the build" "$log" &&
	! grep -q "^lab-rootinit: cannot load module .*/virtio_" "$log" &&
	grep -q "^lab-rootinit: root=UUID=[0-9a-f-]* is /dev/vda, mounted rw; starting /sbin/init" "$log" &&
	grep -q "Welcome to .*Debian" "$log"
'
took "a kexec boot, measured, and the restore"

test_expect_success 'a host that comes back in another kernel than the one sent: INFRA, nothing measured' '
	# a kexec that loads nothing and reboots through firmware: the default kernel comes back
	hssh "cat >/usr/local/sbin/kexec && chmod 755 /usr/local/sbin/kexec" <<-\EOS &&
	#!/bin/sh
	case $1 in -e) exec systemctl reboot ;; esac
	exit 0
	EOS
	test_when_finished "hssh rm -f /usr/local/sbin/kexec" &&
	test_expect_code 1 lab run --target arm1 --kernel "$(cat path)" --workload zeroing --iters 1 \
		--param zeroing_mb=16 >out 2>err &&
	id=$(sql "$DB" "SELECT max(id) FROM runs") &&
	test "$(sql "$DB" "SELECT status FROM runs WHERE id = $id")" = INFRA &&
	sql "$DB" "SELECT error FROM runs WHERE id = $id" >error && cat error &&
	grep -q "came back in another kernel than the one sent: Linux version $DEFAULT " error &&
	test "$(sql "$DB" "SELECT count(*) FROM samples WHERE run_id = $id")" = 0 &&
	test "$(hssh uname -r)" = "$DEFAULT"
'
took "a host back in another kernel"

test_done
