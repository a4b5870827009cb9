#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "emit.h"
#include "events.h"
#include "parse.h"
#include "profile.h"
#include "sysfs.h"
#include "timing.h"
#include "trace.h"
#include "zeroing.h"

#define THP_ENABLED "/sys/kernel/mm/transparent_hugepage/enabled"
#define THP_DEFRAG "/sys/kernel/mm/transparent_hugepage/defrag"
#define TOUCH_STRIDE 4096
#define HUGE_ALIGN (2UL << 20)
#define TRACED "clear_huge_page"

/* The mode in effect: "always", "never", "madvise", or "" when unknown. */
static void thp_mode(char *mode, size_t size, const char *path)
{
	char buf[256];

	mode[0] = '\0';
	if (sysfs_read(path, buf, sizeof(buf)) >= 0 &&
	    parse_bracketed(mode, size, buf))
		mode[0] = '\0';
}

/* Sets lab.thp; *was gets the mode before, for restore_thp(). */
static void set_thp(const struct params *p, char *mode, size_t size, char *was,
		    size_t wassize)
{
	int ret = 0;

	thp_mode(was, wassize, THP_ENABLED);
	if (p->thp[0]) {
		if (!sysfs_exists(THP_ENABLED))
			ret = emit_error("zeroing", "cannot set THP to %s: %s missing (kernel "
					 "without CONFIG_TRANSPARENT_HUGEPAGE)", p->thp,
					 THP_ENABLED);
		else if ((ret = sysfs_write(THP_ENABLED, p->thp)))
			emit_error("zeroing", "cannot set THP to %s: writing %s: %s", p->thp,
				   THP_ENABLED, strerror(-ret));
	}
	thp_mode(mode, size, THP_ENABLED);
	emit_meta("zeroing.thp", "%s", mode[0] ? mode : "unavailable");
	if (!ret && p->thp[0] && strcmp(mode, p->thp))
		emit_error("zeroing", "THP is %s after setting it to %s",
			   mode[0] ? mode : "unreadable", p->thp);
}

/*
 * One timed round. The region is aligned to 2 MiB so that every round
 * gets the same number of huge pages wherever mmap places it.
 */
