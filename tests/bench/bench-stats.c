/*
 * Benchmarks for results/stats*.c (numbers to read, not a test):
 *  1. the full verdict (Mann-Whitney + Hodges-Lehmann ratio with both CIs)
 *     on two sides of 500k log-normal samples, against the 1 s goal;
 *  2. samples per side the adaptive schedule spends finding a 5 % shift
 *     at CV 2 %, beside the fixed n per side with the same power.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "rng.h"
#include "stats.h"

#define BIG		500000
#define EXPERIMENTS	500

static void lognormal(double *x, size_t n, double scale, double cv)
{
	double s = sqrt(log1p(cv * cv));
	size_t i;

	for (i = 0; i < n; i++)
		x[i] = scale * exp(s * rng_normal() - s * s / 2);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int bench_big(void)
{
	struct stats_options opt = STATS_OPTIONS_INIT;
	struct stats_comparison c;
	double *a = malloc(BIG * sizeof(*a)), *b = malloc(BIG * sizeof(*b));
	double t, best = INFINITY;
	int i;

	if (!a || !b) {
		fprintf(stderr, "bench-stats: out of memory\n");
		return 1;
	}
	lognormal(a, BIG, 100, 0.03);
	lognormal(b, BIG, 100.5, 0.03);
	for (i = 0; i < 3; i++) {
		t = now();
		if (stats_compare(&c, a, BIG, b, BIG, &opt)) {
			perror("bench-stats: stats_compare");
			return 1;
		}
		t = now() - t;
		if (t < best)
			best = t;
	}
	printf("verdict on 2 x %d log-normal samples (CV 3 %%, +0.5 %%): best of 3 %.3f s "
	       "(goal <= 1 s: %s)\n", BIG, best, best <= 1 ? "met" : "MISSED");
	printf("  ratio %.5f  95%% CI [%.5f, %.5f]  90%% CI [%.5f, %.5f]  p %.3g  %s\n",
	       c.ratio, c.lo, c.hi, c.lo90, c.hi90, c.p, verdict_name(c.verdict));
	free(a);
	free(b);
	return 0;
}

/* One experiment with the adaptive schedule; returns the verdict. */
static enum verdict adaptive(size_t *used, double alpha_look, double *a, double *b)
{
	struct stats_schedule s = STATS_SCHEDULE_INIT;
	struct stats_options opt = STATS_OPTIONS_INIT;
	struct stats_comparison c;
	size_t na = 0, nb = 0, ma = s.start, mb = s.start;

	opt.alpha = alpha_look;
	do {
		lognormal(a + na, ma, 100, 0.02);
		lognormal(b + nb, mb, 105, 0.02);
		na += ma;
		nb += mb;
		if (stats_compare(&c, a, na, b, nb, &opt))
			return VERDICT_INCONCLUSIVE;
	} while (stats_schedule_next(&ma, &mb, &s, na, nb, c.verdict));
	*used = (na + nb) / 2;
	return c.verdict;
}

static double fixed_power(size_t n, double *a, double *b)
{
	struct stats_options opt = STATS_OPTIONS_INIT;
	struct stats_comparison c;
	int i, found = 0;

	for (i = 0; i < EXPERIMENTS; i++) {
		lognormal(a, n, 100, 0.02);
		lognormal(b, n, 105, 0.02);
		if (!stats_compare(&c, a, n, b, n, &opt))
			found += c.verdict == VERDICT_REGRESSION;
	}
	return (double)found / EXPERIMENTS;
}

static void bench_adaptive(void)
{
	struct stats_schedule s = STATS_SCHEDULE_INIT;
	double a[160], b[160], alpha_look = stats_schedule_alpha(&s), power;
	double band = log(1.05) - log(1.02);
	size_t used, total = 0, n, n95 = 0, nsame = 0;
	int i, found = 0, at[161] = { 0 };

	for (i = 0; i < EXPERIMENTS; i++) {
		used = 0;
		found += adaptive(&used, alpha_look, a, b) == VERDICT_REGRESSION;
		total += used;
		at[used <= 160 ? used : 160]++;
	}
	power = (double)found / EXPERIMENTS;
	printf("adaptive schedule, 5 %% shift at CV 2 %%, delta 2 %%, %d experiments "
	       "(alpha %.4f per look, %d looks):\n", EXPERIMENTS, alpha_look,
	       stats_schedule_looks(&s));
	printf("  REGRESSION found %.1f %%, mean samples per side %.1f "
	       "(stopped at 5: %d, 10: %d, 20: %d, 40: %d, 80: %d, 160: %d)\n", 100 * power,
	       (double)total / EXPERIMENTS, at[5], at[10], at[20], at[40], at[80], at[160]);

	printf("fixed n per side, one look at alpha 0.05, same verdict rules:\n ");
	for (n = 3; n <= 160 && !nsame; n++) {
		double pw = fixed_power(n, a, b);

		if (n % 2 == 0 && n <= 30)
			printf(" n=%zu %.1f%%", n, 100 * pw);
		if (!n95 && pw >= 0.95)
			n95 = n;
		if (!nsame && pw >= power)
			nsame = n;
	}
	printf("\n  95 %% power at n = %zu per side; the adaptive schedule's %.1f %% at n = %zu\n",
	       n95, 100 * power, nsame);
	printf("rules of thumb: 16.4 (CV/Delta)^2 = %.1f per side for significance alone "
	       "(80 %% power);\n  for the CI to clear the 2 %% band, 16.4 (CV/ln(1.05/1.02))^2 "
	       "= %.1f (80 %%), %.1f (95 %%)\n", 16.4 * pow(0.02 / 0.05, 2),
	       16.4 * pow(0.02 / band, 2),
	       2 * pow(1.959963984540054 + 1.6448536269514722, 2) * 3.14159265358979 / 3 *
	       pow(0.02 / band, 2));
}

int main(void)
{
	rng_seed(0x0123456789abcdefULL);
	if (bench_big())
		return 1;
	bench_adaptive();
	return 0;
}
