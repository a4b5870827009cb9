/*
 * Statistics for A/B verdicts; see stats.h and docs/statistics.md.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

#define SQRT2		1.41421356237309504880
#define SQRT_2PI	2.50662827463100050242
#define PI		3.14159265358979323846

/* Largest side for which the exact Mann-Whitney distribution is tabulated. */
#define MWU_EXACT_MAX	50

static int cmp_double(const void *pa, const void *pb)
{
	double x = *(const double *)pa, y = *(const double *)pb;
	return (x > y) - (x < y);
}

static int check_finite(const double *x, size_t n)
{
	size_t i;

	if (!n) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (!isfinite(x[i])) {
			errno = EINVAL;
			return -1;
		}
	}
	return 0;
}

static int check_positive(const double *x, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!(x[i] > 0)) {
			errno = EDOM;
			return -1;
		}
	}
	return 0;
}

/* Order-preserving map of doubles (no NaN) onto unsigned integers. */
static uint64_t double_key(double x)
{
	uint64_t u;

	memcpy(&u, &x, sizeof(u));
	return u >> 63 ? ~u : u | (1ULL << 63);
}

static double key_double(uint64_t k)
{
	uint64_t u = k >> 63 ? k & ~(1ULL << 63) : ~k;
	double x;

	memcpy(&x, &u, sizeof(x));
	return x;
}

#define RADIX_BITS	11
#define RADIX_PASSES	6	/* ceil(64 / 11) */
#define RADIX_MIN	512

/*
 * LSD radix sort of k[0..n), 11 bits a pass, skipping passes where every
 * key has the same digit, with t[0..n) as scratch; returns whichever of
 * the two holds the result.
 */
static uint64_t *radix_sort(uint64_t *k, uint64_t *t, size_t n)
{
	const uint64_t mask = (1 << RADIX_BITS) - 1;
	size_t count[1 << RADIX_BITS], i;
	int p;

	for (p = 0; p < RADIX_PASSES && n; p++) {
		int shift = p * RADIX_BITS;
		size_t sum = 0, d;
		uint64_t *swap;

		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[(k[i] >> shift) & mask]++;
		if (count[(k[0] >> shift) & mask] == n)
			continue;
		for (d = 0; d <= mask; d++) {
			size_t v = count[d];

			count[d] = sum;
			sum += v;
		}
		for (i = 0; i < n; i++)
			t[count[(k[i] >> shift) & mask]++] = k[i];
		swap = k;
		k = t;
		t = swap;
	}
	return k;
}

/*
 * Sort ascending. Large inputs go through the keys and radix_sort():
 * several times faster than qsort's indirect comparisons, which matters
 * for the 500k-sample verdicts.
 */
static int sort_doubles(double *x, size_t n)
{
	uint64_t *k, *t, *sorted;
	size_t i;

	if (n < RADIX_MIN) {
		qsort(x, n, sizeof(*x), cmp_double);
		return 0;
	}
	k = malloc(n * sizeof(*k));
	t = malloc(n * sizeof(*t));
	if (!k || !t) {
		free(k);
		free(t);
		errno = ENOMEM;
		return -1;
	}
	for (i = 0; i < n; i++)
		k[i] = double_key(x[i]);
	sorted = radix_sort(k, t, n);
	for (i = 0; i < n; i++)
		x[i] = key_double(sorted[i]);
	free(k);
	free(t);
	return 0;
}

static double *sorted_copy(const double *x, size_t n)
{
	double *s = malloc((n ? n : 1) * sizeof(*s));

	if (!s) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(s, x, n * sizeof(*s));
	if (sort_doubles(s, n)) {
		free(s);
		return NULL;
	}
	return s;
}

/* splitmix64: the selection's pivots need only be unpredictable to the data. */
static uint64_t rng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * The k-th smallest (0-based) of x[0..n), reordering x: quickselect with a
 * random pivot and Hoare's partition, which splits runs of equal values
 * evenly so that heavily tied data stays linear.
 */
static double select_kth(double *x, size_t n, size_t k, uint64_t *rng)
{
	ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;

	while (lo < hi) {
		double pivot = x[lo + (ptrdiff_t)(rng_next(rng) % (uint64_t)(hi - lo + 1))];
		ptrdiff_t i = lo, j = hi;

		while (i <= j) {
			while (x[i] < pivot)
				i++;
			while (x[j] > pivot)
				j--;
			if (i <= j) {
				double t = x[i];
				x[i] = x[j];
				x[j] = t;
				i++;
				j--;
			}
		}
		if (kk <= j)
			hi = j;
		else if (kk >= i)
			lo = i;
		else
			return x[kk];
	}
	return x[kk];
}

/* ---- descriptive ---- */

double stats_quantile(const double *sorted, size_t n, double q)
{
	double h, f;
	size_t i;

	if (!n || !(q >= 0 && q <= 1))
		return NAN;
	h = (double)(n - 1) * q;
	i = (size_t)h;
	if (i >= n - 1)
		return sorted[n - 1];
	f = h - (double)i;
	return sorted[i] + f * (sorted[i + 1] - sorted[i]);
}

double stats_median(double *x, size_t n)
{
	uint64_t rng = 0x6d656469616eULL;
	double lo;

	if (!n)
		return NAN;
	lo = select_kth(x, n, (n - 1) / 2, &rng);
	if (n % 2)
		return lo;
	/* the middle pair's mean, in the form stats_quantile() takes it */
	return lo + 0.5 * (select_kth(x, n, n / 2, &rng) - lo);
}

int stats_boot_medians(double *out, size_t *n, const double *v, const size_t *len,
		       size_t ngroups)
{
	size_t most = 0, off = 0, g;
	double *x;

	*n = 0;
	for (g = 0; g < ngroups; g++)
		most = len[g] > most ? len[g] : most;
	x = malloc((most ? most : 1) * sizeof(*x));
	if (!x) {
		errno = ENOMEM;
		return -1;
	}
	for (g = 0; g < ngroups; g++) {
		if (len[g]) {
			memcpy(x, v + off, len[g] * sizeof(*x));
			out[(*n)++] = stats_median(x, len[g]);
		}
		off += len[g];
	}
	free(x);
	return 0;
}

int stats_boot_median(double *out, const double *v, const size_t *len, size_t ngroups)
{
	double *m = malloc((ngroups ? ngroups : 1) * sizeof(*m));
	size_t n;
	int ret = -1;

	*out = NAN;
	if (!m) {
		errno = ENOMEM;
		return -1;
	}
	if (stats_boot_medians(m, &n, v, len, ngroups))
		goto out;
	if (!n) {
		errno = EINVAL;
		goto out;
	}
	*out = stats_median(m, n);
	ret = 0;
out:
	free(m);
	return ret;
}

/*
 * Deviations are taken from x[0] first, so that identical values give a
 * mean equal to them and an sd of exactly 0: a sum of ten 3.3s divided by
 * ten is not 3.3, and that rounding would read as a spread.
 */
static void mean_sd(double *mean, double *sd, const double *x, size_t n)
{
	double sum = 0, ss = 0, shift;
	size_t i;

	for (i = 0; i < n; i++)
		sum += x[i] - x[0];
	shift = sum / (double)n;
	for (i = 0; i < n; i++) {
		double d = x[i] - x[0] - shift;

		ss += d * d;
	}
	*mean = x[0] + shift;
	*sd = n > 1 ? sqrt(ss / (double)(n - 1)) : NAN;
}

