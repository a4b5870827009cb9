/*
 * results/stats.c against reference values computed with SciPy, hand-computed
 * cases, brute force, and simulations with a fixed seed.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "stats.h"
#include "tap.h"

#define ARRAY_SIZE(x) (sizeof(x) / sizeof((x)[0]))

/* xoshiro256** seeded by splitmix64: fixed seed, identical runs everywhere. */
static uint64_t rng_s[4];

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static void rng_seed(uint64_t seed)
{
	int i;

	for (i = 0; i < 4; i++) {
		uint64_t z = (seed += 0x9e3779b97f4a7c15ULL);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		rng_s[i] = z ^ (z >> 31);
	}
}

static uint64_t rng_u64(void)
{
	uint64_t r = rotl(rng_s[1] * 5, 7) * 9, t = rng_s[1] << 17;

	rng_s[2] ^= rng_s[0];
	rng_s[3] ^= rng_s[1];
	rng_s[1] ^= rng_s[2];
	rng_s[0] ^= rng_s[3];
	rng_s[2] ^= t;
	rng_s[3] = rotl(rng_s[3], 45);
	return r;
}

/* uniform in (0, 1): never 0, so log() below is safe */
static double rng_unit(void)
{
	return ((double)(rng_u64() >> 11) + 0.5) / 9007199254740992.0;
}

static double rng_normal(void)
{
	return sqrt(-2 * log(rng_unit())) * cos(2 * 3.14159265358979323846 * rng_unit());
}

/* log-normal with mean about `scale` and the given coefficient of variation */
static void lognormal(double *x, size_t n, double scale, double cv)
{
	double s = sqrt(log1p(cv * cv));
	size_t i;

	for (i = 0; i < n; i++)
		x[i] = scale * exp(s * rng_normal() - s * s / 2);
}

static int cmp_double(const void *pa, const void *pb)
{
	double x = *(const double *)pa, y = *(const double *)pb;
	return (x > y) - (x < y);
}

/* ---- reference values, computed with SciPy ---- */

static void test_mwu(void)
{
	static const double x[] = { 19, 22, 16, 29, 24 }, y[] = { 20, 11, 17, 12 };
	static const double tx[] = { 1.1, 2.2, 2.2, 3.3, 4.4, 4.4, 5.5 };
	static const double ty[] = { 2.2, 3.3, 4.4, 6.6, 6.6, 7.7, 8.8, 9.9 };
	static const double z[5] = { 0 };
	double lo[10], hi[10];
	struct stats_mwu r, r2;
	int i;

	ok(!stats_mwu(&r, x, 5, y, 4, STATS_MWU_AUTO), "mwu exact: runs");
	is_double(r.u, 17, 0, "mwu exact: U_x = 17");
	ok(r.exact, "mwu exact: auto picks exact for 5 vs 4 without ties");
	is_double(r.p, 14.0 / 126, 1e-15, "mwu exact: p = 14/126");
	is_double(r.p, 0.1111111111111111, 1e-16, "mwu exact: p = 0.1111111111111111");
	ok(!stats_mwu(&r2, y, 4, x, 5, STATS_MWU_AUTO), "mwu exact swapped: runs");
	is_double(r2.u, 20 - 17, 0, "mwu exact swapped: U_y = mn - U_x");
	is_double(r2.p, r.p, 1e-16, "mwu exact swapped: same p");
	ok(!stats_mwu(&r, x, 5, y, 4, STATS_MWU_NORMAL), "mwu normal: runs");
	ok(!r.exact, "mwu normal: not exact");
	is_double(r.p, 0.11134688653314041, 1e-14, "mwu normal approx p = 0.11134688653314041");

	ok(!stats_mwu(&r, tx, 7, ty, 8, STATS_MWU_AUTO), "mwu ties: runs");
	ok(!r.exact, "mwu ties: ties force the normal approximation");
	is_double(r.u, 10.5, 0, "mwu ties: U_x = 10.5");
	is_double(r.p, 0.0471253041839123, 1e-14, "mwu ties: p = 0.0471253041839123");
	errno = 0;
	ok(stats_mwu(&r, tx, 7, ty, 8, STATS_MWU_EXACT) == -1 && errno == EINVAL,
	   "mwu: exact refused with ties");

	for (i = 0; i < 10; i++) {
		lo[i] = i;
		hi[i] = 20 + i;
	}
	ok(!stats_mwu(&r, lo, 10, hi, 10, STATS_MWU_AUTO), "mwu 0..9 vs 20..29: runs");
	ok(!r.exact, "mwu 0..9 vs 20..29: normal (sides > 8)");
	is_double(r.u, 0, 0, "mwu 0..9 vs 20..29: U = 0");
	is_double(r.p, 0.00018267179110955002, 1e-17,
		  "mwu 0..9 vs 20..29: p = 0.00018267179110955002");

	ok(!stats_mwu(&r, lo, 10, hi, 10, STATS_MWU_EXACT) && r.exact,
	   "mwu 0..9 vs 20..29 exact: runs");
	is_double(r.p, 2.0 / 184756, 1e-18, "mwu 0..9 vs 20..29 exact: p = 2/C(20,10)");

	ok(!stats_mwu(&r, z, 5, z, 5, STATS_MWU_AUTO), "mwu zeros: runs");
	is_double(r.sigma, 0, 0, "mwu zeros: sigma = 0");
	is_double(r.p, 1.0, 0, "mwu zeros: p = 1");

	errno = 0;
	ok(stats_mwu(&r, x, 0, y, 4, STATS_MWU_AUTO) == -1 && errno == EINVAL,
	   "mwu: an empty side is refused");
}

static const double wa[] = { 10.1, 10.3, 9.8, 10.0, 10.4, 10.2 };
static const double wb[] = { 10.6, 10.9, 10.4, 11.2, 10.8, 10.5, 11.0 };

static void test_ttests_and_hl(void)
{
	struct stats_ttest t;
	struct stats_hl h;

	ok(!stats_welch(&t, wa, 6, wb, 7), "welch: runs");
	is_double(t.t, -4.564058112044148, 1e-12, "welch t = -4.564058112044148");
	is_double(t.p, 0.0008383211436620034, 1e-15, "welch p = 0.0008383211436620034");

	ok(!stats_hl_shift(&h, wa, 6, wb, 7, 0.05), "hl shift: runs");
	is_double(h.estimate, 0.60, 1e-12, "hl shift = 0.60");
	ok(h.lo <= h.estimate && h.estimate <= h.hi, "hl shift: CI holds the estimate");
	ok(!stats_hl_ratio(&h, wa, 6, wb, 7, 0.05), "hl ratio: runs");
	is_double(h.estimate, 1.060612, 5e-7, "hl ratio = 1.060612");
	errno = 0;
	ok(stats_hl_ratio(&h, wa, 6, (const double[]){ 1, 0, 2 }, 3, 0.05) == -1 &&
	   errno == EDOM, "hl ratio: a zero value is refused (EDOM)");
}

static void test_distributions(void)
{
	is_double(stats_t_cdf(2, 5), 0.9490302605850709, 1e-15, "t.cdf(2, 5) = 0.9490302605850709");
	is_double(2 * stats_t_sf(2.5, 10), 0.031446844236608776, 1e-16,
		  "2 t.sf(2.5, 10) = 0.031446844236608776");
	is_double(stats_t_cdf(-2, 5) + stats_t_cdf(2, 5), 1, 1e-15, "t.cdf is symmetric");
	is_double(stats_beta_inc(2, 3, 0.4), 0.5248, 1e-15, "I_0.4(2, 3) = 0.5248");
	/* x past the mean takes the symmetric continued fraction */
	is_double(stats_beta_inc(2, 3, 0.9), 0.9963, 1e-15, "I_0.9(2, 3) = 0.9963");
	/* closed forms: df 1 is Cauchy, df 2 is t / (2 sqrt(2 + t^2)) + 1/2 */
	is_double(stats_t_cdf(0.5, 1), 0.5 + atan(0.5) / 3.14159265358979323846, 1e-15,
		  "t.cdf(0.5, 1) = 1/2 + atan(0.5)/pi");
	is_double(stats_t_cdf(-3, 2), 0.5 - 3 / (2 * sqrt(11)), 1e-15,
		  "t.cdf(-3, 2) = 1/2 - 3/(2 sqrt 11)");
	is_double(2 * stats_norm_cdf(-1.96), 0.04999579029644087, 1e-17,
		  "2 Phi(-1.96) = 0.04999579029644087");
	is_double(stats_norm_quantile(0.975), 1.959963984540054, 1e-14,
		  "Phi^-1(0.975) = 1.959963984540054");
	is_double(stats_norm_quantile(0.025), -1.959963984540054, 1e-14,
		  "Phi^-1(0.025) = -1.959963984540054");
	is_double(stats_norm_quantile(0.5), 0, 1e-16, "Phi^-1(0.5) = 0");
	is_double(stats_norm_quantile(stats_norm_cdf(-7.5)), -7.5, 1e-12,
		  "Phi^-1 inverts Phi deep in the tail");
	is_double(stats_norm_quantile(0.8), 0.8416212335729143, 1e-14,
		  "Phi^-1(0.8) = 0.8416212335729143");
}

