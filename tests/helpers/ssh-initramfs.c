/*
 * ssh-initramfs OUT INIT [MODULES_ROOT]: write the initramfs the ssh
 * runner sends a host with a kernel, as it writes it (runners/modules.h),
 * for tests that boot it: INIT as /init, and the storage, filesystem and
 * network modules under MODULES_ROOT/lib/modules/<release>/ with /modules
 * listing them in load order. Exit 0, or 1 after the lab's error line.
 */
#include <stdio.h>

#include "modules.h"

int main(int argc, char **argv)
{
	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: ssh-initramfs OUT INIT [MODULES_ROOT]\n");
		return 2;
	}
	return initramfs_write_modules(argv[1], argv[2], argc == 4 ? argv[3] : NULL) ? 1 : 0;
}
