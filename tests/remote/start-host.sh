#!/bin/bash
# Start the remote test host made by make-host.sh: QEMU (TCG, one vCPU) with
# the cached disk as a snapshot (nothing written to it survives), ssh on a
# loopback port, the serial console in a file and the monitor on a socket
# (its system_reset is the host's power cycle). Waits until ssh answers.
#   tests/remote/start-host.sh IMAGE_DIR WORK_DIR PORT
# Leaves in WORK_DIR: qemu.pid, console.log, monitor.sock, known_hosts,
# ssh_config (Host remote-host), reset.sh, initrd.cpio. Prints the seconds
# to ssh.
set -eu
img=$1 work=$2 port=$3
arch=$(basename "$img")
case $arch in
arm64)	# UEFI firmware (edk2) with ACPI, as an arm64 server boots: the kernel
	# is an EFI application the firmware starts, not a device tree's guest
	fw=/usr/share/qemu-efi-aarch64/QEMU_EFI.fd
	[ -r "$fw" ] || { echo "no UEFI firmware '$fw' (make deps: qemu-efi-aarch64)" >&2; exit 1; }
	qemu=(qemu-system-aarch64 -M virt,acpi=on -cpu max,pauth-impdef=on -bios "$fw")
	console=ttyAMA0 karch=aarch64 ;;
amd64) qemu=(qemu-system-x86_64 -M q35 -cpu max); console=ttyS0 karch=x86_64 ;;
*) echo "unknown arch '$arch' in '$img'" >&2; exit 2 ;;
esac
[ -e "$img/ready" ] || { echo "no host image in '$img' (tests/remote/make-host.sh)" >&2; exit 1; }
mkdir -p "$work"
# The host's own initramfs: its kernel's virtio modules and the lab's
# lab-rootinit, which finds its root by UUID as a server's initramfs would
# (the kernels the lab kexecs there get root=UUID= from its command line).
src=$(cd "$(dirname "$0")/../.." && pwd)
rootinit=$src/build/guest/$karch/lab-rootinit
[ -x "$rootinit" ] || { echo "no '$rootinit' (make)" >&2; exit 1; }
uuid=$(blkid -o value -s UUID "$img/rootfs.img")
[ -n "$uuid" ] || { echo "no filesystem UUID on '$img/rootfs.img'" >&2; exit 1; }
rm -rf "$work/initrd" && cp -r "$img/initrd" "$work/initrd" && cp "$rootinit" "$work/initrd/init" &&
	(cd "$work/initrd" && find . | cpio -o -H newc --quiet) >"$work/initrd.cpio"
echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$img/host_key.pub")" >"$work/known_hosts"
cat >"$work/reset.sh" <<EOC
#!/bin/sh
# the power cycle: QEMU's reset, which boots the default kernel again
# (the monitor drops a command whose connection closes before its prompt)
python3 - "$work/monitor.sock" <<'EOP'
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
def prompt():
    got = b""
    while b"(qemu)" not in got:
        more = s.recv(4096)
        if not more:
            sys.exit(1)
        got += more
prompt()
s.sendall(b"system_reset\n")
prompt()
EOP
EOC
chmod +x "$work/reset.sh"
start=$(date +%s)
"${qemu[@]}" -accel tcg -smp 1 -m 2G -display none -daemonize \
	-pidfile "$work/qemu.pid" \
	-serial "file:$work/console.log" \
	-monitor "unix:$work/monitor.sock,server,nowait" \
	-kernel "$img/vmlinuz" -initrd "$work/initrd.cpio" \
	-append "console=$console root=UUID=$uuid rw" \
	-drive "file=$img/rootfs.img,if=virtio,format=raw,snapshot=on" \
	-netdev "user,id=n0,hostfwd=tcp:127.0.0.1:$port-:22" -device virtio-net-pci,netdev=n0
for _ in $(seq 600); do
	if ssh -q -o BatchMode=yes -o StrictHostKeyChecking=yes -o ConnectTimeout=5 \
		-o UserKnownHostsFile="$work/known_hosts" -i "$img/id_ed25519" -p "$port" \
		root@127.0.0.1 true 2>/dev/null; then
		echo $(( $(date +%s) - start ))
		exit 0
	fi
	sleep 1
done
echo "the host did not answer ssh within 10 minutes (see $work/console.log)" >&2
exit 1