static void test_bh(void)
{
	static const double p[] = {
		0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344,
		0.0459, 0.3240, 0.4262, 0.5719, 0.6528, 0.7590, 1.0,
	};
	static const double want[] = {
		0.0015, 0.003, 0.0095, 0.035625, 0.0603, 0.063857, 0.063857, 0.0645,
		0.0765, 0.486, 0.581182, 0.714875, 0.753231, 0.813214, 1.0,
	};
	/* the same p-values shuffled: adjusted values must follow their p */
	static const size_t order[] = { 14, 3, 0, 9, 7, 12, 1, 5, 11, 2, 13, 6, 10, 4, 8 };
	double adj[ARRAY_SIZE(p)], shuf[ARRAY_SIZE(p)];
	size_t i, rejected = 0, worst = 0;
	char name[64];

	ok(!stats_bh_adjust(adj, p, ARRAY_SIZE(p)), "bh: runs");
	for (i = 0; i < ARRAY_SIZE(p); i++) {
		snprintf(name, sizeof(name), "bh: adjusted p_(%zu) = %g", i + 1, want[i]);
		/* the reference table rounds to 6 significant digits */
		is_double(adj[i], want[i], 5e-7, name);
		rejected += adj[i] <= 0.05;
	}
	is_int(rejected, 4, "bh: q = 0.05 rejects 4");

	for (i = 0; i < ARRAY_SIZE(p); i++)
		shuf[i] = p[order[i]];
	ok(!stats_bh_adjust(shuf, shuf, ARRAY_SIZE(p)), "bh in place: runs");
	for (i = 0; i < ARRAY_SIZE(p); i++)
		if (fabs(shuf[i] - adj[order[i]]) > 1e-15)
			worst++;
	is_int(worst, 0, "bh in place: shuffled input keeps its order");
}

/* ---- hand-computed cases ---- */

static void test_summary(void)
{
	static const double x[] = { 7, 1, 10, 4, 2, 9, 3, 6, 5, 8 };
	struct stats_summary s;

	ok(!stats_summarize(&s, x, ARRAY_SIZE(x)), "summary: runs");
	is_int(s.n, 10, "summary: n");
	is_double(s.min, 1, 0, "summary: min");
	is_double(s.max, 10, 0, "summary: max");
	is_double(s.median, 5.5, 0, "summary: median");
	is_double(s.mean, 5.5, 1e-15, "summary: mean");
	is_double(s.std, sqrt(82.5 / 9), 1e-14, "summary: sample std = sqrt(82.5/9)");
	is_double(s.q1, 3.25, 1e-15, "summary: q1 (type 7)");
	is_double(s.q3, 7.75, 1e-15, "summary: q3 (type 7)");
	is_double(s.cv, sqrt(82.5 / 9) / 5.5, 1e-14, "summary: cv");
	ok(!stats_summarize(&s, x, 1) && isnan(s.std), "summary: std of one value is NaN");
}

/* The median without a sort: the same value as stats_quantile() of the sorted data. */
static void test_median(void)
{
	double odd[] = { 7, 1, 10, 4, 2, 9, 3, 6, 5 }, even[] = { 7, 1, 10, 4, 2, 9, 3, 6, 5, 8 };
	double ties[] = { 2, 2, 2, 1, 2, 3 }, one[] = { 4.25 }, x[101], s[101];
	int same = 1;

	is_double(stats_median(odd, ARRAY_SIZE(odd)), 5, 0, "median: odd n, the middle value");
	is_double(stats_median(even, ARRAY_SIZE(even)), 5.5, 0, "median: even n, the middle pair's mean");
	is_double(stats_median(ties, ARRAY_SIZE(ties)), 2, 0, "median: ties");
	is_double(stats_median(one, 1), 4.25, 0, "median: one value");
	ok(isnan(stats_median(one, 0)), "median: none is NaN");
	rng_seed(11);
	for (size_t n = 1; n <= ARRAY_SIZE(x); n++) {
		for (size_t i = 0; i < n; i++)
			x[i] = s[i] = (double)(rng_u64() % 50) / 7;
		qsort(s, n, sizeof(*s), cmp_double);
		same &= stats_median(x, n) == stats_quantile(s, n, 0.5);
	}
	ok(same, "median: equal to the sorted data's 0.5 quantile, n = 1..101");
}

/*
 * Four boots, one without samples: medians 2, 15 and 6.5 (the pair 6, 7),
 * whose median is 6.5; a fifth boot of one sample, 4, makes the medians
 * 2, 15, 6.5, 4 and their median (4 + 6.5) / 2 = 5.25.
 */
static void test_boot_median(void)
{
	static const double v[] = { 3, 1, 2, 20, 10, 8, 5, 7, 6, 4 };
	const double copy[] = { 3, 1, 2, 20, 10, 8, 5, 7, 6, 4 };
	size_t len[] = { 3, 2, 0, 4, 1 }, n = 0, none[] = { 0, 0 };
	double m[5], med = 0;

	ok(!stats_boot_medians(m, &n, v, len, 4), "boot medians: four boots");
	is_int((int)n, 3, "boot medians: the boot without samples gives none");
	ok(n == 3 && m[0] == 2 && m[1] == 15 && m[2] == 6.5, "boot medians: 2, 15, 6.5 in boot order");
	ok(!stats_boot_median(&med, v, len, 4), "boot median: four boots");
	is_double(med, 6.5, 0, "boot median: of 2, 15, 6.5 is 6.5");
	ok(!stats_boot_median(&med, v, len, 5), "boot median: five boots");
	is_double(med, 5.25, 0, "boot median: of 2, 15, 6.5, 4 is 5.25");
	ok(!memcmp(v, copy, sizeof(copy)), "boot median: the samples are left as they were");
	errno = 0;
	ok(stats_boot_median(&med, v, none, 2) && errno == EINVAL && isnan(med),
	   "boot median: no boot with a sample is EINVAL, NaN");
	ok(!stats_boot_medians(m, &n, v, none, 2) && n == 0, "boot medians: none of empty boots");
}

static void test_outliers(void)
{
	static const double tukey[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 20, 40, -30 };
	static const double mad[] = { 10, 10, 11, 9, 10, 10, 11, 9, 10, 1000 };
	static const double flat[] = { 5, 5, 5, 5, 6 };
	struct stats_outliers o;

	/*
	 * sorted: -30 1..10 20 40; Q1 = x(4) = 3, Q3 = x(10) = 9 (type 7,
	 * h = 3 and 9 exactly), IQR 6: mild beyond [-6, 18], extreme beyond
	 * [-15, 27]. Median 6; deviations sorted 0 1 1 2 2 3 3 4 4 5 14 34 36,
	 * MAD 3, so 36 < 14.826 * 3 keeps -30 in.
	 */
	ok(!stats_outliers_count(&o, tukey, ARRAY_SIZE(tukey)), "outliers: runs");
	is_int(o.high_mild, 1, "outliers: 20 is a mild high outlier");
	is_int(o.high_extreme, 1, "outliers: 40 is an extreme high outlier");
	is_int(o.low_extreme, 1, "outliers: -30 is an extreme low outlier");
	is_int(o.low_mild, 0, "outliers: no mild low outlier");
	is_int(o.mad, 0, "outliers: nothing beyond 14.826 MAD");
	/* median 10, MAD 0.5: 990 > 14.826 * 0.5 */
	ok(!stats_outliers_count(&o, mad, ARRAY_SIZE(mad)), "outliers mad: runs");
	is_int(o.mad, 1, "outliers mad: 1000 is beyond 14.826 MAD");
	ok(!stats_outliers_count(&o, flat, ARRAY_SIZE(flat)), "outliers flat: runs");
	is_int(o.mad, 1, "outliers flat: MAD 0 flags every value off the median");
}

/* The CI by the book: sort all m*n differences and index them. */
static void hl_brute(struct stats_hl *h, const double *a, size_t m,
		     const double *b, size_t n, double sigma, double alpha)
{
	size_t mn = m * n, i, j, k;
	double *d = malloc(mn * sizeof(*d)), kf;

	for (i = 0; i < m; i++)
		for (j = 0; j < n; j++)
			d[i * n + j] = b[j] - a[i];
	qsort(d, mn, sizeof(*d), cmp_double);
	h->estimate = mn % 2 ? d[mn / 2] : (d[mn / 2 - 1] + d[mn / 2]) / 2;
	kf = floor((double)mn / 2 - stats_norm_quantile(1 - alpha / 2) * sigma);
	k = kf < 1 ? 1 : (size_t)kf;
	h->lo = d[k - 1];
	h->hi = d[mn - k];
	free(d);
}

