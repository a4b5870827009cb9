#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/*
 * The walk over the candidates, in memory and time linear in them.
 *
 * What is left in question, R, is a bitset: the ancestors of every BAD
 * that no GOOD has among its ancestors. It is kept as the search goes (a
 * mark of c in R only needs c's ancestors inside R, which a walk from c
 * that never leaves R finds: a path between two commits of R stays in R).
 *
 * The pick needs w(x) = |anc(x) ∩ R| for every x, which over a DAG with
 * merges is a transitive closure: the n×n bitset it once was, or git's
 * count of each merge's ancestors (its do_find_bisection), both quadratic
 * in the worst case. Here the weights of one chain are exact in one walk,
 * and bound all the others. The spine is the first-parent chain in R
 * down from R's newest commit; its ancestor sets are nested, so adding
 * each spine commit's ancestors not yet seen gives every spine weight in
 * O(|R|). Every other x lies between its latest spine ancestor s_a and
 * its earliest spine descendant s_e, so w(s_a) < w(x) < w(s_e); one pass
 * up and one down the order find a and e for all. Only a commit whose
 * bound could beat the best exact score found is counted, by a walk from
 * x that stops at the ancestors of s_a (those are w(s_a), already
 * counted): what x brings beyond its fork point, a few commits for a
 * topic branch. On a line everything is the spine and nothing is counted
 * twice. The bounds only skip commits that cannot win, so the pick is
 * exactly the old one, ties to the earlier commit included, as long as
 * the counts stay within BISECT_WALK_BUDGET visits per commit of R;
 * a history of long-lived branches merging each other back and forth
 * could pass it, and then the best commit counted so far is taken, a
 * slightly worse split instead of a quadratic step.
 */
#define NONE UINT32_MAX
#define BISECT_WALK_BUDGET 16

struct cand {
	uint32_t key;		/* from the bound: lower is more promising */
	uint32_t i;
};

struct walk {
	const struct bisect_graph *g;
	uint64_t *r;		/* in question */
	size_t words, left;
	uint32_t *w;		/* |anc(i) ∩ R| once known, else NONE */
	uint32_t *pos;		/* position on the spine (0 the oldest), else NONE */
	uint32_t *lsa, *esd;	/* spine positions: latest ancestor, earliest descendant */
	uint32_t *spine, nspine;
	uint32_t *stamp, epoch;	/* visited in the current walk: stamp[i] == epoch */
	uint32_t *stack;
	struct cand *cand;	/* the commits a pick may have to count */
	size_t visits, budget;
};


static int in_r(const struct walk *wk, size_t i)
{
	return (int)(wk->r[i / 64] >> (i % 64) & 1);
}

static void drop(struct walk *wk, size_t i)
{
	wk->r[i / 64] &= ~(1ull << (i % 64));
}

/* The next commit of R from i on; g->n when none. */
static size_t next_in_r(const struct walk *wk, size_t i)
{
	size_t w = i / 64;
	uint64_t bits;

	if (i >= wk->g->n)
		return wk->g->n;
	bits = wk->r[w] & (~0ull << (i % 64));
	while (!bits) {
		if (++w >= wk->words)
			return wk->g->n;
		bits = wk->r[w];
	}
	return w * 64 + (size_t)__builtin_ctzll(bits);
}

#define FOR_R(i, wk) for (size_t i = next_in_r(wk, 0); i < (wk)->g->n; i = next_in_r(wk, i + 1))

static void walk_release(struct walk *wk)
{
	free(wk->r);
	free(wk->w);
	free(wk->pos);
	free(wk->lsa);
	free(wk->esd);
	free(wk->spine);
	free(wk->stamp);
	free(wk->stack);
	free(wk->cand);
	memset(wk, 0, sizeof(*wk));
}

static uint32_t new_epoch(struct walk *wk)
{
	if (++wk->epoch == 0) {
		memset(wk->stamp, 0, wk->g->n * sizeof(*wk->stamp));
		wk->epoch = 1;
	}
	return wk->epoch;
}

