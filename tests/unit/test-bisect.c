/*
 * lab/bisect.c on the synthetic model of tests/bench/bench-bisect.c: N
 * commits in a line, CV 3 %, 10 samples per boot, a fixed seed. The
 * culprit check must not cry "more than one commit" on single-culprit
 * histories, and must on a history with two.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect.h"
#include "tap.h"

#define PER_BOOT 10
#define PARENT (-3)

struct sim {
	size_t n;
	size_t culprit[2];	/* commits from which the metric shifts */
	double shift[2];
	double cv;
	long parent;		/* the commit PARENT stands for; -1: G */
	unsigned long long rng;
	double **v;		/* per candidate, then G, B, PARENT */
	size_t *len, *cap;
	size_t boots, decided;
	int fail_decided;
};

static double uniform(struct sim *s)
{
	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 7;
	s->rng ^= s->rng << 17;
	return ((double)(s->rng >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(struct sim *s)
{
	return sqrt(-2 * log(uniform(s))) * cos(6.283185307179586 * uniform(s));
}

static size_t slot(struct sim *s, int who)
{
	return who == BISECT_G ? s->n : who == BISECT_B ? s->n + 1 : who == PARENT ? s->n + 2 :
	       (size_t)who;
}

/* The commit a measurement is of: -1 for G, n - 1 for B. */
static long commit_of(struct sim *s, int who)
{
	return who == BISECT_G ? -1 : who == BISECT_B ? (long)s->n - 1 : who == PARENT ? s->parent :
	       who;
}

static int units(void *data, int who, double **v, size_t *n)
{
	struct sim *s = data;
	size_t k = slot(s, who);

	*v = malloc((s->len[k] + 1) * sizeof(double));
	memcpy(*v, s->v[k], s->len[k] * sizeof(double));
	*n = s->len[k];
	return 0;
}

static int measure(void *data, int who)
{
	struct sim *s = data;
	size_t k = slot(s, who);
	long c = commit_of(s, who);
	double scale = 1;

	for (int i = 0; i < 2; i++)
		if (s->shift[i] && c >= (long)s->culprit[i])
			scale *= 1 + s->shift[i];
	if (s->len[k] + PER_BOOT > s->cap[k]) {
		s->cap[k] = 2 * (s->len[k] + PER_BOOT);
		s->v[k] = realloc(s->v[k], s->cap[k] * sizeof(double));
	}
	for (int i = 0; i < PER_BOOT; i++)
		s->v[k][s->len[k]++] = 100 * scale * exp(s->cv * gauss(s));
	s->boots++;
	return 0;
}

static int decided(void *data, int who, enum bisect_mark mark, size_t n,
		   const struct stats_hl *hl)
{
	struct sim *s = data;

	(void)who, (void)mark, (void)n, (void)hl;
	s->decided++;
	return s->fail_decided ? -1 : 0;
}

static void line_graph(struct bisect_graph *g, size_t n)
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

static void graph_free(struct bisect_graph *g)
{
	for (size_t i = 0; i < g->n; i++)
		free(g->parents[i]);
	free(g->parents);
	free(g->nparents);
}

static void sim_init(struct sim *s, size_t n, unsigned long long seed)
{
	memset(s, 0, sizeof(*s));
	s->n = n;
	s->cv = 0.03;
	s->rng = seed;
	s->v = calloc(n + 3, sizeof(double *));
	s->len = calloc(n + 3, sizeof(size_t));
	s->cap = calloc(n + 3, sizeof(size_t));
}

static void sim_free(struct sim *s)
{
	for (size_t i = 0; i < s->n + 3; i++)
		free(s->v[i]);
	free(s->v);
	free(s->len);
	free(s->cap);
}

struct tally {
	size_t found, right, flagged, flagged_old, confirmed;
};

/* Bisect one history, then check the culprit as lab bisect does. */
static void one(struct tally *t, struct sim *s, const struct bisect_graph *g)
{
	struct bisect_options opt = BISECT_OPTIONS_INIT;
	struct bisect_ops ops = { units, measure, decided, s };
	struct bisect_result res;
	struct bisect_confirmation conf;

	if (bisect_run(&res, g, &opt, &ops) || !res.found) {
		bisect_result_release(&res);
		return;
	}
	t->found++;
	t->right += res.culprit == s->culprit[0] || (s->shift[1] && res.culprit == s->culprit[1]);
	s->parent = (long)res.culprit - 1;
	if (!bisect_confirm(&conf, &res, &ops, PARENT, (int)res.culprit)) {
		t->confirmed++;
		t->flagged += conf.more_than_one;
		/* the rule before: G->B's point estimate outside the culprit's 99 % CI */
		t->flagged_old += !(conf.ratio.lo <= res.effect.estimate &&
				    res.effect.estimate <= conf.ratio.hi);
	}
	bisect_result_release(&res);
}

static void test_single_culprit(void)
{
	struct bisect_graph g;
	struct tally t = { 0, 0, 0, 0, 0 };
	size_t n = 64;

	line_graph(&g, n);
	for (size_t r = 0; r < 100; r++) {
		struct sim s;
		sim_init(&s, n, 0x9e3779b97f4a7c15ull ^ (r * 7919 + n));
		s.culprit[0] = 1 + (size_t)(uniform(&s) * (double)(n - 1));
		s.shift[0] = 0.08;
		one(&t, &s, &g);
		sim_free(&s);
	}
	printf("# single culprit: found %zu, right %zu, confirmed %zu, flagged %zu (the old rule: %zu)\n",
	       t.found, t.right, t.confirmed, t.flagged, t.flagged_old);
	ok(t.right >= 90, "single culprit: the right commit in at least 90 of 100 histories");
	ok(t.confirmed == t.found, "single culprit: every culprit found was confirmed");
	ok(t.flagged <= 2, "single culprit: 'more than one commit' in at most 2 of 100 histories");
	graph_free(&g);
}

static void test_two_culprits(void)
{
	struct bisect_graph g;
	struct tally t = { 0, 0, 0, 0, 0 };
	size_t n = 64;

	line_graph(&g, n);
	for (size_t r = 0; r < 20; r++) {
		struct sim s;
		sim_init(&s, n, 0x2545f4914f6cdd1dull ^ (r * 104729 + n));
		/* +10 % at 20, +16 % more at 44: the second is the culprit, the first a part */
		s.culprit[0] = 20;
		s.shift[0] = 0.10;
		s.culprit[1] = 44;
		s.shift[1] = 0.16;
		one(&t, &s, &g);
		sim_free(&s);
	}
	printf("# two culprits: found %zu, right %zu, confirmed %zu, flagged %zu\n", t.found,
	       t.right, t.confirmed, t.flagged);
	ok(t.found >= 15 && t.flagged >= t.found * 9 / 10,
	   "two culprits: 'more than one commit' in at least 9 of 10 histories with a culprit");
	graph_free(&g);
}

static void test_decided_error_stops(void)
{
	struct bisect_graph g;
	struct bisect_options opt = BISECT_OPTIONS_INIT;
	struct bisect_result res;
	struct sim s;
	struct bisect_ops ops = { units, measure, decided, &s };

	line_graph(&g, 16);
	sim_init(&s, 16, 12345);
	s.culprit[0] = 5;
	s.shift[0] = 0.08;
	s.fail_decided = 1;
	ok(bisect_run(&res, &g, &opt, &ops) == -1 && s.decided == 1,
	   "a step that cannot be recorded stops the bisection at once");
	bisect_result_release(&res);
	sim_free(&s);
	graph_free(&g);
}

int main(void)
{
	test_single_culprit();
	test_two_culprits();
	test_decided_error_stops();
	return done_testing();
}