static int touch(long long *ns, size_t size, int madvise_huge)
{
	long long t0 = timing_ns(CLOCK_MONOTONIC);
	char *raw, *buf;
	size_t head, tail;

	raw = mmap(NULL, size + HUGE_ALIGN, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return -errno;
	buf = (char *)(((uintptr_t)raw + HUGE_ALIGN - 1) & ~(uintptr_t)(HUGE_ALIGN - 1));
	head = (size_t)(buf - raw);
	tail = HUGE_ALIGN - head;
	if (head)
		munmap(raw, head);
	if (tail)
		munmap(buf + size, tail);
	if (madvise_huge)
		madvise(buf, size, MADV_HUGEPAGE);
	for (size_t off = 0; off < size; off += TOUCH_STRIDE)
		*(volatile int *)(buf + off) = 1;
	*ns = timing_ns(CLOCK_MONOTONIC) - t0;
	munmap(buf, size);
	return 0;
}

/* Ring buffer size (KiB per CPU) before trace_begin() grew it; 0 when untouched. */
static long buffer_kb_was;

/*
 * Each call leaves an entry and a return event, under 128 bytes together:
 * make room for every call of the run so that none is overwritten.
 */
static void grow_buffer(const struct trace *t, const struct params *p)
{
	long calls = p->iters * (p->zeroing_mb / 2 + 1);
	long want = calls / 8 + 256, have;
	char buf[64], value[32];

	buffer_kb_was = 0;
	if (trace_read(t, "buffer_size_kb", buf, sizeof(buf)) < 0 ||
	    (have = strtol(buf, NULL, 10)) <= 0 || have >= want)
		return;
	snprintf(value, sizeof(value), "%ld", want);
	if (!trace_write(t, "buffer_size_kb", value))
		buffer_kb_was = have;
}

static void restore_buffer(const struct trace *t)
{
	char value[32];

	if (!buffer_kb_was)
		return;
	snprintf(value, sizeof(value), "%ld", buffer_kb_was);
	trace_write(t, "buffer_size_kb", value);
	buffer_kb_was = 0;
}

/* Sets up clear_huge_page tracing; returns 1 when it runs, 0 when not (meta says why). */
static int trace_begin(struct trace *t, const struct params *p, int pid1)
{
	char why[512], name[PARSE_FUNC_MAX], tracer[64];
	int ret;

	if (profile_active()) {
		snprintf(why, sizeof(why), "the function profiler holds the function_graph "
			 "machinery in a profiled boot");
		goto unavailable;
	}
	if (trace_open(t, 1, why, sizeof(why)))
		goto unavailable;
	ret = trace_find_function(t, TRACED, name, sizeof(name));
	if (ret < 0) {
		snprintf(why, sizeof(why), "cannot read available_filter_functions: %s",
			 strerror(-ret));
		goto unavailable;
	}
	if (!ret) {
		snprintf(why, sizeof(why), "%s not in available_filter_functions", TRACED);
		goto unavailable;
	}
	/* Outside a VM the tracer may be someone else's: leave it alone. */
	if (!pid1 && trace_read(t, "current_tracer", tracer, sizeof(tracer)) >= 0 &&
	    strcmp(tracer, "nop")) {
		snprintf(why, sizeof(why), "the tracer is busy (current_tracer is %s)", tracer);
		goto unavailable;
	}
	grow_buffer(t, p);
	/* Only our own faults: other tasks may clear huge pages too. */
	if (trace_graph_start(t, name, getpid(), why, sizeof(why))) {
		restore_buffer(t);
		goto unavailable;
	}
	if (strcmp(name, TRACED))
		emit_meta("zeroing.clear_huge_page_symbol", "%s", name);
	return 1;
unavailable:
	emit_meta("zeroing.clear_huge_page", "unavailable: %s", why);
	return 0;
}

struct calls {
	long iter;	/* round the buffer is in, from our markers; -1 before any */
	long index;
};

static int on_call(const char *func, double usecs, const char *comment, void *ctx)
{
	struct calls *c = ctx;
	long iter;

	if (comment) {
		if (sscanf(comment, "lab iter %ld", &iter) == 1)
			c->iter = iter;
		return 0;
	}
	if (!graph_name_matches(func, TRACED))
		return 0;
	emit_sample("zeroing", "clear_huge_page", c->index++, usecs, "us",
		    c->iter <= 0 ? SAMPLE_WARMUP : 0);
	return 0;
}

static void trace_end(struct trace *t)
{
	struct calls calls = { .iter = -1, .index = 0 };
	struct trace_stats stats;
	char why[512];

	trace_stop(t);
	if (trace_collect(t, on_call, &calls, &stats, why, sizeof(why)))
		emit_error("zeroing", "clear_huge_page trace: %s", why);
	else if (!calls.index)
		emit_meta("zeroing.clear_huge_page", "unavailable: no call traced "
			  "(no huge page was faulted in)");
	else
		emit_meta("zeroing.clear_huge_page", "%ld calls traced", calls.index);
	if (stats.lost || stats.overrun)
		emit_meta("zeroing.clear_huge_page_lost", "%ld events lost, %ld overwritten",
			  stats.lost, stats.overrun);
	trace_reset(t);
	restore_buffer(t);
}

/* Outside a VM the setting is the host's: leave it as it was found. */
static void restore_thp(const char *mode, const char *was)
{
	int ret;

	if (!was[0] || !strcmp(mode, was))
		return;
	if ((ret = sysfs_write(THP_ENABLED, was)))
		emit_error("zeroing", "cannot set THP back to %s: %s", was, strerror(-ret));
}

int zeroing_run(const struct params *p, int pid1)
{
	size_t size = (size_t)p->zeroing_mb << 20;
	int errors = emit_error_count(), tracing;
	char mode[32], was[32], defrag[32];
	struct trace t;

	set_thp(p, mode, sizeof(mode), was, sizeof(was));
	thp_mode(defrag, sizeof(defrag), THP_DEFRAG);
	if (defrag[0])
		emit_meta("zeroing.thp_defrag", "%s", defrag);
	emit_meta("zeroing.mb", "%ld", p->zeroing_mb);
	emit_meta("zeroing.iters", "%ld", p->iters);

	tracing = trace_begin(&t, p, pid1);
	for (long i = 0; i < p->iters; i++) {
		char mark[32];
		long long ns = 0;
		struct events ev;
		int ret;

		if (tracing) {
			snprintf(mark, sizeof(mark), "lab iter %ld", i);
			trace_mark(&t, mark);
		}
		events_begin(&ev, EVENTS_SELF);
		ret = touch(&ns, size, !strcmp(mode, "madvise"));
		events_end(&ev);
		if (ret) {
			emit_error("zeroing", "cannot map %ld MiB: %s", p->zeroing_mb,
				   strerror(-ret));
			break;
		}
		emit_sample("zeroing", "touch", i, (double)ns / 1e3, "us",
			    i == 0 ? SAMPLE_WARMUP : 0);
		events_emit(&ev, "zeroing", i, i == 0 ? SAMPLE_WARMUP : 0);
	}
	if (tracing)
		trace_end(&t);
	restore_thp(mode, was);
	return emit_error_count() > errors ? -1 : 0;
}
