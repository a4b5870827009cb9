#ifndef BISECT_WALK_H
#define BISECT_WALK_H
/*
 * The walk over a bisection's candidates (lab/plans/bisect.c's graph):
 * what is left in question as marks come, and which commit next, in
 * memory and time linear in the candidates (bisect-walk.c says how).
 * bisect_next(), bisect_next_many() and bisect_conclude() are built on
 * it; bisect_search() keeps one for a whole search. The walk owns its
 * arrays; bisect_walk_release() frees them.
 */
#include <stddef.h>
#include <stdint.h>

#include "bisect.h"

/* Counts past this many visits per commit in question take the best counted so far. */
#define BISECT_WALK_BUDGET 16
/* Up to this many first-parent chains in question, every weight is exact in one pass. */
#define BISECT_WALK_CHAINS 16

struct bisect_walk_cand {
	uint32_t key;		/* from the bound: lower is more promising */
	uint32_t i;
};

struct bisect_walk {
	const struct bisect_graph *g;
	uint64_t *r;		/* in question */
	size_t words, left;
	uint32_t *w;		/* |anc(i) ∩ R| once known, else UINT32_MAX */
	uint32_t *pos;		/* position on the spine (0 the oldest), else UINT32_MAX */
	uint32_t *lsa, *esd;	/* spine positions: latest ancestor, earliest descendant */
	uint32_t *spine, nspine;
	uint32_t *stamp, epoch;	/* visited in the current walk: stamp[i] == epoch */
	uint32_t *stack;
	struct bisect_walk_cand *cand;	/* the commits a pick may have to count */
	uint32_t *reach;	/* per commit and chain: how high it reaches (weigh_chains) */
	size_t visits, budget;
};

void bisect_walk_init(struct bisect_walk *wk, const struct bisect_graph *g);
void bisect_walk_release(struct bisect_walk *wk);

/* What is in question from the marks alone: ancestors of every BAD, of no GOOD. */
void bisect_walk_from_marks(struct bisect_walk *wk, const enum bisect_mark *marks);

/* What is in question once c is marked (GOOD or BAD; others change nothing). */
void bisect_walk_mark(struct bisect_walk *wk, size_t c, enum bisect_mark mark);

/* Is i still in question? */
int bisect_walk_in(const struct bisect_walk *wk, size_t i);

/* bisect_next() and bisect_next_many() on what is in question now. */
long bisect_walk_next(struct bisect_walk *wk, const enum bisect_mark *marks);
size_t bisect_walk_next_many(struct bisect_walk *wk, const enum bisect_mark *marks, size_t k,
			     long *out);

/*
 * The pick after who, were it marked mark: on a copy of what is in
 * question, put back after, as are marks.
 */
long bisect_walk_next_if(struct bisect_walk *wk, enum bisect_mark *marks, size_t who,
			 enum bisect_mark mark);

/* The commits in question into out (room for wk->left), in order; how many. */
size_t bisect_walk_remaining(const struct bisect_walk *wk, size_t *out);

#endif
