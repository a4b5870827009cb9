#ifndef BISECT_SIM_H
#define BISECT_SIM_H
/*
 * The synthetic model of a noisy bisection, shared by the assertions of
 * tests/unit/test-bisect.c and the counts of tests/bench/bench-bisect.c:
 * n candidate commits (a line, or a graph), the metric shifted from one
 * commit on (or two), SIM_PER_BOOT log-normal samples a boot whose median
 * is the boot's unit, as lab/plans/bisect.h compares. A boot may carry an offset
 * of its own (boot_cv), every slow_every-th boot a busy host's slowdown;
 * broken commits do not build.
 *
 * Its random numbers are xorshift64 from the seed, drawn in a fixed order:
 * test-bisect's thresholds were set on this very stream, so neither the
 * generator nor the order of draws in sim_measure() may change
 * (tests/bench/rng.h is another generator, for the other benchmarks).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bisect.h"

#define SIM_PER_BOOT 10
/* A measurement of sim.parent, for bisect_confirm()'s parent. */
#define SIM_PARENT (-3)

struct sim {
	size_t n;
	const struct bisect_graph *graph;	/* NULL: a line, i - 1 the parent of i */
	const unsigned char *has;	/* per commit: culprit[0] is it or an ancestor; NULL: walk */
	size_t culprit[2];	/* commits from which the metric shifts */
	double shift[2];
	double cv;		/* of the samples in a boot */
	double boot_cv;		/* per-boot offset, log-normal */
	size_t slow_every;	/* every n-th boot 1 + slow slower: a busy host */
	double slow;
	long parent;		/* the commit SIM_PARENT stands for; -1: G */
	unsigned char *broken;	/* per candidate: does not build; NULL: all build */
	unsigned long long rng;
	double **v;		/* per-boot medians: per candidate, then G, B, SIM_PARENT */
	size_t *len, *cap;
	unsigned char *built;	/* per slot: measured once already */
	unsigned char *told;	/* per candidate: named by bisect_ops.ahead */
	size_t first_boots, told_first;	/* candidates' first boots, and of those told ahead */
	enum bisect_mark *mark;	/* per candidate: as last decided */
	size_t boots, samples, builds, decided;
	int fail_decided;	/* decided() fails: the bisection must stop */
	int exact;		/* boots in virtual time (bisect_ops.exact) */
	size_t width;		/* targets booting at once (bisect_ops.width) */
	size_t elapsed;		/* boot times gone by: a batch takes one per width boots */
	int in_batch;
};

static inline double sim_uniform(struct sim *s)
{
	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 7;
	s->rng ^= s->rng << 17;
	return ((double)(s->rng >> 11) + 0.5) / 9007199254740992.0;
}

static inline double sim_gauss(struct sim *s)
{
	return sqrt(-2 * log(sim_uniform(s))) * cos(6.283185307179586 * sim_uniform(s));
}

static inline size_t sim_slot(const struct sim *s, int who)
{
	return who == BISECT_G ? s->n : who == BISECT_B ? s->n + 1 : who == SIM_PARENT ? s->n + 2 :
	       (size_t)who;
}

/* The commit a measurement is of: -1 for G, n - 1 for B. */
static inline long sim_commit_of(const struct sim *s, int who)
{
	return who == BISECT_G ? -1 : who == BISECT_B ? (long)s->n - 1 :
	       who == SIM_PARENT ? s->parent : who;
}

/* Is culprit c itself or one of its ancestors? */
static inline int sim_contains(const struct sim *s, long c, size_t culprit)
{
	if (c < 0)
		return 0;
	if (!s->graph)
		return (size_t)c >= culprit;
	if (s->has && culprit == s->culprit[0])
		return s->has[c];
	if ((size_t)c == culprit)
		return 1;
	for (size_t k = 0; k < s->graph->nparents[c]; k++)
		if (sim_contains(s, (long)s->graph->parents[c][k], culprit))
			return 1;
	return 0;
}

static inline void sim_init(struct sim *s, size_t n, unsigned long long seed)
{
	memset(s, 0, sizeof(*s));
	s->n = n;
	s->cv = 0.03;
	s->rng = seed;
	s->v = calloc(n + 3, sizeof(double *));
	s->len = calloc(n + 3, sizeof(size_t));
	s->cap = calloc(n + 3, sizeof(size_t));
	s->built = calloc(n + 3, 1);
	s->told = calloc(n, 1);
	s->mark = calloc(n, sizeof(*s->mark));
}

static inline void sim_release(struct sim *s)
{
	for (size_t i = 0; i < s->n + 3; i++)
		free(s->v[i]);
	free(s->v);
	free(s->len);
	free(s->cap);
	free(s->built);
	free(s->told);
	free(s->mark);
	free(s->broken);
	memset(s, 0, sizeof(*s));
}

