#ifndef PROFILE_DIFF_H
#define PROFILE_DIFF_H
/*
 * An explanation read back: the two profiled boots' functions side by
 * side, in the order that tells where a change went (profile-diff.c says
 * how), with the explained metric as those boots measured it. What lab
 * explain prints, the report's pages draw and the nightly mail carries.
 */
#include "store-profile.h"
#include "strbuf.h"

/*
 * One function on both sides: each side's median over its boots (a boot
 * that never called it counting 0), have[s] 0 when no boot of side s
 * called it. The change in time is B - A, or with two boots a side and
 * more their Hodges-Lehmann shift, with its 95 % interval [lo, hi] (NAN
 * with one boot a side).
 */
struct profile_change {
	char *name;
	long long calls[2];
	double ns[2];
	int have[2];
	double change, lo, hi;
	double *v;			/* while loading: ns of each boot, A's then B's */
	int tier;			/* 2 carries the change, 1 other, 0 waits */
};

struct profile_diff {
	struct store_explanation e;	/* workload and metric owned */
	struct profile_change *fn;
	size_t nr, alloc;
	long long *runs[2];		/* each side's boots */
	size_t nruns[2], runs_alloc[2];
	/* the metric's samples in the profiled boots, warm-ups included: the median boot's sum */
	double metric_sum[2];
	long metric_n[2];
	char unit[16];
	double unit_ns;			/* ns in one unit of the metric; 0: not a time */
	struct strbuf clock, label[2];	/* the boots' clock; each side's kernel */
	/* by function_graph on chosen functions (no profiler): A's first boot's meta, else "" */
	struct strbuf graph;
	/*
	 * What profiled where no function_graph did (A's first boot's meta): "sampled
	 * cycles (PMU), ..." (then calls are samples, a time a function's own), "the
	 * function profiler (ftrace): no PMU sampling: why", or "" (an older guest)
	 */
	struct strbuf by;
	int sampled;			/* by the PMU's samples */
};

/* Explanation id read and ranked into d (released by the caller either way). */
int profile_diff_load(struct profile_diff *d, struct store *st, long long id);
void profile_diff_release(struct profile_diff *d);

/* Whether more than one boot a side was profiled (wall time): the changes carry intervals. */
int profile_diff_repeated(const struct profile_diff *d);

/* The metric's change B - A in ns in the profiled boots; 0 when not a time or not measured. */
double profile_diff_change_ns(const struct profile_diff *d);

/* f's change in time as a share of the metric's change (1 = all of it); NAN when none. */
double profile_change_share(const struct profile_diff *d, const struct profile_change *f);

/* "new" for a function only B called, "gone" for one only A did, else "". */
const char *profile_change_mark(const struct profile_change *f);

#endif
