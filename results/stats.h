#ifndef STATS_H
#define STATS_H
/*
 * The statistics behind every verdict, as docs/statistics.md describes them:
 * summaries, the Mann-Whitney U test, Hodges-Lehmann shift and ratio with
 * their confidence intervals, t-tests and the distributions they need,
 * Benjamini-Hochberg, outlier labels, the adaptive sampling schedule and
 * the boot-to-boot rule.
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
#include <stdint.h>

/* Descriptive statistics of one side. */
struct stats_summary {
	size_t n;
	double min, max, median, mean;
	double std;		/* sample standard deviation (n - 1); NaN when n < 2 */
	double cv;		/* std / mean; NaN when undefined */
	double q1, q3;		/* quartiles, as stats_quantile() */
};

int stats_summarize(struct stats_summary *out, const double *x, size_t n);

/*
 * The q-quantile (0 <= q <= 1) of sorted data, interpolating linearly
 * between order statistics (R's type 7, numpy's default). NaN when n == 0.
 */
double stats_quantile(const double *sorted, size_t n, double q);
/*
 * The median of x[0..n), reordering x (no sort: linear time); the mean of
 * the two middle values when n is even, as stats_quantile(sorted, n, 0.5).
 * NaN when n == 0.
 */
double stats_median(double *x, size_t n);

/*
 * Samples that come boot after boot: v holds ngroups boots one after
 * another, len[g] of them boot g's; v is not modified.
 * stats_boot_medians() writes each boot's median (as stats_median()) to
 * out, which has room for ngroups, in boot order; a boot without samples
 * gives none, and *n counts those written. stats_boot_median() is the
 * median of those medians: the one value of a kernel whose boots are the
 * units (a recipe's side, a nightly point); EINVAL when no boot has a
 * sample, *out NaN. Either fails with ENOMEM.
 */
int stats_boot_medians(double *out, size_t *n, const double *v, const size_t *len,
		       size_t ngroups);
int stats_boot_median(double *out, const double *v, const size_t *len, size_t ngroups);

/* Distributions. Tails are computed directly, not as 1 - cdf. */
double stats_norm_cdf(double x);
double stats_norm_quantile(double p);		/* inverse of stats_norm_cdf */
double stats_t_cdf(double t, double df);	/* Student t */
double stats_t_sf(double t, double df);		/* 1 - stats_t_cdf */
double stats_beta_inc(double a, double b, double x);	/* regularized I_x(a, b) */

/*
 * Two-sided Mann-Whitney U test of a against b.
 * AUTO is exact when both sides have at most 8 values and there are no
 * ties, else the normal approximation with midranks, tie and continuity
 * correction. EXACT fails with EINVAL when there are ties or a side has
 * more than 50 values.
 */
enum stats_mwu_method {
	STATS_MWU_AUTO,
	STATS_MWU_EXACT,
	STATS_MWU_NORMAL,
};

struct stats_mwu {
	double u;	/* U of a: pairs with a_i > b_j, a tie counting 1/2 */
	double sigma;	/* sd of U under H0 with the tie correction */
	double p;
	int exact;	/* p came from the exact distribution */
};

int stats_mwu(struct stats_mwu *out, const double *a, size_t m,
	      const double *b, size_t n, enum stats_mwu_method method);

/*
 * Hodges-Lehmann estimate with its distribution-free confidence interval
 * at 1 - alpha. The shift is the median of all b_j - a_i; the ratio is
 * exp of the shift of the ln values (all values must be positive).
 * Neither materialises the m * n differences of a large input.
 */
struct stats_hl {
	double estimate, lo, hi;
};

int stats_hl_shift(struct stats_hl *out, const double *a, size_t m,
		   const double *b, size_t n, double alpha);
int stats_hl_ratio(struct stats_hl *out, const double *a, size_t m,
		   const double *b, size_t n, double alpha);

/*
 * The k-th smallest (1-based, 1 <= k <= m * n) of the m * n differences
 * b_j - a_i, given both arrays sorted ascending. Exact; time about
 * O((m + n) log(m n)), memory O(m + n).
 */
