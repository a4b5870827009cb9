#ifndef STATS_DIST_H
#define STATS_DIST_H
/*
 * The distributions the statistics need (stats-dist.c): normal, Student's
 * t, the regularized incomplete beta, chi-square. Pure computation.
 */

/* Distributions. Tails are computed directly, not as 1 - cdf. */
double stats_norm_cdf(double x);
double stats_norm_quantile(double p);		/* inverse of stats_norm_cdf */
double stats_t_cdf(double t, double df);	/* Student t */
double stats_t_sf(double t, double df);		/* 1 - stats_t_cdf */
double stats_beta_inc(double a, double b, double x);	/* regularized I_x(a, b) */

/* P(X > x) for chi-square with df degrees of freedom. */
double stats_chi2_sf(double x, double df);

/* The p-quantile of Student's t with df degrees of freedom (0 < p < 1). */
double stats_t_quantile(double p, double df);

/* P(T > |t|), for the other statistics files. */
double stats_t_tail(double t, double df);

#endif
