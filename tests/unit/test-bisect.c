/*
 * lab/bisect.c on the synthetic model of tests/bench/bench-bisect.c: N
 * commits in a line, CV 3 %, 10 samples per boot, a fixed seed. The
 * culprit check must not cry "more than one commit" on single-culprit
 * histories, and must on a history with two. Boots can have an effect of
 * their own (a host busy for one boot): an offset per boot, shared by its
 * samples, which must not fool a step; near-deterministic boots (icount)
 * must bisect in few boots.
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
	double boot_cv;		/* per-boot offset, log-normal */
	size_t slow_every;	/* every n-th boot 1 + slow slower: a busy host */
	double slow;
	long parent;		/* the commit PARENT stands for; -1: G */
	unsigned long long rng;
	double **v;		/* per-boot medians: per candidate, then G, B, PARENT */
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

static int cmp_double(const void *pa, const void *pb)
{
	double x = *(const double *)pa, y = *(const double *)pb;
	return (x > y) - (x < y);
}

static int boots(void *data, int who, double **v, size_t *n)
{
	struct sim *s = data;
	size_t k = slot(s, who);

	*v = malloc((s->len[k] + 1) * sizeof(double));
	if (s->len[k])
		memcpy(*v, s->v[k], s->len[k] * sizeof(double));
	*n = s->len[k];
	return 0;
}

static int measure(void *data, int who)
{
	struct sim *s = data;
	size_t k = slot(s, who);
	long c = commit_of(s, who);
	double scale = 1, x[PER_BOOT];

	for (int i = 0; i < 2; i++)
		if (s->shift[i] && c >= (long)s->culprit[i])
			scale *= 1 + s->shift[i];
	if (s->boot_cv)
		scale *= exp(s->boot_cv * gauss(s));
	s->boots++;
	if (s->slow_every && s->boots % s->slow_every == 0)
		scale *= 1 + s->slow;
	if (s->len[k] + 1 > s->cap[k]) {
		s->cap[k] = 2 * (s->len[k] + 1);
		s->v[k] = realloc(s->v[k], s->cap[k] * sizeof(double));
	}
	for (int i = 0; i < PER_BOOT; i++)
		x[i] = 100 * scale * exp(s->cv * gauss(s));
	qsort(x, PER_BOOT, sizeof(x[0]), cmp_double);
	s->v[k][s->len[k]++] = (x[PER_BOOT / 2 - 1] + x[PER_BOOT / 2]) / 2;
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
	size_t found, right, flagged, flagged_old, confirmed, retested;
	size_t wrong_unflagged;		/* a wrong culprit its own check let through */
	size_t boots;
};

/* Bisect one history, then check the culprit as lab bisect does. */
static void one(struct tally *t, struct sim *s, const struct bisect_graph *g)
{
	struct bisect_options opt = BISECT_OPTIONS_INIT;
	struct bisect_ops ops = { boots, measure, decided, s };
	struct bisect_result res;
	struct bisect_confirmation conf;
	int right;

	if (bisect_run(&res, g, &opt, &ops) || !res.found) {
		t->boots += s->boots;
		bisect_result_release(&res);
		return;
	}
	t->found++;
	right = res.culprit == s->culprit[0] || (s->shift[1] && res.culprit == s->culprit[1]);
	t->right += right;
	s->parent = (long)res.culprit - 1;
	if (!bisect_confirm(&conf, &res, &ops, PARENT, (int)res.culprit)) {
		t->confirmed++;
		t->flagged += conf.more_than_one;
		t->retested += conf.rounds > 1;
		t->wrong_unflagged += !right && !conf.more_than_one;
		/* the rule before: G->B's point estimate outside the culprit's 99 % CI */
		t->flagged_old += !(conf.ratio.lo <= res.effect.estimate &&
				    res.effect.estimate <= conf.ratio.hi);
	}
	t->boots += s->boots;
	bisect_result_release(&res);
}

static void test_single_culprit(void)
{
	struct bisect_graph g;
	struct tally t = { 0 };
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
	struct tally t = { 0 };
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
	printf("# two culprits: found %zu, right %zu, confirmed %zu, flagged %zu, re-tested %zu\n",
	       t.found, t.right, t.confirmed, t.flagged, t.retested);
	ok(t.found >= 15 && t.flagged >= t.found * 9 / 10,
	   "two culprits: 'more than one commit' in at least 9 of 10 histories with a culprit");
	ok(t.retested >= t.flagged, "two culprits: a culprit is flagged only after a re-test with more boots");
	graph_free(&g);
}

