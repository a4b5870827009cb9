/*
 * The tests and estimators of one comparison (stats-tests.h): summaries,
 * Mann-Whitney U, Hodges-Lehmann, Welch's t, the comparison a verdict is
 * made of, outlier labels.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats-tests.h"
#include "stats.h"

#define SQRT2		1.41421356237309504880
#define PI		3.14159265358979323846

/* Largest side for which the exact Mann-Whitney distribution is tabulated. */
#define MWU_EXACT_MAX	50

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
	lo = stats_select_kth(x, n, (n - 1) / 2, &rng);
	if (n % 2)
		return lo;
	/* the middle pair's mean, in the form stats_quantile() takes it */
	return lo + 0.5 * (stats_select_kth(x, n, n / 2, &rng) - lo);
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
void stats_mean_sd(double *mean, double *sd, const double *x, size_t n)
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
	stats_mean_sd(&out->mean, &out->std, s, n);
	out->cv = out->mean != 0 ? out->std / out->mean : NAN;
}

int stats_summarize(struct stats_summary *out, const double *x, size_t n)
{
	double *s;

	if (stats_check_finite(x, n))
		return -1;
	s = stats_sorted_copy(x, n);
	if (!s)
		return -1;
	summarize_sorted(out, s, n);
	free(s);
	return 0;
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

	if (stats_check_finite(a, m) || stats_check_finite(b, n))
		return -1;
	as = stats_sorted_copy(a, m);
	bs = stats_sorted_copy(b, n);
	if (!as || !bs)
		goto out;
	ret = mwu_sorted(out, as, m, bs, n, method);
out:
	free(as);
	free(bs);
	return ret;
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
	uint64_t mn = (uint64_t)m * n, ks[STATS_PD_MAX_RANKS];
	double v[STATS_PD_MAX_RANKS];
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
	if (stats_pairdiff_ranks(v, as, m, bs, n, ks, nk))
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

	if (stats_check_finite(a, m) || stats_check_finite(b, n))
		return -1;
	if (!(alpha > 0 && alpha < 1)) {
		errno = EINVAL;
		return -1;
	}
	if (ratio && (stats_check_positive(a, m) || stats_check_positive(b, n)))
		return -1;
	as = stats_sorted_copy(a, m);
	bs = stats_sorted_copy(b, n);
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
		out->p = 2 * stats_t_tail(out->t, df);
	} else {
		out->t = diff == 0 ? 0 : copysign(INFINITY, diff);
		out->p = diff == 0 ? 1 : 0;
	}
}

int stats_welch(struct stats_ttest *out, const double *a, size_t m,
		const double *b, size_t n)
{
	double ma, sa, mb, sb, va, vb, df;

	if (stats_check_finite(a, m) || stats_check_finite(b, n))
		return -1;
	if (m < 2 || n < 2) {
		errno = EINVAL;
		return -1;
	}
	stats_mean_sd(&ma, &sa, a, m);
	stats_mean_sd(&mb, &sb, b, n);
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
	if (stats_check_finite(a, m) || stats_check_finite(b, n) ||
	    stats_check_positive(a, m) || stats_check_positive(b, n))
		return -1;
	memset(out, 0, sizeof(*out));
	out->alpha = opt->alpha;
	out->delta = opt->delta;
	out->direction = opt->direction;

	as = stats_sorted_copy(a, m);
	bs = stats_sorted_copy(b, n);
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
	stats_mean_sd(&mean_a, &sd_a, as, m);
	stats_mean_sd(&mean_b, &sd_b, bs, n);
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
/* ---- outliers ---- */

int stats_outliers_count(struct stats_outliers *out, const double *x, size_t n)
{
	double *s, q1, q3, iqr, med, mad;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (stats_check_finite(x, n))
		return -1;
	s = stats_sorted_copy(x, n);
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
	if (stats_sort_doubles(s, n)) {
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