static void summarize_sorted(struct stats_summary *out, const double *s, size_t n)
{
	out->n = n;
	out->min = s[0];
	out->max = s[n - 1];
	out->median = stats_quantile(s, n, 0.5);
	out->q1 = stats_quantile(s, n, 0.25);
	out->q3 = stats_quantile(s, n, 0.75);
	mean_sd(&out->mean, &out->std, s, n);
	out->cv = out->mean != 0 ? out->std / out->mean : NAN;
}

int stats_summarize(struct stats_summary *out, const double *x, size_t n)
{
	double *s;

	if (check_finite(x, n))
		return -1;
	s = sorted_copy(x, n);
	if (!s)
		return -1;
	summarize_sorted(out, s, n);
	free(s);
	return 0;
}

/* ---- distributions ---- */

double stats_norm_cdf(double x)
{
	return 0.5 * erfc(-x / SQRT2);
}

/*
 * Acklam's rational approximation (relative error 1.15e-9) refined by
 * one Halley step on erfc, which brings it to full double precision.
 * Only the lower half is computed: 1 - p is exact for p >= 0.5, and the
 * lower tail keeps erfc's relative accuracy.
 */
static double norm_quantile_lower(double p)
{
	static const double a[] = {
		-3.969683028665376e+01, 2.209460984245205e+02,
		-2.759285104469687e+02, 1.383577518672690e+02,
		-3.066479806614716e+01, 2.506628277459239e+00,
	};
	static const double b[] = {
		-5.447609879822406e+01, 1.615858368580409e+02,
		-1.556989798598866e+02, 6.680131188771972e+01,
		-1.328068155288572e+01,
	};
	static const double c[] = {
		-7.784894002430293e-03, -3.223964580411365e-01,
		-2.400758277161838e+00, -2.549732539343734e+00,
		4.374664141464968e+00, 2.938163982698783e+00,
	};
	static const double d[] = {
		7.784695709041462e-03, 3.224671290700398e-01,
		2.445134137142996e+00, 3.754408661907416e+00,
	};
	double q, r, x, e, u;

	if (p < 0.02425) {
		q = sqrt(-2 * log(p));
		x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
		    ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
	} else {
		q = p - 0.5;
		r = q * q;
		x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
		    (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
	}
	e = 0.5 * erfc(-x / SQRT2) - p;
	u = e * SQRT_2PI * exp(x * x / 2);
	/* below about 1e-300, exp() overflows and the first guess must do */
	return isfinite(u) ? x - u / (1 + x * u / 2) : x;
}

double stats_norm_quantile(double p)
{
	if (isnan(p) || p < 0 || p > 1)
		return NAN;
	if (p == 0)
		return -INFINITY;
	if (p == 1)
		return INFINITY;
	if (p > 0.5)
		return -norm_quantile_lower(1 - p);
	return norm_quantile_lower(p);
}

/*
 * Continued fraction for the incomplete beta function, evaluated by the
 * modified Lentz method (Numerical Recipes, 2nd ed., 6.4).
 */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-16;
	double qab = a + b, qap = a + 1, qam = a - 1;
	double c = 1, d = 1 - qab * x / qap, h, aa, del;
	int m;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (m = 1; m <= 10000; m++) {
		int m2 = 2 * m;

		aa = m * (b - m) * x / ((qam + m2) * (a + m2));
		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		h *= d * c;
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

/* I_x(a, b) with y = 1 - x passed separately so that x near 1 keeps precision. */
static double beta_inc2(double a, double b, double x, double y)
{
	double front;

	if (!(a > 0) || !(b > 0) || isnan(x) || isnan(y))
		return NAN;
	if (x <= 0)
		return 0;
	if (y <= 0)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log(y));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, y) / b;
}

double stats_beta_inc(double a, double b, double x)
{
	if (x < 0 || x > 1)
		return NAN;
	return beta_inc2(a, b, x, 1 - x);
}

/*
 * The regularised upper incomplete gamma function Q(a, x): the series for
 * P below a + 1, the continued fraction (modified Lentz) above it.
 */
static double gamma_q(double a, double x)
{
	double front, sum, term, b, c, d, h;
	int n;

	if (x <= 0)
		return 1;
	front = exp(-x + a * log(x) - lgamma(a));
	if (x < a + 1) {
		sum = term = 1 / a;
		for (n = 1; n < 1000 && fabs(term) > fabs(sum) * 1e-16; n++) {
			term *= x / (a + n);
			sum += term;
		}
		return fmax(0, 1 - sum * front);
	}
	b = x + 1 - a;
	c = 1 / DBL_MIN;
	d = 1 / b;
	h = d;
	for (n = 1; n < 1000; n++) {
		double an = -n * (n - a), delta;
		b += 2;
		d = an * d + b;
		if (fabs(d) < DBL_MIN)
			d = DBL_MIN;
		c = b + an / c;
		if (fabs(c) < DBL_MIN)
			c = DBL_MIN;
		d = 1 / d;
		delta = d * c;
		h *= delta;
		if (fabs(delta - 1) < 1e-16)
			break;
	}
	return front * h;
}

double stats_chi2_sf(double x, double df)
{
	if (isnan(x) || !(df > 0))
		return NAN;
	return gamma_q(df / 2, x / 2);
}

/* P(T > |t|) = I_{df/(df+t^2)}(df/2, 1/2) / 2 */
static double t_tail(double t, double df)
{
	double t2 = t * t;

	if (isinf(t))
		return 0;
	return 0.5 * beta_inc2(df / 2, 0.5, df / (df + t2), t2 / (df + t2));
}

double stats_t_sf(double t, double df)
{
	if (isnan(t) || !(df > 0))
		return NAN;
	return t >= 0 ? t_tail(t, df) : 1 - t_tail(t, df);
}

double stats_t_cdf(double t, double df)
{
	if (isnan(t) || !(df > 0))
		return NAN;
	return t >= 0 ? 1 - t_tail(t, df) : t_tail(t, df);
}

/* ---- Mann-Whitney U ---- */

struct ranks {
	double u;	/* U of a */
	double sigma;	/* sd of U under H0, tie-corrected */
	int ties;
};

/* One merge of the sorted sides gives U by midranks and the tie term. */
static void ranks_sorted(struct ranks *out, const double *as, size_t m,
			 const double *bs, size_t n)
{
	size_t i = 0, j = 0;
	double u = 0, tsum = 0, nn = (double)(m + n), var;

	out->ties = 0;
	while (i < m || j < n) {
		double v = i < m && (j >= n || as[i] <= bs[j]) ? as[i] : bs[j];
		size_t ca = 0, cb = 0;
		double below = (double)j, t;

		while (i < m && as[i] == v) {
			i++;
			ca++;
		}
		while (j < n && bs[j] == v) {
			j++;
			cb++;
		}
		u += (double)ca * (below + 0.5 * (double)cb);
		t = (double)(ca + cb);
		if (t > 1) {
			out->ties = 1;
			tsum += t * t * t - t;
		}
	}
	out->u = u;
	var = (double)m * (double)n / 12 * ((nn + 1) - tsum / (nn * (nn - 1)));
	/* Guard the all-tied case against rounding leaving a tiny positive. */
	if (var <= (double)m * (double)n / 12 * (nn + 1) * 1e-12)
		var = 0;
	out->sigma = sqrt(var);
}

