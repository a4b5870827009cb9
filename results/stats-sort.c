/*
 * Sorting and selection for the statistics (stats-sort.h): a radix sort of
 * doubles, quickselect, and the k-th of the m x n pairwise differences.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "stats-sort.h"
#include "xalloc.h"

static int cmp_double(const void *pa, const void *pb)
{
	double x = *(const double *)pa, y = *(const double *)pb;
	return CMP(x, y);
}

int stats_check_finite(const double *x, size_t n)
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

int stats_check_positive(const double *x, size_t n)
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
int stats_sort_doubles(double *x, size_t n)
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

double *stats_sorted_copy(const double *x, size_t n)
{
	double *s = malloc((n ? n : 1) * sizeof(*s));

	if (!s) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(s, x, n * sizeof(*s));
	if (stats_sort_doubles(s, n)) {
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
double stats_select_kth(double *x, size_t n, size_t k, uint64_t *rng)
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
		*out = stats_select_kth(y, n, k, &rng);
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
 * for up to STATS_PD_MAX_RANKS ranks in any order.
 */
int stats_pairdiff_ranks(double *out, const double *as, size_t m,
			  const double *bs, size_t n, const uint64_t *ks, size_t nk)
{
	struct pairdiff pd = { 0 };
	uint64_t mn = (uint64_t)m * n, sk[STATS_PD_MAX_RANKS];
	size_t idx[STATS_PD_MAX_RANKS], i, j;
	double sv[STATS_PD_MAX_RANKS];
	int ret = -1;

	if (!m || !n || !nk || nk > STATS_PD_MAX_RANKS) {
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
		if (stats_pairdiff_ranks(sv, bs, n, as, m, sk, nk))
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
	free_all(pd.lo, pd.hi, pd.lt, pd.le, pd.sample, pd.pos, pd.keys);
	return ret;
}

int stats_pairdiff_select(double *out, const double *a_sorted, size_t m,
			  const double *b_sorted, size_t n, uint64_t k)
{
	return stats_pairdiff_ranks(out, a_sorted, m, b_sorted, n, &k, 1);
}
