#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "escape.h"
#include "progress.h"
#include "say.h"

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

void progress_start(struct progress *pr, long total, int at_most)
{
	memset(pr, 0, sizeof(*pr));
	pr->total = total;
	pr->at_most = at_most;
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

void progress_update(struct progress *pr, long k, const char *label)
{
	long left = pr->total - k + 1;
	double expected = 0;

	/* the series' time left, not the boot's: its boots left at their mean so far */
	if (pr->ok && left > 0)
		expected = (double)left * pr->ok_s / (double)pr->ok;
	meter_begin(&pr->meter, 0, expected, "boot %ld of %s%ld%s%s", k,
		    pr->at_most ? "at most " : "", pr->total, label ? " " : "",
		    label ? term_safe(label) : "");
	pr->meter.left_before = pr->at_most ? "at most " : NULL;
	pr->meter.left_after = left > 1 ? "left in all" : NULL;
	meter_phase(&pr->meter, "starting");
}

void progress_boot_done(struct progress *pr, long k, long long run_id,
			const struct run_result *res, const char *console_log)
{
	const char *uncontained;

	if (res->status == RUN_OK) {
		pr->ok_s += res->wall_s;
		pr->ok++;
	}
	/* what the guest could not keep in here (runners/guest/contain.h): once a boot */
	uncontained = sample_set_meta_get(&res->set, "exec.uncontained");
	/* --quiet: the result and the errors, nothing of a boot that went well */
	if (pr->meter.quiet && res->status == RUN_OK && !res->bad_lines && !uncontained)
		return;
	meter_done(&pr->meter, "boot %ld of %s%ld: %s (run %lld, %.1f s)", k,
		   pr->at_most ? "at most " : "", pr->total, run_status_name(res->status), run_id,
		   res->wall_s);
	/* a kernel's panic or a long path: wrapped, the further lines indented deeper */
	if (res->status != RUN_OK) {
		say_wrap("    ", "  %s", strbuf_str(&res->error));
		say_wrap("    ", "  console log: %s", console_log);
	}
	if (res->bad_lines)
		say("  %d protocol line(s) dropped, not used (first: %s); 'lab show %lld' lists them",
		    res->bad_lines, res->dropped_nr ? res->dropped[0].reason : "?", run_id);
	if (uncontained)
		say("  warning: %s", uncontained);
}
