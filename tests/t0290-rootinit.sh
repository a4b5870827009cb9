#!/bin/bash
# lab-rootinit, /init of the initramfs a kernel kexec'd on a host boots
# with, under real boots (TCG) of Debian's kernel: the host's root found as
# its command line names it (UUID=, LABEL=, PARTUUID= and PARTLABEL= of a
# GPT disk), mounted ro or rw, the modules of /modules loaded first (virtio
# is modular in Debian's kernel: each listed after what it needs; then the
# initramfs the ssh runner writes, with all of the kernel's storage,
# filesystem and network modules in the order it finds), init= started on
# it; a root on a logical volume activated by the host's lvm, that root
# asked what the ssh runner and lab target check ask a host, and the
# initramfs of its answer booted; a root it cannot find said on the console
# with the devices it saw; and what lab target check asks a host, asked of
# a kernel booted with lockdown=integrity, refusing kexec_load.
. "$(dirname "$0")/lib.sh"

KERNEL=$(debian_kernel)
KVER=${KERNEL##*/vmlinuz-}
MODS=/lib/modules/$KVER
ROOTINIT=$TOP/build/guest/$(uname -m)/lab-rootinit
UUID=6b1b2a5e-7c55-4f37-9a0e-3f1c2d4e5f60
PARTGUID=0f7e8d9c-1b2a-4c3d-8e5f-a1b2c3d4e5f6

test_lazy_prereq MODULES 'test -r "$MODS/modules.dep"'
test_lazy_prereq LVM 'test "$(id -u)" = 0 && command -v pvcreate && losetup -f'
test_lazy_prereq BUSYBOX 'test -x /bin/busybox'
LVUUID=3c5d7e9f-2a4b-4c6d-8e0f-1a2b3c4d5e6f

# One volume on extents 0-7, as vgcfgrestore reads it: written into the volume
# group's metadata, not activated (this machine may have no device-mapper).
cat >lv.meta <<'EOM'
	logical_volumes {
		root {
			id = "LabT02-90Lv-Root-Test-Disk-Lvm0-Volume"
			status = ["READ", "WRITE", "VISIBLE"]
			flags = []
			segment_count = 1
			segment1 {
				start_extent = 0
				extent_count = 8
				type = "striped"
				stripe_count = 1
				stripes = [ "pv0", 0 ]
			}
		}
	}
}
EOM

# The root's init: says what it got, then powers off.
cat >init.c <<'EOC'
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/reboot.h>
#include <sys/statvfs.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	struct statvfs s;
	FILE *f = fopen("/etc/which-root", "r");
	char which[64] = "?", path[300], line[128];
	DIR *d = opendir("/run/udev/data");
	struct dirent *e;

	/* the udev records the initramfs left, if any */
	while (d && (e = readdir(d))) {
		FILE *r;

		snprintf(path, sizeof(path), "/run/udev/data/%s", e->d_name);
		r = e->d_name[0] != '.' ? fopen(path, "r") : NULL;
		if (r && fgets(line, sizeof(line), r))
			printf("@udev %s %s", e->d_name, line);
		if (r)
			fclose(r);
	}

	if (f && fgets(which, sizeof(which), f))
		which[strcspn(which, "\n")] = '\0';
	if (f)
		fclose(f);
	statvfs("/", &s);
	printf("@root %s %s %s\n", argv[0], which, s.f_flag & ST_RDONLY ? "ro" : "rw");
	fflush(stdout);
	sync();
	reboot(RB_POWER_OFF);
	return argc;
}
EOC

test_expect_success TCG,MODULES 'setup: an initramfs of lab-rootinit and the virtio modules, root filesystems' '
	gcc -static -O2 -o root-init init.c &&
	mkdir -p rd rootfs/sbin rootfs/etc rootfs/dev rootfs/proc rootfs/bin rootfs/run &&
	cp "$ROOTINIT" rd/init &&
	for m in virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci virtio_blk; do
		rel=$(awk -F: -v m="$m.ko" "{ n = split(\$1, p, \"/\") } p[n] == m { print \$1; exit }" "$MODS/modules.dep") &&
		if [ -n "$rel" ]; then
			mkdir -p "rd/$(dirname "$rel")" && cp "$MODS/$rel" "rd/$rel" && echo "/$rel" >>rd/modules
		fi || return 1
	done &&
	(cd rd && find . | cpio -o -H newc --quiet) >init.cpio &&
	cp root-init rootfs/sbin/init && cp root-init rootfs/bin/other &&
	echo plain >rootfs/etc/which-root &&
	mkfs.ext4 -q -F -U $UUID -L labroot -d rootfs plain.img 32M &&
	# a GPT disk whose one partition holds the filesystem
	echo partition >rootfs/etc/which-root &&
	python3 "$TOP/tests/fixtures/gpt-image.py" gpt.img 64 2048 "$PARTGUID" lab-root &&
	mkfs.ext4 -q -F -E offset=1048576 -d rootfs gpt.img 32M
