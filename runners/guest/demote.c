#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "demote.h"
#include "emit.h"
#include "events.h"
#include "kmsg.h"
#include "parse.h"
#include "sysfs.h"
#include "timing.h"

#define POOL_1G "/sys/kernel/mm/hugepages/hugepages-1048576kB"
#define POOL_2M "/sys/kernel/mm/hugepages/hugepages-2048kB"
#define SMALL_PER_GIANT (1048576 / 2048)
#define ALLOC_RETRIES 2
/*
 * Rounds of allocating and demoting when the guest holds fewer pages than
 * asked: two at most, so that the default lab.iters (100) in a small guest
 * costs at most twice what fits, not a hundred allocations.
 */
#define MAX_ROUNDS 2
#define HVO_SYSCTL "/proc/sys/vm/hugetlb_optimize_vmemmap"
/* left to the kernel and the guest program when asking for many pages */
#define HEADROOM_KIB (512L * 1024)
#define GIANT_KIB (1024L * 1024)

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

/*
 * How many 1 GiB pages the free memory could hold with HEADROOM_KIB to
 * spare: a pool that takes every free page leaves the kernel nothing to
 * run the rest of the workload with. -1 when /proc/meminfo says nothing.
 */
static long giant_pages_that_fit(void)
{
	char buf[4096];
	const char *v;
	long kib;

	if (sysfs_read("/proc/meminfo", buf, sizeof(buf)) < 0 || !(v = strstr(buf, "MemFree:")) ||
	    sscanf(v + strlen("MemFree:"), "%ld", &kib) != 1)
		return -1;
	return kib > HEADROOM_KIB ? (kib - HEADROOM_KIB) / GIANT_KIB : 0;
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

struct totals {
	long long wall, sys;
};

/* Demote pages pages, samples numbered from first on. */
static int demote_pages(struct totals *t, long first, long pages)
{
	for (long i = 0; i < pages; i++) {
		struct events ev;
		long long w0, s0, w1, s1;
		int err;

		events_begin(&ev, EVENTS_SELF);
		w0 = timing_ns(CLOCK_MONOTONIC);
		s0 = timing_sys_ns();
		err = sysfs_write(POOL_1G "/demote", "1");
		w1 = timing_ns(CLOCK_MONOTONIC);
		s1 = timing_sys_ns();
		events_end(&ev);
		if (err)
			return emit_error("demote", "demoting 1 GiB page %ld of %ld failed: %s",
					  first + i + 1, first + pages, strerror(-err));
		emit_sample("demote", "demote_page_wall", first + i, (double)(w1 - w0) / 1e6, "ms", 0);
		emit_sample("demote", "demote_page_sys", first + i, (double)(s1 - s0) / 1e6, "ms", 0);
		events_emit(&ev, "demote", first + i, 0);
		t->wall += w1 - w0;
		t->sys += s1 - s0;
	}
	return 0;
}

/*
 * Allocate up to want 1 GiB pages. A 1 GiB range fails to migrate now and
 * then (a page briefly pinned or on a per-CPU list); dropping caches and
 * compacting, then asking again, usually succeeds. Returns how many, or -1.
 */
static long allocate_giant(const struct pools *before, long want)
{
	long got = set_giant_pool(before->nr1 + want);

	for (int retry = 0; got >= 0 && got < before->nr1 + want && retry < ALLOC_RETRIES; retry++) {
		sysfs_write("/proc/sys/vm/drop_caches", "3");
		sysfs_write("/proc/sys/vm/compact_memory", "1");
		got = set_giant_pool(before->nr1 + want);
	}
	return got < 0 ? -1 : got - before->nr1;
}

/* One round: allocate, demote and check the counts; the pools are put back after. */
static int demote_round(struct totals *t, long first, long pages)
{
	struct pools mid, after;
	int ret;

	if ((ret = sysfs_write(POOL_1G "/demote_size", "2048kB")))
		return emit_error("demote", "cannot write 2048kB to %s/demote_size: %s", POOL_1G,
				  strerror(-ret));
	if (read_pools(&mid))
		return -1;
	if (demote_pages(t, first, pages) || read_pools(&after))
		return -1;
	if (after.nr1 != mid.nr1 - pages || after.nr2 != mid.nr2 + SMALL_PER_GIANT * pages ||
	    after.free2 != mid.free2 + SMALL_PER_GIANT * pages)
		return emit_error("demote", "counts after demoting %ld page(s) do not match: "
				  "1 GiB pool %ld (want %ld), 2 MiB pool %ld (want %ld), 2 MiB free "
				  "%ld (want %ld)", pages, after.nr1, mid.nr1 - pages, after.nr2,
				  mid.nr2 + SMALL_PER_GIANT * pages, after.free2,
				  mid.free2 + SMALL_PER_GIANT * pages);
	return 0;
}

int demote_run(const struct params *p, int pid1)
{
	struct pools before;
	struct totals t = { 0, 0 };
	long want = p->pages ? p->pages : p->iters, done = 0, fit, most = 0;
	int rounds = 0, ret = 0;

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
	 * Every page demoted is a sample. When the guest's memory holds fewer
	 * pages than asked, they are demoted in rounds: as many as fit,
	 * demoted, their 2 MiB pages given back, and the next round allocates
	 * again, up to MAX_ROUNDS. Each demotion is of a freshly allocated
	 * 1 GiB page either way.
	 */
	fit = giant_pages_that_fit();
	while (done < want && rounds < MAX_ROUNDS) {
		/* with too little memory for even one, try one: the kernel decides */
		long ask = want - done, got;

		if (fit >= 0 && ask > (fit > 0 ? fit : 1))
			ask = fit > 0 ? fit : 1;
		got = allocate_giant(&before, ask);
		if (got <= 0) {
			restore(&before);
			if (got < 0)
				return -1;
			if (done)
				break;
			return emit_error("demote", "no 1 GiB page could be allocated (asked "
					  "for %ld): no free, movable, 1 GiB-aligned range; with "
					  "little memory, KASLR may have put the kernel in the only "
					  "one (boot with nokaslr or more memory)", ask);
		}
		if (got > most)
			most = got;
		ret = demote_round(&t, done, got);
		restore(&before);
		if (ret)
			return -1;
		done += got;
		rounds++;
	}
	if (rounds > 1 || done < want) {
		emit_meta("demote.pages_requested", "%ld", want);
		emit_meta("demote.pages_at_once", "%ld (the guest's memory holds no more)", most);
		emit_meta("demote.rounds", "%d", rounds);
	}
	if (done < want)
		emit_meta("demote.pages_demoted", "%ld: the guest's memory holds no more in %d "
			  "round%s", done, rounds, rounds == 1 ? "" : "s");
	emit_meta("demote.verified", "yes");
	emit_sample("demote", "demote_total_wall", 0, (double)t.wall / 1e6, "ms", 0);
	emit_sample("demote", "demote_total_sys", 0, (double)t.sys / 1e6, "ms", 0);
	return 0;
}
