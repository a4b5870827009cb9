#ifndef STATS_BOOT_H
#define STATS_BOOT_H
/*
 * Boots as the unit (stats-boot.c): a test for a boot effect, the units a
 * kernel's samples give, and the ratio of two kernels on per-boot medians
 * with the boot-to-boot spread pooled. Conventions as in stats.h.
 */
#include <stddef.h>

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

#endif
