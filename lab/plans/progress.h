#ifndef PROGRESS_H
#define PROGRESS_H
/*
 * Progress of a series of boots on stderr, through a meter (lib/meter.h):
 * while a boot runs, which boot of how many and its phase as the console
 * tells it, with the time the whole series has left ("boot 3 of 10 (B):
 * zeroing: 4 samples, 0:12, ~1:40 left in all": the boots left at the
 * mean time of those that ended OK); when it ends, one line with its
 * status, and the reason when it failed. An adaptive schedule knows only
 * its most boots: "boot 3 of at most 40", "at most ~1:02:30 left".
 * Under --quiet nothing is said of a boot that ended OK.
 *
 * A boot plan is watched by pointing its spec's watch at progress_watch().
 */
#include "meter.h"
#include "runner.h"

struct progress {
	long total;		/* boots of the whole series, or its most (at_most) */
	int at_most;
	long base;		/* boots of the parts of the series already done (sweep points) */
	struct meter meter;
	struct run_watch watch;
	double ok_s;		/* wall time of the boots that ended OK, and how many */
	long ok;
};

/* total: the boots planned; at_most: an adaptive schedule's upper bound. */
void progress_start(struct progress *pr, long total, int at_most);
void progress_release(struct progress *pr);
/* The watch to put in a boot plan's spec. */
struct run_watch *progress_watch(struct progress *pr);
/* Boot k begins. label: what is being booted ("(A)", a variant name), or NULL. */
void progress_update(struct progress *pr, long k, const char *label);
void progress_boot_done(struct progress *pr, long k, long long run_id,
			const struct run_result *res, const char *console_log);

#endif
