#ifndef BISECT_H
#define BISECT_H
/*
 * Bisecting a noisy metric: the algorithm, apart from git, builds and the
 * database (as git keeps bisect.c apart from builtin/bisect.c).
 *
 * The candidates are the commits reachable from bad and not from good,
 * given as a graph (parents before children). Each step picks the
 * candidate that best halves what is left, counted over the graph the way
 * git bisect does (merges included) in memory and time linear in the
 * candidates (bisect-walk.h), and classifies it against the good
 * and bad ends per docs/statistics.md "Bisecting a noisy metric". Every
 * comparison is of boots, not samples: samples of one boot share the
 * host's state during it, so a busy boot would otherwise read as a
 * kernel's change. The unit is a boot's median, and the boot-to-boot
 * spread is pooled from every boot of the ends and of the commit
 * (stats_boot_ratio()). M is BAD when the CI of
 * ln M - (ln G + ln B) / 2 (at the per-look alpha of 1 % over the step's
 * looks) lies on B's side of 0 (beyond half of L = ln R(G->B), with G and
 * B as they measure now), GOOD when it lies on G's, more boots (2, 4, 8,
 * 16) while unclear, and a skip when still unclear, when boots with no
 * spread leave it unclear, or when the commit does not build or boot. In
 * virtual time (bisect_ops.exact) a step starts at one boot of M and
 * boots no end.
 * With several targets (bisect_ops.width) a step boots the first look of
 * several candidates at once, then classifies each still in question.
 *
 * Measurements come through struct bisect_ops; everything the ops return
 * is taken as already stored, so running the same bisection again with
 * the same stored samples replays the same decisions and only measures
 * what is missing: that is how --resume works.
 */
#include <stddef.h>

#include "stats.h"
#include "strvec.h"

enum bisect_mark {
	BISECT_UNKNOWN = 0,
	BISECT_GOOD,
	BISECT_BAD,
	BISECT_SKIP,
};

const char *bisect_mark_name(enum bisect_mark m);

/* Which side a measurement is for: the good end, the bad end, or a candidate. */
#define BISECT_G (-1)
#define BISECT_B (-2)

/* The most candidates a step tests at once (bisect_ops.width). */
#define BISECT_MAX_WIDTH 8

struct bisect_ops {
	/* The per-boot medians of the metric stored so far for who, one per good boot. */
	int (*boots)(void *data, int who, double **v, size_t *n);
	/* Measure who once more: 0 measured, 1 cannot (build or boot failed), -1 error. */
	int (*measure)(void *data, int who);
	/* A step was decided (for reports and the stored state): 0, or -1 to stop. */
	int (*decided)(void *data, int who, enum bisect_mark mark, size_t n,
		       const struct stats_hl *ratio_vs_good);
	void *data;
	/*
	 * 1 when the boots are in virtual time (icount), where a kernel's
	 * boots repeat and nothing drifts: a step then boots M once and the
	 * ends never again (classify() in bisect.c); 0 wall time; -1 it
	 * cannot tell (an error, after its message), which stops the
	 * bisection. NULL: wall time.
	 */
	int (*exact)(void *data);
	/*
	 * Before who is measured: the candidates that come next, one for
	 * each mark it may get (n of them, 0 to 2), so that they can be built
	 * while who boots. A hint only: it decides nothing. NULL: none.
	 */
	void (*ahead)(void *data, int who, const int *next, size_t n);
	/*
	 * Measure each of who[0..n-1] once, as many at once as there are
	 * targets (width): rc[i] as measure() would return for who[i]. With
	 * it and width > 1 a step tests width candidates together (a k-ary
	 * search, bisect_next_many()). NULL: one candidate a step.
	 */
	int (*measure_many)(void *data, const int *who, size_t n, int *rc);
	size_t width;
};

/* The most candidates a walk indexes (32 bits, with one value kept for "none"). */
#define BISECT_MAX_COMMITS 2000000000u

struct bisect_graph {
	size_t n;		/* candidates, parents before children; n-1 is bad */
	size_t *nparents;
	size_t **parents;	/* indices of parents inside the candidate set */
};