int stats_pairdiff_select(double *out, const double *a_sorted, size_t m,
			  const double *b_sorted, size_t n, uint64_t k);

/*
 * Do two ratios differ, each estimated with its own uncertainty? x and y
 * are Hodges-Lehmann ratios with CIs at 1 - alpha_x and 1 - alpha_y; each
 * standard error on the ln scale is the CI's log width over 2 z of its
 * level, and
 *   z = (ln x - ln y) / sqrt(se_x^2 + se_y^2),
 * to compare with the normal quantile of the level wanted (2.576 for
 * 99 %). A CI of width 0 has se 0; both 0 gives +-inf, or 0 when equal.
 * EINVAL for a ratio or bound that is not positive and finite, or an
 * alpha outside (0, 1).
 */
int stats_ratio_z(double *z, const struct stats_hl *x, double alpha_x,
		  const struct stats_hl *y, double alpha_y);

/* t = (mean a - mean b) / se, two-sided p. */
struct stats_ttest {
	double t, df, p;
};

int stats_welch(struct stats_ttest *out, const double *a, size_t m,
		const double *b, size_t n);

/*
 * The A/B verdict for one metric. Significance is the Mann-Whitney p
 * against alpha; effects are the Hodges-Lehmann ratio B/A and its CIs;
 * the delta band is [1/(1+delta), 1+delta].
 *   REGRESSION/IMPROVEMENT  p <= alpha and the (1 - alpha) CI lies wholly
 *                           beyond the band, on the worse/better side
 *   SMALL                   p <= alpha and the 90 % CI lies inside the band:
 *                           a real change, but smaller than delta
 *   SAME                    p > alpha and the 90 % CI lies inside the band
 *   INCONCLUSIVE            anything else, including a significant change
 *                           whose CI reaches across the band's edge (more
 *                           samples can tell whether it exceeds delta)
 */
enum verdict {
	VERDICT_INCONCLUSIVE,
	VERDICT_SAME,
	VERDICT_SMALL,
	VERDICT_IMPROVEMENT,
	VERDICT_REGRESSION,
};

/* "REGRESSION", "IMPROVEMENT", "SAME", "SMALL", "INCONCLUSIVE". */
const char *verdict_name(enum verdict v);

enum stats_direction {
	STATS_LOWER_IS_BETTER,		/* times, latencies */
	STATS_HIGHER_IS_BETTER,		/* throughputs */
};

struct stats_options {
	double alpha;		/* per look, see stats_schedule_alpha() */
	double delta;		/* smallest change that matters, as a fraction */
	enum stats_direction direction;
};

#define STATS_OPTIONS_INIT { 0.05, STATS_DELTA_WALL, STATS_LOWER_IS_BETTER }

/*
 * The band when none is given: 2 % in wall time; in virtual time, where
 * the clock resolves far below that, 0.1 %: an A/A's smallest detectable
 * effect is at most 0.06 %, and unrelated commits of one history differ
 * by at most 0.01 % (docs/statistics.md). A/A false alarms stay at alpha
 * whatever the band: it only parts SMALL from a REGRESSION.
 */
#define STATS_DELTA_WALL 0.02
#define STATS_DELTA_VIRTUAL 0.001

struct stats_comparison {
	struct stats_summary a, b;	/* of the raw samples */
	double u, p;			/* Mann-Whitney, two-sided */
	int exact;
	double ratio;			/* Hodges-Lehmann B/A */
	double lo, hi;			/* its CI at 1 - alpha */
	double lo90, hi90;		/* its 90 % CI */
	/*
	 * Minimum detectable effect (a fraction; 80 % power at alpha),
	 * from the pooled sd of the ln values: on the ln scale that sd is
	 * the CV, and the ln scale is where the ratio is estimated.
	 */
	double log_sd;
	double mde;
	double alpha, delta;
	enum stats_direction direction;
	enum verdict verdict;
};

/*
 * Everything above for samples a (baseline) and b; all values must be
 * positive. opt NULL means STATS_OPTIONS_INIT.
 */
