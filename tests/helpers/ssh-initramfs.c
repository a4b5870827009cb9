/*
 * ssh-initramfs OUT INIT [MODULES_ROOT] [--lvm VG/LV | --sent FILE]: write
 * the initramfs the ssh runner sends a host with a kernel, as it writes it
 * (runners/modules.h), for tests that boot it: INIT as /init, and the
 * storage, filesystem and network modules under
 * MODULES_ROOT/lib/modules/<release>/ with /modules listing them in load
 * order; with --lvm, this machine's lvm and its libraries, to activate
 * VG/LV as a host whose root it is sends them (runners/host-root.h); with
 * --sent, what a host answered to the command ssh-initramfs --probe prints.
 * ssh-initramfs --check prints the command lab target check asks a host
 * what it booted with; --check-kexec, with what kexec needs before it.
 * Exit 0, or 1 after the lab's error line.
 */
#include <stdio.h>
#include <string.h>

#include "host-root.h"
#include "modules.h"
#include "regfile.h"
#include "ssh-remote.h"
#include "strbuf.h"
#include "subprocess.h"

int main(int argc, char **argv)
{
	struct strbuf cmd = STRBUF_INIT, tools = STRBUF_INIT;
	const char *lv = NULL, *sent = NULL;
	int ret;

	if (argc == 2 && (!strcmp(argv[1], "--probe") || !strncmp(argv[1], "--check", 7))) {
		if (!strcmp(argv[1], "--probe"))
			host_root_command(&cmd, NULL);
		else
			ssh_check_booted_command(&cmd, !strcmp(argv[1], "--check-kexec"));
		printf("%s\n", cmd.buf);
		strbuf_release(&cmd);
		return 0;
	}
	if (argc >= 5 && !strcmp(argv[argc - 2], "--lvm"))
		lv = argv[argc - 1];
	else if (argc >= 5 && !strcmp(argv[argc - 2], "--sent"))
		sent = argv[argc - 1];
	if (lv || sent)
		argc -= 2;
	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: ssh-initramfs OUT INIT [MODULES_ROOT] "
				"[--lvm VG/LV | --sent FILE]\n"
				"       ssh-initramfs --probe | --check | --check-kexec\n");
		return 2;
	}
	if (lv) {
		char *sh[] = { "sh", "-c", NULL, NULL };

		host_root_command(&cmd, lv);
		sh[2] = cmd.buf;
		if (subprocess_run(sh, NULL, &tools, 60)) {
			fprintf(stderr, "ssh-initramfs: the host's root command failed: %s\n",
				tools.buf);
			return 1;
		}
	}
	if (sent && strbuf_read_file(&tools, sent, 256UL << 20) < 0) {
		perror(sent);
		return 1;
	}
	ret = initramfs_write_modules(argv[1], argv[2], argc == 4 ? argv[3] : NULL,
				      lv || sent ? &tools : NULL, "this machine");
	strbuf_release(&cmd);
	strbuf_release(&tools);
	return ret ? 1 : 0;
}