struct bisect_result {
	int found;			/* exactly one first-bad commit */
	size_t culprit;
	size_t *remaining;		/* when not found: all candidates left */
	size_t nremaining;
	double log_effect;		/* L = ln R(G->B) */
	struct stats_hl effect;		/* R(G->B) with its CI */
	double effect_alpha;		/* that CI is at 1 - effect_alpha */
	double effect_se, effect_df;	/* of L, from the boots' spread */
	size_t effect_boots;		/* boots a side G->B was decided on */
	double delta;			/* the band it was decided with; 0: BISECT_CONFIRM_DELTA */
	size_t steps;
	int no_regression;		/* G->B showed no regression: stopped */
	int inconclusive;		/* ... because it stayed unclear at the cap */
};

struct bisect_options {
	double alpha;		/* for G->B over all its looks (default 0.05) */
	double step_alpha;	/* for each step's CI (default 0.01) */
	double delta;
	size_t start, cap;	/* boots per step: 2 .. 16; G->B's first look too */
	size_t effect_cap;	/* G->B: most boots a side (16) */
	enum stats_direction direction;
};

#define BISECT_OPTIONS_INIT { 0.05, 0.01, 0.02, 2, 16, 16, STATS_LOWER_IS_BETTER }

/* The default band in virtual time (results/stats.h) */
#define BISECT_VIRTUAL_DELTA STATS_DELTA_VIRTUAL

/* The boots a bisection of ncand candidates may take at most, when not told (its budget). */
long long bisect_default_budget(size_t ncand, const struct bisect_options *opt);

/* Pick the next candidate to test: -1 when none is left to test. */
long bisect_next(const struct bisect_graph *g, const enum bisect_mark *marks);

/*
 * Up to k candidates to test at once, into out: those whose ancestors in
 * question come nearest to splitting what is left into k + 1 equal parts
 * (on a line, its quantiles), ordered by how much each leaves below it.
 * Returns how many (0 when none is left to test).
 */
size_t bisect_next_many(const struct bisect_graph *g, const enum bisect_mark *marks, size_t k,
			long *out);

/*
 * Where marks leave the search, as git bisect sees it: 0 while a candidate
 * is left to test (bisect_next()); 1 when none is, with out's remaining
 * (what is still in question: ancestors of every BAD, of no GOOD), and
 * found and culprit when that is one commit, else the skipped ones stand
 * with it.
 */
int bisect_conclude(struct bisect_result *out, const struct bisect_graph *g,
		    const enum bisect_mark *marks);

/* Run the bisection. Returns 0, or -1 when an op failed. */
int bisect_search(struct bisect_result *out, const struct bisect_graph *g,
		  const struct bisect_options *opt, const struct bisect_ops *ops);
void bisect_result_release(struct bisect_result *r);

/*
 * Does the culprit explain the whole effect? culprit^ (parent) against the
 * culprit, interleaved, BISECT_CONFIRM_BOOTS boots each, against G->B
 * measured again on all the ends' boots, both with the spread pooled over
 * the four kernels' boots: the effects differ when
 * z = (ln R(culprit^->culprit) - ln R(G->B)) / sqrt(se^2 + se_GB^2) lies
 * beyond the 99 % quantile of t on the pooled degrees of freedom, and
 * by more than the bisection's band (bisect_result.delta, by default
 * BISECT_CONFIRM_DELTA: the smallest change that matters, as in a
 * verdict). A culprit that fails is re-tested with twice the
 * boots, up to BISECT_CONFIRM_CAP each, before more_than_one is final.
 */
#define BISECT_CONFIRM_BOOTS 4
#define BISECT_CONFIRM_CAP 16
#define BISECT_CONFIRM_DELTA 0.02

struct bisect_confirmation {
	struct stats_hl ratio;		/* culprit / culprit^, 99 % CI */
	struct stats_hl effect;		/* G->B on every boot of the ends, 99 % CI */
	size_t n_parent, n_culprit;	/* boots */
	double z;
	int rounds;			/* looks taken: 1 + re-tests */
	int more_than_one;		/* the effects differ: more commits may contribute */
};

/* 0, 1 when parent or culprit would not build or boot, -1 when an op failed. */
int bisect_confirm(struct bisect_confirmation *out, const struct bisect_result *r,
		   const struct bisect_ops *ops, int parent, int culprit);

/* The pieces bisect_search() uses, for one-commit-at-a-time drivers (git bisect run). */
int bisect_effect(struct bisect_result *out, const struct bisect_options *opt,
		  const struct bisect_ops *ops);
int bisect_classify(enum bisect_mark *mark, struct stats_hl *hl, size_t *n,
		    const struct bisect_options *opt, const struct bisect_ops *ops, int who,
		    double log_effect);

#endif