static void test_hl_ci(void)
{
	double a[23], b[31];
	struct stats_hl h, want;
	struct stats_mwu r;
	size_t i;

	rng_seed(7);
	for (i = 0; i < ARRAY_SIZE(a); i++)
		a[i] = floor(100 * rng_unit());
	for (i = 0; i < ARRAY_SIZE(b); i++)
		b[i] = floor(100 * rng_unit()) + 10;
	stats_mwu(&r, a, ARRAY_SIZE(a), b, ARRAY_SIZE(b), STATS_MWU_NORMAL);
	hl_brute(&want, a, ARRAY_SIZE(a), b, ARRAY_SIZE(b), r.sigma, 0.05);
	ok(!stats_hl_shift(&h, a, ARRAY_SIZE(a), b, ARRAY_SIZE(b), 0.05), "hl ci: runs");
	is_double(h.estimate, want.estimate, 0, "hl ci: estimate matches brute force");
	is_double(h.lo, want.lo, 0, "hl ci: lower bound D_(k) matches brute force");
	is_double(h.hi, want.hi, 0, "hl ci: upper bound D_(mn+1-k) matches brute force");
	ok(!stats_hl_shift(&h, a, 1, b, 1, 0.05), "hl ci 1x1: runs");
	ok(h.lo == b[0] - a[0] && h.hi == b[0] - a[0], "hl ci 1x1: k clamped to 1");
}

/*
 * The selection must equal sorting all differences, for the fast path
 * (m n far above the point where it copies candidates out), with ties,
 * with m > n (the transposed path), and at the extremes.
 */
static void check_select(const char *what, double *a, size_t m, double *b, size_t n)
{
	size_t mn = m * n, i, j, bad = 0, tried = 0;
	double *d = malloc(mn * sizeof(*d)), got;
	uint64_t ks[40];

	qsort(a, m, sizeof(*a), cmp_double);
	qsort(b, n, sizeof(*b), cmp_double);
	for (i = 0; i < m; i++)
		for (j = 0; j < n; j++)
			d[i * n + j] = b[j] - a[i];
	qsort(d, mn, sizeof(*d), cmp_double);
	ks[0] = 1;
	ks[1] = 2;
	ks[2] = mn / 2;
	ks[3] = mn / 2 + 1;
	ks[4] = mn;
	ks[5] = mn - 1;
	ks[6] = mn / 40;
	ks[7] = mn - mn / 40;
	for (i = 8; i < ARRAY_SIZE(ks); i++)
		ks[i] = 1 + rng_u64() % mn;
	for (i = 0; i < ARRAY_SIZE(ks); i++) {
		if (ks[i] < 1 || ks[i] > mn)
			continue;
		tried++;
		if (stats_pairdiff_select(&got, a, m, b, n, ks[i]) || got != d[ks[i] - 1]) {
			if (!bad)
				printf("# %s: k=%llu got %.17g want %.17g\n", what,
				       (unsigned long long)ks[i], got, d[ks[i] - 1]);
			bad++;
		}
	}
	{
		char name[128];

		snprintf(name, sizeof(name), "pairdiff select %s: %zu ranks equal brute force",
			 what, tried);
		is_int(bad, 0, name);
	}
	{
		/* median and CI share one selection: check that path too */
		struct stats_hl h, want;
		struct stats_mwu r;
		uint64_t k;
		char name[128];

		stats_mwu(&r, a, m, b, n, STATS_MWU_NORMAL);
		k = (uint64_t)fmax(1, floor((double)mn / 2 - 1.959963984540054 * r.sigma));
		want.estimate = mn % 2 ? d[mn / 2] : (d[mn / 2 - 1] + d[mn / 2]) / 2;
		want.lo = d[k - 1];
		want.hi = d[mn - k];
		snprintf(name, sizeof(name), "hl shift %s: estimate and 95 %% CI equal brute force",
			 what);
		ok(!stats_hl_shift(&h, a, m, b, n, 0.05) && h.estimate == want.estimate &&
		   h.lo == want.lo && h.hi == want.hi, name);
	}
	free(d);
}

/*
 * stats_compare selects six ranks at once (median pair, 95 % and 90 %
 * CI bounds) on the ln values: check them all against sorting.
 */
static void check_compare(const char *what, const double *a, size_t m,
			  const double *b, size_t n)
{
	struct stats_options opt = STATS_OPTIONS_INIT;
	struct stats_comparison c;
	size_t mn = m * n, i, j;
	double *d = malloc(mn * sizeof(*d)), est;
	uint64_t k95, k90;
	struct stats_mwu r;
	char name[128];

	for (i = 0; i < m; i++)
		for (j = 0; j < n; j++)
			d[i * n + j] = log(b[j]) - log(a[i]);
	qsort(d, mn, sizeof(*d), cmp_double);
	stats_mwu(&r, a, m, b, n, STATS_MWU_NORMAL);
	k95 = (uint64_t)fmax(1, floor((double)mn / 2 - 1.959963984540054 * r.sigma));
	k90 = (uint64_t)fmax(1, floor((double)mn / 2 - 1.6448536269514722 * r.sigma));
	est = mn % 2 ? d[mn / 2] : (d[mn / 2 - 1] + d[mn / 2]) / 2;
	snprintf(name, sizeof(name), "compare %s: ratio and both CIs equal brute force", what);
	ok(!stats_compare(&c, a, m, b, n, &opt) && c.ratio == exp(est) &&
	   c.lo == exp(d[k95 - 1]) && c.hi == exp(d[mn - k95]) &&
	   c.lo90 == exp(d[k90 - 1]) && c.hi90 == exp(d[mn - k90]), name);
	free(d);
}

static void test_pairdiff_select(void)
{
	size_t m, n, i;
	double *a, *b, got;

	rng_seed(42);
	m = 3000;
	n = 3000;
	a = malloc(m * sizeof(*a));
	b = malloc(n * sizeof(*b));
	for (i = 0; i < m; i++)
		a[i] = rng_normal();
	for (i = 0; i < n; i++)
		b[i] = rng_normal() + 0.1;
	check_select("3000x3000 normal", a, m, b, n);

	/* integers 0..20: massive ties; 2000 > 1500 takes the transposed path */
	m = 2000;
	n = 1500;
	for (i = 0; i < m; i++)
		a[i] = (double)(rng_u64() % 21);
	for (i = 0; i < n; i++)
		b[i] = (double)(rng_u64() % 21);
	check_select("2000x1500 tied integers", a, m, b, n);

	m = 700;
	n = 2900;
	for (i = 0; i < m; i++)
		a[i] = log(1 + 1000 * rng_unit());
	for (i = 0; i < n; i++)
		b[i] = log(1 + 1000 * rng_unit());
	check_select("700x2900 skewed", a, m, b, n);
	check_compare("700x2900 skewed", a, m, b, n);
	for (i = 0; i < 2500; i++) {
		a[i] = exp(0.03 * rng_normal());
		b[i] = 1.01 * exp(0.03 * rng_normal());
	}
	check_compare("2500x2500 log-normal", a, 2500, b, 2500);
	check_compare("2500x1300 log-normal", a, 2500, b, 1300);

	for (i = 0; i < 7; i++) {
		a[i] = (double)i * i;
		b[i] = 3.5 * (double)i;
	}
	check_select("1x7", a, 1, b, 7);
	check_select("7x1", a, 7, b, 1);
	check_select("5x3", a, 5, b, 3);

	errno = 0;
	ok(stats_pairdiff_select(&got, a, 5, b, 3, 16) == -1 && errno == EINVAL,
	   "pairdiff select: k > m n refused");
	ok(stats_pairdiff_select(&got, a, 5, b, 3, 0) == -1 && errno == EINVAL,
	   "pairdiff select: k = 0 refused");
	free(a);
	free(b);
}

/* ---- verdicts ---- */

static enum verdict compare(size_t n, double cv_a, double cv_b, double shift,
			    enum stats_direction dir, struct stats_comparison *c)
{
	struct stats_options opt = STATS_OPTIONS_INIT;
	double *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));

	opt.direction = dir;
	lognormal(a, n, 100, cv_a);
	lognormal(b, n, 100 * shift, cv_b);
	if (stats_compare(c, a, n, b, n, &opt))
		c->verdict = (enum verdict)-1;
	free(a);
	free(b);
	return c->verdict;
}