'

boot() { # CMDLINE...: $IMAGE as vda (and $DISK2 as vdb, written), the console in console.txt
	timeout 180 qemu-system-x86_64 -M pc -accel tcg -m 512 -nographic -no-reboot \
		-kernel "$KERNEL" -initrd "${INITRD:-init.cpio}" -append "console=ttyS0 panic=-1 $*" \
		-drive "file=$IMAGE,if=virtio,format=raw,snapshot=on" \
		${DISK2:+-drive "file=$DISK2,if=virtio,format=raw"} </dev/null >console.log 2>&1
	tr -d "\r" <console.log >console.txt
}

test_expect_success TCG,MODULES 'root=UUID=: found, mounted read-write, /sbin/init started' '
	IMAGE=plain.img boot root=UUID=$UUID rw &&
	grep -qx "lab-rootinit: root=UUID=$UUID is /dev/vda, mounted rw; starting /sbin/init" console.txt &&
	grep -qx "@root /sbin/init plain rw" console.txt &&
	! grep -q "^@udev" console.txt
'

test_expect_success TCG,MODULES 'root=LABEL= ro and init=: mounted read-only, that init started' '
	IMAGE=plain.img boot root=LABEL=labroot ro init=/bin/other &&
	grep -qx "lab-rootinit: root=LABEL=labroot is /dev/vda, mounted ro; starting /bin/other" console.txt &&
	grep -qx "@root /bin/other plain ro" console.txt
'

test_expect_success TCG,MODULES 'root=PARTUUID= and root=PARTLABEL= of a GPT partition' '
	IMAGE=gpt.img boot root=PARTUUID=$PARTGUID &&
	grep -qx "@root /sbin/init partition rw" console.txt &&
	IMAGE=gpt.img boot root=PARTLABEL=lab-root ro &&
	grep -qx "@root /sbin/init partition ro" console.txt
'

test_expect_success TCG,MODULES 'the ssh runner'\''s initramfs: the kernel'\''s storage, filesystem and network modules, each after what it needs' '
	# Debian'\''s modules as a build installs them (INSTALL_MOD_PATH=modroot)
	mkdir -p modroot/lib/modules && ln -s "$MODS" "modroot/lib/modules/$KVER" &&
	"$TOP/build/tests/helpers/ssh-initramfs" lab.cpio "$ROOTINIT" modroot &&
	cpio -i --quiet --to-stdout modules <lab.cpio >list &&
	grep -qx "/lib/modules/$KVER/kernel/drivers/block/virtio_blk.ko" list &&
	grep -qx "/lib/modules/$KVER/kernel/drivers/net/virtio_net.ko" list &&
	grep -qx "/lib/modules/$KVER/kernel/fs/btrfs/btrfs.ko" list &&
	! grep -q "/kernel/sound/" list &&
	INITRD=lab.cpio IMAGE=plain.img boot root=UUID=$UUID rw &&
	grep -qx "lab-rootinit: root=UUID=$UUID is /dev/vda, mounted rw; starting /sbin/init" console.txt &&
	grep -qx "@root /sbin/init plain rw" console.txt &&
	grep "^lab-rootinit: loaded" console.txt &&
	# the modules'\'' memory given back before init starts
	freed=$(sed -n "s/^lab-rootinit: freed the initramfs (\([0-9]*\)\.[0-9] MB)$/\1/p" console.txt) &&
	test "$freed" -ge "$(xargs stat -Lc %s <list | awk "{ s += \$1 } END { print int(s / 1e6) }")" &&
	loaded=$(sed -n "s/^lab-rootinit: loaded \([0-9]*\) modules of the build, \([0-9]*\) would not load$/\1/p" console.txt) &&
	failed=$(sed -n "s/^lab-rootinit: loaded \([0-9]*\) modules of the build, \([0-9]*\) would not load$/\2/p" console.txt) &&
	# every one tried; Xen'\''s and Hyper-V'\''s find no hypervisor (ENODEV) ...
	test $((loaded + failed)) = "$(wc -l <list)" &&
	test "$loaded" -ge 100 &&
	! grep -q "^lab-rootinit: cannot load module .*/virtio" console.txt &&
	sed -n "s|^lab-rootinit: cannot load module /lib/modules/$KVER/\(.*\): .*|\1|p" \
		console.txt >failed &&
	sed -n "s|^lab-rootinit: cannot load module /lib/modules/$KVER/\(.*\): No such file or directory$|\1|p" \
		console.txt >unresolved &&
	# ... and a module that lacks a symbol (ENOENT) lacks it from one of those, never
	# from one listed after it
	while read -r m; do
		grep "^$m:" "$MODS/modules.dep" | tr " " "\n" | tail -n +2 | grep -qxFf failed ||
			{ echo "# $m: none of what it needs failed" && return 1; }
	done <unresolved
