/*
 * lab-rootinit: /init of the initramfs a kernel under test boots with on
 * a real host (the ssh runner's kexec), so that it mounts the host's own
 * root as the host's command line names it, as an initramfs-tools one
 * would, and starts the host's own init there:
 *   - the modules listed in /modules (one path a line, in order), if any;
 *   - the logical volume named in /lvm (VG/LV), if any, activated with the
 *     host's own lvm at /sbin/lvm, without udev, retried while its disk
 *     may still be coming;
 *   - root= as a device path, UUID=, LABEL=, PARTUUID= or PARTLABEL= (GPT);
 *     rootfstype= (default: ext4, xfs, btrfs, ext3, ext2 tried in turn),
 *     rootflags=, ro or rw, waiting up to rootdelay= seconds (default 30)
 *     for the device;
 *   - with a volume activated, /run (a tmpfs lvm used) moves to the new
 *     root with a udev record of each device-mapper device, as an
 *     initramfs that runs udev leaves them, so that the host's systemd
 *     takes the volumes for ready rather than waiting on them;
 *   - the initramfs's own files removed, their memory freed;
 *   - then init= from the command line, else /sbin/init, on the new root.
 * Says on the console which device the root is, before starting init.
 * A root it cannot find or mount is said on the console, with the block
 * devices it saw, and the kernel panics when this init exits: the lab
 * reads the line through the host's console. Static, no library but libc.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define SECTOR 512

struct opts {
	char root[256], fstype[64], flags[512], init[256];
	int ro;
	int delay_s;
};

__attribute__((format(printf, 1, 2)))
static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "lab-rootinit: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* The first line of a file, without its newline, into buf: -1 ("") when there is none. */
static int first_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (f && !fgets(buf, (int)size, f))
		buf[0] = '\0';
	if (f)
		fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return f ? 0 : -1;
}

static void read_cmdline(struct opts *o)
{
	char buf[4096], *save = NULL;

	memset(o, 0, sizeof(*o));
	snprintf(o->init, sizeof(o->init), "/sbin/init");
	o->delay_s = 30;
	first_line("/proc/cmdline", buf, sizeof(buf));
	for (char *p = strtok_r(buf, " \n", &save); p; p = strtok_r(NULL, " \n", &save)) {
		if (!strncmp(p, "root=", 5))
			snprintf(o->root, sizeof(o->root), "%s", p + 5);
		else if (!strncmp(p, "rootfstype=", 11))
			snprintf(o->fstype, sizeof(o->fstype), "%s", p + 11);
		else if (!strncmp(p, "rootflags=", 10))
			snprintf(o->flags, sizeof(o->flags), "%s", p + 10);
		else if (!strncmp(p, "init=", 5))
			snprintf(o->init, sizeof(o->init), "%s", p + 5);
		else if (!strncmp(p, "rootdelay=", 10))
			o->delay_s = atoi(p + 10);
		else if (!strcmp(p, "ro"))
			o->ro = 1;
		else if (!strcmp(p, "rw"))
			o->ro = 0;
	}
}

/* A compressed module the kernel unpacks itself (CONFIG_MODULE_DECOMPRESS). */
#define COMPRESSED_FILE 4

static int compressed(const char *path)
{
	size_t n = strlen(path);

	return (n > 3 && !strcmp(path + n - 3, ".xz")) || (n > 3 && !strcmp(path + n - 3, ".gz")) ||
	       (n > 4 && !strcmp(path + n - 4, ".zst"));
}

static void load_modules(void)
{
	char line[512];
	FILE *f = fopen("/modules", "r");
	int loaded = 0, failed = 0;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		int fd;

		line[strcspn(line, "\n")] = '\0';
		if (!line[0])
			continue;
		fd = open(line, O_RDONLY | O_CLOEXEC);
		if (fd >= 0 && !syscall(SYS_finit_module, fd, "", compressed(line) ? COMPRESSED_FILE : 0))
			loaded++;
		else if (errno != EEXIST) {
			say("cannot load module %s: %s", line, strerror(errno));
			failed++;
		}
		if (fd >= 0)
			close(fd);
	}
	fclose(f);
	say("loaded %d modules of the build, %d would not load", loaded, failed);
}

