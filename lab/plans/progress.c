#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "escape.h"
#include "progress.h"

static struct progress *watching(struct run_watch *w)
{
	return (struct progress *)((char *)w - offsetof(struct progress, watch));
}

static void watch_phase(struct run_watch *w, const char *what)
{
	meter_phase(&watching(w)->meter, "%s", what);
}

static void watch_count(struct run_watch *w, const char *what)
{
	meter_set(&watching(w)->meter, 0, "%s", what);
}

static void watch_tick(struct run_watch *w)
{
	meter_tick(&watching(w)->meter);
}

void progress_start(struct progress *pr, long total)
{
	memset(pr, 0, sizeof(*pr));
	pr->total = total;
	meter_init(&pr->meter, stderr);
	pr->watch.phase = watch_phase;
	pr->watch.count = watch_count;
	pr->watch.tick = watch_tick;
}

void progress_release(struct progress *pr)
{
	meter_release(&pr->meter);
}

struct run_watch *progress_watch(struct progress *pr)
{
	return &pr->watch;
}

/* The slot of a label's last boot time: its own, else the least used. */
static int label_slot(struct progress *pr, const char *label)
{
	for (int i = 0; i < PROGRESS_LABELS; i++)
		if (!strcmp(pr->last[i].label, label))
			return i;
	for (int i = 0; i < PROGRESS_LABELS; i++)
		if (!pr->last[i].label[0]) {
			snprintf(pr->last[i].label, sizeof(pr->last[i].label), "%s", label);
			pr->last[i].wall_s = 0;
			return i;
		}
	return PROGRESS_LABELS - 1;
}

void progress_update(struct progress *pr, long k, const char *label)
{
	pr->current = label_slot(pr, label ? label : "");
	meter_begin(&pr->meter, 0, pr->last[pr->current].wall_s, "boot %ld of %ld%s%s", k,
		    pr->total, label ? " " : "", label ? term_safe(label) : "");
	meter_phase(&pr->meter, "starting");
}

void progress_boot_done(struct progress *pr, long k, long long run_id,
			const struct run_result *res, const char *console_log)
{
	const char *uncontained;

	if (res->status == RUN_OK)
		pr->last[pr->current].wall_s = res->wall_s;
	meter_done(&pr->meter, "boot %ld of %ld: %s (run %lld, %.1f s)", k, pr->total,
		   run_status_name(res->status), run_id, res->wall_s);
	if (res->status != RUN_OK)
		fprintf(stderr, "  %s\n  console log: %s\n", term_safe(strbuf_str(&res->error)),
			term_safe(console_log));
	if (res->bad_lines)
		fprintf(stderr, "  %d protocol line(s) dropped, not used (first: %s); "
			"'lab show %lld' lists them\n", res->bad_lines,
			res->dropped_nr ? term_safe(res->dropped[0].reason) : "?", run_id);
	/* what the guest could not keep in here (runners/guest/contain.h): once a boot */
	uncontained = sample_set_meta_get(&res->set, "exec.uncontained");
	if (uncontained)
		fprintf(stderr, "  warning: %s\n", term_safe(uncontained));
}