/*
 * Exact null distribution of U by the recurrence
 * f(i, j, u) = f(i-1, j, u-j) + f(i, j-1, u), f(0, j, 0) = f(i, 0, 0) = 1
 * (the largest of i + j values is an a, beating all j b's, or a b).
 */
static int mwu_exact_p(double *p, size_t m, size_t n, double u)
{
	size_t w = m * n + 1, i, j, v, ui = (size_t)u;
	double *prev = calloc((n + 1) * w, sizeof(double));
	double *cur = calloc((n + 1) * w, sizeof(double));
	double *swap, total = 0, le = 0, ge = 0;

	if (!prev || !cur) {
		free(prev);
		free(cur);
		errno = ENOMEM;
		return -1;
	}
	for (i = 0; i <= m; i++) {
		for (j = 0; j <= n; j++) {
			double *f = cur + j * w;

			memset(f, 0, w * sizeof(double));
			if (!i || !j) {
				f[0] = 1;
				continue;
			}
			for (v = 0; v <= i * j; v++)
				f[v] = cur[(j - 1) * w + v] +
				       (v >= j ? prev[j * w + v - j] : 0);
		}
		swap = prev;
		prev = cur;
		cur = swap;
	}
	for (v = 0; v < w; v++) {
		double f = prev[n * w + v];

		total += f;
		if (v <= ui)
			le += f;
		if (v >= ui)
			ge += f;
	}
	free(prev);
	free(cur);
	*p = fmin(1, 2 * fmin(le, ge) / total);
	return 0;
}

static int mwu_sorted(struct stats_mwu *out, const double *as, size_t m,
		      const double *bs, size_t n, enum stats_mwu_method method)
{
	struct ranks r;
	int exact;

	ranks_sorted(&r, as, m, bs, n);
	out->u = r.u;
	out->sigma = r.sigma;
	switch (method) {
	case STATS_MWU_AUTO:
		exact = m <= 8 && n <= 8 && !r.ties;
		break;
	case STATS_MWU_EXACT:
		if (r.ties || m > MWU_EXACT_MAX || n > MWU_EXACT_MAX) {
			errno = EINVAL;
			return -1;
		}
		exact = 1;
		break;
	case STATS_MWU_NORMAL:
		exact = 0;
		break;
	default:
		errno = EINVAL;
		return -1;
	}
	out->exact = exact;
	if (exact)
		return mwu_exact_p(&out->p, m, n, r.u);
	if (r.sigma == 0) {
		out->p = 1;
	} else {
		double mu = (double)m * (double)n / 2;
		double z = fmax(0, fabs(r.u - mu) - 0.5) / r.sigma;

		out->p = erfc(z / SQRT2);
	}
	return 0;
}

int stats_mwu(struct stats_mwu *out, const double *a, size_t m,
	      const double *b, size_t n, enum stats_mwu_method method)
{
	double *as = NULL, *bs = NULL;
	int ret = -1;

	if (check_finite(a, m) || check_finite(b, n))
		return -1;
	as = sorted_copy(a, m);
	bs = sorted_copy(b, n);
	if (!as || !bs)
		goto out;
	ret = mwu_sorted(out, as, m, bs, n, method);
out:
	free(as);
	free(bs);
	return ret;
}

/* ---- selection of pairwise differences ---- */

/*
 * The m x n differences b_j - a_i of sorted arrays form a matrix sorted
 * along rows (j) and columns (i); floating-point subtraction is monotone,
 * so this holds for the computed values too. Each row keeps a window
 * [lo, hi) of candidates strictly between two values known to bracket the
 * wanted ranks; counting the differences below a pivot takes one
 * two-pointer pass, O(m + n). Pivots come from a random sample of the
 * candidates, picked just outside the wanted ranks' expected positions in
 * the sample (Floyd and Rivest's SELECT, applied to the implicit matrix as
 * in Monahan's Hodges-Lehmann algorithm, ACM TOMS 10(3), 1984): a round
 * keeps about 6/sqrt(S) of the candidates, so a few rounds bring 2.5e11
 * differences down to a few million, which are copied out for
 * radix_select(). Several ranks (an estimate and its CI bounds) share the
 * rounds while they are close, then split at the widest gap. Rows run
 * along the shorter array.
 */
#define PD_SAMPLE	8192
#define PD_MAX_RANKS	8

struct pairdiff {
	const double *a, *b;
	size_t m, n;
	size_t *lo, *hi;	/* row i's candidates are b[lo[i]..hi[i]) */
	size_t *lt, *le;	/* counts below and at a pivot, row by row */
	uint64_t below;		/* differences below the candidates: sum of lo */
	uint64_t upto;		/* below plus the candidates: sum of hi */
	uint64_t limit;		/* copy out at most this many candidates */
	double *sample;		/* PD_SAMPLE sorted candidates */
	uint64_t *pos, *keys;	/* PD_SAMPLE each, scratch for sorting */
	uint64_t rng;
};

static void pd_count(struct pairdiff *pd, double v, uint64_t *nlt, uint64_t *nle)
{
	const double *b = pd->b;
	size_t i, j1 = 0, j2 = 0;
	uint64_t tlt = 0, tle = 0;

	for (i = 0; i < pd->m; i++) {
		double ai = pd->a[i];
		size_t hi = pd->hi[i];

		if (j1 < pd->lo[i])
			j1 = pd->lo[i];
		while (j1 < hi && b[j1] - ai < v)
			j1++;
		if (j2 < j1)
			j2 = j1;
		while (j2 < hi && b[j2] - ai <= v)
			j2++;
		pd->lt[i] = j1;
		pd->le[i] = j2;
		tlt += j1;
		tle += j2;
	}
	*nlt = tlt;
	*nle = tle;
}

/*
 * A sorted uniform sample of the candidates. The positions are sorted
 * first so that one walk over the rows finds them all.
 */
static void pd_sample(struct pairdiff *pd)
{
	uint64_t cand = pd->upto - pd->below, start = 0, *r;
	size_t i, row = 0;

	for (i = 0; i < PD_SAMPLE; i++)
		pd->pos[i] = rng_next(&pd->rng) % cand;
	r = radix_sort(pd->pos, pd->keys, PD_SAMPLE);
	for (i = 0; i < PD_SAMPLE; i++) {
		while (r[i] >= start + (pd->hi[row] - pd->lo[row])) {
			start += pd->hi[row] - pd->lo[row];
			row++;
		}
		pd->sample[i] = pd->b[pd->lo[row] + (r[i] - start)] - pd->a[row];
	}
	for (i = 0; i < PD_SAMPLE; i++)
		pd->pos[i] = double_key(pd->sample[i]);
	r = radix_sort(pd->pos, pd->keys, PD_SAMPLE);
	for (i = 0; i < PD_SAMPLE; i++)
		pd->sample[i] = key_double(r[i]);
}

/*
 * The sample value three binomial sds beyond rank k's expected place,
 * below it (side -1) or above (side +1).
 */
