#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect-walk.h"
#include "bisect.h"
#include "log.h"
#include "xalloc.h"

const char *bisect_mark_name(enum bisect_mark m)
{
	switch (m) {
	case BISECT_UNKNOWN: return "UNKNOWN";
	case BISECT_GOOD: return "GOOD";
	case BISECT_BAD: return "BAD";
	case BISECT_SKIP: return "SKIP";
	}
	return "?";
}

struct sides {
	double *g, *b, *m;
	size_t ng, nb, nm;
	/* look_alpha()'s schedule and its per-look alpha */
	size_t alpha_start, alpha_cap;
	double alpha_of, alpha;
};

static void sides_release(struct sides *s)
{
	free(s->g);
	free(s->b);
	free(s->m);
	memset(s, 0, sizeof(*s));
}

static int load(const struct bisect_ops *ops, int who, double **v, size_t *n)
{
	free(*v);
	*v = NULL;
	*n = 0;
	return ops->boots(ops->data, who, v, n);
}

/* Several targets: measure_many() boots a batch at once. */
static int several(const struct bisect_ops *ops)
{
	return ops->measure_many && ops->width > 1;
}

/* Measure each of who once: at once on several targets, else in turn up to a failure. */
static int measure_all(const struct bisect_ops *ops, const int *who, size_t n, int *rc)
{
	if (several(ops))
		return ops->measure_many(ops->data, who, n, rc);
	for (size_t k = 0; k < n; k++)
		rc[k] = 0;
	for (size_t k = 0; k < n; k++)
		if ((rc[k] = ops->measure(ops->data, who[k])))
			break;
	return 0;
}

/*
 * Bring x and y to at least level boots each: alternately (ABBA), or at
 * once on two targets. 0, or what the measure() that failed returned.
 */
static int top_up(const struct bisect_ops *ops, int x, double **vx, size_t *nx, int y,
		  double **vy, size_t *ny, size_t level)
{
	for (int round = 0;; round++) {
		int who[2], rc[2];
		size_t m = 0;

		if (load(ops, x, vx, nx) || load(ops, y, vy, ny))
			return -1;
		if (*nx >= level && *ny >= level)
			return 0;
		for (int k = 0; k < 2; k++) {
			int one = (k ^ (round & 1)) ? y : x;
			if ((one == x ? *nx : *ny) < level)
				who[m++] = one;
		}
		if (measure_all(ops, who, m, rc))
			return -1;
		for (size_t k = 0; k < m; k++)
			if (rc[k])
				return rc[k];
	}
}

static int top_up_ends(const struct bisect_ops *ops, struct sides *s, size_t level)
{
	return top_up(ops, BISECT_G, &s->g, &s->ng, BISECT_B, &s->b, &s->nb, level) ? -1 : 0;
}

static int worse(const struct bisect_options *opt, double lo, double hi)
{
	if (opt->direction == STATS_LOWER_IS_BETTER)
		return lo > 1 + opt->delta;
	return hi < 1 / (1 + opt->delta);
}

/* The interval excludes a change as large as delta in the worse direction. */
static int not_worse(const struct bisect_options *opt, double lo, double hi)
{
	if (opt->direction == STATS_LOWER_IS_BETTER)
		return hi < 1 + opt->delta;
	return lo > 1 / (1 + opt->delta);
}

/*
 * G -> B first: is there a regression at all, and how large? Boots of
 * each end at 2, 4, 8, 16 (the adaptive schedule in boots, with its
 * per-look alpha), compared as per-boot medians with the spread the
 * boots of both ends show: a boot of a busy host moves one unit, not the
 * verdict. Still unclear at the cap is said as such.
 */
