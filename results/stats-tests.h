#ifndef STATS_TESTS_H
#define STATS_TESTS_H
/*
 * The tests and estimators of one comparison (stats-tests.c): summaries,
 * medians of boots, Mann-Whitney U, Hodges-Lehmann shift and ratio,
 * Welch's t, the comparison of two sides a verdict is made of
 * (stats_compare(); the rules are stats.h's), outlier labels. Conventions
 * as in stats.h.
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

/* The mean and sample sd of x, for the other statistics files. */
void stats_mean_sd(double *mean, double *sd, const double *x, size_t n);

#endif