static double pd_pick(const struct pairdiff *pd, uint64_t k, int side)
{
	double f = ((double)(k - pd->below) - 0.5) / (double)(pd->upto - pd->below);
	double pos = f * PD_SAMPLE + side * (3 * sqrt(PD_SAMPLE * f * (1 - f)) + 2);
	long i = (long)(side < 0 ? floor(pos) : ceil(pos));

	if (i < 0)
		i = 0;
	if (i > PD_SAMPLE - 1)
		i = PD_SAMPLE - 1;
	return pd->sample[i];
}

/*
 * Count at pivot v and keep the side of it where ranks k1..k2 lie.
 * Returns 1 when v itself is the k1 = k2-th difference, 0 otherwise
 * (including v falling among the ranks, which shrinks nothing).
 */
static int pd_test(struct pairdiff *pd, double v, uint64_t k1, uint64_t k2)
{
	uint64_t nlt, nle;
	size_t *t;

	pd_count(pd, v, &nlt, &nle);
	if (nle < k1) {
		t = pd->lo;
		pd->lo = pd->le;
		pd->le = t;
		pd->below = nle;
		return 0;
	}
	if (k2 <= nlt) {
		t = pd->hi;
		pd->hi = pd->lt;
		pd->lt = t;
		pd->upto = nlt;
		return 0;
	}
	return k1 == k2;
}

/*
 * Narrow the candidates around ranks k1..k2 until they fit under the
 * limit or, for k1 < k2, until the ranks' own spread is most of what is
 * left, so that a round could no longer halve it. Returns 1 with *found
 * set when a pivot turned out to be the (single) rank.
 */
static int pd_narrow(struct pairdiff *pd, uint64_t k1, uint64_t k2, double *found)
{
	while (pd->upto - pd->below > pd->limit) {
		uint64_t before = pd->upto - pd->below, upto = pd->upto;
		double v1, v2;

		if (k2 - k1 >= before / 3)
			break;
		pd_sample(pd);
		v1 = pd_pick(pd, k1, -1);
		v2 = pd_pick(pd, k2, +1);
		if (pd_test(pd, v1, k1, k2)) {
			*found = v1;
			return 1;
		}
		/* when v1 already cut from above, v2 >= v1 has nothing left to cut */
		if (v2 > v1 && pd->upto == upto && pd_test(pd, v2, k1, k2)) {
			*found = v2;
			return 1;
		}
		if (k1 != k2 && pd->upto - pd->below > before / 2)
			break;
	}
	return 0;
}

/*
 * The k-th smallest (0-based) of x[0..n), x left as it is: radix
 * selection on the order-preserving keys. Each pass histograms the keys'
 * leading bits within their current range and keeps only the bucket
 * holding rank k, so the range shrinks by 2^RADIX_BITS a pass; unlike
 * quickselect's comparisons, the passes do not branch on the data.
 */
static int radix_select(double *out, const double *x, size_t n, size_t k)
{
	size_t count[1 << RADIX_BITS], i, bucket, below;
	uint64_t kmin, kmax, span;
	double *y = NULL;
	int shift;

	for (;;) {
		const double *src = y ? y : x;

		kmin = UINT64_MAX;
		kmax = 0;
		for (i = 0; i < n; i++) {
			uint64_t key = double_key(src[i]);

			kmin = key < kmin ? key : kmin;
			kmax = key > kmax ? key : kmax;
		}
		span = kmax - kmin;
		if (!span || n <= 32)
			break;
		for (shift = 0; (span >> shift) >= (1 << RADIX_BITS); shift++)
			;
		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[(double_key(src[i]) - kmin) >> shift]++;
		for (bucket = 0, below = 0; below + count[bucket] <= k; bucket++)
			below += count[bucket];
		if (!y) {
			/* one spare: the compaction below stores before it tests */
			y = malloc((count[bucket] + 1) * sizeof(*y));
			if (!y) {
				errno = ENOMEM;
				return -1;
			}
		}
		{
			size_t j = 0;

			for (i = 0; i < n; i++) {
				double v = src[i];

				y[j] = v;
				j += ((double_key(v) - kmin) >> shift) == bucket;
			}
			n = j;
		}
		k -= below;
	}
	if (!span) {
		*out = key_double(kmin);
	} else {
		uint64_t rng = 1;

		if (!y) {
			y = malloc(n * sizeof(*y));
			if (!y) {
				errno = ENOMEM;
				return -1;
			}
			memcpy(y, x, n * sizeof(*y));
		}
		*out = select_kth(y, n, k, &rng);
	}
	free(y);
	return 0;
}

static int pd_enumerate(struct pairdiff *pd, double *out, const uint64_t *ks, size_t nk)
{
	uint64_t cand = pd->upto - pd->below;
	double *x = malloc((size_t)(cand ? cand : 1) * sizeof(*x));
	size_t i, j, c = 0;
	int ret = 0;

	if (!x) {
		errno = ENOMEM;
		return -1;
	}
	for (i = 0; i < pd->m; i++)
		for (j = pd->lo[i]; j < pd->hi[i]; j++)
			x[c++] = pd->b[j] - pd->a[i];
	for (i = 0; i < nk && !ret; i++)
		ret = radix_select(&out[i], x, c, (size_t)(ks[i] - pd->below - 1));
	free(x);
	return ret;
}

/* ks ascending; out[i] receives the ks[i]-th difference. */
static int pd_select_set(struct pairdiff *pd, double *out, const uint64_t *ks, size_t nk)
{
	size_t *save_lo = NULL, *save_hi = NULL, i, split = 0;
	uint64_t below, upto;
	double v;
	int r, ret = -1;

	r = pd_narrow(pd, ks[0], ks[nk - 1], &v);
	if (r) {
		for (i = 0; i < nk; i++)
			out[i] = v;
		return 0;
	}
	if (pd->upto - pd->below <= pd->limit)
		return pd_enumerate(pd, out, ks, nk);

	for (i = 1; i + 1 < nk; i++)
		if (ks[i + 1] - ks[i] > ks[split + 1] - ks[split])
			split = i;
	save_lo = malloc(pd->m * sizeof(size_t));
	save_hi = malloc(pd->m * sizeof(size_t));
	if (!save_lo || !save_hi) {
		errno = ENOMEM;
		goto out;
	}
	memcpy(save_lo, pd->lo, pd->m * sizeof(size_t));
	memcpy(save_hi, pd->hi, pd->m * sizeof(size_t));
	below = pd->below;
	upto = pd->upto;
	if (pd_select_set(pd, out, ks, split + 1))
		goto out;
	memcpy(pd->lo, save_lo, pd->m * sizeof(size_t));
	memcpy(pd->hi, save_hi, pd->m * sizeof(size_t));
	pd->below = below;
	pd->upto = upto;
	ret = pd_select_set(pd, out + split + 1, ks + split + 1, nk - split - 1);
out:
	free(save_lo);
	free(save_hi);
	return ret;
}

/*
 * out[i] = the ks[i]-th smallest (1-based) of the differences b_j - a_i,
 * for up to PD_MAX_RANKS ranks in any order.
 */