static int measure_effect(struct bisect_result *out, const struct bisect_options *opt,
			  const struct bisect_ops *ops, struct sides *s)
{
	struct stats_schedule sched = { opt->start, opt->effect_cap, opt->alpha };
	double alpha = stats_schedule_alpha(&sched);
	struct stats_boot_ratio br;

	out->delta = opt->delta;
	for (size_t level = stats_schedule_level(&sched, 0); level;
	     level = stats_schedule_level(&sched, level)) {
		const double *pool[2];
		size_t npool[2];

		if (top_up_ends(ops, s, level))
			return -1;
		pool[0] = s->g;
		pool[1] = s->b;
		npool[0] = s->ng;
		npool[1] = s->nb;
		if (stats_boot_ratio(&br, s->g, s->ng, s->b, s->nb, pool, npool, 2, alpha))
			return error("cannot compare good and bad: %zu and %zu boots", s->ng, s->nb);
		out->inconclusive = 0;
		if ((br.p <= alpha && worse(opt, br.lo, br.hi)) || not_worse(opt, br.lo, br.hi))
			break;
		out->inconclusive = 1;
	}
	out->effect.estimate = br.estimate;
	out->effect.lo = br.lo;
	out->effect.hi = br.hi;
	out->effect_alpha = alpha;
	out->effect_se = br.se;
	out->effect_df = br.df;
	out->effect_boots = s->ng < s->nb ? s->ng : s->nb;
	out->log_effect = br.log_diff;
	out->no_regression = out->inconclusive || !(br.p <= alpha && worse(opt, br.lo, br.hi));
	return 0;
}

/*
 * Where M lies between the ends: d = ln M - (ln G + ln B) / 2, on the mean
 * logs of their per-boot medians, with the spread of every boot of G, B
 * and M pooled; M is on B's side of the midpoint when d > 0 (for an
 * effect upwards). Both ends are taken as they measure now: the steps'
 * interleaved boots make L sharper as the bisection goes, and its
 * uncertainty is part of d's, se = s sqrt(1/n_M + 1/(4 n_G) + 1/(4 n_B)).
 * hl is M/G with its CI at record_alpha, for the record.
 */
struct step_look {
	double d, l, se, df;
};

static int step_compare(struct step_look *look, struct stats_hl *hl, const struct sides *s,
			double record_alpha)
{
	const double *pool[3] = { s->g, s->b, s->m };
	size_t npool[3] = { s->ng, s->nb, s->nm };
	struct stats_boot_ratio mg, bg;

	if (stats_boot_ratio(&mg, s->g, s->ng, s->m, s->nm, pool, npool, 3, record_alpha) ||
	    stats_boot_ratio(&bg, s->g, s->ng, s->b, s->nb, pool, npool, 3, record_alpha))
		return -1;
	hl->estimate = mg.estimate;
	hl->lo = mg.lo;
	hl->hi = mg.hi;
	look->l = bg.log_diff;
	look->d = mg.log_diff - bg.log_diff / 2;
	look->se = mg.sd * sqrt(1 / (double)s->nm + 0.25 / (double)s->ng + 0.25 / (double)s->nb);
	look->df = mg.df;
	return 0;
}

/* ops->exact(): 1 virtual time, 0 wall time (or no such op), -1 it could not tell. */
static int boots_exact(const struct bisect_ops *ops)
{
	int e;

	if (!ops->exact)
		return 0;
	e = ops->exact(ops->data);
	return e < 0 ? -1 : e > 0;
}

/*
 * The per-look alpha of a step's schedule (opt->step_alpha over all its
 * looks, as G->B's alpha is over its own), worked out once a schedule:
 * it is a numerical integral.
 */
static double look_alpha(struct sides *s, const struct stats_schedule *sched)
{
	if (s->alpha_start != sched->start || s->alpha_cap != sched->cap ||
	    s->alpha_of != sched->alpha) {
		s->alpha_start = sched->start;
		s->alpha_cap = sched->cap;
		s->alpha_of = sched->alpha;
		s->alpha = stats_schedule_alpha(sched);
	}
	return s->alpha;
}

/*
 * Classify one candidate against the midpoint of G and B. In wall time
 * fresh G and B boots interleave with M's, and M is never decided on
 * fewer than opt->start boots: one boot cannot show whether the host made
 * it fast or slow. Each look's interval is at the per-look alpha of the
 * schedule (2, 4, 8, 16 boots: opt->step_alpha over the four looks), so
 * that a wrong mark is as rare over a step's looks as the level says.
 * In virtual time (ops->exact) the ends cannot drift, so none is booted
 * again, and M starts at one boot; its interval, with the spread pooled
 * over every boot so far, must be narrower than a quarter of |L| at every
 * look before it decides: a spread that is not negligible gets more
 * boots, which narrow it. A boot that repeats does not: with no spread
 * at all (s = 0) more boots repeat the first, so a step they leave
 * undecided (M exactly at the midpoint) is a SKIP at once, in either
 * clock, not after 16 boots of the same number.
 * up: the effect G->B is upwards (L > 0).
 */
