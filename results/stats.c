/*
 * The decisions (stats.h): verdicts, Benjamini-Hochberg, the adaptive
 * schedule; see docs/statistics.md.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "stats.h"

#define SQRT2		1.41421356237309504880
#define SQRT_2PI	2.50662827463100050242

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
/* ---- many metrics ---- */

struct pindex {
	double p;
	size_t i;
};

static int cmp_pindex(const void *pa, const void *pb)
{
	const struct pindex *x = pa, *y = pb;

	return x->p != y->p ? CMP(x->p, y->p) : CMP(x->i, y->i);
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

void stats_ci_label(char *buf, size_t size, double alpha)
{
	snprintf(buf, size, "%.3g%% CI", 100 * (1 - alpha));
}