static int pairdiff_ranks(double *out, const double *as, size_t m,
			  const double *bs, size_t n, const uint64_t *ks, size_t nk)
{
	struct pairdiff pd = { 0 };
	uint64_t mn = (uint64_t)m * n, sk[PD_MAX_RANKS];
	size_t idx[PD_MAX_RANKS], i, j;
	double sv[PD_MAX_RANKS];
	int ret = -1;

	if (!m || !n || !nk || nk > PD_MAX_RANKS) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < nk; i++) {
		if (ks[i] < 1 || ks[i] > mn) {
			errno = EINVAL;
			return -1;
		}
	}
	if (m > n) {
		/* b - a = -(a - b) exactly: select from the transposed matrix */
		for (i = 0; i < nk; i++)
			sk[i] = mn + 1 - ks[i];
		if (pairdiff_ranks(sv, bs, n, as, m, sk, nk))
			return -1;
		for (i = 0; i < nk; i++)
			out[i] = -sv[i];
		return 0;
	}
	for (i = 0; i < nk; i++) {
		for (j = i; j > 0 && ks[idx[j - 1]] > ks[i]; j--)
			idx[j] = idx[j - 1];
		idx[j] = i;
	}
	for (i = 0; i < nk; i++)
		sk[i] = ks[idx[i]];

	pd.a = as;
	pd.b = bs;
	pd.m = m;
	pd.n = n;
	pd.upto = mn;
	pd.limit = 2 * (uint64_t)(m + n);
	if (pd.limit < 65536)
		pd.limit = 65536;
	pd.rng = 0x5eed5eed5eed5eedULL;
	pd.lo = malloc(m * sizeof(size_t));
	pd.hi = malloc(m * sizeof(size_t));
	pd.lt = malloc(m * sizeof(size_t));
	pd.le = malloc(m * sizeof(size_t));
	pd.sample = malloc(PD_SAMPLE * sizeof(double));
	pd.pos = malloc(PD_SAMPLE * sizeof(uint64_t));
	pd.keys = malloc(PD_SAMPLE * sizeof(uint64_t));
	if (!pd.lo || !pd.hi || !pd.lt || !pd.le || !pd.sample || !pd.pos ||
	    !pd.keys) {
		errno = ENOMEM;
		goto out;
	}
	for (i = 0; i < m; i++) {
		pd.lo[i] = 0;
		pd.hi[i] = n;
	}
	if (pd_select_set(&pd, sv, sk, nk))
		goto out;
	for (i = 0; i < nk; i++)
		out[idx[i]] = sv[i];
	ret = 0;
out:
	free(pd.lo);
	free(pd.hi);
	free(pd.lt);
	free(pd.le);
	free(pd.sample);
	free(pd.pos);
	free(pd.keys);
	return ret;
}

int stats_pairdiff_select(double *out, const double *a_sorted, size_t m,
			  const double *b_sorted, size_t n, uint64_t k)
{
	return pairdiff_ranks(out, a_sorted, m, b_sorted, n, &k, 1);
}

/* ---- Hodges-Lehmann ---- */

/*
 * CI ranks: k = floor(mn/2 - z sigma_U), clamped to >= 1; the CI is
 * [D_(k), D_(mn+1-k)].
 */
static uint64_t ci_rank(uint64_t mn, double sigma, double alpha)
{
	double z = stats_norm_quantile(1 - alpha / 2);
	double k = floor((double)mn / 2 - z * sigma);

	return k < 1 ? 1 : (uint64_t)k;
}

/*
 * The median of the differences and its CI at each of nalpha levels
 * (at most 2), from one shared selection.
 */
static int hl_select(double *est, double *lo, double *hi, const double *alpha,
		     size_t nalpha, const double *as, size_t m,
		     const double *bs, size_t n, double sigma)
{
	uint64_t mn = (uint64_t)m * n, ks[PD_MAX_RANKS];
	double v[PD_MAX_RANKS];
	size_t nk = 0, i, mid;

	if (mn % 2) {
		ks[nk++] = (mn + 1) / 2;
	} else {
		ks[nk++] = mn / 2;
		ks[nk++] = mn / 2 + 1;
	}
	mid = nk;
	for (i = 0; i < nalpha; i++) {
		uint64_t k = ci_rank(mn, sigma, alpha[i]);

		ks[nk++] = k;
		ks[nk++] = mn + 1 - k;
	}
	if (pairdiff_ranks(v, as, m, bs, n, ks, nk))
		return -1;
	*est = mid == 1 ? v[0] : (v[0] + v[1]) / 2;
	for (i = 0; i < nalpha; i++) {
		lo[i] = v[mid + 2 * i];
		hi[i] = v[mid + 2 * i + 1];
	}
	return 0;
}

static void log_in_place(double *x, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		x[i] = log(x[i]);
}

static int hl(struct stats_hl *out, const double *a, size_t m,
	      const double *b, size_t n, double alpha, int ratio)
{
	double *as = NULL, *bs = NULL;
	struct ranks r;
	int ret = -1;

	if (check_finite(a, m) || check_finite(b, n))
		return -1;
	if (!(alpha > 0 && alpha < 1)) {
		errno = EINVAL;
		return -1;
	}
	if (ratio && (check_positive(a, m) || check_positive(b, n)))
		return -1;
	as = sorted_copy(a, m);
	bs = sorted_copy(b, n);
	if (!as || !bs)
		goto out;
	ranks_sorted(&r, as, m, bs, n);
	if (ratio) {
		log_in_place(as, m);
		log_in_place(bs, n);
	}
	if (hl_select(&out->estimate, &out->lo, &out->hi, &alpha, 1,
		      as, m, bs, n, r.sigma))
		goto out;
	if (ratio) {
		out->estimate = exp(out->estimate);
		out->lo = exp(out->lo);
		out->hi = exp(out->hi);
	}
	ret = 0;
out:
	free(as);
	free(bs);
	return ret;
}

int stats_hl_shift(struct stats_hl *out, const double *a, size_t m,
		   const double *b, size_t n, double alpha)
{
	return hl(out, a, m, b, n, alpha, 0);
}

int stats_hl_ratio(struct stats_hl *out, const double *a, size_t m,
		   const double *b, size_t n, double alpha)
{
	return hl(out, a, m, b, n, alpha, 1);
}

static int hl_log_se(double *se, const struct stats_hl *h, double alpha)
{
	if (!(alpha > 0 && alpha < 1) || !(h->estimate > 0 && h->lo > 0 && h->hi >= h->lo) ||
	    !isfinite(h->estimate) || !isfinite(h->hi)) {
		errno = EINVAL;
		return -1;
	}
	*se = (log(h->hi) - log(h->lo)) / (2 * stats_norm_quantile(1 - alpha / 2));
	return 0;
}

int stats_ratio_z(double *z, const struct stats_hl *x, double alpha_x,
		  const struct stats_hl *y, double alpha_y)
{
	double se_x, se_y, diff, se;

	if (hl_log_se(&se_x, x, alpha_x) || hl_log_se(&se_y, y, alpha_y))
		return -1;
	diff = log(x->estimate) - log(y->estimate);
	se = sqrt(se_x * se_x + se_y * se_y);
	if (se > 0)
		*z = diff / se;
	else
		*z = diff == 0 ? 0 : copysign(INFINITY, diff);
	return 0;
}

/* ---- t-tests ---- */

