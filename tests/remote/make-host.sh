#!/bin/bash
# Make (once) the remote test host: a Debian bookworm root filesystem with
# openssh-server and kexec-tools, made with debootstrap from the configured
# mirror, booted by QEMU with Debian's own kernel. This machine cannot run
# foreign binaries (no binfmt_misc), so debootstrap's first stage runs here
# and its second stage inside the VM, as the VM's first init.
#   tests/remote/make-host.sh [arm64|amd64] [STATE]
# Leaves in STATE/remote-host/ARCH (STATE: ./state):
#   rootfs.img   ext4, the host's disk (boot it with snapshot=on)
#   vmlinuz      Debian's kernel, the host's default kernel
#   initrd.cpio  what mounts its root with that kernel's modules (lab-rootinit);
#                initrd/ its contents, which start-host.sh packs again
#   id_ed25519   the key root logs in with
#   host_key.pub the host's ssh key, for known_hosts
#   ready        written last: the image is complete
# Prints the directory. Does nothing but print it when ready exists.
set -eu
arch=${1:-arm64}
state=${2:-state}
src=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(realpath -m "$state/remote-host/$arch")
[ -e "$dir/ready" ] && { echo "$dir"; exit 0; }
# stdout is the directory alone: what the tools say goes to stderr
exec 3>&1 >&2

case $arch in
arm64) cc=aarch64-linux-gnu-gcc; kpkg=linux-image-arm64 ;;
amd64) cc=gcc; kpkg=linux-image-amd64 ;;
*) echo "unknown arch '$arch' (known: arm64, amd64)" >&2; exit 2 ;;
esac
for t in debootstrap mkfs.ext4 cpio dpkg-deb ssh-keygen "$cc"; do
	command -v "$t" >/dev/null || { echo "'$t' is not installed (make deps)" >&2; exit 1; }
done
mirror=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
mirror=${mirror:-http://deb.debian.org/debian}

rm -rf "$dir.tmp"
mkdir -p "$dir.tmp"
cd "$dir.tmp"
t0=$(date +%s)
debootstrap --foreign --arch="$arch" --variant=minbase \
	--include=systemd-sysv,udev,openssh-server,kexec-tools,kmod,procps,iproute2,"$kpkg" \
	bookworm root "$mirror" >debootstrap.log 2>&1 ||
	{ tail -5 debootstrap.log >&2; exit 1; }

# the kernel and its modules, from the package the second stage installs
deb=$(ls root/var/cache/apt/archives/linux-image-6*.deb | head -1)
dpkg-deb -x "$deb" kpkg
kver=$(ls kpkg/lib/modules | head -1)
cp kpkg/boot/vmlinuz-"$kver" vmlinuz
mods=kpkg/lib/modules/$kver
depmod -b kpkg "$kver"	# the package leaves modules.dep to its postinst
# each wanted module after what it needs (modules.dep lists those)
want="virtio_pci virtio_blk virtio_net crc32c_generic ext4"
order=
add() {
	local rel deps d
	rel=$(awk -F: -v m="$1.ko" '{ n = split($1, p, "/") } p[n] == m { print $1; exit }' "$mods/modules.dep")
	[ -n "$rel" ] || return 0	# built in
	case " $order " in *" $rel "*) return 0 ;; esac
	deps=$(awk -F: -v r="$rel" '$1 == r { print $2 }' "$mods/modules.dep")
	for d in $deps; do add "$(basename "$d" .ko)"; done
	order="$order $rel"
}
for m in $want; do add "$m"; done
mkdir -p initrd
for rel in $order; do
	mkdir -p "initrd/$(dirname "$rel")"
	cp "$mods/$rel" "initrd/$rel"
	echo "/$rel" >>initrd/modules
done
cp "$src/build/guest/$([ "$arch" = arm64 ] && echo aarch64 || echo x86_64)/lab-rootinit" initrd/init
(cd initrd && find . | cpio -o -H newc --quiet) >initrd.cpio