static void count_left(struct walk *wk)
{
	wk->left = 0;
	for (size_t w = 0; w < wk->words; w++)
		wk->left += (size_t)__builtin_popcountll(wk->r[w]);
}

/* Stamp c and its ancestors over the whole graph, newest first: O(c + edges). */
static void stamp_all_ancestors(struct walk *wk, size_t c)
{
	const struct bisect_graph *g = wk->g;
	uint32_t e = new_epoch(wk);

	wk->stamp[c] = e;
	for (size_t i = c + 1; i-- > 0;)
		if (wk->stamp[i] == e)
			for (size_t k = 0; k < g->nparents[i]; k++)
				wk->stamp[g->parents[i][k]] = e;
}

/*
 * Stamp c and its ancestors in R, c in R, with a walk that never leaves R
 * nor enters a commit whose earliest spine descendant is at or below stop
 * (NONE: no such limit). Returns how many it stamped.
 */
static size_t stamp_in_r(struct walk *wk, size_t c, uint32_t stop, int fresh)
{
	const struct bisect_graph *g = wk->g;
	uint32_t e = fresh ? new_epoch(wk) : wk->epoch;
	size_t sp = 0, count = 0;

	if (wk->stamp[c] == e)
		return 0;
	wk->stamp[c] = e;
	wk->stack[sp++] = (uint32_t)c;
	while (sp) {
		size_t i = wk->stack[--sp];

		count++;
		for (size_t k = 0; k < g->nparents[i]; k++) {
			size_t p = g->parents[i][k];

			if (wk->stamp[p] == e || !in_r(wk, p) ||
			    (stop != NONE && wk->esd[p] != NONE && wk->esd[p] <= stop))
				continue;
			wk->stamp[p] = e;
			wk->stack[sp++] = (uint32_t)p;
		}
	}
	wk->visits += count;
	return count;
}

static void walk_init(struct walk *wk, const struct bisect_graph *g)
{
	size_t n = g->n ? g->n : 1;

	memset(wk, 0, sizeof(*wk));
	wk->g = g;
	wk->words = (g->n + 63) / 64;
	wk->r = xcalloc(wk->words ? wk->words : 1, sizeof(*wk->r));
	wk->w = xcalloc(n, sizeof(*wk->w));
	wk->pos = xcalloc(n, sizeof(*wk->pos));
	wk->lsa = xcalloc(n, sizeof(*wk->lsa));
	wk->esd = xcalloc(n, sizeof(*wk->esd));
	wk->spine = xcalloc(n, sizeof(*wk->spine));
	wk->stamp = xcalloc(n, sizeof(*wk->stamp));
	/* a walk pushes each commit at most once */
	wk->stack = xcalloc(n, sizeof(*wk->stack));
	wk->cand = xcalloc(n, sizeof(*wk->cand));
}

/* R from the marks: ancestors of every BAD, of no GOOD. */
static void walk_from_marks(struct walk *wk, const enum bisect_mark *marks)
{
	const struct bisect_graph *g = wk->g;
	uint32_t e;

	memset(wk->r, 0, wk->words * sizeof(*wk->r));
	for (size_t i = 0; i < g->n; i++)
		wk->r[i / 64] |= 1ull << (i % 64);
	for (size_t b = 0; b < g->n; b++) {
		if (marks[b] != BISECT_BAD)
			continue;
		stamp_all_ancestors(wk, b);
		FOR_R(i, wk)
			if (wk->stamp[i] != wk->epoch)
				drop(wk, i);
	}
	e = new_epoch(wk);
	for (size_t i = g->n; i-- > 0;) {
		if (marks[i] == BISECT_GOOD)
			wk->stamp[i] = e;
		if (wk->stamp[i] != e)
			continue;
		drop(wk, i);
		for (size_t k = 0; k < g->nparents[i]; k++)
			wk->stamp[g->parents[i][k]] = e;
	}
	count_left(wk);
}