static void test_verdicts(void)
{
	struct stats_comparison c = { 0 };
	struct stats_options opt = STATS_OPTIONS_INIT;
	double a[10], b[10], want;
	size_t i;

	is_str(verdict_name(VERDICT_REGRESSION), "REGRESSION", "verdict_name REGRESSION");
	is_str(verdict_name(VERDICT_IMPROVEMENT), "IMPROVEMENT", "verdict_name IMPROVEMENT");
	is_str(verdict_name(VERDICT_SAME), "SAME", "verdict_name SAME");
	is_str(verdict_name(VERDICT_SMALL), "SMALL", "verdict_name SMALL");
	is_str(verdict_name(VERDICT_INCONCLUSIVE), "INCONCLUSIVE", "verdict_name INCONCLUSIVE");

	/* the rules on hand-set numbers, delta 2 %: band [0.98039, 1.02] */
	c.alpha = 0.05;
	c.delta = 0.02;
	c.direction = STATS_LOWER_IS_BETTER;
	c.p = 0.01;
	c.lo = 1.021;
	c.hi = 1.08;
	c.lo90 = 1.03;
	c.hi90 = 1.07;
	is_int(stats_verdict(&c), VERDICT_REGRESSION, "rules: CI above 1+delta, p small: REGRESSION");
	c.direction = STATS_HIGHER_IS_BETTER;
	is_int(stats_verdict(&c), VERDICT_IMPROVEMENT, "rules: same numbers, higher is better: IMPROVEMENT");
	c.p = 0.06;
	is_int(stats_verdict(&c), VERDICT_INCONCLUSIVE, "rules: CI beyond the band but p > alpha: INCONCLUSIVE");
	c.direction = STATS_LOWER_IS_BETTER;
	c.p = 0.001;
	c.lo = 0.9;
	c.hi = 0.98;
	c.lo90 = 0.91;
	c.hi90 = 0.97;
	is_int(stats_verdict(&c), VERDICT_IMPROVEMENT, "rules: CI below 1/(1+delta): IMPROVEMENT");
	c.lo = 0.9;
	c.hi = 1 / 1.02;
	is_int(stats_verdict(&c), VERDICT_INCONCLUSIVE, "rules: CI touching the band edge is not beyond it");
	c.p = 0.001;
	c.lo = 1.003;
	c.hi = 1.012;
	c.lo90 = 1.004;
	c.hi90 = 1.011;
	is_int(stats_verdict(&c), VERDICT_SMALL, "rules: significant, 90 % CI inside the band: SMALL");
	c.p = 0.4;
	c.lo = 0.99;
	c.hi = 1.012;
	c.lo90 = 0.992;
	c.hi90 = 1.01;
	is_int(stats_verdict(&c), VERDICT_SAME, "rules: not significant, 90 % CI inside the band: SAME");
	c.hi90 = 1.021;
	is_int(stats_verdict(&c), VERDICT_INCONCLUSIVE, "rules: 90 % CI past the band: INCONCLUSIVE");
	c.p = 0.01;
	c.lo = 1.01;
	c.hi = 1.05;
	c.lo90 = 1.012;
	c.hi90 = 1.045;
	is_int(stats_verdict(&c), VERDICT_INCONCLUSIVE,
	       "rules: significant, CI across the band's edge: INCONCLUSIVE (sample more)");

	/* and on samples */
	rng_seed(1234);
	is_int(compare(20, 0.001, 0.001, 1.0, STATS_LOWER_IS_BETTER, &c), VERDICT_SAME,
	       "samples: identical tight distributions: SAME");
	is_int(compare(40, 0.001, 0.001, 1.005, STATS_LOWER_IS_BETTER, &c), VERDICT_SMALL,
	       "samples: 0.5 % shift at CV 0.1 %: SMALL");
	is_int(compare(20, 0.01, 0.01, 1.10, STATS_LOWER_IS_BETTER, &c), VERDICT_REGRESSION,
	       "samples: 10 % slower at CV 1 %: REGRESSION");
	is_double(c.ratio, 1.10, 0.01, "samples: ratio near 1.10");
	ok(c.lo < c.ratio && c.ratio < c.hi && c.lo <= c.lo90 && c.hi90 <= c.hi,
	   "samples: 90 % CI inside the 95 % CI around the ratio");
	is_int(compare(20, 0.01, 0.01, 1.10, STATS_HIGHER_IS_BETTER, &c), VERDICT_IMPROVEMENT,
	       "samples: 10 % more throughput, higher is better: IMPROVEMENT");
	is_int(compare(20, 0.01, 0.01, 0.90, STATS_LOWER_IS_BETTER, &c), VERDICT_IMPROVEMENT,
	       "samples: 10 % faster, lower is better: IMPROVEMENT");
	is_int(compare(20, 0.01, 0.01, 0.90, STATS_HIGHER_IS_BETTER, &c), VERDICT_REGRESSION,
	       "samples: 10 % less throughput, higher is better: REGRESSION");
	is_int(compare(5, 0.10, 0.10, 1.0, STATS_LOWER_IS_BETTER, &c), VERDICT_INCONCLUSIVE,
	       "samples: 5 per side at CV 10 %: INCONCLUSIVE");

	/*
	 * MDE by hand: ln values +-0.02 alternating give a pooled log sd of
	 * 0.02 sqrt(10/9); MDE = expm1((z.975 + z.8) sd sqrt(2/10) / sqrt(3/pi)).
	 */
	for (i = 0; i < 10; i++) {
		a[i] = exp(i % 2 ? 0.02 : -0.02);
		b[i] = 1.01 * exp(i % 2 ? -0.02 : 0.02);
	}
	ok(!stats_compare(&c, a, 10, b, 10, &opt), "mde: runs");
	is_double(c.log_sd, 0.02 * sqrt(10.0 / 9), 1e-15, "mde: pooled sd of ln values");
	want = expm1((1.959963984540054 + 0.8416212335729143) * 0.02 * sqrt(10.0 / 9) *
		     sqrt(0.2) / sqrt(3 / 3.14159265358979323846));
	is_double(c.mde, want, 1e-12, "mde: the reference formula");
	is_int(c.a.n, 10, "compare: n of A");
	is_double(c.b.median, 1.01 * cosh(0.02), 1e-12, "compare: median of B");

	errno = 0;
	a[3] = 0;
	ok(stats_compare(&c, a, 10, b, 10, &opt) == -1 && errno == EDOM,
	   "compare: a non-positive sample is refused (EDOM)");
	a[3] = NAN;
	ok(stats_compare(&c, a, 10, b, 10, &opt) == -1 && errno == EINVAL,
	   "compare: NaN is refused (EINVAL)");
}

/*
 * The verdict at a p adjusted over many metrics: Benjamini and Hochberg's
 * 1995 example, whose 4th and 5th p (0.0095, 0.0201) adjust to 0.035625
 * and 0.0603, on either side of alpha 0.05.
 */
static void test_verdict_at(void)
{
	static const double p[] = { 0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298,
				    0.0344, 0.0459, 0.3240, 0.4262, 0.5719, 0.6528, 0.7590,
				    1.0 };
	struct stats_comparison c = { 0 };
	double adj[15];

	ok(!stats_bh_adjust(adj, p, 15), "verdict at: BH adjusted");
	is_double(adj[3], 0.035625, 1e-12, "verdict at: 0.0095 adjusts to 0.035625");
	is_double(adj[4], 0.0603, 1e-12, "verdict at: 0.0201 adjusts to 0.0603");
	c.alpha = 0.05;
	c.delta = 0.02;
	c.direction = STATS_LOWER_IS_BETTER;
	c.lo = 1.03;
	c.hi = 1.09;
	c.lo90 = 1.035;
	c.hi90 = 1.085;
	c.p = 0.0201;
	c.verdict = VERDICT_REGRESSION;
	is_int(stats_verdict_at(&c, adj[3]), VERDICT_REGRESSION,
	       "verdict at: CI above the band, adjusted p 0.035625: REGRESSION");
	is_int(stats_verdict_at(&c, adj[4]), VERDICT_INCONCLUSIVE,
	       "verdict at: the same CI, adjusted p 0.0603: INCONCLUSIVE");
	is_int(stats_verdict(&c), VERDICT_REGRESSION, "verdict at: its raw p 0.0201 alone: REGRESSION");
	ok(c.p == 0.0201 && c.verdict == VERDICT_REGRESSION, "verdict at: c is left as it was");
	is_int(stats_verdict_at(&c, 0.05), VERDICT_REGRESSION, "verdict at: p equal to alpha is significant");
	is_int(stats_verdict_at(&c, NAN), VERDICT_INCONCLUSIVE, "verdict at: a NaN p is not significant");
	c.direction = STATS_HIGHER_IS_BETTER;
	is_int(stats_verdict_at(&c, adj[3]), VERDICT_IMPROVEMENT,
	       "verdict at: higher is better, adjusted p 0.035625: IMPROVEMENT");
	/* a 90 % CI inside [0.98039, 1.02]: SMALL when significant, else SAME */
	c.direction = STATS_LOWER_IS_BETTER;
	c.lo = 0.99;
	c.hi = 1.019;
	c.lo90 = 0.995;
	c.hi90 = 1.015;
	is_int(stats_verdict_at(&c, adj[3]), VERDICT_SMALL, "verdict at: inside the band, adjusted p 0.035625: SMALL");
	is_int(stats_verdict_at(&c, adj[4]), VERDICT_SAME, "verdict at: inside the band, adjusted p 0.0603: SAME");
}