static void t_finish(struct stats_ttest *out, double diff, double se, double df)
{
	out->df = df;
	if (se > 0) {
		out->t = diff / se;
		out->p = 2 * t_tail(out->t, df);
	} else {
		out->t = diff == 0 ? 0 : copysign(INFINITY, diff);
		out->p = diff == 0 ? 1 : 0;
	}
}

int stats_welch(struct stats_ttest *out, const double *a, size_t m,
		const double *b, size_t n)
{
	double ma, sa, mb, sb, va, vb, df;

	if (check_finite(a, m) || check_finite(b, n))
		return -1;
	if (m < 2 || n < 2) {
		errno = EINVAL;
		return -1;
	}
	mean_sd(&ma, &sa, a, m);
	mean_sd(&mb, &sb, b, n);
	va = sa * sa / (double)m;
	vb = sb * sb / (double)n;
	if (va + vb > 0)
		df = (va + vb) * (va + vb) /
		     (va * va / (double)(m - 1) + vb * vb / (double)(n - 1));
	else
		df = (double)(m + n - 2);
	t_finish(out, ma - mb, sqrt(va + vb), df);
	return 0;
}

/* ---- verdict ---- */

const char *verdict_name(enum verdict v)
{
	switch (v) {
	case VERDICT_INCONCLUSIVE:
		return "INCONCLUSIVE";
	case VERDICT_SAME:
		return "SAME";
	case VERDICT_SMALL:
		return "SMALL";
	case VERDICT_IMPROVEMENT:
		return "IMPROVEMENT";
	case VERDICT_REGRESSION:
		return "REGRESSION";
	}
	return "UNKNOWN";
}

enum verdict stats_verdict(const struct stats_comparison *c)
{
	return stats_verdict_at(c, c->p);
}

enum verdict stats_verdict_at(const struct stats_comparison *c, double p)
{
	double up = 1 + c->delta, down = 1 / (1 + c->delta);
	int significant = p <= c->alpha;
	int higher_is_worse = c->direction == STATS_LOWER_IS_BETTER;

	if (significant && c->lo > up)
		return higher_is_worse ? VERDICT_REGRESSION : VERDICT_IMPROVEMENT;
	if (significant && c->hi < down)
		return higher_is_worse ? VERDICT_IMPROVEMENT : VERDICT_REGRESSION;
	if (c->lo90 >= down && c->hi90 <= up)
		return significant ? VERDICT_SMALL : VERDICT_SAME;
	return VERDICT_INCONCLUSIVE;
}

int stats_compare(struct stats_comparison *out, const double *a, size_t m,
		  const double *b, size_t n, const struct stats_options *opt)
{
	struct stats_options def = STATS_OPTIONS_INIT;
	double *as = NULL, *bs = NULL;
	struct stats_mwu mw;
	double alpha[2] = { 0, 0.10 }, est, lo[2], hi[2];
	double mean_a, sd_a, mean_b, sd_b, z;
	int ret = -1;

	if (!opt)
		opt = &def;
	if (!(opt->alpha > 0 && opt->alpha < 1) || !(opt->delta >= 0) ||
	    !isfinite(opt->delta)) {
		errno = EINVAL;
		return -1;
	}
	if (check_finite(a, m) || check_finite(b, n) ||
	    check_positive(a, m) || check_positive(b, n))
		return -1;
	memset(out, 0, sizeof(*out));
	out->alpha = opt->alpha;
	out->delta = opt->delta;
	out->direction = opt->direction;

	as = sorted_copy(a, m);
	bs = sorted_copy(b, n);
	if (!as || !bs)
		goto out;
	summarize_sorted(&out->a, as, m);
	summarize_sorted(&out->b, bs, n);
	if (mwu_sorted(&mw, as, m, bs, n, STATS_MWU_AUTO))
		goto out;
	out->u = mw.u;
	out->p = mw.p;
	out->exact = mw.exact;

	/* ln keeps the order, so the copies stay sorted */
	log_in_place(as, m);
	log_in_place(bs, n);
	alpha[0] = opt->alpha;
	if (hl_select(&est, lo, hi, alpha, 2, as, m, bs, n, mw.sigma))
		goto out;
	out->ratio = exp(est);
	out->lo = exp(lo[0]);
	out->hi = exp(hi[0]);
	out->lo90 = exp(lo[1]);
	out->hi90 = exp(hi[1]);

	/*
	 * MDE (docs/statistics.md) with sqrt(2/n) generalised to
	 * sqrt(1/m + 1/n); sqrt(3/pi) is the Mann-Whitney test's efficiency
	 * relative to the t-test at the normal.
	 */
	mean_sd(&mean_a, &sd_a, as, m);
	mean_sd(&mean_b, &sd_b, bs, n);
	if (m + n > 2) {
		out->log_sd = sqrt(((m > 1 ? (double)(m - 1) * sd_a * sd_a : 0) +
				    (n > 1 ? (double)(n - 1) * sd_b * sd_b : 0)) /
				   (double)(m + n - 2));
		z = stats_norm_quantile(1 - opt->alpha / 2) + stats_norm_quantile(0.8);
		out->mde = expm1(z * out->log_sd *
				 sqrt(1.0 / (double)m + 1.0 / (double)n) / sqrt(3 / PI));
	} else {
		out->log_sd = NAN;
		out->mde = NAN;
	}
	out->verdict = stats_verdict(out);
	ret = 0;
out:
	free(as);
	free(bs);
	return ret;
}

/* ---- many metrics ---- */

struct pindex {
	double p;
	size_t i;
};

static int cmp_pindex(const void *pa, const void *pb)
{
	const struct pindex *x = pa, *y = pb;

	if (x->p != y->p)
		return (x->p > y->p) - (x->p < y->p);
	return (x->i > y->i) - (x->i < y->i);
}

int stats_bh_adjust(double *adj, const double *p, size_t n)
{
	struct pindex *s;
	double run = 1;
	size_t i;

	if (!n)
		return 0;
	for (i = 0; i < n; i++) {
		if (!(p[i] >= 0 && p[i] <= 1)) {
			errno = EINVAL;
			return -1;
		}
	}
	s = malloc(n * sizeof(*s));
	if (!s) {
		errno = ENOMEM;
		return -1;
	}
	for (i = 0; i < n; i++) {
		s[i].p = p[i];
		s[i].i = i;
	}
	qsort(s, n, sizeof(*s), cmp_pindex);
	for (i = n; i-- > 0;) {
		double v = s[i].p * (double)n / (double)(i + 1);

		if (v < run)
			run = v;
		adj[s[i].i] = run;
	}
	free(s);
	return 0;
}

/* ---- outliers ---- */

int stats_outliers_count(struct stats_outliers *out, const double *x, size_t n)
{
	double *s, q1, q3, iqr, med, mad;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (check_finite(x, n))
		return -1;
	s = sorted_copy(x, n);
	if (!s)
		return -1;
	q1 = stats_quantile(s, n, 0.25);
	q3 = stats_quantile(s, n, 0.75);
	iqr = q3 - q1;
	med = stats_quantile(s, n, 0.5);
	for (i = 0; i < n; i++) {
		double v = s[i];

		if (v < q1 - 3 * iqr)
			out->low_extreme++;
		else if (v < q1 - 1.5 * iqr)
			out->low_mild++;
		else if (v > q3 + 3 * iqr)
			out->high_extreme++;
		else if (v > q3 + 1.5 * iqr)
			out->high_mild++;
	}
	for (i = 0; i < n; i++)
		s[i] = fabs(x[i] - med);
	if (sort_doubles(s, n)) {
		free(s);
		return -1;
	}
	mad = stats_quantile(s, n, 0.5);
	for (i = 0; i < n; i++) {
		double dev = fabs(x[i] - med);

		if (mad > 0 ? dev / mad > 14.826 : dev > 0)
			out->mad++;
	}
	free(s);
	return 0;
}