'

test_expect_success TCG,MODULES,LVM 'setup: a disk whose volume group labtest-vg holds the root as a logical volume' '
	echo lvm >rootfs/etc/which-root &&
	# what the ssh runner'\''s question to a host and lab target check use,
	# from this machine (lvm in /opt/lvm, off the usual PATH), and /bin/probe
	# to ask both: the answers on the raw disk vdb, then /sbin/init
	mkdir -p rootfs/opt/lvm &&
	for t in sh bash ldd mount mountpoint cat wc sed awk grep ls head readlink basename od lvm; do
		to=rootfs/bin/$t && { [ $t != lvm ] || to=rootfs/opt/lvm/lvm; } &&
		cp -L "$(command -v $t)" $to &&
		{ ldd $to 2>/dev/null | grep -o "/[^ ]*" || true; } >libs &&
		while read -r l; do cp -L --parents "$l" rootfs || return 1; done <libs || return 1
	done &&
	cp /etc/ld.so.cache rootfs/etc/ && mkdir -p rootfs/sys rootfs/etc/lvm &&
	cp /etc/lvm/lvm.conf rootfs/etc/lvm/ &&
	{
		printf "#!/bin/sh\nPATH=/bin\nmount -t proc proc /proc && mount -t sysfs sysfs /sys\n" &&
		check=$("$TOP/build/tests/helpers/ssh-initramfs" --check) &&
		printf "{ PATH=/bin %s\necho @lvm-on-path\nPATH=/bin:/opt/lvm %s\nPATH=/bin:/opt/lvm %s\n} >/dev/vdb\n" \
			"$check" "$check" "$("$TOP/build/tests/helpers/ssh-initramfs" --probe)" &&
		printf "exec /sbin/init\n"
	} >rootfs/bin/probe && chmod +x rootfs/bin/probe &&
	truncate -s 64M lvm.img &&
	loop=$(losetup -f --show lvm.img) &&
	test_when_finished "losetup -d $loop" &&
	export LVM_SUPPRESS_FD_WARNINGS=1 &&
	pvcreate -q --devices "$loop" "$loop" &&
	vgcreate -q --devices "$loop" -s 4m labtest-vg "$loop" &&
	vgcfgbackup -q --devices "$loop" -f vg.meta labtest-vg &&
	test "$(tail -n 1 vg.meta)" = "}" &&
	{ sed "\$d" vg.meta && cat lv.meta; } >vg.new &&
	vgcfgrestore -q --devices "$loop" -f vg.new labtest-vg 2>restore.err &&
	pe_start=$(awk "\$1 == \"pe_start\" { print \$3 }" vg.meta) &&
	test "$pe_start" -gt 0 &&
	mkfs.ext4 -q -F -U $LVUUID -E offset=$((pe_start * 512)) -d rootfs lvm.img 32M
'

test_expect_success TCG,MODULES,LVM 'a root on a logical volume: the host'\''s own lvm activates it; found by its /dev/mapper name and by UUID=' '
	"$TOP/build/tests/helpers/ssh-initramfs" lvm.cpio "$ROOTINIT" modroot --lvm labtest-vg/root &&
	INITRD=lvm.cpio IMAGE=lvm.img boot root=/dev/mapper/labtest--vg-root ro &&
	grep -qx "lab-rootinit: activated labtest-vg/root with the host'\''s lvm" console.txt &&
	grep -qx "lab-rootinit: root=/dev/mapper/labtest--vg-root is /dev/dm-0, mounted ro; starting /sbin/init" console.txt &&
	grep -qx "@root /sbin/init lvm ro" console.txt &&
	# /run moved to the root, with the udev record systemd needs to take dm-0 as ready
	grep -q "^@udev b[0-9]*:0 E:DM_UDEV_PRIMARY_SOURCE_FLAG=1$" console.txt &&
	INITRD=lvm.cpio IMAGE=lvm.img boot root=UUID=$LVUUID rw &&
	grep -qx "lab-rootinit: root=UUID=$LVUUID is /dev/dm-0, mounted rw; starting /sbin/init" console.txt &&
	grep -qx "@root /sbin/init lvm rw" console.txt
'