/* ---- schedule and boot-to-boot ---- */

static void test_schedule(void)
{
	struct stats_schedule s = STATS_SCHEDULE_INIT;
	size_t ma, mb;

	is_int(stats_schedule_looks(&s), 6, "schedule: 5 10 20 40 80 160 are 6 looks");
	is_double(stats_schedule_alpha(&s), 0.0109, 0.00005, "schedule: 5 % over 6 looks: 0.0109 per look");
	ok(2.0 / 252 < stats_schedule_alpha(&s),
	   "schedule: the exact Mann-Whitney's smallest p at 5 vs 5 (2/252) decides at the first look");
	s.alpha = 0.01;
	is_double(stats_schedule_alpha(&s), 0.0020, 0.00005, "schedule: 1 % over 6 looks: 0.0020 per look");
	s.start = 10;
	is_int(stats_schedule_looks(&s), 5, "schedule: 10 20 40 80 160 are 5 looks");
	is_double(stats_schedule_alpha(&s), 0.0024, 0.00005, "schedule: 1 % over 5 looks: 0.0024 per look");
	s.alpha = 0.05;
	is_double(stats_schedule_alpha(&s), 0.013, 0.0005, "schedule: 5 % over 5 looks: 0.013 per look");
	s.alpha = 0.01;
	s.cap = 80;
	is_int(stats_schedule_looks(&s), 4, "schedule: cap 80 is 4 looks");
	is_double(stats_schedule_alpha(&s), 0.0029, 0.00005, "schedule: 1 % over 4 looks: 0.0029 per look");
	s.alpha = 0.05;
	is_double(stats_schedule_alpha(&s), 0.016, 0.0005, "schedule: 5 % over 4 looks: 0.016 per look");
	s.cap = 10;
	is_double(stats_schedule_alpha(&s), 0.05, 0, "schedule: one look keeps alpha");

	s.cap = 160;
	s.start = 5;
	ok(stats_schedule_next(&ma, &mb, &s, 5, 5, VERDICT_INCONCLUSIVE) && ma == 5 && mb == 5,
	   "schedule: 5/5 inconclusive: 5 more each");
	ok(stats_schedule_next(&ma, &mb, &s, 10, 10, VERDICT_INCONCLUSIVE) && ma == 10 && mb == 10,
	   "schedule: 10/10 inconclusive: 10 more each");
	ok(stats_schedule_next(&ma, &mb, &s, 80, 80, VERDICT_INCONCLUSIVE) && ma == 80 && mb == 80,
	   "schedule: 80/80 inconclusive: up to the cap of 160");
	ok(!stats_schedule_next(&ma, &mb, &s, 160, 160, VERDICT_INCONCLUSIVE) && !ma && !mb,
	   "schedule: stop at the cap");
	ok(!stats_schedule_next(&ma, &mb, &s, 10, 10, VERDICT_REGRESSION) && !ma && !mb,
	   "schedule: stop on a verdict");
	ok(!stats_schedule_next(&ma, &mb, &s, 20, 20, VERDICT_SAME), "schedule: stop on SAME");
	ok(stats_schedule_next(&ma, &mb, &s, 10, 7, VERDICT_INCONCLUSIVE) && ma == 0 && mb == 3,
	   "schedule: failed boots: top the short side up to the level");
	ok(stats_schedule_next(&ma, &mb, &s, 40, 10, VERDICT_INCONCLUSIVE) && ma == 0 && mb == 10,
	   "schedule: pooled baseline: double only the side with fewer samples");
	ok(stats_schedule_next(&ma, &mb, &s, 0, 0, VERDICT_INCONCLUSIVE) && ma == 5 && mb == 5,
	   "schedule: nothing seen yet: the first look is at 5 a side");
	ok(stats_schedule_next(&ma, &mb, &s, 24, 26, VERDICT_INCONCLUSIVE) && ma == 16 && mb == 14,
	   "schedule: 24/26 units (samples of boots) inconclusive: both up to the level of 40");

	/* lab bisect's ends: 2, 4, 8, 16 boots a side */
	s.start = 2;
	s.cap = 16;
	ok(stats_schedule_next(&ma, &mb, &s, 0, 0, VERDICT_INCONCLUSIVE) && ma == 2 && mb == 2,
	   "schedule 2..16: first look at 2 a side");
	ok(stats_schedule_next(&ma, &mb, &s, 4, 4, VERDICT_INCONCLUSIVE) && ma == 4 && mb == 4,
	   "schedule 2..16: 4/4 inconclusive: 4 more each");
	ok(stats_schedule_next(&ma, &mb, &s, 8, 8, VERDICT_INCONCLUSIVE) && ma == 8 && mb == 8,
	   "schedule 2..16: 8/8 inconclusive: 8 more each, to the cap");
	ok(!stats_schedule_next(&ma, &mb, &s, 16, 16, VERDICT_INCONCLUSIVE),
	   "schedule 2..16: stop at 16");
	ok(!stats_schedule_next(&ma, &mb, &s, 2, 2, VERDICT_IMPROVEMENT) && !ma && !mb,
	   "schedule 2..16: stop on IMPROVEMENT at the first look");
	s.start = 10;
	s.cap = 100;
	ok(stats_schedule_next(&ma, &mb, &s, 80, 80, VERDICT_INCONCLUSIVE) && ma == 20 && mb == 20,
	   "schedule 10..100: 80/80 inconclusive: the last look is at the cap, 20 more");
}

static void test_boot_units(void)
{
	static const double g0[] = { 99, 100, 101 }, g1[] = { 109, 110, 111 };
	static const double g2[] = { 119, 120, 121 }, h1[] = { 101, 100, 99 };
	static const double h2[] = { 100, 99, 101 };
	const double *spread[] = { g0, g1, NULL, g2 }, *flat[] = { g0, h1, h2 };
	size_t len[] = { 3, 3, 0, 3 };
	struct stats_boot_units u;

	ok(!stats_boot_units(&u, spread, len, 4), "boot units spread: runs");
	ok(u.per_boot, "boot units spread: boot-to-boot dominates, per-boot medians");
	is_int(u.n, 3, "boot units spread: one unit per finished boot");
	ok(u.n == 3 && u.values[0] == 100 && u.values[1] == 110 && u.values[2] == 120,
	   "boot units spread: the units are the medians");
	is_double(u.within_sd, 1, 1e-15, "boot units spread: within-boot sd 1");
	is_double(u.between_sd, 10, 1e-15, "boot units spread: sd of medians 10");
	stats_boot_units_release(&u);

	len[2] = 3;
	ok(!stats_boot_units(&u, flat, len, 3), "boot units flat: runs");
	ok(!u.per_boot, "boot units flat: equal medians, every sample a unit");
	is_int(u.n, 9, "boot units flat: nine units");
	stats_boot_units_release(&u);
}

/*
 * Kruskal-Wallis: R's kruskal.test(list(x, y, z)) example (Hollander and
 * Wolfe), chi-squared 0.77143, df 2, p-value 0.68; chi-square quantiles
 * from tables.
 */
static void test_kruskal(void)
{
	static const double x[] = { 2.9, 3.0, 2.5, 2.6, 3.2 }, y[] = { 3.8, 2.7, 4.0, 2.4 };
	static const double z[] = { 2.8, 3.4, 3.7, 2.2, 2.0 }, k[] = { 5, 5, 5 };
	const double *g[] = { x, y, z }, *tied[] = { k, k };
	size_t len[] = { 5, 4, 5 };
	double h, p;

	is_double(stats_chi2_sf(3.841459, 1), 0.05, 1e-6, "chi2 sf: 3.841459 at df 1 is 0.05");
	is_double(stats_chi2_sf(9.487729, 4), 0.05, 1e-6, "chi2 sf: 9.487729 at df 4 is 0.05");
	is_double(stats_chi2_sf(23.209251, 10), 0.01, 1e-6, "chi2 sf: 23.209251 at df 10 is 0.01");
	is_double(stats_chi2_sf(0.5, 3), 0.918891, 1e-6, "chi2 sf: 0.5 at df 3 (series side)");
	ok(!stats_kruskal(&h, &p, g, len, 3), "kruskal: runs");
	is_double(h, 0.771429, 1e-6, "kruskal: H 0.77143 as R");
	is_double(p, 0.679965, 1e-6, "kruskal: p 0.68 as R");
	len[0] = len[1] = 3;
	ok(!stats_kruskal(&h, &p, tied, len, 2) && h == 0 && p == 1,
	   "kruskal: every value tied: H 0, p 1");
	len[1] = 0;
	ok(stats_kruskal(&h, &p, tied, len, 2) && errno == EINVAL, "kruskal: one group: EINVAL");
}

