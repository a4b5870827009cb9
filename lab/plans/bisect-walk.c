/* The walk over the candidates of a bisection (bisect-walk.h). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bisect-walk.h"
#include "xalloc.h"

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
 * topic branch; and a commit with one parent in R weighs that parent and
 * one, so only a merge pays for a walk. On a line everything is the spine
 * and nothing is counted twice.
 *
 * Long-lived branches merging each other are the spine's worst case:
 * most commits are off it and a merge's walk runs over much of another
 * branch. When R is at most BISECT_WALK_CHAINS first-parent chains, every
 * weight is exact in one pass instead (weigh_chains()). Otherwise the
 * bounds only skip commits that cannot win, so the pick is exactly the
 * n×n ancestry's, ties to the earlier commit included, as long as the
 * counts stay within BISECT_WALK_BUDGET visits per commit of R; past it
 * the best commit counted so far is taken, a slightly worse split
 * instead of a quadratic step.
 */
#define NONE UINT32_MAX

int bisect_walk_in(const struct bisect_walk *wk, size_t i)
{
	return (int)(wk->r[i / 64] >> (i % 64) & 1);
}

static void drop(struct bisect_walk *wk, size_t i)
{
	wk->r[i / 64] &= ~(1ull << (i % 64));
}

/* The next commit of R from i on; g->n when none. */
static size_t next_in_r(const struct bisect_walk *wk, size_t i)
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

void bisect_walk_release(struct bisect_walk *wk)
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
	free(wk->reach);
	memset(wk, 0, sizeof(*wk));
}

static uint32_t new_epoch(struct bisect_walk *wk)
{
	if (++wk->epoch == 0) {
		memset(wk->stamp, 0, wk->g->n * sizeof(*wk->stamp));
		wk->epoch = 1;
	}
	return wk->epoch;
}

static void count_left(struct bisect_walk *wk)
{
	wk->left = 0;
	for (size_t w = 0; w < wk->words; w++)
		wk->left += (size_t)__builtin_popcountll(wk->r[w]);
}

/* Stamp c and its ancestors over the whole graph, newest first: O(c + edges). */
static void stamp_all_ancestors(struct bisect_walk *wk, size_t c)
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
static size_t stamp_in_r(struct bisect_walk *wk, size_t c, uint32_t stop, int fresh)
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

			if (wk->stamp[p] == e || !bisect_walk_in(wk, p) ||
			    (stop != NONE && wk->esd[p] != NONE && wk->esd[p] <= stop))
				continue;
			wk->stamp[p] = e;
			wk->stack[sp++] = (uint32_t)p;
		}
	}
	wk->visits += count;
	return count;
}

void bisect_walk_init(struct bisect_walk *wk, const struct bisect_graph *g)
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
	wk->reach = xcalloc(n * BISECT_WALK_CHAINS, sizeof(*wk->reach));
	/*
	 * Touched now, before the ends are measured, and not in the first
	 * pick: a fault per page is what a pick over 100,000 commits
	 * would otherwise spend most of its time on.
	 */
	memset(wk->w, 0xff, n * sizeof(*wk->w));
	memset(wk->pos, 0xff, n * sizeof(*wk->pos));
	memset(wk->lsa, 0xff, n * sizeof(*wk->lsa));
	memset(wk->esd, 0xff, n * sizeof(*wk->esd));
	memset(wk->spine, 0, n * sizeof(*wk->spine));
	memset(wk->stamp, 0, n * sizeof(*wk->stamp));
	memset(wk->stack, 0, n * sizeof(*wk->stack));
	memset(wk->cand, 0, n * sizeof(*wk->cand));
	memset(wk->reach, 0, n * BISECT_WALK_CHAINS * sizeof(*wk->reach));
}

/* R from the marks: ancestors of every BAD, of no GOOD. */
void bisect_walk_from_marks(struct bisect_walk *wk, const enum bisect_mark *marks)
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

/*
 * R after c is marked: less c's ancestors (GOOD), or only them (BAD).
 * For c in R, one pass down the order from c, as parents come before
 * children: a commit of R is c's ancestor when a child of it in R was
 * found one. In order, not by a walk that hops from parent to parent
 * through memory, which took several times as long over 100,000 commits.
 */