test_expect_success TCG,MODULES,LVM 'the ssh runner'\''s question on that root: its volume named, and the initramfs of the answer boots it' '
	truncate -s 16M answer.img &&
	INITRD=lvm.cpio IMAGE=lvm.img DISK2=answer.img boot root=/dev/mapper/labtest--vg-root ro init=/bin/probe &&
	grep -qx "@root /sbin/init lvm ro" console.txt &&
	# lab target check'\''s line: the volume, the disk under it and its drivers;
	# lvm missing while it is off the PATH
	sed -n "/^@tool /q; p" answer.img >checks &&
	sed -n "/^@lvm-on-path$/q; p" checks >without-lvm &&
	sed -n "/^@lvm-on-path$/,\$p" checks >with-lvm &&
	root="@ssh has root: ext4 on dm-0 (LVM volume labtest--vg-root on vda, by device name), drivers virtio_blk virtio_pci" &&
	grep -qxF "$root" without-lvm && grep -qxF "$root" with-lvm &&
	grep -qx "@ssh missing lvm (its root is a logical volume)" without-lvm &&
	! grep -q "^@ssh missing" with-lvm &&
	test "$(grep -a -m 1 "^@lab-root " answer.img)" = "@lab-root /dev/mapper/labtest--vg-root" &&
	test "$(grep -a -m 1 "^@lv " answer.img)" = "@lv labtest-vg/root" &&
	"$TOP/build/tests/helpers/ssh-initramfs" answer.cpio "$ROOTINIT" modroot --sent answer.img &&
	INITRD=answer.cpio IMAGE=lvm.img boot root=UUID=$LVUUID ro &&
	grep -qx "lab-rootinit: activated labtest-vg/root with the host'\''s lvm" console.txt &&
	grep -qx "@root /sbin/init lvm ro" console.txt
'

test_expect_success TCG,MODULES,LVM 'a volume lvm cannot activate: said with lvm'\''s status, and the devices seen' '
	"$TOP/build/tests/helpers/ssh-initramfs" nolv.cpio "$ROOTINIT" modroot --lvm labtest-vg/nosuch &&
	INITRD=nolv.cpio IMAGE=lvm.img boot root=/dev/labtest-vg/nosuch rootdelay=2 &&
	grep -q "^lab-rootinit: the host'\''s lvm could not activate labtest-vg/nosuch (exit [1-9][0-9]*)$" console.txt &&
	grep -q "^lab-rootinit: no block device is root=/dev/labtest-vg/nosuch (seen: .*vda.*)$" console.txt &&
	! grep -q "^@root" console.txt
'

test_expect_success TCG,BUSYBOX 'a kernel locked down (lockdown=integrity, as Secure Boot locks it): the check reads its lockdown and refuses kexec_load' '
	# busybox as every tool, and what lab target check asks a host, run as /init
	mkdir -p lock/bin lock/proc lock/sys lock/dev &&
	cp /bin/busybox lock/bin/busybox &&
	check=$("$TOP/build/tests/helpers/ssh-initramfs" --check-kexec) &&
	{
		printf "#!/bin/busybox sh\n/bin/busybox --install -s /bin\nexport PATH=/bin\n" &&
		printf "mount -t proc proc /proc; mount -t sysfs sysfs /sys\n" &&
		printf "mount -t securityfs securityfs /sys/kernel/security\n" &&
		printf "echo \"@lockdown \$(cat /sys/kernel/security/lockdown)\"\n%s\npoweroff -f\n" "$check"
	} >lock/init && chmod +x lock/init &&
	(cd lock && find . | cpio -o -H newc --quiet) >lock.cpio &&
	timeout 180 qemu-system-x86_64 -M pc -accel tcg -m 512 -nographic -no-reboot \
		-kernel "$KERNEL" -initrd lock.cpio -append "console=ttyS0 panic=-1 lockdown=integrity" \
		</dev/null >console.log 2>&1
	tr -d "\r" <console.log >console.txt &&
	grep -qx "@lockdown none \[integrity\] confidentiality" console.txt &&
	grep -qx "@ssh missing kexec_load outside lockdown (lockdown is integrity: kexec_load is refused)" console.txt &&
	grep -q "^@ssh has firmware: .*; lockdown integrity$" console.txt
'

test_expect_success TCG,MODULES 'a root no device answers: said with the devices seen, and the kernel stops' '
	IMAGE=plain.img boot root=UUID=00000000-0000-0000-0000-000000000000 rootdelay=2 &&
	grep -q "^lab-rootinit: no block device is root=UUID=00000000-0000-0000-0000-000000000000 (seen: .*vda.*)$" console.txt &&
	grep -q "Kernel panic - not syncing: Attempted to kill init" console.txt &&
	! grep -q "^@root" console.txt
'

test_done
