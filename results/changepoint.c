/*
 * E-divisive means with Mann-Whitney tests; see changepoint.h and
 * docs/statistics.md ("Nightly change points").
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "changepoint.h"
#include "stats.h"
#include "xalloc.h"

/* A change point's interval is at 99 %, the level bisect decides at. */
#define CP_ALPHA	0.01
/*
 * A suspect's points lie this many robust sds from the segment's median: two
 * such points of noise in a row are about 2e-6 of nights with normal noise.
 */
#define SUSPECT_SDS	3.0

static int cmp_double(const void *pa, const void *pb)
{
	double x = *(const double *)pa, y = *(const double *)pb;
	return CMP(x, y);
}

static int cmp_size(const void *pa, const void *pb)
{
	size_t x = *(const size_t *)pa, y = *(const size_t *)pb;
	return CMP(x, y);
}

static int check_opts(const struct changepoint_opts *o)
{
	if (!o->window || !o->step || o->min_segment < 2 || o->min_tail < 1 ||
	    !(o->p_first > 0 && o->p_first <= 1) || !(o->p_final > 0 && o->p_final <= 1) ||
	    !(o->delta >= 0)) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

static int check_positive(const double *x, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!isfinite(x[i]) || x[i] <= 0) {
			errno = EINVAL;
			return -1;
		}
	}
	return 0;
}

/* Mean |u - v| over the pairs of l[a..b) (i < k). */
static double within(const double *l, size_t a, size_t b)
{
	double s = 0;
	size_t i, k, len = b - a;

	for (i = a; i < b; i++)
		for (k = i + 1; k < b; k++)
			s += fabs(l[i] - l[k]);
	return s / ((double)len * (double)(len - 1) / 2);
}

/*
 * Q-hat of splitting l[a..b) at tau, on the ln values: the energy distance
 * between the two sides, scaled by mn / (m + n).
 */
static double qhat(const double *l, size_t a, size_t tau, size_t b)
{
	double m = (double)(tau - a), n = (double)(b - tau), between = 0;
	size_t i, j;

	for (i = a; i < tau; i++)
		for (j = tau; j < b; j++)
			between += fabs(l[i] - l[j]);
	return m * n / (m + n) *
	       (2 * between / (m * n) - within(l, a, tau) - within(l, tau, b));
}

static int test_split(struct changepoint *cp, const double *x, size_t a, size_t tau, size_t b)
{
	struct stats_mwu mwu;
	struct stats_hl hl;

	if (stats_mwu(&mwu, x + a, tau - a, x + tau, b - tau, STATS_MWU_AUTO) ||
	    stats_hl_ratio(&hl, x + a, tau - a, x + tau, b - tau, CP_ALPHA))
		return -1;
	cp->index = tau;
	cp->before = tau - 1;
	cp->p = mwu.p;
	cp->ratio = hl.estimate;
	cp->lo = hl.lo;
	cp->hi = hl.hi;
	return 0;
}

struct sizes {
	size_t *v;
	size_t n, alloc;
};

static void sizes_add(struct sizes *s, size_t v)
{
	ALLOC_GROW(s->v, s->n + 1, s->alloc);
	s->v[s->n++] = v;
}

static int sizes_has(const struct sizes *s, size_t v)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->v[i] == v)
			return 1;
	return 0;
}

/*
 * One window [lo, hi): split the segment whose best split has the largest
 * Q-hat, while the Mann-Whitney test of that split's two sides passes
 * p_first; a segment whose best split fails is left whole. The kept splits
 * go to found.
 */
static int window_candidates(struct sizes *found, const double *x, const double *l,
			     size_t lo, size_t hi, const struct changepoint_opts *o)
{
	struct sizes cuts = { 0 }, refused = { 0 };
	int ret = 0;

	sizes_add(&cuts, lo);
	sizes_add(&cuts, hi);
	for (;;) {
		double best = -INFINITY;
		size_t s, tau, best_a = 0, best_b = 0, best_tau = 0;
		struct changepoint cp;

		for (s = 0; s + 1 < cuts.n; s++) {
			size_t a = cuts.v[s], b = cuts.v[s + 1];

			if (b - a < 2 * o->min_segment || sizes_has(&refused, a))
				continue;
			for (tau = a + o->min_segment; tau + o->min_segment <= b; tau++) {
				double q = qhat(l, a, tau, b);

				if (q > best) {
					best = q;
					best_a = a;
					best_b = b;
					best_tau = tau;
				}
			}
		}
		if (best == -INFINITY)
			break;
		if (test_split(&cp, x, best_a, best_tau, best_b)) {
			ret = -1;
			break;
		}
		if (cp.p > o->p_first) {
			sizes_add(&refused, best_a);
			continue;
		}
		sizes_add(&cuts, best_tau);
		qsort(cuts.v, cuts.n, sizeof(*cuts.v), cmp_size);
		sizes_add(found, best_tau);
	}
	free(cuts.v);
	free(refused.v);
	return ret;
}

/* Is cp wrong by the final rules? Its badness, to drop the worst first. */
static double badness(const struct changepoint *cp, const struct changepoint_opts *o)
{
	double band = 1 + o->delta;

	if (cp->p > o->p_final)
		return cp->p;
	if (cp->ratio < band && cp->ratio > 1 / band)
		return o->p_final * (1 - fabs(log(cp->ratio)) / log(band));
	return -1;
}