/*
 * icount's clear_huge_page: each boot repeats a few values (2109.155,
 * 2111.65 us...) and a boot moves them by nanoseconds. Three boots of a
 * real A/A side, shortened: the F test sees no boot effect (the gaps
 * between the values set the within-boot sd), the ranks do.
 */
static void test_boot_units_discrete(void)
{
	double b[3][60];
	const double *g[] = { b[0], b[1], b[2] };
	static const double base[] = { 2109.155, 2111.650 };
	size_t len[] = { 60, 60, 60 };
	struct stats_boot_units u;

	for (size_t i = 0; i < 3; i++)
		for (size_t j = 0; j < 60; j++)
			b[i][j] = base[j % 2] + 0.002 * (double)i;
	ok(!stats_boot_units(&u, g, len, 3), "discrete boots: runs");
	ok(u.boot_p > 0.01, "discrete boots: the F test sees no boot effect");
	ok(u.boot_rank_p < 1e-6, "discrete boots: Kruskal-Wallis does");
	ok(u.per_boot && u.n == 3, "discrete boots: per-boot medians are the units");
	stats_boot_units_release(&u);
}

/*
 * The price of the rank test on samples with no boot effect: 5 boots of
 * 10 iid normal samples go to per-boot medians about 1 % of the time more
 * (the Kruskal-Wallis level) than before, which costs power, never level.
 */
static void test_boot_units_iid_rate(void)
{
	double b[5][10];
	const double *g[] = { b[0], b[1], b[2], b[3], b[4] };
	size_t len[] = { 10, 10, 10, 10, 10 }, per_boot = 0, rank = 0, trials = 2000;
	struct stats_boot_units u;

	rng_seed(20261201);
	for (size_t t = 0; t < trials; t++) {
		for (size_t i = 0; i < 5; i++)
			for (size_t j = 0; j < 10; j++)
				b[i][j] = 100 + rng_normal();
		if (stats_boot_units(&u, g, len, 5))
			break;
		per_boot += (size_t)u.per_boot;
		rank += u.boot_rank_p < 0.01;
		stats_boot_units_release(&u);
	}
	printf("# iid boots, 5 x 10: per-boot medians in %zu of %zu, the rank test alone %zu\n",
	       per_boot, trials, rank);
	ok(rank >= 5 && rank <= 40, "iid boots: the rank test fires near its 1 % level");
	ok(per_boot <= 60, "iid boots: per-boot medians in at most 3 % of iid cases");
}

/* ---- zero and near-zero variance: icount's near-deterministic clocks ---- */

static int all_finite_comparison(const struct stats_comparison *c)
{
	return isfinite(c->p) && isfinite(c->ratio) && isfinite(c->lo) && isfinite(c->hi) &&
	       isfinite(c->lo90) && isfinite(c->hi90) && isfinite(c->mde) && isfinite(c->log_sd);
}

static void test_zero_variance(void)
{
	static const double k100[] = { 100, 100, 100, 100, 100 };
	static const double k110[] = { 110, 110, 110, 110, 110 };
	static const double k90[] = { 90, 90, 90, 90, 90 };
	static const double spread[] = { 98, 99, 100, 101, 102 };
	static const double hi_spread[] = { 108, 109, 110, 111, 112 };
	struct stats_schedule sched = STATS_SCHEDULE_INIT;
	struct stats_options opt = STATS_OPTIONS_INIT;
	struct stats_comparison c;
	struct stats_mwu r;
	struct stats_hl h;
	struct stats_ttest t;
	struct stats_outliers o;
	struct stats_summary s;
	struct stats_boot_units u;
	double p[3], adj[3], a[10], b[10];
	size_t len[3] = { 5, 5, 5 };
	size_t i;

	/* Mann-Whitney */
	ok(!stats_mwu(&r, k100, 5, k100, 5, STATS_MWU_AUTO) && r.p == 1 && r.u == 12.5,
	   "zero variance mwu: both constant and equal: U = mn/2, p = 1");
	ok(!stats_mwu(&r, k100, 5, k110, 5, STATS_MWU_AUTO) && r.u == 0 && r.p < 0.01,
	   "zero variance mwu: both constant, different, 5 vs 5: p < 0.01");
	ok(r.p < stats_schedule_alpha(&sched),
	   "zero variance mwu: 5 vs 5 apart: below the first look's alpha");
	ok(!stats_mwu(&r, k100, 5, hi_spread, 5, STATS_MWU_AUTO) && r.u == 0 && r.p < 0.01,
	   "zero variance mwu: one side constant, apart: p < 0.01");
	ok(!stats_mwu(&r, k100, 5, spread, 5, STATS_MWU_AUTO) && isfinite(r.p) && r.p > 0.5,
	   "zero variance mwu: one side constant inside the other: no difference");

	/* Hodges-Lehmann */
	ok(!stats_hl_ratio(&h, k100, 5, k100, 5, 0.01) && h.estimate == 1 && h.lo == 1 && h.hi == 1,
	   "zero variance hl: both constant and equal: 1 [1, 1]");
	ok(!stats_hl_ratio(&h, k100, 5, k110, 5, 0.01), "zero variance hl: both constant, different");
	is_double(h.estimate, 1.1, 1e-12, "zero variance hl: the ratio 1.1");
	ok(fabs(h.lo - 1.1) < 1e-12 && fabs(h.hi - 1.1) < 1e-12,
	   "zero variance hl: the CI is the point 1.1");
	ok(!stats_hl_ratio(&h, k100, 5, hi_spread, 5, 0.01) && h.lo >= 1.08 - 1e-12 &&
	   h.hi <= 1.12 + 1e-12 && h.lo <= 1.1 && h.hi >= 1.1,
	   "zero variance hl: one side constant: CI inside the observed ratios [1.08, 1.12]");
	ok(!stats_hl_shift(&h, k100, 5, k90, 5, 0.05) && h.estimate == -10 && h.lo == -10 &&
	   h.hi == -10, "zero variance hl shift: -10 [-10, -10]");

	/* t-tests */
	ok(!stats_welch(&t, k100, 5, k100, 5) && t.t == 0 && t.p == 1,
	   "zero variance welch: both constant and equal: t 0, p 1");
	ok(!stats_welch(&t, k100, 5, k110, 5) && isinf(t.t) && t.p == 0,
	   "zero variance welch: both constant, different: t infinite, p 0");
	ok(!stats_welch(&t, k100, 5, spread, 5) && t.t == 0 && t.p == 1,
	   "zero variance welch: one side constant, same mean: p 1");
	ok(!stats_welch(&t, k100, 5, hi_spread, 5) && isfinite(t.t) && t.p < 0.001 && t.df == 4,
	   "zero variance welch: one side constant: the other's variance alone, df 4");

	/* summaries and outliers; ten times 33.0261 summed and divided by ten is not 33.0261 */
	for (i = 0; i < 10; i++)
		a[i] = 33.0261;
	ok(!stats_summarize(&s, a, 10) && s.std == 0 && s.mean == 33.0261,
	   "zero variance summary: ten equal values that do not sum exactly: std 0, mean the value");
	ok(!stats_compare(&c, a, 10, a, 10, NULL) && c.log_sd == 0 && c.mde == 0,
	   "zero variance compare: the same: log sd and MDE exactly 0");
	/* summaries and outliers */
	ok(!stats_summarize(&s, k100, 5) && s.std == 0 && s.cv == 0 && s.q1 == 100 && s.q3 == 100,
	   "zero variance summary: std 0, CV 0");
	ok(!stats_outliers_count(&o, k100, 5) && !o.low_mild && !o.high_mild && !o.low_extreme &&
	   !o.high_extreme && !o.mad, "zero variance outliers: none in a constant side");

	/* Benjamini-Hochberg with the p of constant sides: 1 and 0 */
	p[0] = 1;
	p[1] = 1;
	p[2] = 0;
	ok(!stats_bh_adjust(adj, p, 3) && adj[0] == 1 && adj[1] == 1 && adj[2] == 0,
	   "zero variance bh: p of 1 stays 1, p of 0 stays 0");

	/* boot units and the F test */
	{
		const double *same[] = { k100, k100, k100 }, *apart[] = { k90, k100, k110 };
		const double *one_flat[] = { k100, spread, hi_spread };

		ok(!stats_boot_units(&u, same, len, 3) && !u.per_boot && u.boot_p == 1 &&
		   u.within_sd == 0 && u.between_sd == 0 && u.n == 15,
		   "zero variance boot units: identical boots: samples, no boot effect, p 1");
		stats_boot_units_release(&u);
		ok(!stats_boot_units(&u, apart, len, 3) && u.per_boot && u.boot_p == 0 && u.n == 3,
		   "zero variance boot units: constant boots that differ: a boot effect, medians");
		stats_boot_units_release(&u);
		ok(!stats_boot_units(&u, one_flat, len, 3) && u.per_boot && isfinite(u.boot_p) &&
		   u.boot_p < 0.01, "zero variance boot units: one constant boot among noisy ones: F finite");
		stats_boot_units_release(&u);
	}

	/* verdicts, at the adaptive schedule's first look */
	opt.alpha = stats_schedule_alpha(&sched);
	ok(!stats_compare(&c, k100, 5, k100, 5, &opt) && all_finite_comparison(&c),
	   "zero variance compare: equal constants: every number finite");
	is_str(verdict_name(c.verdict), "SAME", "zero variance compare: equal constants: SAME");
	ok(c.ratio == 1 && c.lo == 1 && c.hi == 1 && c.mde == 0 && c.log_sd == 0,
	   "zero variance compare: equal constants: 1 [1, 1], MDE 0");
	ok(!stats_compare(&c, k100, 5, k110, 5, &opt) && all_finite_comparison(&c),
	   "zero variance compare: constants 10 % apart: every number finite");
	is_str(verdict_name(c.verdict), "REGRESSION",
	       "zero variance compare: constants 10 % apart, 5 vs 5: REGRESSION at the first look");
	ok(fabs(c.lo - 1.1) < 1e-12 && fabs(c.hi - 1.1) < 1e-12,
	   "zero variance compare: the CI is the observed ratio");
	ok(!stats_compare(&c, k100, 5, k90, 5, &opt), "zero variance compare: constants 10 % lower");
	is_str(verdict_name(c.verdict), "IMPROVEMENT", "zero variance compare: lower constants: IMPROVEMENT");
	ok(!stats_compare(&c, k100, 5, hi_spread, 5, &opt) && all_finite_comparison(&c),
	   "zero variance compare: one side constant");
	is_str(verdict_name(c.verdict), "REGRESSION",
	       "zero variance compare: one constant side, no overlap, 5 vs 5: REGRESSION");
	ok(c.lo >= 1.08 - 1e-12 && c.hi <= 1.12 + 1e-12,
	   "zero variance compare: no overlap: the CI lies within the observed ratio range");

	/* near-deterministic: icount's demote page, 33.0261 ms, sd 0.000016 ms */
	for (i = 0; i < 10; i++) {
		a[i] = 33.0261 + 0.000016 * rng_normal();
		b[i] = 33.0261 + 0.000016 * rng_normal();
	}
	ok(!stats_compare(&c, a, 5, b, 5, &opt) && c.verdict != VERDICT_INCONCLUSIVE &&
	   c.verdict != VERDICT_REGRESSION && c.verdict != VERDICT_IMPROVEMENT,
	   "near-deterministic A/A, 5 vs 5: SAME (or SMALL), decided at the first look");
	for (i = 0; i < 10; i++)
		b[i] *= 1.001;
	ok(!stats_compare(&c, a, 5, b, 5, &opt), "near-deterministic +0.1 %: compared");
	is_str(verdict_name(c.verdict), "SMALL", "near-deterministic +0.1 %: SMALL, seen at once");
	for (i = 0; i < 10; i++)
		b[i] *= 1.05;
	ok(!stats_compare(&c, a, 5, b, 5, &opt), "near-deterministic +5 %: compared");
	is_str(verdict_name(c.verdict), "REGRESSION", "near-deterministic +5 %: REGRESSION at 5 vs 5");
}

