#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "demote.h"
#include "emit.h"
#include "kmsg.h"
#include "parse.h"
#include "sysfs.h"
#include "timing.h"

#define POOL_1G "/sys/kernel/mm/hugepages/hugepages-1048576kB"
#define POOL_2M "/sys/kernel/mm/hugepages/hugepages-2048kB"
#define SMALL_PER_GIANT (1048576 / 2048)
#define ALLOC_RETRIES 2
#define HVO_SYSCTL "/proc/sys/vm/hugetlb_optimize_vmemmap"

struct pools {
	long nr1, free1, nr2, free2;
};

static int read_pools(struct pools *p)
{
	static const struct {
		const char *path;
		size_t offset;
	} files[] = {
		{ POOL_1G "/nr_hugepages", offsetof(struct pools, nr1) },
		{ POOL_1G "/free_hugepages", offsetof(struct pools, free1) },
		{ POOL_2M "/nr_hugepages", offsetof(struct pools, nr2) },
		{ POOL_2M "/free_hugepages", offsetof(struct pools, free2) },
	};

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		int ret = sysfs_read_long(files[i].path,
					  (long *)((char *)p + files[i].offset));
		if (ret)
			return emit_error("demote", "cannot read %s: %s", files[i].path,
					  strerror(-ret));
	}
	return 0;
}

struct hvo_scan {
	long kib;		/* -1: no message */
	char message[1024];
};

static int on_record(const struct kmsg_record *rec, void *ctx)
{
	struct hvo_scan *scan = ctx;
	char page[32];
	long kib;

	if (parse_hvo_message(&kib, page, sizeof(page), rec->text) &&
	    strstr(page, "GiB")) {
		scan->kib = kib;
		snprintf(scan->message, sizeof(scan->message), "%s", rec->text);
		return 1;
	}
	return 0;
}

/*
 * hugetlb_free_vmemmap= on the kernel command line, as kstrtobool reads
 * it: 1 on, 0 off, -1 absent.
 */
static int cmdline_hvo(void)
{
	char buf[4096];
	const char *v;

	if (sysfs_read("/proc/cmdline", buf, sizeof(buf)) < 0 ||
	    !(v = strstr(buf, "hugetlb_free_vmemmap=")))
		return -1;
	v += strlen("hugetlb_free_vmemmap=");
	if (!*v)
		return -1;
	if (strchr("yY1", *v) || !strncmp(v, "on", 2))
		return 1;
	if (strchr("nN0", *v) || !strncmp(v, "off", 3))
		return 0;
	return -1;
}

/*
 * HVO is on when the kernel can free vmemmap for a 1 GiB page (its boot
 * message says how much; 0 when struct page is not a power of two) and
 * the sysctl, which exists only in that case, is 1.
 */
static void report_hvo(void)
{
	struct hvo_scan scan = { .kib = -1 };
	char why[256];
	long sysctl = -1;
	int log_ok = !kmsg_scan(on_record, &scan, why, sizeof(why));

	if (sysfs_read_long(HVO_SYSCTL, &sysctl))
		sysctl = -1;
	else
		emit_meta("demote.hugetlb_optimize_vmemmap", "%ld", sysctl);
	if (!log_ok)
		emit_meta("demote.hvo_message", "unavailable: %s", why);
	else if (scan.kib >= 0)
		emit_meta("demote.hvo_message", "%s", scan.message);
	else
		emit_meta("demote.hvo_message", "none for 1 GiB pages in the kernel log");

	if (sysctl == 0 || scan.kib == 0)
		emit_meta("demote.hvo", "off");
	else if (sysctl == 1)
		emit_meta("demote.hvo", "on");
	else if (scan.kib > 0 && cmdline_hvo() >= 0)
		emit_meta("demote.hvo", "%s (from the kernel command line)",
			  cmdline_hvo() ? "on" : "off");
	else
		emit_meta("demote.hvo", "unknown");
}

/* Ask for nr pages in the 1 GiB pool; returns how many it really has, or -1. */
static long set_giant_pool(long nr)
{
	long got;
	int ret = sysfs_write_long(POOL_1G "/nr_hugepages", nr);

	if (ret)
		return emit_error("demote", "cannot write %ld to %s/nr_hugepages: %s", nr,
				  POOL_1G, strerror(-ret));
	if ((ret = sysfs_read_long(POOL_1G "/nr_hugepages", &got)))
		return emit_error("demote", "cannot read %s/nr_hugepages: %s", POOL_1G,
				  strerror(-ret));
	return got;
}