/* The volume /lvm names ("" when none), activated: 0, else lvm's exit status. */
static int activate_lvm(const char *lv)
{
	static const char conf[] = "devices { obtain_device_list_from_udev = 0 } "
				   "activation { udev_sync = 0 udev_rules = 0 }";
	pid_t pid;
	int st;

	pid = fork();
	if (pid == 0) {
		execl("/sbin/lvm", "lvm", "lvchange", "-ay", "--sysinit", "--config", conf, lv,
		      (char *)NULL);
		say("cannot start /sbin/lvm: %s", strerror(errno));
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/*
 * What udev would have recorded for each device-mapper device had it run
 * here: without it, the host's udev rules take the devices as never set
 * up (a coldplug of a device they did not see made), and systemd waits
 * for them until its timeout.
 */
static void udev_record_dm(void)
{
	DIR *d = opendir("/sys/block");
	struct dirent *e;
	char path[300], dev[32];

	mkdir("/run/udev", 0755);
	mkdir("/run/udev/data", 0755);
	while (d && (e = readdir(d))) {
		FILE *f;

		if (strncmp(e->d_name, "dm-", 3))
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/dev", e->d_name);
		if (first_line(path, dev, sizeof(dev)) || !dev[0])
			continue;
		snprintf(path, sizeof(path), "/run/udev/data/b%s", dev);
		f = fopen(path, "w");
		if (f) {
			fputs("E:DM_UDEV_PRIMARY_SOURCE_FLAG=1\n", f);
			fclose(f);
		}
	}
	if (d)
		closedir(d);
}

static int read_at(const char *dev, void *buf, size_t len, off_t off)
{
	int fd = open(dev, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : pread(fd, buf, len, off);

	if (fd >= 0)
		close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

/* 16 bytes as a UUID, in the byte order filesystems keep it. */
static void uuid_text(char *out, size_t size, const unsigned char *u)
{
	snprintf(out, size, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
		u[13], u[14], u[15]);
}

/* A GPT GUID: its first three fields little-endian. */
static void guid_text(char *out, size_t size, const unsigned char *g)
{
	snprintf(out, size, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		g[3], g[2], g[1], g[0], g[5], g[4], g[7], g[6], g[8], g[9], g[10], g[11], g[12],
		g[13], g[14], g[15]);
}

/* The filesystem's UUID and label (ext2/3/4, xfs, btrfs): 0, or -1 for none known. */
static int fs_identity(const char *dev, char *uuid, char *label, size_t label_size)
{
	unsigned char sb[1024];

	if (!read_at(dev, sb, sizeof(sb), 1024) && sb[56] == 0x53 && sb[57] == 0xef) {
		uuid_text(uuid, 40, sb + 104);
		snprintf(label, label_size, "%.16s", (const char *)sb + 120);
		return 0;
	}
	if (!read_at(dev, sb, 512, 0) && !memcmp(sb, "XFSB", 4)) {
		uuid_text(uuid, 40, sb + 32);
		snprintf(label, label_size, "%.12s", (const char *)sb + 108);
		return 0;
	}
	if (!read_at(dev, sb, 1024, 65536) && !memcmp(sb + 64, "_BHRfS_M", 8)) {
		uuid_text(uuid, 40, sb + 32);
		snprintf(label, label_size, "%.255s", (const char *)sb + 299);
		return 0;
	}
	return -1;
}

/*
 * The GPT entry of partition number partno of disk: its unique GUID and
 * its name (ASCII of the UTF-16). 0, or -1 when the disk has no GPT.
 */
static int gpt_entry(const char *disk, int partno, char *guid, char *name, size_t name_size)
{
	unsigned char hdr[92], e[128];
	unsigned long long lba;
	unsigned size, count;
	size_t k = 0;

	if (read_at(disk, hdr, sizeof(hdr), SECTOR) || memcmp(hdr, "EFI PART", 8))
		return -1;
	memcpy(&lba, hdr + 72, 8);
	memcpy(&count, hdr + 80, 4);
	memcpy(&size, hdr + 84, 4);
	if (partno < 1 || (unsigned)partno > count || size < 128 ||
	    read_at(disk, e, sizeof(e), (off_t)(lba * SECTOR + (unsigned long long)(partno - 1) * size)))
		return -1;
	guid_text(guid, 40, e + 16);
	for (size_t i = 56; i + 1 < 128 && k + 1 < name_size && (e[i] || e[i + 1]); i += 2)
		name[k++] = e[i + 1] ? '?' : (char)e[i];
	name[k] = '\0';
	return 0;
}

static int same(const char *a, const char *b)
{
	return !strcasecmp(a, b);
}

/* Does /dev/name answer root= (a path, UUID=, LABEL=, PARTUUID=, PARTLABEL=)? */
static int matches(const char *name, const char *root)
{
	char dev[300], uuid[40], label[256], sysfs[300], part[32], disk[300], guid[40];
	int partno = 0;

	snprintf(dev, sizeof(dev), "/dev/%s", name);
	if (root[0] == '/') {
		/* /dev/mapper/vg-root and /dev/vg/root are dm-N's other names */
		struct stat a, b;

		return !stat(root, &a) && !stat(dev, &b) && S_ISBLK(a.st_mode) &&
		       S_ISBLK(b.st_mode) && a.st_rdev == b.st_rdev;
	}
	if (!strncmp(root, "UUID=", 5) || !strncmp(root, "LABEL=", 6)) {
		if (fs_identity(dev, uuid, label, sizeof(label)))
			return 0;
		return root[0] == 'U' ? same(uuid, root + 5) : !strcmp(label, root + 6);
	}
	if (strncmp(root, "PARTUUID=", 9) && strncmp(root, "PARTLABEL=", 10))
		return 0;
	/* a partition: its number, and the disk its directory sits in */
	snprintf(sysfs, sizeof(sysfs), "/sys/class/block/%s/partition", name);
	if (first_line(sysfs, part, sizeof(part)))
		return 0;
	partno = atoi(part);
	snprintf(sysfs, sizeof(sysfs), "/sys/class/block/%s/..", name);
	if (!realpath(sysfs, disk))
		return 0;
	snprintf(dev, sizeof(dev), "/dev/%s", strrchr(disk, '/') + 1);
	if (gpt_entry(dev, partno, guid, label, sizeof(label)))
		return 0;
	return root[4] == 'U' ? same(guid, root + 9) : !strcmp(label, root + 10);
}

/* The device root= names, into dev: 0, or -1 when no block device answers yet. */
static int find_root(const char *root, char *dev, size_t size, char *seen, size_t seen_size)
{
	DIR *d = opendir("/sys/class/block");
	struct dirent *e;
	int found = -1;
	size_t len;

	seen[0] = '\0';
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		len = strlen(seen);
		snprintf(seen + len, seen_size - len, "%s%s", len ? " " : "", e->d_name);
		if (found && matches(e->d_name, root)) {
			snprintf(dev, size, "/dev/%s", e->d_name);
			found = 0;
		}
	}
	if (d)
		closedir(d);
	return found;
}

static int mount_root(const struct opts *o, const char *dev)
{
	static const char *const types[] = { "ext4", "xfs", "btrfs", "ext3", "ext2", NULL };
	unsigned long flags = o->ro ? MS_RDONLY : 0;

	if (o->fstype[0])
		return mount(dev, "/root", o->fstype, flags, o->flags[0] ? o->flags : NULL);
	for (int i = 0; types[i]; i++)
		if (!mount(dev, "/root", types[i], flags, o->flags[0] ? o->flags : NULL))
			return 0;
	return -1;
}

/*
 * The initramfs's files, removed before the switch, or they would hold
 * their memory for as long as the host runs (a distribution config's
 * modules are some 40 MB): what is under dirfd on the initramfs itself,
 * never on another filesystem (the root, /dev). Adds the bytes to *freed.
 */
static void free_initramfs(int fd, dev_t dev, unsigned long long *freed)
{
	DIR *d = fdopendir(fd);
	struct dirent *e;
	struct stat st;

	if (!d) {
		close(fd);
		return;
	}
	while ((e = readdir(d))) {
		int sub;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) || st.st_dev != dev)
			continue;
		if (!S_ISDIR(st.st_mode)) {
			if (!unlinkat(dirfd(d), e->d_name, 0))
				*freed += (unsigned long long)st.st_size;
			continue;
		}
		sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0)
			free_initramfs(sub, dev, freed);
		unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);
	}
	closedir(d);
}