/* ---- boot-level ratios ---- */

static void test_boot_ratio(void)
{
	static const double x[] = { 99, 101, 100 }, y[] = { 109, 111 };
	static const double k100[] = { 100, 100 }, k110[] = { 110, 110, 110 };
	static const double one[] = { 100 }, slow[] = { 150 };
	const double *pool[] = { x, y }, *kpool[] = { k100, k110 }, *ones[] = { one, slow };
	size_t npool[] = { 3, 2 }, nk[] = { 2, 3 }, none[] = { 1, 1 };
	struct stats_boot_ratio r;
	double want;

	is_double(stats_t_quantile(0.995, 3), 5.840909309733, 1e-9, "t quantile: t(0.995, 3)");
	is_double(stats_t_quantile(0.975, 10), 2.228138851986, 1e-9, "t quantile: t(0.975, 10)");
	is_double(stats_t_quantile(0.025, 10), -2.228138851986, 1e-9, "t quantile: lower tail");

	/*
	 * By hand: ln means 4.6051535 and 4.7004557, log_diff 0.0953022,
	 * pooled sd 0.0110350 on 3 df, se = sd sqrt(1/3 + 1/2) = 0.0100735.
	 */
	ok(!stats_boot_ratio(&r, x, 3, y, 2, pool, npool, 2, 0.01), "boot ratio: computed");
	is_double(r.log_diff, 0.0953021907827587, 1e-12, "boot ratio: mean log difference");
	is_double(r.sd, 0.011034995315064272, 1e-12, "boot ratio: pooled sd of the logs");
	is_double(r.df, 3, 0, "boot ratio: df (3 - 1) + (2 - 1)");
	is_double(r.se, 0.010073526426707549, 1e-12, "boot ratio: se");
	is_double(r.estimate, 1.0999912121113806, 1e-12, "boot ratio: the ratio");
	want = exp(0.0953021907827587 - 5.840909309733 * 0.010073526426707549);
	is_double(r.lo, want, 1e-9, "boot ratio: 99 % CI low with t(0.995, 3)");
	want = exp(0.0953021907827587 + 5.840909309733 * 0.010073526426707549);
	is_double(r.hi, want, 1e-9, "boot ratio: 99 % CI high");
	is_double(r.p, 2 * stats_t_sf(9.460658238815725, 3), 1e-12, "boot ratio: t test p");

	ok(!stats_boot_ratio(&r, k100, 2, k110, 3, kpool, nk, 2, 0.01) && r.se == 0 && r.p == 0,
	   "boot ratio zero variance: constant boots, different: se 0, p 0");
	ok(fabs(r.estimate - 1.1) < 1e-12 && fabs(r.lo - 1.1) < 1e-12 && fabs(r.hi - 1.1) < 1e-12,
	   "boot ratio zero variance: the point interval of the observed ratio");
	ok(!stats_boot_ratio(&r, k100, 2, k100, 2, kpool, nk, 1, 0.01) && r.p == 1 &&
	   r.estimate == 1 && r.lo == 1 && r.hi == 1,
	   "boot ratio zero variance: equal constants: 1 [1, 1], p 1");
	ok(!stats_boot_ratio(&r, k100, 2, y, 2, pool, npool, 2, 0.01) && isfinite(r.lo) &&
	   r.lo < r.estimate && r.hi > r.estimate,
	   "boot ratio: one constant side takes its spread from the pool");
	errno = 0;
	ok(stats_boot_ratio(&r, one, 1, slow, 1, ones, none, 2, 0.01) == -1 && errno == EINVAL,
	   "boot ratio: one boot a side and nothing else cannot show a boot effect: EINVAL");
}

/* ---- simulations ---- */

static int run_adaptive(double shift, double cv, const struct stats_schedule *s,
			double alpha_look, double *a, double *b)
{
	struct stats_options opt = STATS_OPTIONS_INIT;
	struct stats_comparison c;
	size_t na = 0, nb = 0, ma = s->start, mb = s->start;

	opt.alpha = alpha_look;
	do {
		lognormal(a + na, ma, 100, cv);
		lognormal(b + nb, mb, 100 * shift, cv);
		na += ma;
		nb += mb;
		if (stats_compare(&c, a, na, b, nb, &opt))
			return -1;
	} while (stats_schedule_next(&ma, &mb, s, na, nb, c.verdict));
	return c.verdict;
}