static void restore(const struct pools *before)
{
	long nr1 = -1, nr2 = -1;

	sysfs_write_long(POOL_2M "/nr_hugepages", before->nr2);
	sysfs_write_long(POOL_1G "/nr_hugepages", before->nr1);
	sysfs_read_long(POOL_2M "/nr_hugepages", &nr2);
	sysfs_read_long(POOL_1G "/nr_hugepages", &nr1);
	if (nr1 != before->nr1 || nr2 != before->nr2)
		emit_meta("demote.restore", "pools left at %ld x 1 GiB, %ld x 2 MiB "
			  "(were %ld and %ld)", nr1, nr2, before->nr1, before->nr2);
}

static int demote_pages(long pages)
{
	long long wall_total = 0, sys_total = 0;
	int ret = 0;

	for (long i = 0; i < pages; i++) {
		long long w0 = timing_ns(CLOCK_MONOTONIC), s0 = timing_sys_ns(), w1, s1;
		int err = sysfs_write(POOL_1G "/demote", "1");
		w1 = timing_ns(CLOCK_MONOTONIC);
		s1 = timing_sys_ns();
		if (err) {
			ret = emit_error("demote", "demoting 1 GiB page %ld of %ld failed: %s",
					 i + 1, pages, strerror(-err));
			break;
		}
		emit_sample("demote", "demote_page_wall", i, (double)(w1 - w0) / 1e6, "ms", 0);
		emit_sample("demote", "demote_page_sys", i, (double)(s1 - s0) / 1e6, "ms", 0);
		wall_total += w1 - w0;
		sys_total += s1 - s0;
	}
	if (!ret) {
		emit_sample("demote", "demote_total_wall", 0, (double)wall_total / 1e6, "ms", 0);
		emit_sample("demote", "demote_total_sys", 0, (double)sys_total / 1e6, "ms", 0);
	}
	return ret;
}

int demote_run(const struct params *p, int pid1)
{
	struct pools before, mid, after;
	long got, allocated;
	int ret;

	(void)pid1;
	if (!sysfs_exists(POOL_1G))
		return emit_error("demote", "no 1 GiB hugetlb pool (%s missing): kernel "
				  "without hugetlb, or CPU without 1 GiB pages", POOL_1G);
	if (!sysfs_exists(POOL_1G "/demote"))
		return emit_error("demote", "kernel cannot demote hugetlb pages "
				  "(%s/demote missing; it came in 5.16)", POOL_1G);
	if (read_pools(&before))
		return -1;
	emit_meta("demote.pool_1g_before", "nr %ld free %ld", before.nr1, before.free1);
	emit_meta("demote.pool_2m_before", "nr %ld free %ld", before.nr2, before.free2);
	report_hvo();

	/*
	 * A 1 GiB range fails to migrate now and then (a page briefly pinned
	 * or on a per-CPU list); dropping caches and compacting, then asking
	 * again, usually succeeds.
	 */
	got = set_giant_pool(before.nr1 + p->pages);
	for (int retry = 0; got >= 0 && got < before.nr1 + p->pages &&
			    retry < ALLOC_RETRIES; retry++) {
		sysfs_write("/proc/sys/vm/drop_caches", "3");
		sysfs_write("/proc/sys/vm/compact_memory", "1");
		got = set_giant_pool(before.nr1 + p->pages);
	}
	if (got < 0) {
		restore(&before);
		return -1;
	}
	allocated = got - before.nr1;
	if (allocated < p->pages) {
		emit_meta("demote.pages_requested", "%ld", p->pages);
		emit_meta("demote.pages_allocated", "%ld", allocated > 0 ? allocated : 0);
	}
	if (allocated <= 0) {
		restore(&before);
		return emit_error("demote", "no 1 GiB page could be allocated (asked for "
				  "%ld): no free, movable, 1 GiB-aligned range; with little "
				  "memory, KASLR may have put the kernel in the only one "
				  "(boot with nokaslr or more memory)", p->pages);
	}

	if ((ret = sysfs_write(POOL_1G "/demote_size", "2048kB"))) {
		restore(&before);
		return emit_error("demote", "cannot write 2048kB to %s/demote_size: %s",
				  POOL_1G, strerror(-ret));
	}
	if (read_pools(&mid)) {
		restore(&before);
		return -1;
	}
	ret = demote_pages(allocated);
	if (!ret && !read_pools(&after)) {
		long want1 = mid.nr1 - allocated;
		long want2 = mid.nr2 + SMALL_PER_GIANT * allocated;
		long want2_free = mid.free2 + SMALL_PER_GIANT * allocated;
		if (after.nr1 == want1 && after.nr2 == want2 && after.free2 == want2_free)
			emit_meta("demote.verified", "yes");
		else
			ret = emit_error("demote", "counts after demoting %ld page(s) do not "
					 "match: 1 GiB pool %ld (want %ld), 2 MiB pool %ld "
					 "(want %ld), 2 MiB free %ld (want %ld)", allocated,
					 after.nr1, want1, after.nr2, want2, after.free2,
					 want2_free);
	} else if (!ret) {
		ret = -1;
	}
	restore(&before);
	return ret;
}
