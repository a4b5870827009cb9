#!/bin/bash
# lab target list and lab target check: what a target lacks, in one line
# per target, asked of the real thing and nothing booted: an ssh host (a
# real sshd on a loopback address, this machine as the host) for its
# connection and host key, root, kexec-tools, room and arch; a qemu target
# for its binary and accelerator; a libvirt target for its connection.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib-sshd.sh"

sshd_start one 127.0.0.1 && P1=$SSHD_PORT &&
sshd_start two 127.0.0.2 && P2=$SSHD_PORT ||
	{ echo "1..0 # SKIP sshd does not start here: $(tail -1 "$TRASH"/*.log)"; exit 0; }
ARCH=$(uname -m)
OTHER=$([ "$ARCH" = aarch64 ] && echo x86_64 || echo aarch64)

# kexec-tools on the "host" or not: a kexec first in the PATH its key logs in with
mkdir -p kexec-bin && printf '#!/bin/sh\nexit 0\n' >kexec-bin/kexec && chmod +x kexec-bin/kexec
sshd_login_path "$TRASH/kexec-bin:/usr/bin:/bin"

# a QEMU without TCG, as a build for KVM only would be
cat >qemu-kvm-only <<'EOS'
#!/bin/sh
printf 'Accelerators supported in QEMU binary:\nkvm\n'
EOS
chmod +x qemu-kvm-only
ssh-keygen -q -t ed25519 -N "" -f other_key &&
echo "[127.0.0.2]:$P2 $(cut -d" " -f1,2 other_key.pub)" >wrong_known_hosts

{
	ssh_conf
	ssh_target arm1 root@127.0.0.1 $P1 "class = arm" "arch = $ARCH"
	ssh_target arm2 root@127.0.0.2 $P2 "class = arm"
	ssh_target armkey root@127.0.0.2 $P2 "knownHosts = $TRASH/wrong_known_hosts"
	ssh_target armother root@127.0.0.1 $P1 "arch = $OTHER"
	cat <<EOC
[target "vm"]
	runner = qemu
	accel = tcg
[target "vmkvm"]
	runner = qemu
	arch = $OTHER
	accel = kvm
[target "vmbin"]
	runner = qemu
	arch = $OTHER
[target "virt"]
	runner = libvirt
	uri = test:///default
[target "virtbad"]
	runner = libvirt
	uri = qemu+unix:///system?socket=$TRASH/no-libvirtd
[qemu "$OTHER"]
	binary = $TRASH/no-such-qemu
[qemu "$ARCH"]
	binary = $TRASH/qemu-kvm-only
EOC
} >lab.conf
export LAB_CONFIG=$PWD/lab.conf

test_expect_success 'lab target list: each target, its class, runner, arch and where' '
	"$LAB" target list >out &&
	cat out &&
	test "$(sed -n 1p out)" = "NAME      CLASS     RUNNER   ARCH     WHERE" &&
	test "$(sed -n 2p out)" = "arm1      arm       ssh      $ARCH   root@127.0.0.1:$P1" &&
	test "$(sed -n 6p out)" = "vm        vm        qemu     any      $TRASH/qemu-kvm-only, accel tcg" &&
	test "$(sed -n 9p out)" = "virt      virt      libvirt  any      test:///default" &&
	test "$(wc -l <out)" = 10
'

test_expect_success 'an ssh host with all it needs is ready, exit 0' '
	"$LAB" target check arm1 arm2 >wrapped &&
	cat wrapped &&
	within_columns wrapped && unwrapped wrapped >out &&
	grep "^target" out >targets &&
	test "$(cat targets)" = "$(printf "target '\''arm1'\'' (ssh, root@127.0.0.1:%s): ready\ntarget '\''arm2'\'' (ssh, root@127.0.0.2:%s): ready" $P1 $P2)"
'

