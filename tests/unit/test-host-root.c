#include <stdio.h>
#include <string.h>

#define MAX_ENTRIES 64
#include "capture.h"
#include "cpio.h"
#include "cpio-read.h"
#include "host-root.h"
#include "strbuf.h"
#include "strvec.h"
#include "subprocess.h"
#include "tap.h"

/* What the host sent (text, its NULs as written), added to a fresh archive. */
static int add(struct strbuf *ar, const char *sent, size_t len, struct strbuf *err)
{
	struct strbuf out = STRBUF_INIT;
	struct strvec made = STRVEC_INIT;
	struct capture cap;
	struct cpio c;
	int n;

	strbuf_add(&out, sent, len);
	strbuf_reset(ar);
	cpio_init_strbuf(&c, ar);
	capture_start(&cap);
	n = initramfs_add_host_root(&c, &made, &out, "arm1");
	if (n >= 0 && cpio_finish(&c))
		n = -1;
	capture_end(&cap, err);
	strvec_release(&made);
	strbuf_release(&out);
	return n;
}

#define SENT(s) s, sizeof(s) - 1

static int refused(const char *sent, size_t len, const char *says, const char *name)
{
	struct strbuf ar = STRBUF_INIT, err = STRBUF_INIT;
	int n = add(&ar, sent, len, &err);
	int good = n == -1 && strstr(err.buf ? err.buf : "", says) && strstr(err.buf, "'arm1'");

	if (!good)
		printf("# got %d: %s", n, err.buf ? err.buf : "");
	strbuf_release(&ar);
	strbuf_release(&err);
	return ok(good, name);
}

int main(void)
{
	struct strbuf ar = STRBUF_INIT, err = STRBUF_INIT, cmd = STRBUF_INIT, out = STRBUF_INIT;
	struct entry e[MAX_ENTRIES];
	const struct entry *x;
	const char *why = NULL;
	int nr, n;

	is_int(add(&ar, SENT(""), &err), 0, "a root not on LVM: nothing sent, nothing added");
	{
		/* what ssh's capture holds when the host printed nothing at all: no buffer */
		struct strvec made = STRVEC_INIT;
		struct cpio c;

		strbuf_reset(&ar);
		cpio_init_strbuf(&c, &ar);
		is_int(initramfs_add_host_root(&c, &made, &out, "arm1"), 0,
		       "... nor when the output was never grown");
		cpio_finish(&c);
		strvec_release(&made);
	}
	is_int(add(&ar, SENT("Welcome to arm1\n"), &err), 0, "... a login banner alone is not a root");

	n = add(&ar, SENT("banner\n@lab-root /dev/mapper/vg0-root\n@lv vg0/root\n"
			  "@tool 4 /usr/sbin/lvm\nELF\n@file 5 /lib/aarch64-linux-gnu/libc.so.6\n"
			  "a\0b\n\n@file 3 /lib/ld-linux-aarch64.so.1\nld\n@end\n"), &err);
	is_int(n, 3, "the tool and two libraries");
	nr = walk(&ar, e, &why);
	ok(nr > 0, why ? why : "the archive reads back");
	x = find(e, nr, "sbin/lvm");
	ok(x && x->size == 4 && !memcmp(x->data, "ELF\n", 4) && (x->mode & 0777) == 0755,
	   "lvm at /sbin/lvm, whatever its path on the host, executable");
	x = find(e, nr, "lib/aarch64-linux-gnu/libc.so.6");
	ok(x && x->size == 5 && !memcmp(x->data, "a\0b\n\n", 5),
	   "a library at its own path, its bytes (NULs and newlines too)");
	ok(find(e, nr, "lib/ld-linux-aarch64.so.1") && find(e, nr, "lib/aarch64-linux-gnu"),
	   "the loader, and the directories");
	x = find(e, nr, "lvm");
	ok(x && x->size == 9 && !memcmp(x->data, "vg0/root\n", 9), "/lvm names the volume");

	refused(SENT("@lab-root /dev/mapper/vg0-root\n@missing lvm\n@end\n"),
		"the host has no lvm command", "an LVM root on a host without lvm");
	refused(SENT("@lab-root /dev/dm-0\n@lv vg0/root\n@tool 400 /sbin/lvm\nELF\n@end\n"),
		"bad file header", "a size past the end");
	refused(SENT("@lab-root /dev/dm-0\n@lv vg0/root\n@tool x /sbin/lvm\nELF\n@end\n"),
		"bad file header", "a size that is no number");
	refused(SENT("@lab-root /dev/dm-0\n@lv vg0/root\n@tool 4 sbin/lvm\nELF\n@end\n"),
		"bad file header", "a relative path");
	refused(SENT("@lab-root /dev/dm-0\n@lv vg0/root\n@tool 4 /sbin/lvm\nELF\n"
		     "@file 2 /lib/../etc/shadow\nx\n@end\n"),
		"bad file header", "a path with ..");
	refused(SENT("@lab-root /dev/dm-0\n@lv vg0/root\n@tool 4 /sbin/lvm\nELF\n"),
		"before their end", "no @end: cut short");
	refused(SENT("@lab-root /dev/dm-0\n@lv \n@tool 4 /sbin/lvm\nELF\n@end\n"),
		"named no logical volume", "no volume");
	refused(SENT("@lab-root /dev/dm-0\n@lv vg0/root\n@end\n"), "sent 0 lvm commands",
		"no lvm command sent");
	refused(SENT("@lab-root /dev/dm-0\n@lv vg0/root\n@tool 4 /sbin/lvm\nELF\nwhat\n@end\n"),
		"do not have: 'what'", "a line it does not know");

	/* the command itself, run here for a volume given (this machine's root is not one) */
	host_root_command(&cmd, "labvg/root");
	{
		char *sh[] = { "sh", "-c", cmd.buf, NULL };

		is_int(subprocess_run(sh, NULL, &out, 60), 0, "the command runs (make deps installs lvm2)");
		n = add(&ar, out.buf ? out.buf : "", out.len, &err);
		ok(n >= 3, "this machine's lvm, its libraries and loader, sent by the command");
		nr = walk(&ar, e, &why);
		x = nr > 0 ? find(e, nr, "sbin/lvm") : NULL;
		ok(x && x->size > 100000 && !memcmp(x->data, "\177ELF", 4),
		   "... lvm whole, an ELF binary");
		x = nr > 0 ? find(e, nr, "lvm") : NULL;
		ok(x && x->size == 11 && !memcmp(x->data, "labvg/root\n", 11), "... for the volume given");
	}

	strbuf_release(&ar);
	strbuf_release(&err);
	strbuf_release(&cmd);
	strbuf_release(&out);
	return done_testing();
}