/* ---- adaptive sampling ---- */

static size_t schedule_start(const struct stats_schedule *s)
{
	return s->start ? s->start : 1;
}

size_t stats_schedule_level(const struct stats_schedule *s, size_t n)
{
	size_t level = schedule_start(s);

	if (n >= s->cap)
		return 0;
	while (level <= n)
		level = level * 2 < s->cap ? level * 2 : s->cap;
	return level;
}

int stats_schedule_looks(const struct stats_schedule *s)
{
	size_t level = schedule_start(s);
	int looks = 1;

	while (level < s->cap) {
		level = level * 2 < s->cap ? level * 2 : s->cap;
		looks++;
	}
	return looks;
}

/*
 * Under H0 the z statistic at successive doublings is a Gaussian Markov
 * chain, z' = r z + sqrt(1 - r^2) e with r = sqrt(1/2), so the chance
 * that no |z| exceeds c over K looks is the mass left after propagating
 * the standard normal density K - 1 times through that kernel, truncated
 * to [-c, c] each time. Simpson's rule on a fixed grid is plenty: the
 * integrands are smooth on the interval.
 */
#define LOOK_GRID 64

static double looks_crossing(double c, int looks)
{
	static const double r = 0.70710678118654752440;
	double z[LOOK_GRID + 1], w[LOOK_GRID + 1], f[LOOK_GRID + 1], g[LOOK_GRID + 1];
	double kern[(LOOK_GRID + 1) * (LOOK_GRID + 1)];
	double h = 2 * c / LOOK_GRID, s = sqrt(1 - r * r), mass = 0;
	int i, j, k;

	for (i = 0; i <= LOOK_GRID; i++) {
		z[i] = -c + i * h;
		w[i] = h / 3 * (i == 0 || i == LOOK_GRID ? 1 : i % 2 ? 4 : 2);
		f[i] = exp(-z[i] * z[i] / 2) / SQRT_2PI;
	}
	for (i = 0; i <= LOOK_GRID; i++) {
		for (j = 0; j <= LOOK_GRID; j++) {
			double e = (z[i] - r * z[j]) / s;

			kern[i * (LOOK_GRID + 1) + j] = w[j] * exp(-e * e / 2) / (s * SQRT_2PI);
		}
	}
	for (k = 1; k < looks; k++) {
		for (i = 0; i <= LOOK_GRID; i++) {
			double sum = 0;

			for (j = 0; j <= LOOK_GRID; j++)
				sum += kern[i * (LOOK_GRID + 1) + j] * f[j];
			g[i] = sum;
		}
		memcpy(f, g, sizeof(f));
	}
	for (i = 0; i <= LOOK_GRID; i++)
		mass += w[i] * f[i];
	return 1 - mass;
}

double stats_schedule_alpha(const struct stats_schedule *s)
{
	int looks = stats_schedule_looks(s), it;
	double lo = 0, hi = 10;

	if (!(s->alpha > 0 && s->alpha < 1))
		return NAN;
	if (looks <= 1)
		return s->alpha;
	for (it = 0; it < 40; it++) {
		double mid = (lo + hi) / 2;

		if (looks_crossing(mid, looks) > s->alpha)
			lo = mid;
		else
			hi = mid;
	}
	return erfc((lo + hi) / 2 / SQRT2);
}

int stats_schedule_next(size_t *more_a, size_t *more_b,
			const struct stats_schedule *s, size_t n_a, size_t n_b,
			enum verdict v)
{
	size_t target;

	*more_a = *more_b = 0;
	if (v != VERDICT_INCONCLUSIVE)
		return 0;
	target = stats_schedule_level(s, n_a < n_b ? n_a : n_b);
	if (!target)
		return 0;
	*more_a = target > n_a ? target - n_a : 0;
	*more_b = target > n_b ? target - n_b : 0;
	return 1;
}

/* ---- boot-to-boot ---- */

/*
 * Count the samples and the non-empty groups, checking every value is
 * finite; -1 with errno EINVAL when one is not.
 */
static int count_groups(size_t *total, size_t *nonempty, const double *const *groups,
			const size_t *len, size_t ngroups)
{
	*total = *nonempty = 0;
	for (size_t g = 0; g < ngroups; g++) {
		if (!len[g])
			continue;
		if (check_finite(groups[g], len[g]))
			return -1;
		*total += len[g];
		(*nonempty)++;
	}
	return 0;
}

struct ranked {
	double v;
	size_t g;
};

static int ranked_cmp(const void *a, const void *b)
{
	double x = ((const struct ranked *)a)->v, y = ((const struct ranked *)b)->v;

	return (x > y) - (x < y);
}

int stats_kruskal(double *h, double *p, const double *const *groups, const size_t *len,
		  size_t ngroups)
{
	struct ranked *r;
	double *rank_sum, ties = 0, sum = 0, nn;
	size_t g, i, j, total, k;

	if (count_groups(&total, &k, groups, len, ngroups))
		return -1;
	if (k < 2) {
		errno = EINVAL;
		return -1;
	}
	r = malloc(total * sizeof(*r));
	rank_sum = calloc(ngroups, sizeof(*rank_sum));
	if (!r || !rank_sum) {
		free(r);
		free(rank_sum);
		errno = ENOMEM;
		return -1;
	}
	for (g = 0, i = 0; g < ngroups; g++)
		for (j = 0; j < len[g]; j++, i++) {
			r[i].v = groups[g][j];
			r[i].g = g;
		}
	qsort(r, total, sizeof(*r), ranked_cmp);
	/* tied values share their mean rank */
	for (i = 0; i < total; i = j) {
		double t, mid;
		for (j = i + 1; j < total && r[j].v == r[i].v; j++)
			;
		t = (double)(j - i);
		mid = ((double)i + (double)j + 1) / 2;
		ties += t * t * t - t;
		for (size_t m = i; m < j; m++)
			rank_sum[r[m].g] += mid;
	}
	for (g = 0; g < ngroups; g++)
		if (len[g])
			sum += rank_sum[g] * rank_sum[g] / (double)len[g];
	nn = (double)total;
	free(r);
	free(rank_sum);
	/* every value tied: no ordering to test */
	if (nn * nn * nn - nn - ties <= 0) {
		*h = 0;
		*p = 1;
		return 0;
	}
	*h = (12 / (nn * (nn + 1)) * sum - 3 * (nn + 1)) / (1 - ties / (nn * nn * nn - nn));
	*h = fmax(0, *h);
	*p = stats_chi2_sf(*h, (double)(k - 1));
	return 0;
}