test_expect_success 'under each ssh target: its firmware, and the device and drivers of its root and network' '
	"$LAB" target check arm1 >wrapped &&
	cat wrapped &&
	within_columns wrapped && unwrapped wrapped >out &&
	test "$(wc -l <out)" = 4 &&
	if test -d /sys/firmware/acpi/tables; then fw=ACPI; else fw="a device tree"; fi &&
	if test -d /sys/firmware/efi; then fw="UEFI with $fw, Secure Boot .*"; else fw="$fw, no UEFI"; fi &&
	grep -qx "  firmware: $fw; lockdown .*" out &&
	root=$(basename "$(readlink -f /sys/dev/block/$(mountpoint -d /))") &&
	grep -qx "  root: $(findmnt -no FSTYPE /) on $root.*" out &&
	nic=$(ip route show default | sed -n "s/.* dev \([^ ]*\).*/\1/p" | head -n 1) &&
	if test -n "$nic"; then
		grep -qx "  network: $nic (\(DHCP\|static\))\(, drivers .*\)\?" out
	else
		grep -qx "  network: no default route" out
	fi &&
	# each driver named is a module or a driver of this kernel
	for d in $(sed -n "s/^  [a-z]*: .*, drivers //p" out); do
		test -e "/sys/module/$d" || ls -d /sys/bus/*/drivers/"$d" >/dev/null || return 1
	done
'

test_expect_success 'the drivers of its root and network that the fragments would not build, by name' '
	"$LAB" target check arm1 >wrapped &&
	within_columns wrapped && unwrapped wrapped >plain &&
	sed -n "s/^  \(root\|network\): .*, drivers //p" plain | tr " " "\n" | LC_ALL=C sort -u >drivers &&
	echo "# builds nothing" >empty.config &&
	"$LAB" target check --fragment empty.config arm1 >wrapped &&
	cat wrapped &&
	within_columns wrapped && unwrapped wrapped >out &&
	! grep -q "^  built by" out &&
	# each driver in one of two lines: not built (with its options), or unknown to the lab
	sed -n "s/^  not built by empty.config: //p" out | sed "s/ (CONFIG_[A-Z0-9_ ]*)//g; s/, /\n/g" >named &&
	sed -n "s/^  drivers the lab knows no option of (check empty.config by hand): //p" out |
		tr " " "\n" >>named &&
	sed "/^\$/d" named | LC_ALL=C sort -u >named.sorted &&
	test "$(cat named.sorted)" = "$(cat drivers)" &&
	grep -q "^  not built by empty.config: \|^  drivers the lab knows no option of" out &&
	test_expect_code 2 "$LAB" target check --fragment nosuch.config arm1 >out 2>err &&
	test ! -s out &&
	expect_one_line_naming err "cannot read fragment .nosuch.config.: No such file or directory"
'

# a virtio machine's, as this one is in CI: each driver named, and the server fragment builds them all
test_lazy_prereq VIRTIO_HOST 'test "$(LC_ALL=C sort -u "$TRASH/drivers" | tr "\n" " ")" = "virtio-pci virtio_blk virtio_net "'
test_expect_success VIRTIO_HOST 'a virtio host: its drivers by name; the server fragment builds them; a later fragment overrides' '
	"$LAB" target check --fragment empty.config arm1 >wrapped &&
	within_columns wrapped && unwrapped wrapped >out &&
	grep -qx "  not built by empty.config: virtio_blk (CONFIG_VIRTIO_BLK), virtio-pci (CONFIG_VIRTIO_PCI), virtio_net (CONFIG_VIRTIO_NET)" out &&
	frag=$TOP/kernels/configs/arm64-server.config &&
	"$LAB" target check --fragment "$frag" arm1 >wrapped &&
	within_columns wrapped && unwrapped wrapped >out &&
	grep -qx "  built by arm64-server.config: virtio_blk virtio-pci virtio_net" out &&
	echo "# CONFIG_VIRTIO_NET is not set" >nonet.config &&
	"$LAB" target check --fragment "$frag" --fragment nonet.config arm1 >wrapped &&
	cat wrapped &&
	within_columns wrapped && unwrapped wrapped >out &&
	grep -qx "  not built by arm64-server.config, nonet.config: virtio_net (CONFIG_VIRTIO_NET)" out
'

test_expect_success 'a host without kexec-tools: exit 1, one line saying so' '
	sshd_login_path /usr/bin:/bin &&
	test_when_finished "sshd_login_path $TRASH/kexec-bin:/usr/bin:/bin" &&
	test_expect_code 1 "$LAB" target check arm2 >wrapped 2>err &&
	cat wrapped err &&
	within_columns wrapped && unwrapped wrapped >out &&
	test "$(grep "^target" out)" = "target '\''arm2'\'' (ssh, root@127.0.0.2:$P2): missing kexec-tools" &&
	test ! -s err
'

test_expect_success 'restore = kexec: whose kernel or initramfs the host lacks: named, as it cannot kexec back' '
	: >restore-Image &&
	ssh_conf "host = root@127.0.0.1" "port = $P1" >restore.conf &&
	cat >>restore.conf <<-EOC &&
	[target "back"]
		runner = ssh
		restore = kexec:$TRASH/restore-Image,/nonexistent/initrd.img
	[target "none"]
		runner = ssh
		restore = kexec:/nonexistent/Image
	[target "both"]
		runner = ssh
		restore = kexec:$TRASH/restore-Image
	EOC
	test_expect_code 1 "$LAB" target check --config restore.conf >wrapped 2>err &&
	cat wrapped err &&
	within_columns wrapped && unwrapped wrapped >out &&
	grep "^target" out >targets &&
	test "$(sed -n 1p targets)" = "target '\''back'\'' (ssh, root@127.0.0.1:$P1): missing the restore initramfs /nonexistent/initrd.img" &&
	test "$(sed -n 2p targets)" = "target '\''none'\'' (ssh, root@127.0.0.1:$P1): missing the restore kernel /nonexistent/Image" &&
	test "$(sed -n 3p targets)" = "target '\''both'\'' (ssh, root@127.0.0.1:$P1): ready"
'

# Three hosts emulated around real sshds, each in a mount namespace of its own:
# one whose kernel is locked down as Secure Boot locks it (its
# /sys/kernel/security/lockdown reading "none [integrity] confidentiality"),
# one whose root is a logical volume on a LUKS volume (the device-mapper
# devices under / as sysfs shows them: dm-2, LVM, on dm-1, CRYPT-LUKS2, on vda3),
# one whose default route goes out of a HiSilicon NIC (a Kunpeng server's:
# eth0's device driven by hns3, as sysfs shows it, and an ip that says so)
mkdir -p sys/dm-2/dm sys/dm-2/slaves sys/dm-1/dm sys/dm-1/slaves sys/vda/vda3 &&
echo LVM-Xq3y0d1N6c2LabT0280Vg0Root >sys/dm-2/dm/uuid && echo vg0-root >sys/dm-2/dm/name &&
echo CRYPT-LUKS2-6b1b2a5e7c554f379a0e3f1c2d4e5f60-luks-root >sys/dm-1/dm/uuid &&
echo luks-root >sys/dm-1/dm/name &&
ln -s ../../dm-1 sys/dm-2/slaves/dm-1 && ln -s ../../vda/vda3 sys/dm-1/slaves/vda3 &&
mkdir -p sys/pci/0000:7d:00.0 sys/bus/pci/drivers/hns3 sys/module/hns3 hns-bin &&
ln -s ../../../module/hns3 sys/bus/pci/drivers/hns3/module &&
ln -s ../../bus/pci/drivers/hns3 sys/pci/0000:7d:00.0/driver &&
cp kexec-bin/kexec hns-bin/ && cat >hns-bin/ip <<'EOS' && chmod +x hns-bin/ip || exit 1
#!/bin/sh
case "$*" in
"route show default") echo "default via 10.0.0.1 dev eth0 proto dhcp src 10.0.0.5 metric 100" ;;
"-4 -o addr show dev eth0") echo "2: eth0    inet 10.0.0.5/24 brd 10.0.0.255 scope global dynamic eth0" ;;
esac
EOS
SSHD_SETUP="mount -t tmpfs none /sys/kernel/security &&
	echo 'none [integrity] confidentiality' >/sys/kernel/security/lockdown" \
	sshd_start locked 127.0.0.3 && P3=$SSHD_PORT &&
SSHD_SETUP="mount -t tmpfs none /sys/dev/block && ln -s $TRASH/sys/dm-2 /sys/dev/block/\$(mountpoint -d /)" \
	sshd_start crypt 127.0.0.4 && P4=$SSHD_PORT &&
SSHD_SETUP="mount --bind $TRASH/hns-bin $TRASH/kexec-bin && mount -t tmpfs none /sys/class/net &&
	mkdir /sys/class/net/eth0 && ln -s $TRASH/sys/pci/0000:7d:00.0 /sys/class/net/eth0/device" \
	sshd_start hns 127.0.0.5 && P5=$SSHD_PORT || exit 1
{
	ssh_conf
	ssh_target locked root@127.0.0.3 $P3
	ssh_target crypt root@127.0.0.4 $P4
	ssh_target hns root@127.0.0.5 $P5
} >emulated.conf

test_expect_success 'a kernel locked down (Secure Boot): kexec_load refused, said with the mode; no boot sent' '
	test_expect_code 1 "$LAB" target check --config emulated.conf locked >wrapped 2>err &&
	cat wrapped err &&
	within_columns wrapped && unwrapped wrapped >out &&
	test "$(sed -n 1p out)" = "target '\''locked'\'' (ssh, root@127.0.0.3:$P3): missing kexec_load outside lockdown (lockdown is integrity: kexec_load is refused)" &&
	grep -qx "  firmware: .*; lockdown integrity" out &&
	test_expect_code 2 "$LAB" run --config emulated.conf --db lab.db --target locked \
		--kernel "$(debian_kernel)" --workload zeroing 2>err &&
	expect_one_line_naming err "host .root@127.0.0.3. cannot be used: missing kexec_load outside lockdown (lockdown is integrity: kexec_load is refused)$" &&
	{ test ! -e lab.db || test "$(sql lab.db "SELECT count(*) FROM runs")" = 0; }
'

test_expect_success 'a root on LUKS, under its logical volume: refused, naming the crypt volume; no boot sent' '
	test_expect_code 1 "$LAB" target check --config emulated.conf crypt >wrapped 2>err &&
	cat wrapped err &&
	within_columns wrapped && unwrapped wrapped >out &&
	test "$(sed -n 1p out)" = "target '\''crypt'\'' (ssh, root@127.0.0.4:$P4): missing a root without dm-crypt (its root is on dm-crypt volume luks-root, which the lab'\''s initramfs cannot unlock)" &&
	grep -q "^  root: .* on dm-2 (LVM volume vg0-root on dm-1" out &&
	test_expect_code 2 "$LAB" run --config emulated.conf --db lab.db --target crypt \
		--kernel "$(debian_kernel)" --workload zeroing 2>err &&
	expect_one_line_naming err "host .root@127.0.0.4. cannot be used: missing a root without dm-crypt (its root is on dm-crypt volume luks-root, "
'

test_expect_success 'a HiSilicon NIC: hns3, which the server fragment builds (CONFIG_HNS3 and its parts)' '
	"$LAB" target check --config emulated.conf --fragment "$TOP/kernels/configs/arm64-server.config" \
		hns >wrapped 2>err &&
	cat wrapped err &&
	within_columns wrapped && unwrapped wrapped >out &&
	grep -qx "  network: eth0 (DHCP), drivers hns3" out &&
	grep -q "^  built by arm64-server.config: .*hns3" out &&
	! grep -q "hns3 (CONFIG" out &&
	"$LAB" target check --config emulated.conf --fragment empty.config hns >wrapped &&
	within_columns wrapped && unwrapped wrapped >out &&
	grep -q "^  not built by empty.config: .*hns3 (CONFIG_HNS3 CONFIG_HNS3_HCLGE CONFIG_HNS3_ENET)" out
'

test_expect_success 'a host key not accepted, a host of another arch, a host that refuses' '
	test_expect_code 1 "$LAB" target check armkey armother >wrapped &&
	cat wrapped &&
	within_columns wrapped && unwrapped wrapped >out &&
	grep -q "^target .armkey. (ssh, root@127.0.0.2:$P2): missing an ssh connection (host key of .root@127.0.0.2. not accepted (checked against $TRASH/wrong_known_hosts): " out &&
	grep -qx "target .armother. (ssh, root@127.0.0.1:$P1): missing arch $OTHER (the host is $ARCH)" out &&
	sshd_stop two &&
	test_when_finished "sshd_start two 127.0.0.2 $P2" &&
	test_expect_code 1 "$LAB" target check arm2 >wrapped &&
	cat wrapped &&
	within_columns wrapped && unwrapped wrapped >out &&
	grep -q "^target .arm2. (ssh, root@127.0.0.2:$P2): missing an ssh connection (cannot reach host .root@127.0.0.2.: .*Connection refused)$" out
'

test_expect_success 'qemu: a binary that is not there, kvm for another arch, a binary without tcg' '
	test_expect_code 1 "$LAB" target check vm vmkvm vmbin >wrapped 2>err &&
	cat wrapped err &&
	within_columns wrapped && unwrapped wrapped >out &&
	test ! -s err &&
	grep -qx "target .vm. (qemu, $TRASH/qemu-kvm-only, accel tcg): missing accel tcg in .$TRASH/qemu-kvm-only." out &&
	grep -qx "target .vmkvm. (qemu, $TRASH/no-such-qemu, accel kvm): missing the QEMU binary .$TRASH/no-such-qemu. for $OTHER (qemu.$OTHER.binary; Debian.s qemu-system-[a-z0-9]*), kvm for $OTHER guests (this machine is $ARCH)" out &&
	grep -qx "target .vmbin. (qemu, $TRASH/no-such-qemu, accel auto): missing the QEMU binary .$TRASH/no-such-qemu. for $OTHER .*" out
'

test_lazy_prereq KVM_OPENS 'test -r /dev/kvm && test -w /dev/kvm'
test_expect_success KVM_OPENS 'qemu: kvm that opens is ready (kvm noted unusable: t0215)' '
	printf "[target \"k\"]\n\trunner = qemu\n\taccel = kvm\n[core]\n\tstate = %s/state\n" "$TRASH" >kvm.conf &&
	"$LAB" target check --config kvm.conf >wrapped &&
	within_columns wrapped && unwrapped wrapped >out &&
	grep -qx "target .k. (qemu, qemu-system-$ARCH, accel kvm): ready" out
'

test_expect_success 'libvirt: a connection that opens is ready, one that does not is missing' '
	"$LAB" target check virt >wrapped &&
	within_columns wrapped && unwrapped wrapped >out &&
	test "$(cat out)" = "target '\''virt'\'' (libvirt, test:///default): ready" &&
	test_expect_code 1 "$LAB" target check virtbad >wrapped &&
	cat wrapped &&
	within_columns wrapped && unwrapped wrapped >out &&
	grep -q "^target .virtbad. (libvirt, .*): missing a libvirt connection to .qemu+unix:///system?socket=$TRASH/no-libvirtd. (.*)$" out
'

test_expect_success 'every target without a name; a bad name checks none, exit 2' '
	test_expect_code 1 "$LAB" target check >wrapped &&
	cat wrapped &&
	within_columns wrapped && unwrapped wrapped >out &&
	test "$(grep -c "^target" out)" = 9 &&
	test "$(grep -c ": ready$" out)" = 3 &&
	test_expect_code 2 "$LAB" target check arm1 nosuch >out 2>err &&
	test ! -s out &&
	expect_one_line_naming err "unknown target .nosuch. (known: arm1, arm2, armkey, armother, vm, vmkvm, vmbin, virt, virtbad)" &&
	test_expect_code 2 "$LAB" target frob 2>err &&
	expect_one_line_naming err "lab target. takes list or check, not .frob." &&
	test_expect_code 2 "$LAB" target list --fragment x.config 2>err &&
	expect_one_line_naming err "fragment is for .lab target check., not .lab target list." &&
	printf "[run]\n\tmem = 1G\n" >none.conf &&
	test_expect_code 2 "$LAB" target list --config none.conf 2>err &&
	expect_one_line_naming err "no target in none.conf: add \[target \"NAME\"\] sections"
'

test_done