void bisect_walk_mark(struct bisect_walk *wk, size_t c, enum bisect_mark mark)
{
	const struct bisect_graph *g = wk->g;
	int good = mark == BISECT_GOOD;
	uint32_t e;

	if (mark != BISECT_GOOD && mark != BISECT_BAD)
		return;
	if (!bisect_walk_in(wk, c)) {
		stamp_all_ancestors(wk, c);
		FOR_R(i, wk)
			if ((wk->stamp[i] == wk->epoch) == good)
				drop(wk, i);
		count_left(wk);
		return;
	}
	e = new_epoch(wk);
	wk->stamp[c] = e;
	if (!good) {
		/* nothing after c is its ancestor */
		for (size_t w = c / 64 + 1; w < wk->words; w++)
			wk->r[w] = 0;
		wk->r[c / 64] &= ~0ull >> (63 - c % 64);
	}
	for (size_t w = c / 64 + 1; w-- > 0;) {
		uint64_t bits = wk->r[w];

		if (w == c / 64)
			bits &= ~0ull >> (63 - c % 64);
		while (bits) {
			size_t i = w * 64 + 63 - (size_t)__builtin_clzll(bits);

			bits &= ~(1ull << (i % 64));
			if (wk->stamp[i] != e) {
				if (!good)
					drop(wk, i);
				continue;
			}
			if (good)
				drop(wk, i);
			for (size_t k = 0; k < g->nparents[i]; k++)
				wk->stamp[g->parents[i][k]] = e;
		}
	}
	count_left(wk);
}

/*
 * Every w(x) exact when R is a few first-parent chains (long-lived
 * branches that merge each other, where the spine's bounds are loose and
 * a merge's count runs over most of another branch): the ancestors of x
 * on one chain are that chain from its bottom up to the latest one, so
 * w(x) is the sum over the chains of how high x reaches on each, and x
 * reaches what its parents reach: O(|R| × chains). 0 when R has more
 * than BISECT_WALK_CHAINS chains (topic branches: the spine's case).
 */
static int weigh_chains(struct bisect_walk *wk)
{
	const struct bisect_graph *g = wk->g;
	/* a commit's chain and height on it; pos: taken, a child goes on its chain */
	uint32_t *chain = wk->lsa, *height = wk->esd, *taken = wk->pos, nchains = 0;
	/* how many chains there were when a commit was reached: the spine's room, unused here */
	uint32_t *chains_then = wk->spine;

	FOR_R(i, wk) {
		uint32_t *r = wk->reach + i * BISECT_WALK_CHAINS, sum = 0, first = NONE;

		memset(r, 0, nchains * sizeof(*r));
		for (size_t k = 0; k < g->nparents[i]; k++) {
			size_t p = g->parents[i][k];
			const uint32_t *rp = wk->reach + p * BISECT_WALK_CHAINS;

			if (!bisect_walk_in(wk, p))
				continue;
			if (first == NONE)
				first = (uint32_t)p;
			/* p reaches no chain begun after it */
			for (uint32_t c = 0; c < chains_then[p]; c++)
				r[c] = rp[c] > r[c] ? rp[c] : r[c];
		}
		if (first != NONE && taken[first] == NONE) {
			taken[first] = 1;
			chain[i] = chain[first];
			height[i] = height[first] + 1;
		} else {
			if (nchains == BISECT_WALK_CHAINS)
				return 0;
			r[nchains] = 0;
			chain[i] = nchains++;
			height[i] = 1;
		}
		r[chain[i]] = height[i];
		chains_then[i] = nchains;
		for (uint32_t c = 0; c < nchains; c++)
			sum += r[c];
		wk->w[i] = sum;
	}
	/* one chain is a line: the spine's count is as exact, and cheaper */
	return nchains > 1;
}

/*
 * The spine, its exact weights, and every other commit's spine
 * neighbours; or every weight exact (weigh_chains()): 1 then.
 */
static int walk_weigh(struct bisect_walk *wk)
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
	if (weigh_chains(wk))
		return 1;
	FOR_R(i, wk)
		wk->w[i] = wk->pos[i] = wk->lsa[i] = wk->esd[i] = NONE;
	/* down the first parents still in question, then numbered oldest first */
	for (size_t i = top; i < g->n;) {
		size_t next = g->n;

		wk->spine[wk->nspine++] = (uint32_t)i;
		for (size_t k = 0; k < g->nparents[i] && next == g->n; k++)
			if (bisect_walk_in(wk, g->parents[i][k]))
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
				if (bisect_walk_in(wk, p) && wk->lsa[p] != NONE && (a == NONE || wk->lsa[p] > a))
					a = wk->lsa[p];
			}
		wk->lsa[i] = a;
	}
	for (size_t i = top + 1; i-- > 0;) {
		if (!bisect_walk_in(wk, i))
			continue;
		if (wk->pos[i] != NONE)
			wk->esd[i] = wk->pos[i];
		for (size_t k = 0; k < g->nparents[i]; k++) {
			size_t p = g->parents[i][k];
			if (bisect_walk_in(wk, p) && wk->esd[i] < wk->esd[p])
				wk->esd[p] = wk->esd[i];
		}
	}
	wk->visits = 0;
	return 0;
}