static inline int sim_cmp_double(const void *pa, const void *pb)
{
	double x = *(const double *)pa, y = *(const double *)pb;
	return (x > y) - (x < y);
}

/* bisect_ops.boots */
static inline int sim_boots(void *data, int who, double **v, size_t *n)
{
	struct sim *s = data;
	size_t k = sim_slot(s, who);

	*v = malloc((s->len[k] + 1) * sizeof(double));
	if (!*v)
		return -1;
	if (s->len[k])
		memcpy(*v, s->v[k], s->len[k] * sizeof(double));
	*n = s->len[k];
	return 0;
}

/* bisect_ops.measure: one boot more, or 1 for a broken commit. */
static inline int sim_measure(void *data, int who)
{
	struct sim *s = data;
	size_t k = sim_slot(s, who);
	long c = sim_commit_of(s, who);
	double scale = 1, x[SIM_PER_BOOT];

	if (s->broken && c >= 0 && s->broken[c])
		return 1;
	if (!s->built[k]) {
		s->built[k] = 1;
		s->builds++;
		if (who >= 0 && (size_t)who < s->n) {
			s->first_boots++;
			s->told_first += s->told[who];
		}
	}
	for (int i = 0; i < 2; i++)
		if (s->shift[i] && sim_contains(s, c, s->culprit[i]))
			scale *= 1 + s->shift[i];
	if (s->boot_cv)
		scale *= exp(s->boot_cv * sim_gauss(s));
	s->boots++;
	s->elapsed += !s->in_batch;
	s->samples += SIM_PER_BOOT;
	if (s->slow_every && s->boots % s->slow_every == 0)
		scale *= 1 + s->slow;
	if (s->len[k] + 1 > s->cap[k]) {
		double *grown = realloc(s->v[k], 2 * (s->len[k] + 1) * sizeof(double));
		if (!grown)
			return -1;
		s->v[k] = grown;
		s->cap[k] = 2 * (s->len[k] + 1);
	}
	for (int i = 0; i < SIM_PER_BOOT; i++)
		x[i] = 100 * scale * exp(s->cv * sim_gauss(s));
	qsort(x, SIM_PER_BOOT, sizeof(x[0]), sim_cmp_double);
	s->v[k][s->len[k]++] = (x[SIM_PER_BOOT / 2 - 1] + x[SIM_PER_BOOT / 2]) / 2;
	return 0;
}

/* bisect_ops.measure_many: each in turn, the batch taking a boot time per width boots. */
static inline int sim_measure_many(void *data, const int *who, size_t n, int *rc)
{
	struct sim *s = data;
	size_t booted = s->boots;

	s->in_batch = 1;
	for (size_t i = 0; i < n; i++) {
		rc[i] = sim_measure(s, who[i]);
		if (rc[i] < 0)
			break;
	}
	s->in_batch = 0;
	s->elapsed += (s->boots - booted + s->width - 1) / s->width;
	return 0;
}

/* bisect_ops.decided: counted, and the candidate's mark kept. */
static inline int sim_decided(void *data, int who, enum bisect_mark mark, size_t n,
			      const struct stats_hl *hl)
{
	struct sim *s = data;

	(void)n, (void)hl;
	s->decided++;
	if (who >= 0 && (size_t)who < s->n)
		s->mark[who] = mark;
	return s->fail_decided ? -1 : 0;
}

/* bisect_ops.ahead: which candidates were named before their first boot */
static inline void sim_ahead(void *data, int who, const int *next, size_t n)
{
	struct sim *s = data;

	(void)who;
	for (size_t i = 0; i < n; i++)
		if (next[i] >= 0 && (size_t)next[i] < s->n)
			s->told[next[i]] = 1;
}

/* bisect_ops.exact */
static inline int sim_exact(void *data)
{
	return ((struct sim *)data)->exact;
}

/* Boots of the candidates (not of G, B or the culprit's parent). */
static inline size_t sim_candidate_boots(const struct sim *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n; i++)
		n += s->len[i];
	return n;
}

/* n commits in a line: i - 1 is the parent of i. */
static inline void sim_line_graph(struct bisect_graph *g, size_t n)
{
	g->n = n;
	g->nparents = calloc(n, sizeof(size_t));
	g->parents = calloc(n, sizeof(size_t *));
	for (size_t i = 0; i < n; i++) {
		g->parents[i] = malloc(sizeof(size_t));
		if (i) {
			g->parents[i][0] = i - 1;
			g->nparents[i] = 1;
		}
	}
}

static inline void sim_graph_release(struct bisect_graph *g)
{
	for (size_t i = 0; i < g->n; i++)
		free(g->parents[i]);
	free(g->parents);
	free(g->nparents);
	memset(g, 0, sizeof(*g));
}

#endif
