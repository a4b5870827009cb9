#ifndef PROGRESS_H
#define PROGRESS_H
/*
 * Progress of a series of boots on stderr, through a meter (lib/meter.h):
 * while a boot runs, its phase as the console tells it ("boot 3 of 10
 * (B): zeroing: 4 samples, 0:12, ~0:09 left", the time left from the last
 * boot of the same label); when it ends, one line with its status, and
 * the reason when it failed.
 *
 * A boot plan is watched by pointing its spec's watch at progress_watch().
 */
#include "meter.h"
#include "runner.h"

#define PROGRESS_LABELS 4

struct progress {
	long total;
	struct meter meter;
	struct run_watch watch;
	/* how long the last OK boot of each label took, for the time left */
	struct {
		char label[16];
		double wall_s;
	} last[PROGRESS_LABELS];
	int current;		/* the label slot of the boot under way */
};

void progress_start(struct progress *pr, long total);
void progress_release(struct progress *pr);
/* The watch to put in a boot plan's spec. */
struct run_watch *progress_watch(struct progress *pr);
/* Boot k begins. label: what is being booted ("(A)", a variant name), or NULL. */
void progress_update(struct progress *pr, long k, const char *label);
void progress_boot_done(struct progress *pr, long k, long long run_id,
			const struct run_result *res, const char *console_log);

#endif