static int classify(enum bisect_mark *mark, struct stats_hl *hl, size_t *n,
		    const struct bisect_options *opt, const struct bisect_ops *ops,
		    struct sides *s, int who, int up)
{
	int round = 0, exact = boots_exact(ops);
	struct stats_schedule sched = { exact ? 1 : opt->start, opt->cap, opt->step_alpha };
	double alpha;

	*mark = BISECT_SKIP;
	*n = 0;
	hl->estimate = hl->lo = hl->hi = NAN;
	if (exact < 0)
		return -1;
	alpha = look_alpha(s, &sched);
	for (size_t level = stats_schedule_level(&sched, 0); level;
	     level = stats_schedule_level(&sched, level)) {
		struct step_look look;
		double q, lo, hi;

		for (;;) {
			int r;
			if (load(ops, who, &s->m, &s->nm))
				return -1;
			*n = s->nm;
			if (s->nm >= level)
				break;
			r = ops->measure(ops->data, who);
			if (r < 0)
				return -1;
			if (r > 0)
				return 0;	/* does not build or boot: skip */
			if (exact)
				continue;
			r = ops->measure(ops->data, round++ & 1 ? BISECT_B : BISECT_G);
			if (r)
				return -1;
		}
		if (load(ops, BISECT_G, &s->g, &s->ng) || load(ops, BISECT_B, &s->b, &s->nb) ||
		    step_compare(&look, hl, s, opt->step_alpha))
			return -1;
		*n = s->nm;
		q = look.se > 0 ? stats_t_quantile(1 - alpha / 2, look.df) : 0;
		lo = look.d - q * look.se;
		hi = look.d + q * look.se;
		if (exact && look.se > 0 && hi - lo >= fabs(look.l) / 4)
			continue;
		if (up ? lo > 0 : hi < 0) {
			*mark = BISECT_BAD;
			return 0;
		}
		if (up ? hi < 0 : lo > 0) {
			*mark = BISECT_GOOD;
			return 0;
		}
		if (look.se == 0)
			return 0;
	}
	return 0;
}

/*
 * Every boot counts against a budget, so that no loop boots forever: enough
 * for G->B at its largest, twice the steps the candidates need at their
 * largest (skips; each boot of a candidate brings one of an end), and the
 * confirmation with its re-tests.
 */
long long bisect_default_budget(size_t ncand, const struct bisect_options *opt)
{
	long long steps = 4;

	for (size_t n = ncand; n; n >>= 1)
		steps += 2;
	return 2 * (long long)opt->effect_cap + steps * 2 * (long long)opt->cap +
	       2 * BISECT_CONFIRM_CAP;
}

int bisect_effect(struct bisect_result *out, const struct bisect_options *opt,
		  const struct bisect_ops *ops)
{
	struct sides s;
	int ret;

	memset(out, 0, sizeof(*out));
	memset(&s, 0, sizeof(s));
	ret = measure_effect(out, opt, ops, &s);
	sides_release(&s);
	return ret;
}

int bisect_classify(enum bisect_mark *mark, struct stats_hl *hl, size_t *n,
		    const struct bisect_options *opt, const struct bisect_ops *ops, int who,
		    double log_effect)
{
	struct sides s;
	int ret;

	memset(&s, 0, sizeof(s));
	ret = classify(mark, hl, n, opt, ops, &s, who, log_effect > 0);
	sides_release(&s);
	return ret;
}

/* What comes after candidate who, were it GOOD or BAD, told to ops->ahead. */
static void tell_ahead(struct bisect_walk *wk, enum bisect_mark *marks, long who,
		       const struct bisect_ops *ops)
{
	const enum bisect_mark as[2] = { BISECT_GOOD, BISECT_BAD };
	int next[2];
	size_t n = 0;

	for (int i = 0; i < 2; i++) {
		long c = bisect_walk_next_if(wk, marks, (size_t)who, as[i]);

		if (c >= 0 && (!n || next[0] != (int)c))
			next[n++] = (int)c;
	}
	ops->ahead(ops->data, (int)who, next, n);
}