static void bounds(size_t *lo, size_t *hi, const struct bisect_walk *wk, size_t i)
{
	if (wk->w[i] != NONE) {
		*lo = *hi = wk->w[i];
		return;
	}
	*lo = wk->lsa[i] == NONE ? 1 : (size_t)wk->w[wk->spine[wk->lsa[i]]] + 1;
	*hi = wk->esd[i] == NONE ? wk->left : (size_t)wk->w[wk->spine[wk->esd[i]]] - 1;
}

/* The one parent of i in R; NONE when none is, or more than one (a merge in R). */
static uint32_t only_parent_in_r(const struct bisect_walk *wk, size_t i, size_t *inside)
{
	const struct bisect_graph *g = wk->g;
	uint32_t only = NONE;

	*inside = 0;
	for (size_t k = 0; k < g->nparents[i]; k++)
		if (bisect_walk_in(wk, g->parents[i][k]) && (*inside)++ == 0)
			only = (uint32_t)g->parents[i][k];
	return *inside == 1 ? only : NONE;
}

/*
 * w(i) counted, or 0 when the budget is spent (then w(i) stays unknown).
 * A commit with one parent in R has that parent's ancestors and itself,
 * w(p) + 1 (git's count for a line of commits), so only the merge or root
 * below a run of such commits is counted by a walk, and the whole run is
 * then known: commits of one long-lived branch share one walk, not one each.
 */
static int weigh(struct bisect_walk *wk, size_t i)
{
	/* the run goes on the stack's top: stamp_in_r() from base never reaches it */
	uint32_t *run = wk->stack + wk->g->n, base = (uint32_t)i, p, a;
	size_t len = 0, inside;

	if (wk->w[i] != NONE)
		return 1;
	while (wk->w[base] == NONE && (p = only_parent_in_r(wk, base, &inside)) != NONE) {
		*--run = base;
		base = p;
		len++;
	}
	wk->visits += len;
	if (wk->visits > wk->budget)
		return 0;
	if (wk->w[base] == NONE) {
		a = wk->lsa[base];
		wk->w[base] = !inside ? 1 : (uint32_t)(stamp_in_r(wk, base, a, 1) +
						       (a == NONE ? 0 : wk->w[wk->spine[a]]));
	}
	for (; len--; run++) {
		wk->w[*run] = wk->w[base] + 1;
		base = *run;
	}
	return 1;
}

static size_t split_score(size_t w, size_t left)
{
	return w < left - w ? w : left - w;
}

static int cand_cmp(const void *pa, const void *pb)
{
	const struct bisect_walk_cand *a = pa, *b = pb;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

/* The best split: max min(w, left - w) over untested commits of R, the earlier on a tie. */
long bisect_walk_next(struct bisect_walk *wk, const enum bisect_mark *marks)
{
	struct bisect_walk_cand *c = wk->cand;
	size_t nc = 0, best_score = 0;
	long best = -1;

	if (wk->left <= 1)
		return -1;
	if (walk_weigh(wk)) {
		FOR_R(i, wk) {
			size_t s = split_score(wk->w[i], wk->left);

			if (marks[i] == BISECT_UNKNOWN && (best < 0 || s > best_score)) {
				best = (long)i;
				best_score = s;
			}
		}
		return best;
	}
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
size_t bisect_walk_next_many(struct bisect_walk *wk, const enum bisect_mark *marks, size_t k, long *out)
{
	size_t *below = xcalloc(k ? k : 1, sizeof(*below)), n = 0;
	struct bisect_walk_cand *c = wk->cand;

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
	struct bisect_walk wk;
	long next;

	bisect_walk_init(&wk, g);
	bisect_walk_from_marks(&wk, marks);
	next = bisect_walk_next(&wk, marks);
	bisect_walk_release(&wk);
	return next;
}

size_t bisect_next_many(const struct bisect_graph *g, const enum bisect_mark *marks, size_t k,
			long *out)
{
	struct bisect_walk wk;
	size_t n;

	bisect_walk_init(&wk, g);
	bisect_walk_from_marks(&wk, marks);
	n = bisect_walk_next_many(&wk, marks, k, out);
	bisect_walk_release(&wk);
	return n;
}



long bisect_walk_next_if(struct bisect_walk *wk, enum bisect_mark *marks, size_t who,
			 enum bisect_mark mark)
{
	uint64_t *saved = xcalloc(wk->words ? wk->words : 1, sizeof(*saved));
	size_t left = wk->left;
	enum bisect_mark was = marks[who];
	long next;

	memcpy(saved, wk->r, wk->words * sizeof(*saved));
	marks[who] = mark;
	bisect_walk_mark(wk, who, mark);
	next = bisect_walk_next(wk, marks);
	memcpy(wk->r, saved, wk->words * sizeof(*saved));
	wk->left = left;
	marks[who] = was;
	free(saved);
	return next;
}

size_t bisect_walk_remaining(const struct bisect_walk *wk, size_t *out)
{
	size_t n = 0;

	FOR_R(i, wk)
		out[n++] = i;
	return n;
}