static void test_simulations(void)
{
	struct stats_options opt = STATS_OPTIONS_INIT;
	struct stats_schedule s = STATS_SCHEDULE_INIT;
	double a[160], b[160], alpha_look = stats_schedule_alpha(&s);
	int i, fp = 0, sig = 0, found = 0, aa = 0, any = 0, fails = 0;
	int nd_false = 0, nd_small = 0, nd_shift = 0;
	struct stats_comparison c;
	struct stats_mwu r;

	rng_seed(20240601);
	for (i = 0; i < 1000; i++) {
		lognormal(a, 10, 100, 0.03);
		lognormal(b, 10, 100, 0.03);
		if (stats_compare(&c, a, 10, b, 10, &opt)) {
			fails++;
			continue;
		}
		fp += c.verdict == VERDICT_REGRESSION || c.verdict == VERDICT_IMPROVEMENT;
		sig += c.p <= opt.alpha;
	}
	printf("# A/A n=10 CV 3%%: %d REGRESSION/IMPROVEMENT, %d with p <= 0.05 of 1000\n",
	       fp, sig);
	is_int(fails, 0, "A/A: every comparison ran");
	ok(fp <= 50, "A/A log-normal CV 3 %, n = 10: REGRESSION+IMPROVEMENT rate <= alpha");
	/*
	 * The test itself must be calibrated, not just the verdict: with the
	 * continuity correction, P(p <= 0.05) is about 0.04 at n = 10, and
	 * 1000 draws have a binomial sd near 0.0065, so 0.02..0.065 holds it
	 * with room for more than three sds either way.
	 */
	ok(sig >= 20 && sig <= 65, "A/A: Mann-Whitney p <= 0.05 about 5 % of the time");

	/* the same over the adaptive schedule */
	for (i = 0; i < 1000; i++) {
		int v = run_adaptive(1.0, 0.03, &s, alpha_look, a, b);

		aa += v == VERDICT_REGRESSION || v == VERDICT_IMPROVEMENT;
		fails += v < 0;
	}
	printf("# A/A adaptive CV 3%%: %d REGRESSION/IMPROVEMENT of 1000\n", aa);
	ok(aa <= 50, "A/A adaptive: REGRESSION+IMPROVEMENT rate <= alpha over all looks");

	/*
	 * The per-look alpha itself: take all six looks (5 .. 160) whatever
	 * happens and count experiments where any look has p <= alpha_look.
	 * Normal theory says 5 %; the continuity correction and the exact
	 * test's coarse steps at 5 a side make the rank test a little
	 * conservative. 66 is 0.05 plus 2.3 binomial sds (sd 6.9 per 1000),
	 * a 1 % chance of failing a correct alpha.
	 */
	for (i = 0; i < 1000; i++) {
		size_t n;
		int hit = 0;

		lognormal(a, 160, 100, 0.03);
		lognormal(b, 160, 100, 0.03);
		for (n = s.start; n <= 160; n *= 2) {
			if (stats_mwu(&r, a, n, b, n, STATS_MWU_AUTO)) {
				fails++;
				break;
			}
			hit |= r.p <= alpha_look;
		}
		any += hit;
	}
	printf("# A/A six looks, alpha %.4f per look: %d of 1000 significant at some look\n",
	       alpha_look, any);
	ok(any <= 66, "A/A six looks: per-look alpha keeps the overall rate at 5 %");

	for (i = 0; i < 1000; i++) {
		int v = run_adaptive(1.05, 0.02, &s, alpha_look, a, b);

		found += v == VERDICT_REGRESSION;
		fails += v < 0;
	}
	printf("# 5%% shift at CV 2%%, adaptive: %d of 1000 found\n", found);
	ok(found >= 950, "5 % shift at CV 2 %: REGRESSION >= 95 % with the adaptive schedule");

	/*
	 * Near-deterministic A/A (icount: demote's page at 33.0261 ms, sd
	 * 0.000016 ms, every sample rounded to the 0.1 ns the guest prints,
	 * so ties are common): the adaptive schedule must say SAME, and at its
	 * first look.
	 */
	for (i = 0; i < 50; i++) {
		struct stats_options o = STATS_OPTIONS_INIT;
		size_t j;

		o.alpha = alpha_look;
		for (j = 0; j < s.start; j++) {
			a[j] = round((33.0261 + 0.000016 * rng_normal()) * 1e7) / 1e7;
			b[j] = round((33.0261 + 0.000016 * rng_normal()) * 1e7) / 1e7;
		}
		if (stats_compare(&c, a, s.start, b, s.start, &o)) {
			fails++;
			continue;
		}
		nd_false += c.verdict == VERDICT_REGRESSION || c.verdict == VERDICT_IMPROVEMENT ||
			    c.verdict == VERDICT_INCONCLUSIVE;
		nd_small += c.verdict == VERDICT_SMALL;
	}
	printf("# near-deterministic A/A, %zu a side: %d REGRESSION/IMPROVEMENT/INCONCLUSIVE, %d SMALL of 50\n",
	       s.start, nd_false, nd_small);
	is_int(nd_false, 0, "near-deterministic A/A: no false verdict, decided at the first look");
	ok(nd_small <= 2, "near-deterministic A/A: SMALL (p <= alpha by chance) at most twice in 50");

	/* a 0.5 % shift, invisible to wall time, is SMALL at the first look */
	for (i = 0; i < 50; i++) {
		struct stats_options o = STATS_OPTIONS_INIT;
		size_t j;

		o.alpha = alpha_look;
		for (j = 0; j < s.start; j++) {
			a[j] = 33.0261 + 0.000016 * rng_normal();
			b[j] = 1.005 * (33.0261 + 0.000016 * rng_normal());
		}
		if (stats_compare(&c, a, s.start, b, s.start, &o)) {
			fails++;
			continue;
		}
		nd_shift += c.verdict == VERDICT_SMALL;
	}
	is_int(nd_shift, 50, "near-deterministic +0.5 %: SMALL at the first look, every time");
	is_int(fails, 0, "simulations: every comparison ran");
}

/* Two ratios, each with its own CI: the z of their difference, by hand. */
static void test_ratio_z(void)
{
	struct stats_hl x = { 1.10, 1.05, 1.15 }, y = { 1.20, 1.15, 1.25 };
	struct stats_hl one = { 1.0, 0.98, 1.02 }, eight = { 1.08, 1.07, 1.09 };
	struct stats_hl point = { 1.05, 1.05, 1.05 }, bad = { 1.05, 0, 1.1 };
	double z = 0;

	/*
	 * se_x = ln(1.15/1.05) / (2 * 2.5758293) = 0.0176587
	 * se_y = ln(1.25/1.15) / (2 * 1.9599640) = 0.0212712
	 * z = ln(1.10/1.20) / sqrt(se_x^2 + se_y^2) = -3.1473529
	 */
	ok(!stats_ratio_z(&z, &x, 0.01, &y, 0.05), "ratio z: computed");
	is_double(z, -3.1473529, 1e-6, "ratio z: 99 % and 95 % CIs, by hand");
	ok(!stats_ratio_z(&z, &y, 0.05, &x, 0.01), "ratio z: swapped");
	is_double(z, 3.1473529, 1e-6, "ratio z: antisymmetric");
	/* se 0.0078402 and 0.0035811: z = ln(1/1.08) / 0.0086193 = -8.9937110 */
	ok(!stats_ratio_z(&z, &one, 0.01, &eight, 0.01), "ratio z: narrow CIs");
	is_double(z, -8.9937110, 1e-6, "ratio z: both at 99 %");
	ok(!stats_ratio_z(&z, &x, 0.01, &x, 0.01) && z == 0, "ratio z: a ratio against itself is 0");
	ok(!stats_ratio_z(&z, &point, 0.01, &point, 0.01) && z == 0, "ratio z: two equal points");
	ok(!stats_ratio_z(&z, &point, 0.01, &x, 0.01) && fabs(z + 2.6343911) < 1e-6,
	   "ratio z: one point, the other's se alone");
	errno = 0;
	ok(stats_ratio_z(&z, &bad, 0.01, &x, 0.01) && errno == EINVAL, "ratio z: a bound of 0 is EINVAL");
	errno = 0;
	ok(stats_ratio_z(&z, &x, 0, &y, 0.05) && errno == EINVAL, "ratio z: alpha 0 is EINVAL");
}

int main(void)
{
	test_mwu();
	test_ttests_and_hl();
	test_distributions();
	test_bh();
	test_summary();
	test_median();
	test_boot_median();
	test_outliers();
	test_hl_ci();
	test_pairdiff_select();
	test_verdicts();
	test_verdict_at();
	test_schedule();
	test_boot_units();
	test_kruskal();
	test_boot_units_discrete();
	test_boot_units_iid_rate();
	test_zero_variance();
	test_boot_ratio();
	test_simulations();
	test_ratio_z();
	return done_testing();
}
