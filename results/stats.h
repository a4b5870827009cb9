#ifndef STATS_H
#define STATS_H
/*
 * The statistics behind every verdict, as docs/statistics.md describes them.
 * This header is the decisions (stats.c): the verdict rules, Benjamini-
 * Hochberg, the adaptive sampling schedule; and it includes the rest, each
 * file its concern: sorting and selection (stats-sort.h), distributions
 * (stats-dist.h), the tests and estimators of a comparison (stats-tests.h)
 * and boots as the unit (stats-boot.h).
 *
 * Pure computation: nothing here prints, reads files or keeps state between
 * calls, so any thread may call anything. Sample arrays belong to the caller
 * and are never modified. Results go into caller-provided structs; the only
 * memory handed to the caller is stats_boot_units.values, which
 * stats_boot_units_release() frees.
 *
 * Functions that can fail return 0, or -1 with errno set: EINVAL for an
 * empty side, a non-finite value or an out-of-range parameter, EDOM for a
 * ratio asked of values that are not all positive, ENOMEM.
 *
 * Ratios are B/A: "b" is the new kernel, "a" the baseline, and a ratio
 * above 1 means B's numbers are larger.
 */
#include <stddef.h>

#include "stats-boot.h"
#include "stats-dist.h"
#include "stats-sort.h"
#include "stats-tests.h"

/* "REGRESSION", "IMPROVEMENT", "SAME", "SMALL", "INCONCLUSIVE". */
const char *verdict_name(enum verdict v);

/* The verdict rules applied to c's p, CIs, alpha, delta and direction. */
enum verdict stats_verdict(const struct stats_comparison *c);
/*
 * The same rules with p for c's own: the p that decides when several
 * metrics are judged at once, adjusted by stats_bh_adjust(). A NaN p is
 * never significant. c is not changed.
 */
enum verdict stats_verdict_at(const struct stats_comparison *c, double p);

/*
 * Benjamini-Hochberg adjusted p-values, in the input's order. adj may be p
 * itself. A hypothesis is rejected at false discovery rate q when
 * adj[i] <= q.
 */
int stats_bh_adjust(double *adj, const double *p, size_t n);

/*
 * Adaptive sampling: look at start samples per side; on INCONCLUSIVE
 * bring both sides up to twice the smaller side's level (start, 2 start,
 * 4 start, ... cap). Every level is a look, so per-look alpha shrinks with
 * the number of levels to keep the overall false-positive rate at alpha.
 */
struct stats_schedule {
	size_t start;		/* samples per side at the first look */
	size_t cap;		/* most samples per side */
	double alpha;		/* overall two-sided false-positive rate */
};

#define STATS_SCHEDULE_INIT { 5, 160, 0.05 }

/* Looks from start to cap: 5, 10, 20, 40, 80, 160 are 6. */
int stats_schedule_looks(const struct stats_schedule *s);

/*
 * Per-look alpha: the nominal level c such that, for a z statistic
 * observed at each doubling (correlation sqrt(1/2) between neighbouring
 * looks), P(some |z| > c) = s->alpha under H0. Normal theory,
 * integrated numerically: 0.016 (0.0029) for 5 % (1 %) over 4 looks,
 * 0.013 (0.0024) over 5, 0.0109 (0.0020) over the default's 6. The first
 * look is at 5 a side because an exact Mann-Whitney needs 5 a side to go
 * below that: 2/252 = 0.0079 at 5 vs 5, all of one side below the other,
 * which is what near-deterministic clocks (icount) give for a real shift.
 */
double stats_schedule_alpha(const struct stats_schedule *s);

/*
 * The level of the look after n units a side: start, 2 start, 4 start,
 * ..., cap; 0 once n is at the cap. stats_schedule_level(s, 0) is the
 * first look. Loops that look at levels (lab bisect's) step through it.
 */
size_t stats_schedule_level(const struct stats_schedule *s, size_t n);

/*
 * Given n_a and n_b samples so far and the verdict at this look, how many
 * more samples each side needs: both sides up to the level above the
 * smaller one, which is when to look next. Returns 1 to sample more, 0 to
 * stop: a verdict other than INCONCLUSIVE, or the smaller side at the cap.
 * Nothing seen yet is inconclusive: 0, 0 and INCONCLUSIVE give the first
 * look, start a side. The plans (lab ab, lab bisect's ends) ask it at
 * every look instead of counting levels of their own.
 */
int stats_schedule_next(size_t *more_a, size_t *more_b,
			const struct stats_schedule *s, size_t n_a, size_t n_b,
			enum verdict v);

/*
 * "95% CI", "98.9% CI": the label of an interval computed at alpha, so that
 * what is printed says its level (1 - alpha; the per-look alpha under the
 * adaptive schedule).
 */
void stats_ci_label(char *buf, size_t size, double alpha);

#endif
