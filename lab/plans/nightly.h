#ifndef NIGHTLY_H
#define NIGHTLY_H
/*
 * One night of a [nightly "NAME"] (lab.conf, config.h), as `lab nightly`
 * runs it from cron or a systemd timer:
 *
 *  1. one lab per nightly: an flock on <db>.nightly-<NAME>.lock beside the
 *     database; a second lab finds it taken and stops at once (NIGHTLY_BUSY);
 *  2. fetch the branch with libgit2 into the lab's own mirror
 *     (<state>/mirrors/<NAME>.git), from a path or any URL libgit2 speaks;
 *  3. queue the new commits (the head, or up to maxCommits new since the
 *     last night, oldest first) and measure each commit still queued: built
 *     (lab/plans/refbuild.c), booted `boots` times per memory size and command
 *     line, one point per series (workload.metric, target, memory, command
 *     line, clock): the median of the commit's per-boot medians;
 *  4. per series, change points and a suspect among the newest points
 *     (results/changepoint.h) since the last confirmed change, each
 *     confirmed by an interleaved A/B (lab/plans/ab.h) of the last ordinary commit
 *     before it against the first after it; a confirmed REGRESSION is
 *     bisected (lab/plans/bisect-run.h) within bisectBudget boots;
 *  5. one mail for the night's confirmed regressions, one webhook POST for
 *     its confirmed changes (lib/notify.h); a regression told before its
 *     bisection ended (stopped, and finished a later night) gets a
 *     follow-up mail and POST entry with the outcome the night it ends;
 *     an infrastructure failure (the fetch, a build tool, a boot the lab
 *     could not run) is reported in the summary and never as a
 *     regression, and what it left undone is done the next night.
 *
 * Everything is stored as it happens (results/store-nightly.h): a lab killed
 * mid-night leaves the night INTERRUPTED, and the next one measures what is
 * missing (a commit's boots already stored count), resumes the A/B and the
 * bisection by their recorded commands, and never measures a commit twice.
 */
#include <stdio.h>

#include "config.h"
#include "context.h"

enum nightly_status {
	NIGHTLY_OK = 0,		/* night done, no confirmed regression */
	NIGHTLY_REGRESSION = 1,	/* a confirmed regression */
	NIGHTLY_ERROR = 2,	/* bad configuration, or the infrastructure failed */
	NIGHTLY_BUSY = 75,	/* another lab runs this nightly (EX_TEMPFAIL) */
};

/*
 * One night of n on ctx (config loaded); what it does goes to out.
 * command, the command line that asked for the night, is stored with each
 * A/B and bisection the night starts, with a shell comment saying which.
 */
enum nightly_status nightly_run(struct lab_context *ctx, const struct lab_nightly *n,
				const char *command, FILE *out);

#endif