static void stop(void)
{
	/* init exiting panics the kernel: the console keeps the line above */
	sleep(2);
	exit(1);
}

int main(void)
{
	char dev[300], seen[1024], lv[256];
	struct stat top;
	struct opts o;
	int tries, lvm_st = -1;

	mkdir("/proc", 0755);
	mkdir("/sys", 0755);
	mkdir("/dev", 0755);
	mkdir("/root", 0755);
	mkdir("/run", 0755);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	read_cmdline(&o);
	load_modules();
	if (!o.root[0]) {
		say("no root= on the kernel command line");
		stop();
	}
	first_line("/lvm", lv, sizeof(lv));
	if (lv[0]) {
		mount("tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755");
		mkdir("/run/lock", 0755);
	}
	for (tries = 0;; tries++) {
		/* once a second until it is active: its disk's driver may still be probing */
		if (lv[0] && lvm_st && tries % 10 == 0 && !(lvm_st = activate_lvm(lv)))
			say("activated %s with the host's lvm", lv);
		if (!find_root(o.root, dev, sizeof(dev), seen, sizeof(seen)))
			break;
		if (tries >= o.delay_s * 10) {
			if (lv[0] && lvm_st)
				say("the host's lvm could not activate %s (exit %d)", lv, lvm_st);
			say("no block device is root=%s (seen: %s)", o.root, seen[0] ? seen : "none");
			stop();
		}
		usleep(100000);
	}
	if (mount_root(&o, dev)) {
		say("cannot mount %s: %s", dev, strerror(errno));
		stop();
	}
	if (lv[0]) {
		udev_record_dm();
		if (mount("/run", "/root/run", NULL, MS_MOVE, NULL))
			umount2("/run", MNT_DETACH);
	}
	mount("/dev", "/root/dev", NULL, MS_MOVE, NULL);
	umount2("/proc", MNT_DETACH);
	umount2("/sys", MNT_DETACH);
	if (!stat("/", &top)) {
		unsigned long long freed = 0;
		int fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (fd >= 0)
			free_initramfs(fd, top.st_dev, &freed);
		say("freed the initramfs (%.1f MB)", (double)freed / 1e6);
	}
	if (chdir("/root") || mount(".", "/", NULL, MS_MOVE, NULL) || chroot(".") || chdir("/")) {
		say("cannot switch to %s: %s", dev, strerror(errno));
		stop();
	}
	say("root=%s is %s, mounted %s; starting %s", o.root, dev, o.ro ? "ro" : "rw", o.init);
	execl(o.init, o.init, (char *)NULL);
	say("cannot start %s: %s", o.init, strerror(errno));
	stop();
	return 1;
}
