#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture.h"
#include "cpio.h"
#include "cpio-read.h"
#include "modules.h"
#include "strbuf.h"
#include "rmtree.h"
#include "strvec.h"
#include "tap.h"

static char dir[] = "/tmp/test-modules.XXXXXX";

static void put(const char *rel, const char *text)
{
	struct strbuf p = STRBUF_INIT;
	FILE *f;

	strbuf_addf(&p, "%s/%s", dir, rel);
	for (char *s = strchr(p.buf + strlen(dir) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(p.buf, 0755);
		*s = '/';
	}
	f = fopen(p.buf, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(p.buf);
		exit(2);
	}
	strbuf_release(&p);
}

/* The position of name in the /modules list, or -1. */
static int position(const char *list, const char *name)
{
	struct strbuf want = STRBUF_INIT;
	const char *at;
	int n = 0;

	strbuf_addf(&want, "/lib/modules/6.1.0-lab/%s\n", name);
	at = strstr(list, want.buf);
	for (const char *p = list; at && p < at; p++)
		n += *p == '\n';
	strbuf_release(&want);
	return at ? n : -1;
}

static int add(struct strbuf *ar, const char *root)
{
	struct strvec made = STRVEC_INIT;
	struct cpio c;
	int n;

	strbuf_reset(ar);
	cpio_init_strbuf(&c, ar);
	n = initramfs_add_modules(&c, &made, root);
	if (n >= 0 && cpio_finish(&c))
		n = -1;
	strvec_release(&made);
	return n;
}

int main(void)
{
	struct strbuf ar = STRBUF_INIT, list = STRBUF_INIT, root = STRBUF_INIT, err = STRBUF_INIT;
	struct entry e[MAX_ENTRIES];
	const struct entry *x;
	const char *why = NULL;
	struct capture cap;
	int nr, n;

	if (!mkdtemp(dir))
		return 2;

	ok(initramfs_wants_module("kernel/drivers/net/virtio_net.ko"), "a NIC driver is wanted");
	ok(initramfs_wants_module("kernel/drivers/net/ethernet/intel/ice/ice.ko"), "... an Ethernet one");
	ok(initramfs_wants_module("kernel/drivers/nvme/host/nvme.ko"), "a disk driver");
	ok(initramfs_wants_module("kernel/fs/xfs/xfs.ko"), "a filesystem");
	ok(!initramfs_wants_module("kernel/drivers/net/wireless/ath/ath10k/ath10k_core.ko"),
	   "a wireless driver is not");
	ok(!initramfs_wants_module("kernel/sound/core/snd.ko"), "nor sound");
	ok(!initramfs_wants_module("kernel/lib/libcrc32c.ko"), "nor a library for itself");

	/* as depmod writes it: each module, then what it depends on */
	put("m/lib/modules/6.1.0-lab/modules.dep",
	    "kernel/drivers/net/virtio_net.ko: kernel/drivers/net/net_failover.ko "
	    "kernel/net/core/failover.ko\n"
	    "kernel/sound/core/snd.ko: kernel/sound/core/snd-timer.ko\n"
	    "kernel/sound/core/snd-timer.ko:\n"
	    "kernel/drivers/net/net_failover.ko: kernel/net/core/failover.ko\n"
	    "kernel/net/core/failover.ko:\n"
	    "kernel/fs/btrfs/btrfs.ko: kernel/lib/libcrc32c.ko kernel/lib/raid6/raid6_pq.ko\n"
	    "kernel/lib/raid6/raid6_pq.ko:\n"
	    "kernel/lib/libcrc32c.ko:\n"
	    "kernel/drivers/block/virtio_blk.ko:\n");
	put("m/lib/modules/6.1.0-lab/kernel/drivers/net/virtio_net.ko", "virtio_net\n");
	put("m/lib/modules/6.1.0-lab/kernel/drivers/net/net_failover.ko", "net_failover\n");
	put("m/lib/modules/6.1.0-lab/kernel/net/core/failover.ko", "failover\n");
	put("m/lib/modules/6.1.0-lab/kernel/sound/core/snd.ko", "snd\n");
	put("m/lib/modules/6.1.0-lab/kernel/sound/core/snd-timer.ko", "snd-timer\n");
	put("m/lib/modules/6.1.0-lab/kernel/fs/btrfs/btrfs.ko", "btrfs\n");
	put("m/lib/modules/6.1.0-lab/kernel/lib/raid6/raid6_pq.ko", "raid6_pq\n");
	put("m/lib/modules/6.1.0-lab/kernel/lib/libcrc32c.ko", "libcrc32c\n");
	put("m/lib/modules/6.1.0-lab/kernel/drivers/block/virtio_blk.ko", "virtio_blk\n");
	strbuf_addf(&root, "%s/m", dir);

	n = add(&ar, root.buf);
	is_int(n, 7, "seven modules: four wanted, three they depend on, no sound");
	nr = walk(&ar, e, &why);
	ok(nr > 0, why ? why : "the archive reads back");
	x = find(e, nr, "modules");
	ok(x, "a /modules list");
	if (x)
		strbuf_add(&list, x->data, x->size);
	is_int(position(list.buf, "kernel/sound/core/snd.ko"), -1, "sound is not loaded");
	ok(position(list.buf, "kernel/net/core/failover.ko") <
		   position(list.buf, "kernel/drivers/net/net_failover.ko") &&
		   position(list.buf, "kernel/drivers/net/net_failover.ko") <
		   position(list.buf, "kernel/drivers/net/virtio_net.ko") &&
		   position(list.buf, "kernel/net/core/failover.ko") >= 0,
	   "virtio_net after net_failover after failover");
	ok(position(list.buf, "kernel/lib/libcrc32c.ko") >= 0 &&
		   position(list.buf, "kernel/lib/raid6/raid6_pq.ko") >= 0 &&
		   position(list.buf, "kernel/lib/libcrc32c.ko") <
		   position(list.buf, "kernel/fs/btrfs/btrfs.ko") &&
		   position(list.buf, "kernel/lib/raid6/raid6_pq.ko") <
		   position(list.buf, "kernel/fs/btrfs/btrfs.ko"),
	   "btrfs after the libraries it needs, which come only as its dependencies");
	ok(position(list.buf, "kernel/drivers/block/virtio_blk.ko") >= 0, "virtio_blk, on its own");
	x = find(e, nr, "lib/modules/6.1.0-lab/kernel/drivers/net/virtio_net.ko");
	ok(x && x->size == 11 && !memcmp(x->data, "virtio_net\n", 11) && (x->mode & 0777) == 0644,
	   "each module at its own path, its bytes");
	ok(find(e, nr, "lib") && find(e, nr, "lib/modules/6.1.0-lab/kernel/drivers/net") &&
		   find(e, nr, "lib/modules/6.1.0-lab/kernel/lib/raid6"),
	   "its directories before it");
	ok(!find(e, nr, "lib/modules/6.1.0-lab/kernel/sound"), "none for what is not taken");
	ok(find(e, nr, "lib/modules") < find(e, nr, "lib/modules/6.1.0-lab/kernel/fs/btrfs/btrfs.ko"),
	   "a directory comes before what is in it");

	/* a second release beside the first: which is the build's? */
	put("m/lib/modules/6.2.0/modules.dep", "\n");
	capture_start(&cap);
	n = add(&ar, root.buf);
	capture_end(&cap, &err);
	is_int(n, -1, "two releases: refused");
	ok(strstr(err.buf ? err.buf : "", "holds 2 releases, not one"), "... saying so");

	strbuf_reset(&root);
	strbuf_addf(&root, "%s/none", dir);
	strbuf_reset(&err);
	capture_start(&cap);
	n = add(&ar, root.buf);
	capture_end(&cap, &err);
	is_int(n, -1, "no modules installed: refused");
	ok(strstr(err.buf ? err.buf : "", "/none/lib/modules"), "... naming the folder");

	strbuf_release(&ar);
	strbuf_release(&list);
	strbuf_release(&root);
	strbuf_release(&err);
	if (rmtree(dir) < 0)
		perror(dir);
	return done_testing();
}