/*
 * A boot effect: every boot's samples share an offset (sd 4 %), and one
 * boot in seven runs 15 % slower (a busy host), while samples within a
 * boot vary by 0.2 %. One boot of a good commit that happens to be slow
 * lies beyond half of a 20 % effect; the bisection must not be fooled.
 */
static void test_boot_effect(void)
{
	struct bisect_graph g;
	struct tally t = { 0 };
	size_t n = 32;

	line_graph(&g, n);
	for (size_t r = 0; r < 40; r++) {
		struct sim s;
		sim_init(&s, n, 0x5851f42d4c957f2dull ^ (r * 6364136223846793005ull + n));
		s.cv = 0.002;
		s.boot_cv = 0.04;
		s.slow_every = 7;
		s.slow = 0.15;
		s.culprit[0] = 1 + (size_t)(uniform(&s) * (double)(n - 1));
		s.shift[0] = 0.20;
		one(&t, &s, &g);
		sim_free(&s);
	}
	printf("# boot effect: found %zu, right %zu, confirmed %zu, flagged %zu, wrong and unflagged %zu, %zu boots\n",
	       t.found, t.right, t.confirmed, t.flagged, t.wrong_unflagged, t.boots);
	ok(t.right >= 36, "boot effect: the right commit in at least 36 of 40 histories");
	is_int(t.wrong_unflagged, 0, "boot effect: no wrong culprit passes its own check");
	graph_free(&g);
}

/* Near-deterministic boots (icount): a 3 % step, found in few boots. */
static void test_near_deterministic(void)
{
	struct bisect_graph g;
	struct tally t = { 0 };
	size_t n = 64;

	line_graph(&g, n);
	for (size_t r = 0; r < 20; r++) {
		struct sim s;
		sim_init(&s, n, 0x853c49e6748fea9bull ^ (r * 1442695040888963407ull + n));
		s.cv = 0.0000005;
		s.culprit[0] = 1 + (size_t)(uniform(&s) * (double)(n - 1));
		s.shift[0] = 0.03;
		one(&t, &s, &g);
		sim_free(&s);
	}
	printf("# near-deterministic 3 %% step: found %zu, right %zu, flagged %zu, %zu boots in 20 bisections\n",
	       t.found, t.right, t.flagged, t.boots);
	is_int(t.right, 20, "near-deterministic: the right commit every time");
	is_int(t.flagged, 0, "near-deterministic: every culprit explains the whole effect");
	/* 2 + 2 boots for G->B, 6 steps of 2 boots and their 2 of the ends, 4 + 4 to confirm */
	ok(t.boots <= 20 * 36, "near-deterministic: at most 36 boots a bisection of 64 commits");
	graph_free(&g);
}

/*
 * G->B unclear at 2 boots a side (an 8 % effect, boots spread 3 %) is not
 * given up: more boots on the adaptive schedule find it.
 */
static void test_effect_takes_more_boots(void)
{
	struct bisect_options opt = BISECT_OPTIONS_INIT;
	struct bisect_result res;
	struct sim s;
	struct bisect_ops ops = { boots, measure, decided, &s };
	size_t more = 0, found = 0;

	for (size_t r = 0; r < 20; r++) {
		sim_init(&s, 16, 0xda942042e4dd58b5ull ^ (r * 2862933555777941757ull));
		s.boot_cv = 0.03;
		s.culprit[0] = 7;
		s.shift[0] = 0.08;
		if (!bisect_effect(&res, &opt, &ops)) {
			more += res.effect_boots > 2;
			found += !res.no_regression;
		}
		bisect_result_release(&res);
		sim_free(&s);
	}
	printf("# G->B 8 %% at boot CV 3 %%: %zu of 20 needed more than 2 boots a side, %zu found\n",
	       more, found);
	ok(more >= 10, "unclear G->B: more boots a side, not given up at 2");
	ok(found >= 18, "unclear G->B: the regression found in at least 18 of 20");

	/* no effect at all: said, not bisected */
	sim_init(&s, 16, 77);
	s.boot_cv = 0.03;
	ok(!bisect_effect(&res, &opt, &ops) && res.no_regression,
	   "G->B without a change: no regression");
	bisect_result_release(&res);
	sim_free(&s);
}

static void test_decided_error_stops(void)
{
	struct bisect_graph g;
	struct bisect_options opt = BISECT_OPTIONS_INIT;
	struct bisect_result res;
	struct sim s;
	struct bisect_ops ops = { boots, measure, decided, &s };

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
	test_boot_effect();
	test_near_deterministic();
	test_effect_takes_more_boots();
	test_decided_error_stops();
	return done_testing();
}