int stats_compare(struct stats_comparison *out, const double *a, size_t m,
		  const double *b, size_t n, const struct stats_options *opt);

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
 * Outlier labels; nothing is removed. Tukey: mild is beyond 1.5 IQR from
 * the quartiles but within 3 IQR, extreme beyond 3 IQR. mad counts values
 * with |x - median| / MAD > 14.826 (hyperfine's rule, ten robust sds);
 * when MAD is 0, as in hyperfine, every value off the median counts.
 */
struct stats_outliers {
	size_t low_mild, high_mild;
	size_t low_extreme, high_extreme;
	size_t mad;
};

int stats_outliers_count(struct stats_outliers *out, const double *x, size_t n);

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

/* P(X > x) for chi-square with df degrees of freedom. */
double stats_chi2_sf(double x, double df);

/*
 * Kruskal-Wallis H over ngroups groups (empty ones skipped; two or more
 * needed), with the tie correction, and its p from chi-square with k - 1
 * degrees of freedom. Every value tied gives H 0, p 1.
 */
int stats_kruskal(double *h, double *p, const double *const *groups, const size_t *len,
		  size_t ngroups);

/*
 * The boot-to-boot rule. Given the samples of one kernel grouped by boot,
 * compare per-boot medians as the units when the sd of the per-boot
 * medians exceeds what within-boot noise gives a median,
 * sqrt(pi/2) * within-boot sd / sqrt(iterations per boot), and an F test
 * shows a boot effect (p < 0.01), or when a Kruskal-Wallis test on the
 * boots' ranks does (p < 0.01); else every sample is a unit. Fewer than
 * two boots, or no boot with two samples, always gives the samples.
 */
struct stats_boot_units {
	int per_boot;		/* values are per-boot medians */
	double between_sd;	/* sd of the per-boot medians */
	double within_sd;	/* pooled within-boot sd */
	double iterations;	/* mean samples per boot */
	double boot_p;		/* one-way ANOVA F test for a boot effect */
	double boot_rank_p;	/* Kruskal-Wallis test for a boot effect */
	size_t n;
	double *values;		/* owned; stats_boot_units_release() */
};

int stats_boot_units(struct stats_boot_units *out, const double *const *groups,
		     const size_t *len, size_t ngroups);
void stats_boot_units_release(struct stats_boot_units *u);

/* The p-quantile of Student's t with df degrees of freedom (0 < p < 1). */
double stats_t_quantile(double p, double df);

/*
 * Boot-level ratio y/x: the units are per-boot medians, one per boot, and
 * the ratio is exp(mean ln y - mean ln x). The boot-to-boot spread comes
 * from ngroups groups of per-boot medians (the kernels measured so far:
 * usually x, y and the bisection's ends), pooled on the log scale:
 *   s^2 = sum_g sum_i (ln v_gi - mean_g)^2 / sum_g (n_g - 1),
 *   se = s sqrt(1/nx + 1/ny), CI = exp(log_diff -+ t_{1-alpha/2, df} se),
 * with df = sum_g (n_g - 1), and p the two-sided t test of log_diff = 0.
 * Pooling assumes every kernel's boots spread alike on the log scale (the
 * same CV), which lets one or two boots of a commit be judged against the
 * spread many boots of the ends have shown; a boot effect (a host busy
 * for one boot) widens the interval instead of fooling it, as samples of
 * one boot would. s = 0 (identical boots, a deterministic clock) gives the
 * point interval of the observed ratio and p 0 or 1. EINVAL when no group
 * has two boots, EDOM for a value that is not positive.
 */
struct stats_boot_ratio {
	double estimate, lo, hi;	/* the ratio and its CI at 1 - alpha */
	double log_diff, se, sd, df;
	double p, alpha;
};

int stats_boot_ratio(struct stats_boot_ratio *out, const double *x, size_t nx,
		     const double *y, size_t ny, const double *const *pool,
		     const size_t *npool, size_t ngroups, double alpha);

/*
 * "95% CI", "98.9% CI": the label of an interval computed at alpha, so that
 * what is printed says its level (1 - alpha; the per-look alpha under the
 * adaptive schedule).
 */
void stats_ci_label(char *buf, size_t size, double alpha);

#endif