/* R after c is marked: less c's ancestors (GOOD), or only them (BAD). */
static void walk_mark(struct walk *wk, size_t c, enum bisect_mark mark)
{
	if (mark != BISECT_GOOD && mark != BISECT_BAD)
		return;
	if (in_r(wk, c))
		stamp_in_r(wk, c, NONE, 1);
	else
		stamp_all_ancestors(wk, c);
	FOR_R(i, wk)
		if ((wk->stamp[i] == wk->epoch) == (mark == BISECT_GOOD))
			drop(wk, i);
	count_left(wk);
}

/* The spine, its exact weights, and every other commit's spine neighbours. */
static void walk_weigh(struct walk *wk)
{
	const struct bisect_graph *g = wk->g;
	size_t top = g->n, cum = 0;

	wk->nspine = 0;
	wk->visits = 0;
	wk->budget = BISECT_WALK_BUDGET * wk->left + 64;
	FOR_R(i, wk) {
		wk->w[i] = wk->pos[i] = wk->lsa[i] = wk->esd[i] = NONE;
		top = i;
	}
	/* down the first parents still in question, then numbered oldest first */
	for (size_t i = top; i < g->n;) {
		size_t next = g->n;

		wk->spine[wk->nspine++] = (uint32_t)i;
		for (size_t k = 0; k < g->nparents[i] && next == g->n; k++)
			if (in_r(wk, g->parents[i][k]))
				next = g->parents[i][k];
		i = next;
	}
	for (uint32_t a = 0, b = wk->nspine ? wk->nspine - 1 : 0; a < b; a++, b--) {
		uint32_t t = wk->spine[a];
		wk->spine[a] = wk->spine[b];
		wk->spine[b] = t;
	}
	new_epoch(wk);
	for (uint32_t k = 0; k < wk->nspine; k++) {
		cum += stamp_in_r(wk, wk->spine[k], NONE, 0);
		wk->w[wk->spine[k]] = (uint32_t)cum;
		wk->pos[wk->spine[k]] = k;
	}
	FOR_R(i, wk) {
		uint32_t a = wk->pos[i];

		if (a == NONE)
			for (size_t k = 0; k < g->nparents[i]; k++) {
				size_t p = g->parents[i][k];
				if (in_r(wk, p) && wk->lsa[p] != NONE && (a == NONE || wk->lsa[p] > a))
					a = wk->lsa[p];
			}
		wk->lsa[i] = a;
	}
	for (size_t i = top + 1; i-- > 0;) {
		if (!in_r(wk, i))
			continue;
		if (wk->pos[i] != NONE)
			wk->esd[i] = wk->pos[i];
		for (size_t k = 0; k < g->nparents[i]; k++) {
			size_t p = g->parents[i][k];
			if (in_r(wk, p) && wk->esd[i] < wk->esd[p])
				wk->esd[p] = wk->esd[i];
		}
	}
	wk->visits = 0;
}

static void bounds(size_t *lo, size_t *hi, const struct walk *wk, size_t i)
{
	if (wk->w[i] != NONE) {
		*lo = *hi = wk->w[i];
		return;
	}
	*lo = wk->lsa[i] == NONE ? 1 : (size_t)wk->w[wk->spine[wk->lsa[i]]] + 1;
	*hi = wk->esd[i] == NONE ? wk->left : (size_t)wk->w[wk->spine[wk->esd[i]]] - 1;
}

/* w(i) counted, or 0 when the budget is spent (then w(i) stays unknown). */
static int weigh(struct walk *wk, size_t i)
{
	uint32_t a = wk->lsa[i];

	if (wk->w[i] != NONE)
		return 1;
	if (wk->visits > wk->budget)
		return 0;
	wk->w[i] = (uint32_t)(stamp_in_r(wk, i, a, 1) +
			      (a == NONE ? 0 : wk->w[wk->spine[a]]));
	return 1;
}

static size_t split_score(size_t w, size_t left)
{
	return w < left - w ? w : left - w;
}

