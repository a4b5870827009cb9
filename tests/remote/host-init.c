/*
 * /init of the remote test host's own initramfs: Debian's kernel has
 * virtio and ext4 as modules, and the host is made without running
 * anything of arm64 on this machine, so there is no initramfs-tools
 * output to boot with yet. Loads the modules listed in /modules (in
 * order), mounts /dev/vda and starts init= from the kernel command line
 * (default /sbin/init) on it.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static void load_modules(void)
{
	char line[512];
	FILE *f = fopen("/modules", "r");

	while (f && fgets(line, sizeof(line), f)) {
		int fd;

		line[strcspn(line, "\n")] = '\0';
		fd = open(line, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || syscall(SYS_finit_module, fd, "", 0))
			fprintf(stderr, "host-init: cannot load %s\n", line);
		if (fd >= 0)
			close(fd);
	}
	if (f)
		fclose(f);
}

static void init_from_cmdline(char *out, size_t size)
{
	char buf[4096], *p, *save = NULL;
	FILE *f = fopen("/proc/cmdline", "r");

	snprintf(out, size, "/sbin/init");
	if (!f || !fgets(buf, sizeof(buf), f)) {
		if (f)
			fclose(f);
		return;
	}
	fclose(f);
	for (p = strtok_r(buf, " \n", &save); p; p = strtok_r(NULL, " \n", &save))
		if (!strncmp(p, "init=", 5))
			snprintf(out, size, "%s", p + 5);
}

int main(void)
{
	char init[256];

	mkdir("/proc", 0755);
	mkdir("/dev", 0755);
	mkdir("/root", 0755);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	load_modules();
	init_from_cmdline(init, sizeof(init));
	for (int i = 0; i < 100; i++) {
		if (!mount("/dev/vda", "/root", "ext4", 0, NULL))
			break;
		usleep(100000);
	}
	umount("/proc");
	umount("/dev");
	if (chdir("/root") || mount(".", "/", NULL, MS_MOVE, NULL) || chroot(".") || chdir("/")) {
		perror("host-init: cannot switch to /dev/vda");
		for (;;)
			pause();
	}
	execl(init, init, (char *)NULL);
	perror("host-init: cannot start init");
	for (;;)
		pause();
}