/*
 * A batch's first looks, all at once: each candidate's first boot in
 * virtual time, its first opt->start in wall time, where a boot of G and
 * one of B go with each round as they would with the candidates' boots
 * one at a time. A candidate that does not build or boot leaves its
 * rounds; classify() then skips it. What is stored is not booted again.
 */
static int first_looks(const struct bisect_ops *ops, const struct bisect_options *opt,
		       const long *picks, size_t n)
{
	int exact = boots_exact(ops);
	size_t rounds = exact ? 1 : opt->start;
	int who[BISECT_MAX_WIDTH + 2], rc[BISECT_MAX_WIDTH + 2];
	size_t of[BISECT_MAX_WIDTH + 2];	/* who[i] is picks[of[i]] */
	unsigned char out[BISECT_MAX_WIDTH] = { 0 };

	if (exact < 0)
		return -1;
	for (size_t round = 0; round < rounds; round++) {
		size_t m = 0;

		/* what is stored already is not booted again: a resumed batch goes on */
		for (size_t k = 0; k < n; k++) {
			double *v = NULL;
			size_t have = 0;
			int err;

			if (out[k])
				continue;
			err = load(ops, (int)picks[k], &v, &have);
			free(v);
			if (err)
				return -1;
			if (have <= round) {
				of[m] = k;
				who[m++] = (int)picks[k];
			}
		}
		if (!m)
			continue;
		if (!exact) {
			who[m++] = BISECT_G;
			who[m++] = BISECT_B;
		}
		if (ops->measure_many(ops->data, who, m, rc))
			return -1;
		for (size_t i = 0; i < m; i++) {
			/* an end that cannot be measured stops the bisection, as in classify() */
			if (rc[i] < 0 || (who[i] < 0 && rc[i]))
				return -1;
			if (who[i] >= 0)
				out[of[i]] = rc[i] > 0;
		}
	}
	return 0;
}

/* Over: none left to test. out's remaining is R, found when that is one commit. */
static int walk_conclude(struct bisect_result *out, struct bisect_walk *wk,
			 const enum bisect_mark *marks)
{
	if (bisect_walk_next(wk, marks) >= 0)
		return 0;
	free(out->remaining);
	out->remaining = xcalloc(wk->left ? wk->left : 1, sizeof(*out->remaining));
	out->nremaining = bisect_walk_remaining(wk, out->remaining);
	out->found = 0;
	if (out->nremaining == 1) {
		out->found = 1;
		out->culprit = out->remaining[0];
	}
	return 1;
}

int bisect_search(struct bisect_result *out, const struct bisect_graph *g,
		  const struct bisect_options *opt, const struct bisect_ops *ops)
{
	enum bisect_mark *marks = xcalloc(g->n, sizeof(*marks));
	struct bisect_walk wk;
	struct sides s;
	int ret = -1;
	long next;

	memset(out, 0, sizeof(*out));
	memset(&s, 0, sizeof(s));
	bisect_walk_init(&wk, g);
	if (measure_effect(out, opt, ops, &s))
		goto out;
	if (out->no_regression) {
		ret = 0;
		goto out;
	}
	marks[g->n - 1] = BISECT_BAD;
	bisect_walk_from_marks(&wk, marks);
	while ((next = bisect_walk_next(&wk, marks)) >= 0) {
		long picks[BISECT_MAX_WIDTH];
		size_t npicks = 1;

		picks[0] = next;
		if (several(ops)) {
			npicks = bisect_walk_next_many(&wk, marks, ops->width < BISECT_MAX_WIDTH ?
						ops->width : BISECT_MAX_WIDTH, picks);
			if (first_looks(ops, opt, picks, npicks))
				goto out;
		} else if (ops->ahead) {
			tell_ahead(&wk, marks, next, ops);
		}
		for (size_t k = 0; k < npicks; k++) {
			struct stats_hl hl = { NAN, NAN, NAN };
			size_t n = 0;
			long c = picks[k];

			/* a mark of the batch can leave another out of question: its boots stay */
			if (k && !bisect_walk_in(&wk, (size_t)c))
				continue;
			if (classify(&marks[c], &hl, &n, opt, ops, &s, (int)c, out->log_effect > 0))
				goto out;
			bisect_walk_mark(&wk, (size_t)c, marks[c]);
			out->steps++;
			if (ops->decided && ops->decided(ops->data, (int)c, marks[c], n, &hl))
				goto out;
		}
	}
	walk_conclude(out, &wk, marks);
	ret = 0;
out:
	free(marks);
	bisect_walk_release(&wk);
	sides_release(&s);
	return ret;
}

