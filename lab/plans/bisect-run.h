#ifndef BISECT_RUN_H
#define BISECT_RUN_H
/*
 * The bisect driver: a whole bisection of a kernel repository, from a
 * struct to a stored outcome, for any command that has a lab_context
 * (`lab bisect`, `lab nightly`). It resolves the ends, walks the commit
 * graph, builds each commit it needs (lab/plans/refbuild.c), boots it
 * (lab/plans/boot.c), stores every run, step and the outcome, and leaves the
 * decisions to lab/plans/bisect.c. Printing the result is the caller's: the
 * driver only says its progress (lib/say.h: each boot and step, the metric
 * chosen, "bisection E<n> started").
 *
 * Every field of the spec is stored with the bisection as data, so that a
 * resume or another `git bisect run` step finds it and measures the same
 * way. Ownership: nothing in the spec is kept after the call; the outcome
 * owns its strings (bisect_outcome_release()). The context must own no
 * experiment when called (one experiment per context): the driver takes
 * the bisection's lock and drops it before returning, so that one context
 * can run several bisections in turn.
 *
 * Errors: -1 after a one-line message (bad ref, good and bad the same
 * commit or bad not after good, unknown metric, an end that does not
 * build or boot, the boot budget used up, another lab running the
 * bisection, a database failure). *bisection_id is set as soon as this
 * lab owns the bisection, so that a caller can say how to resume one that
 * stopped (0: nothing was stored, or another lab owns it). Samples already
 * measured stay stored either way: a resume measures only what is
 * missing, and replays the same decisions.
 */
#include "bisect-spec.h"

/*
 * Bisect spec->good..spec->bad: 0 with *out filled and stored (whatever
 * the verdict), -1 on error. *out is initialized here: release it either
 * way. *bisection_id (may be NULL) is the bisection's experiment id, for
 * `lab bisect --status` and the reports.
 */
int bisect_run(struct lab_context *ctx, const struct bisect_spec *spec,
	       long long *bisection_id, struct bisect_outcome *out);

/* One commit classified against the ends, for `git bisect run`. */
struct bisect_step_outcome {
	enum bisect_mark mark;		/* GOOD, BAD, or SKIP: does not build or boot, or unclear */
	char commit[16];		/* its id, cut to 12 */
	size_t n;			/* boots of the commit */
	struct stats_hl ratio;		/* its M/G, 99 % CI; NaN when skipped unmeasured */
	struct stats_hl effect;		/* R(good -> bad) */
};

/*
 * Measure ref (e.g. "HEAD") against the ends of the bisection stored with
 * exactly this spec, made first when there is none: the ends are
 * measured once and kept. spec->max_boots (0: a default) is the budget of
 * this call alone; spec->resume is ignored. 0 with *out, -1 on error,
 * no regression from good to bad included.
 */
int bisect_run_step(struct lab_context *ctx, const struct bisect_spec *spec, const char *ref,
		    long long *bisection_id, struct bisect_step_outcome *out);

#endif