static int cand_cmp(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

/* The best split: max min(w, left - w) over untested commits of R, the earlier on a tie. */
static long walk_next(struct walk *wk, const enum bisect_mark *marks)
{
	struct cand *c = wk->cand;
	size_t nc = 0, best_score = 0;
	long best = -1;

	if (wk->left <= 1)
		return -1;
	walk_weigh(wk);
	for (uint32_t k = 0; k < wk->nspine; k++) {
		size_t i = wk->spine[k], s = split_score(wk->w[i], wk->left);

		if (marks[i] != BISECT_UNKNOWN)
			continue;
		if (best < 0 || s > best_score || (s == best_score && (long)i < best)) {
			best = (long)i;
			best_score = s;
		}
	}
	FOR_R(i, wk) {
		size_t lo, hi, ub, half = wk->left / 2;

		if (marks[i] != BISECT_UNKNOWN || wk->pos[i] != NONE)
			continue;
		bounds(&lo, &hi, wk, i);
		ub = lo > half ? wk->left - lo : hi < half ? hi : half;
		if (best < 0 || ub > best_score || (ub == best_score && (long)i < best)) {
			c[nc].key = (uint32_t)(wk->left - ub);
			c[nc++].i = (uint32_t)i;
		}
	}
	qsort(c, nc, sizeof(*c), cand_cmp);
	for (size_t k = 0; k < nc; k++) {
		size_t i = c[k].i, ub = wk->left - c[k].key, s;

		if (best >= 0 && (ub < best_score || (ub == best_score && (long)i > best)))
			break;
		if (!weigh(wk, i))
			break;
		s = split_score(wk->w[i], wk->left);
		if (best < 0 || s > best_score || (s == best_score && (long)i < best)) {
			best = (long)i;
			best_score = s;
		}
	}
	return best;
}

/*
 * Up to k picks: for j = 1..k the untested commit of R, not picked yet,
 * whose w is nearest j/(k+1) of what is left (the earlier on a tie),
 * ordered by w. The same bounds skip the commits that cannot be nearer.
 */
static size_t walk_next_many(struct walk *wk, const enum bisect_mark *marks, size_t k, long *out)
{
	size_t *below = xcalloc(k ? k : 1, sizeof(*below)), n = 0;
	struct cand *c = wk->cand;

	if (wk->left > 1)
		walk_weigh(wk);
	for (size_t j = 1; j <= k && wk->left > 1; j++) {
		double want = (double)wk->left * (double)j / (double)(k + 1);
		long best = -1;
		double best_gap = 0;
		size_t best_w = 0, at, nc = 0;

		FOR_R(i, wk) {
			size_t lo, hi;
			double gap;
			int taken = 0;

			if (marks[i] != BISECT_UNKNOWN)
				continue;
			for (size_t m = 0; m < n; m++)
				taken |= out[m] == (long)i;
			bounds(&lo, &hi, wk, i);
			if (taken || lo >= wk->left)
				continue;
			gap = want < (double)lo ? (double)lo - want :
			      want > (double)hi ? want - (double)hi : 0;
			/* twice the gap, rounded down, keeps the order of halves */
			c[nc].key = (uint32_t)(2 * gap);
			c[nc++].i = (uint32_t)i;
		}
		qsort(c, nc, sizeof(*c), cand_cmp);
		for (size_t m = 0; m < nc; m++) {
			size_t i = c[m].i;
			double gap;

			if (best >= 0 && ((double)c[m].key > 2 * best_gap ||
					  ((double)c[m].key == 2 * best_gap && (long)i > best)))
				break;
			if (!weigh(wk, i)) {
				if (best >= 0)
					break;
				continue;
			}
			if (wk->w[i] >= wk->left)
				continue;
			gap = fabs((double)wk->w[i] - want);
			if (best < 0 || gap < best_gap || (gap == best_gap && (long)i < best)) {
				best = (long)i;
				best_gap = gap;
				best_w = wk->w[i];
			}
		}
		if (best < 0)
			break;
		/* kept in order of what each leaves below it */
		at = n;
		while (at > 0 && below[at - 1] > best_w) {
			out[at] = out[at - 1];
			below[at] = below[at - 1];
			at--;
		}
		out[at] = best;
		below[at] = best_w;
		n++;
	}
	free(below);
	return n;
}

long bisect_next(const struct bisect_graph *g, const enum bisect_mark *marks)
{
	struct walk wk;
	long next;

	walk_init(&wk, g);
	walk_from_marks(&wk, marks);
	next = walk_next(&wk, marks);
	walk_release(&wk);
	return next;
}

size_t bisect_next_many(const struct bisect_graph *g, const enum bisect_mark *marks, size_t k,
			long *out)
{
	struct walk wk;
	size_t n;

	walk_init(&wk, g);
	walk_from_marks(&wk, marks);
	n = walk_next_many(&wk, marks, k, out);
	walk_release(&wk);
	return n;
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

/*
 * What comes after candidate who, were it GOOD or BAD, told to ops->ahead:
 * R marked each way on a copy, and put back.
 */
static void tell_ahead(struct walk *wk, enum bisect_mark *marks, long who,
		       const struct bisect_ops *ops)
{
	const enum bisect_mark as[2] = { BISECT_GOOD, BISECT_BAD };
	uint64_t *saved = xcalloc(wk->words ? wk->words : 1, sizeof(*saved));
	size_t left = wk->left;
	int next[2];
	size_t n = 0;

	memcpy(saved, wk->r, wk->words * sizeof(*saved));
	for (int i = 0; i < 2; i++) {
		long c;

		marks[who] = as[i];
		walk_mark(wk, (size_t)who, as[i]);
		c = walk_next(wk, marks);
		if (c >= 0 && (!n || next[0] != (int)c))
			next[n++] = (int)c;
		memcpy(wk->r, saved, wk->words * sizeof(*saved));
		wk->left = left;
	}
	marks[who] = BISECT_UNKNOWN;
	free(saved);
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
static int walk_conclude(struct bisect_result *out, struct walk *wk,
			 const enum bisect_mark *marks)
{
	if (walk_next(wk, marks) >= 0)
		return 0;
	free(out->remaining);
	out->remaining = xcalloc(wk->left ? wk->left : 1, sizeof(*out->remaining));
	out->nremaining = 0;
	out->found = 0;
	FOR_R(i, wk)
		out->remaining[out->nremaining++] = i;
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
	struct walk wk;
	struct sides s;
	int ret = -1;
	long next;

	memset(out, 0, sizeof(*out));
	memset(&s, 0, sizeof(s));
	walk_init(&wk, g);
	if (measure_effect(out, opt, ops, &s))
		goto out;
	if (out->no_regression) {
		ret = 0;
		goto out;
	}
	marks[g->n - 1] = BISECT_BAD;
	walk_from_marks(&wk, marks);
	while ((next = walk_next(&wk, marks)) >= 0) {
		long picks[BISECT_MAX_WIDTH];
		size_t npicks = 1;

		picks[0] = next;
		if (several(ops)) {
			npicks = walk_next_many(&wk, marks, ops->width < BISECT_MAX_WIDTH ?
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
			if (k && !in_r(&wk, (size_t)c))
				continue;
			if (classify(&marks[c], &hl, &n, opt, ops, &s, (int)c, out->log_effect > 0))
				goto out;
			walk_mark(&wk, (size_t)c, marks[c]);
			out->steps++;
			if (ops->decided && ops->decided(ops->data, (int)c, marks[c], n, &hl))
				goto out;
		}
	}
	walk_conclude(out, &wk, marks);
	ret = 0;
out:
	free(marks);
	walk_release(&wk);
	sides_release(&s);
	return ret;
}

int bisect_conclude(struct bisect_result *out, const struct bisect_graph *g,
		    const enum bisect_mark *marks)
{
	struct walk wk;
	int ret;

	walk_init(&wk, g);
	walk_from_marks(&wk, marks);
	ret = walk_conclude(out, &wk, marks);
	walk_release(&wk);
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