int stats_boot_units(struct stats_boot_units *out, const double *const *groups,
		     const size_t *len, size_t ngroups)
{
	double *med = NULL, ss_within = 0, mean_med, sd_med, sum = 0, ss_between = 0, h;
	double *gmean = NULL;
	size_t g, i, total, boots, df_within = 0;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (count_groups(&total, &boots, groups, len, ngroups))
		return -1;
	if (!total) {
		errno = EINVAL;
		return -1;
	}
	med = malloc(boots * sizeof(*med));
	gmean = malloc(boots * sizeof(*gmean));
	out->values = malloc(total * sizeof(double));
	if (!med || !gmean || !out->values) {
		errno = ENOMEM;
		goto out;
	}
	for (g = 0, i = 0; g < ngroups; g++) {
		double *s, mu, sd;

		if (!len[g])
			continue;
		s = sorted_copy(groups[g], len[g]);
		if (!s)
			goto out;
		med[i] = stats_quantile(s, len[g], 0.5);
		mean_sd(&mu, &sd, s, len[g]);
		gmean[i++] = mu;
		sum += mu * (double)len[g];
		if (len[g] > 1) {
			ss_within += (double)(len[g] - 1) * sd * sd;
			df_within += len[g] - 1;
		}
		free(s);
	}
	out->iterations = (double)total / (double)boots;
	out->within_sd = df_within ? sqrt(ss_within / (double)df_within) : NAN;
	if (boots > 1) {
		mean_sd(&mean_med, &sd_med, med, boots);
		out->between_sd = sd_med;
	} else {
		out->between_sd = NAN;
	}
	/*
	 * The spread of per-boot medians is compared with what within-boot
	 * noise alone gives a median (sqrt(pi/2) sigma / sqrt(n), not the
	 * sigma / sqrt(n) of a mean), and a one-way ANOVA F test must show a
	 * boot effect (p < 0.01): with a handful of boots the sd of the medians
	 * is itself too noisy to decide on, and iid samples would otherwise be
	 * reduced to medians about half of the time.
	 */
	out->boot_p = 1;
	if (boots > 1 && df_within > 0 && ss_within > 0) {
		double grand = sum / (double)total, d1 = (double)(boots - 1);
		double d2 = (double)df_within, f;
		for (g = 0, i = 0; g < ngroups; g++) {
			if (!len[g])
				continue;
			ss_between += (double)len[g] * (gmean[i] - grand) * (gmean[i] - grand);
			i++;
		}
		f = (ss_between / d1) / (ss_within / d2);
		out->boot_p = stats_beta_inc(d2 / 2, d1 / 2, d2 / (d2 + d1 * f));
	} else if (boots > 1 && df_within > 0) {
		out->boot_p = out->between_sd > 0 ? 0 : 1;
	}
	/*
	 * The ranks see what the F test cannot: near-deterministic samples
	 * (icount) repeat a few values within a boot, and a boot moves them
	 * all by nanoseconds. The within-boot sd, set by the gaps between
	 * those values, hides the shift from the F test; the order of the
	 * samples does not.
	 */
	out->boot_rank_p = 1;
	if (boots > 1 && df_within &&
	    stats_kruskal(&h, &out->boot_rank_p, groups, len, ngroups))
		goto out;
	out->per_boot = boots > 1 && df_within &&
		((out->between_sd > out->within_sd * sqrt(M_PI / 2) / sqrt(out->iterations) &&
		  out->boot_p < 0.01) || out->boot_rank_p < 0.01);
	if (out->per_boot) {
		memcpy(out->values, med, boots * sizeof(*med));
		out->n = boots;
	} else {
		for (g = 0, i = 0; g < ngroups; g++) {
			if (!len[g])
				continue;
			memcpy(out->values + i, groups[g], len[g] * sizeof(double));
			i += len[g];
		}
		out->n = total;
	}
	ret = 0;
out:
	free(med);
	free(gmean);
	if (ret)
		stats_boot_units_release(out);
	return ret;
}

void stats_boot_units_release(struct stats_boot_units *u)
{
	free(u->values);
	u->values = NULL;
	u->n = 0;
}

/* ---- boot-level ratios ---- */

double stats_t_quantile(double p, double df)
{
	double lo = -1, hi = 1;
	int it;

	if (!(p > 0 && p < 1) || !(df > 0))
		return NAN;
	if (p == 0.5)
		return 0;
	while (stats_t_cdf(lo, df) > p)
		lo *= 2;
	while (stats_t_cdf(hi, df) < p)
		hi *= 2;
	for (it = 0; it < 200 && hi - lo > 1e-12 * fmax(1, fabs(hi)); it++) {
		double mid = (lo + hi) / 2;

		if (stats_t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* Sum of squares about its own mean of the logs of x, and the mean. */
static void log_ss(double *mean, double *ss, const double *x, size_t n)
{
	double sum = 0, s = 0, l0 = log(x[0]), shift;
	size_t i;

	/* from the first value, as mean_sd(): identical boots have ss 0 exactly */
	for (i = 0; i < n; i++)
		sum += log(x[i]) - l0;
	shift = sum / (double)n;
	for (i = 0; i < n; i++) {
		double d = log(x[i]) - l0 - shift;

		s += d * d;
	}
	*mean = l0 + shift;
	*ss = s;
}

int stats_boot_ratio(struct stats_boot_ratio *out, const double *x, size_t nx,
		     const double *y, size_t ny, const double *const *pool,
		     const size_t *npool, size_t ngroups, double alpha)
{
	double mx, my, ss, ss_all = 0, df = 0, s, tq;
	size_t g;

	memset(out, 0, sizeof(*out));
	if (check_finite(x, nx) || check_finite(y, ny))
		return -1;
	if (!(alpha > 0 && alpha < 1)) {
		errno = EINVAL;
		return -1;
	}
	if (check_positive(x, nx) || check_positive(y, ny))
		return -1;
	for (g = 0; g < ngroups; g++) {
		double m;

		if (!npool[g])
			continue;
		if (check_finite(pool[g], npool[g]) || check_positive(pool[g], npool[g]))
			return -1;
		log_ss(&m, &ss, pool[g], npool[g]);
		ss_all += ss;
		df += (double)(npool[g] - 1);
	}
	if (!(df > 0)) {
		/* no group with two boots: nothing says how much boots differ */
		errno = EINVAL;
		return -1;
	}
	log_ss(&mx, &ss, x, nx);
	log_ss(&my, &ss, y, ny);
	s = sqrt(ss_all / df);
	out->log_diff = my - mx;
	out->sd = s;
	out->df = df;
	out->se = s * sqrt(1 / (double)nx + 1 / (double)ny);
	out->alpha = alpha;
	if (out->se > 0) {
		double t = out->log_diff / out->se;

		out->p = 2 * stats_t_sf(fabs(t), df);
		tq = stats_t_quantile(1 - alpha / 2, df);
	} else {
		/* identical boots: the observed ratio is the whole uncertainty */
		out->p = out->log_diff == 0 ? 1 : 0;
		tq = 0;
	}
	out->estimate = exp(out->log_diff);
	out->lo = exp(out->log_diff - tq * out->se);
	out->hi = exp(out->log_diff + tq * out->se);
	return 0;
}

void stats_ci_label(char *buf, size_t size, double alpha)
{
	snprintf(buf, size, "%.3g%% CI", 100 * (1 - alpha));
}