int changepoints_find(struct changepoint **out, size_t *nout, const double *x, size_t n,
		      const struct changepoint_opts *opt)
{
	struct changepoint_opts o = CHANGEPOINT_OPTS_INIT;
	struct sizes found = { 0 };
	struct changepoint *cps = NULL;
	double *l = NULL;
	size_t i, lo, k = 0;
	int ret = -1;

	*out = NULL;
	*nout = 0;
	if (opt)
		o = *opt;
	if (check_opts(&o) || check_positive(x, n))
		return -1;
	l = xcalloc(n ? n : 1, sizeof(*l));
	for (i = 0; i < n; i++)
		l[i] = log(x[i]);
	for (lo = 0; lo < n; lo += o.step) {
		size_t hi = lo + o.window < n ? lo + o.window : n;

		if (window_candidates(&found, x, l, lo, hi, &o))
			goto out;
		if (hi == n)
			break;
	}
	if (found.n)
		qsort(found.v, found.n, sizeof(*found.v), cmp_size);
	for (i = 0; i < found.n; i++)
		if (!k || found.v[k - 1] != found.v[i])
			found.v[k++] = found.v[i];
	found.n = k;

	/*
	 * Merge: each point is judged between its neighbours, which change as
	 * points go, so drop the worst offender and judge again.
	 */
	cps = xcalloc(found.n ? found.n : 1, sizeof(*cps));
	for (;;) {
		double worst = -1;
		size_t worst_i = 0;

		for (i = 0; i < found.n; i++) {
			size_t a = i ? found.v[i - 1] : 0;
			size_t b = i + 1 < found.n ? found.v[i + 1] : n;
			size_t t = found.v[i];
			double bad;

			if (t - a < o.min_segment || b - t < o.min_segment) {
				bad = 2;
			} else {
				if (test_split(&cps[i], x, a, t, b))
					goto out;
				bad = badness(&cps[i], &o);
			}
			if (bad > worst) {
				worst = bad;
				worst_i = i;
			}
		}
		if (worst < 0)
			break;
		memmove(found.v + worst_i, found.v + worst_i + 1,
			(found.n - worst_i - 1) * sizeof(*found.v));
		found.n--;
	}
	if (found.n) {
		*out = cps;
		*nout = found.n;
		cps = NULL;
	}
	ret = 0;
out:
	free_all(cps, found.v, l);
	return ret;
}

static double median_of(const double *x, size_t n)
{
	double *s = xcalloc(n, sizeof(*s)), m;

	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	m = stats_quantile(s, n, 0.5);
	free(s);
	return m;
}

/* Median and MAD (scaled to a normal sd) of the ln values of x[0..n). */
static void robust_log(double *med, double *sd, const double *x, size_t n)
{
	double *l = xcalloc(n, sizeof(*l));
	size_t i;

	for (i = 0; i < n; i++)
		l[i] = log(x[i]);
	qsort(l, n, sizeof(*l), cmp_double);
	*med = stats_quantile(l, n, 0.5);
	for (i = 0; i < n; i++)
		l[i] = fabs(l[i] - *med);
	qsort(l, n, sizeof(*l), cmp_double);
	*sd = 1.4826 * stats_quantile(l, n, 0.5);
	free(l);
}

int changepoint_suspect(struct changepoint *out, const double *x, size_t n, size_t start,
			size_t refuted, const struct changepoint_opts *opt)
{
	struct changepoint_opts o = CHANGEPOINT_OPTS_INIT;
	size_t k;

	if (opt)
		o = *opt;
	if (check_opts(&o) || check_positive(x, n) || start > n)
		return -1;
	/*
	 * The newest min_tail points beyond the bound on one side, or min_tail
	 * of the newest min_tail + 1 with the newest among them: one spike the
	 * other way in the tail must not hide a step for a night. The fewest
	 * qualify first, so that a refuted suspect (two spikes in a row) does not
	 * hide a step that follows it from the next night's look.
	 */
	for (k = o.min_tail; k <= o.min_tail + 1 && start + o.min_segment + k <= n; k++) {
		size_t i, seg = n - k, first = n, up = 0, down = 0;
		double med, sd, fence, newest;
		int side;

		/*
		 * Robust: a spike among the segment's points must not hide a step
		 * after them, as it would behind the segment's plain range.
		 */
		robust_log(&med, &sd, x + start, seg - start);
		fence = fmax(log1p(o.delta), SUSPECT_SDS * sd);
		newest = log(x[n - 1]) - med;
		side = newest > fence ? 1 : newest < -fence ? -1 : 0;
		if (!side)
			return 0;
		for (i = seg; i < n; i++) {
			double d = (log(x[i]) - med) * side;

			if (d > fence && first == n)
				first = i;
			up += d > fence;
			down += d < -fence;
		}
		if (up < o.min_tail)
			continue;
		/*
		 * Points just before the tail beyond on the same side belong to the
		 * step (the segment's median ignores them); then the last ordinary
		 * point: a spike just before the step is no baseline.
		 */
		for (i = first; i > start + 1 && i - 1 > refuted && (log(x[i - 1]) - med) * side > fence;
		     i--)
			;
		first = i;
		for (i = first - 1; i > start && fabs(log(x[i]) - med) > fence; i--)
			;
		out->index = first;
		out->before = i;
		{
			double *t = xcalloc(n - first, sizeof(*t));
			size_t nt = 0;

			for (i = first; i < n; i++)
				if ((log(x[i]) - med) * side > fence)
					t[nt++] = x[i];
			out->ratio = median_of(t, nt) / exp(med);
			free(t);
		}
		out->p = 1;
		out->lo = out->hi = out->ratio;
		return 1;
	}
	return 0;
}