ssh-keygen -q -t ed25519 -N '' -C lab-remote-test -f id_ed25519
ssh-keygen -q -t ed25519 -N '' -C lab-remote-host -f root/etc/ssh/ssh_host_ed25519_key 2>/dev/null ||
	{ mkdir -p root/etc/ssh && ssh-keygen -q -t ed25519 -N '' -C lab-remote-host -f root/etc/ssh/ssh_host_ed25519_key; }
cp root/etc/ssh/ssh_host_ed25519_key.pub host_key.pub
install -d -m 700 root/root/.ssh
install -m 600 id_ed25519.pub root/root/.ssh/authorized_keys
mkdir -p root/etc/ssh/sshd_config.d root/etc/systemd/network
cat >root/etc/ssh/sshd_config.d/lab.conf <<'EOC'
PermitRootLogin prohibit-password
PasswordAuthentication no
UseDNS no
HostKey /etc/ssh/ssh_host_ed25519_key
EOC
cat >root/etc/systemd/network/20-lab.network <<'EOC'
[Match]
Name=e*
[Network]
DHCP=yes
EOC
echo "LABEL=root / ext4 defaults 0 1" >root/etc/fstab
echo remote-host >root/etc/hostname
cat >root/firstboot.sh <<'EOC'
#!/bin/sh
# the VM's first init: debootstrap's second stage, then what needs the
# packages installed; powers off when done
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -o remount,rw /
# The host boots with make-host.sh's own initramfs: Debian's, which the
# kernel package's hooks would make, is never used and is slow to make
# under TCG. INITRD=No stops the kernel's hook; the stub first in PATH
# answers the initramfs-tools trigger.
mkdir -p /lab-stub
printf '#!/bin/sh\necho "update-initramfs: skipped on the lab test host"\n' >/lab-stub/update-initramfs
chmod 755 /lab-stub/update-initramfs
PATH=/lab-stub:$PATH INITRD=No /debootstrap/debootstrap --second-stage && second=ok
rm -rf /lab-stub
mount -t proc proc /proc 2>/dev/null
ssh-keygen -A
systemctl enable systemd-networkd ssh
systemctl mask apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer \
	man-db.timer systemd-timesyncd.service 2>/dev/null
echo "LOAD_KEXEC=false" >/etc/default/kexec
passwd -d root >/dev/null
echo "firstboot: ${second:-failed}"
sync
echo o >/proc/sysrq-trigger
sleep 60
EOC
chmod 755 root/firstboot.sh
t1=$(date +%s)
mkfs.ext4 -q -L root -d root rootfs.img 3G
rm -rf root kpkg

case $arch in
arm64) qemu=(qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on -accel tcg); console=ttyAMA0 ;;
amd64) qemu=(qemu-system-x86_64 -M q35 -accel tcg); console=ttyS0 ;;
esac
timeout 10800 "${qemu[@]}" -smp 1 -m 1G -nographic -no-reboot \
	-kernel vmlinuz -initrd initrd.cpio \
	-append "console=$console root=/dev/vda rw init=/firstboot.sh" \
	-drive file=rootfs.img,if=virtio,format=raw \
	-netdev user,id=n0 -device virtio-net-pci,netdev=n0 \
	</dev/null >firstboot.log 2>&1 || true
t2=$(date +%s)
grep -q 'firstboot: ok' firstboot.log ||
	{ echo "the second stage failed (see $dir.tmp/firstboot.log):" >&2; tail -5 firstboot.log >&2; exit 1; }
echo "first stage $((t1 - t0)) s, second stage in the VM $((t2 - t1)) s" >build-times
rm -f debootstrap.log
cd /
rm -rf "$dir"
mv "$dir.tmp" "$dir"
date -u +%FT%TZ >"$dir/ready"
echo "$dir" >&3