int bisect_conclude(struct bisect_result *out, const struct bisect_graph *g,
		    const enum bisect_mark *marks)
{
	struct bisect_walk wk;
	int ret;

	bisect_walk_init(&wk, g);
	bisect_walk_from_marks(&wk, marks);
	ret = walk_conclude(out, &wk, marks);
	bisect_walk_release(&wk);
	return ret;
}

void bisect_result_release(struct bisect_result *r)
{
	free(r->remaining);
	r->remaining = NULL;
	r->nremaining = 0;
}

int bisect_confirm(struct bisect_confirmation *out, const struct bisect_result *r,
		   const struct bisect_ops *ops, int parent, int culprit)
{
	struct sides s;
	double *vg = NULL, *vb = NULL;
	size_t ng = 0, nb = 0;
	double band = r->delta > 0 ? r->delta : BISECT_CONFIRM_DELTA;
	int exact = boots_exact(ops);
	/* in virtual time a boot repeats: the culprit's step boot and one of its parent's may do */
	struct stats_schedule sched = { exact > 0 ? 1 : BISECT_CONFIRM_BOOTS, BISECT_CONFIRM_CAP,
					0.01 };
	int ret = -1;

	memset(out, 0, sizeof(*out));
	memset(&s, 0, sizeof(s));
	out->ratio.estimate = out->ratio.lo = out->ratio.hi = out->z = NAN;
	if (exact < 0)
		goto out;
	for (size_t level = stats_schedule_level(&sched, 0); level;
	     level = stats_schedule_level(&sched, level)) {
		struct stats_boot_ratio c, e;
		const double *pool[4];
		size_t npool[4];
		double se;
		int m;

		m = top_up(ops, parent, &s.m, &s.nm, culprit, &s.b, &s.nb, level);
		if (m) {
			ret = m > 0 ? 1 : -1;
			goto out;
		}
		/*
		 * G->B again with every boot the ends have had since (the steps
		 * interleave them), and one spread pooled over the four kernels'
		 * boots, so that both effects are known as well as the boots allow.
		 */
		if (load(ops, BISECT_G, &vg, &ng) || load(ops, BISECT_B, &vb, &nb))
			goto out;
		pool[0] = s.m;
		pool[1] = s.b;
		pool[2] = vg;
		pool[3] = vb;
		npool[0] = s.nm;
		npool[1] = s.nb;
		npool[2] = ng;
		npool[3] = nb;
		if (stats_boot_ratio(&c, s.m, s.nm, s.b, s.nb, pool, npool, 4, 0.01) ||
		    stats_boot_ratio(&e, vg, ng, vb, nb, pool, npool, 4, 0.01))
			goto out;
		out->ratio.estimate = c.estimate;
		out->ratio.lo = c.lo;
		out->ratio.hi = c.hi;
		out->effect.estimate = e.estimate;
		out->effect.lo = e.lo;
		out->effect.hi = e.hi;
		out->n_parent = s.nm;
		out->n_culprit = s.nb;
		out->rounds++;
		/* the four sets of boots are disjoint: the two estimates are independent */
		se = sqrt(c.se * c.se + e.se * e.se);
		if (se > 0)
			out->z = (c.log_diff - e.log_diff) / se;
		else
			out->z = c.log_diff == e.log_diff ? 0 :
				 copysign(INFINITY, c.log_diff - e.log_diff);
		/*
		 * Significant is not enough: under icount the boots repeat to the
		 * last digit, and a rest of 0.2 % beside a 450-fold culprit is
		 * significant; a rest smaller than a change that matters is none.
		 */
		out->more_than_one = !(fabs(out->z) <= stats_t_quantile(1 - 0.01 / 2, c.df)) &&
				     fabs(c.log_diff - e.log_diff) > log(1 + band);
		if (!out->more_than_one)
			break;
	}
	ret = 0;
out:
	free(vg);
	free(vb);
	sides_release(&s);
	return ret;
}
