/*
 * lab/plans/bisect.c on the synthetic model of tests/bisect-sim.h: N
 * commits in a line, CV 3 %, 10 samples per boot, a fixed seed. The
 * culprit check must not cry "more than one commit" on single-culprit
 * histories, and must on a history with two. Boots can have an effect of
 * their own (a host busy for one boot): an offset per boot, shared by its
 * samples, which must not fool a step; near-deterministic boots (icount)
 * must bisect in few boots. And the walk over the graph: which commit
 * bisect_next() picks on a line and across a merge, with skips, and what
 * bisect_search() leaves when a commit next to the culprit does not build.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "bisect-sim.h"
#include "bisect-walk.h"
#include "bisect.h"
#include "tap.h"

struct tally {
	size_t found, right, flagged, flagged_old, confirmed, retested;
	size_t wrong_unflagged;		/* a wrong culprit its own check let through */
	size_t boots;
	size_t steps, step_boots;	/* steps decided, and the candidates' boots they took */
	size_t first_boots, told_first;	/* candidates first booted, and of those told ahead */
	size_t elapsed;			/* boot times, boots on several targets at once counted once */
};

/* Bisect one history, then check the culprit as lab bisect does. */
static void one(struct tally *t, struct sim *s, const struct bisect_graph *g, double delta)
{
	struct bisect_options opt = BISECT_OPTIONS_INIT;
	struct bisect_ops ops = { sim_boots, sim_measure, sim_decided, s, sim_exact, sim_ahead,
				  s->width > 1 ? sim_measure_many : NULL, s->width };
	struct bisect_result res;
	struct bisect_confirmation conf;
	int right;

	if (delta > 0)
		opt.delta = delta;
	if (bisect_search(&res, g, &opt, &ops) || !res.found) {
		t->boots += s->boots;
		t->elapsed += s->elapsed;
		bisect_result_release(&res);
		return;
	}
	t->steps += res.steps;
	t->step_boots += sim_candidate_boots(s);
	t->first_boots += s->first_boots;
	t->told_first += s->told_first;
	t->found++;
	right = res.culprit == s->culprit[0] || (s->shift[1] && res.culprit == s->culprit[1]);
	t->right += right;
	s->parent = (long)res.culprit - 1;
	if (!bisect_confirm(&conf, &res, &ops, SIM_PARENT, (int)res.culprit)) {
		t->confirmed++;
		t->flagged += conf.more_than_one;
		t->retested += conf.rounds > 1;
		t->wrong_unflagged += !right && !conf.more_than_one;
		/* the rule before: G->B's point estimate outside the culprit's 99 % CI */
		t->flagged_old += !(conf.ratio.lo <= res.effect.estimate &&
				    res.effect.estimate <= conf.ratio.hi);
	}
	t->boots += s->boots;
	t->elapsed += s->elapsed;
	bisect_result_release(&res);
}

/* How a scenario's histories differ from the model's defaults (CV 3 %, no boot effect). */
struct scenario {
	size_t n, histories;
	unsigned long long seed, stride;	/* history r's seed: seed ^ (r * stride + n) */
	double cv, boot_cv, slow;		/* cv 0: the model's */
	size_t slow_every, width;
	int exact;
	size_t culprit[2];			/* culprit[0] 0: drawn at random */
	double shift[2];
	double delta;				/* 0: bisect's default */
};

/* Bisect each history of a scenario on a line of commits, into t. */
static void histories(struct tally *t, const struct scenario *sc)
{
	struct bisect_graph g;

	sim_line_graph(&g, sc->n);
	for (size_t r = 0; r < sc->histories; r++) {
		struct sim s;
		sim_init(&s, sc->n, sc->seed ^ (r * sc->stride + sc->n));
		if (sc->cv)
			s.cv = sc->cv;
		s.boot_cv = sc->boot_cv;
		s.slow_every = sc->slow_every;
		s.slow = sc->slow;
		s.exact = sc->exact;
		s.width = sc->width;
		memcpy(s.culprit, sc->culprit, sizeof(s.culprit));
		memcpy(s.shift, sc->shift, sizeof(s.shift));
		if (!s.culprit[0])
			s.culprit[0] = 1 + (size_t)(sim_uniform(&s) * (double)(sc->n - 1));
		one(t, &s, &g, sc->delta);
		sim_release(&s);
	}
	sim_graph_release(&g);
}

static void test_single_culprit(void)
{
	const struct scenario sc = { .n = 64, .histories = 100, .seed = 0x9e3779b97f4a7c15ull,
				     .stride = 7919, .shift = { 0.08 } };
	struct tally t = { 0 };

	histories(&t, &sc);
	printf("# single culprit: found %zu, right %zu, confirmed %zu, flagged %zu (the old rule: %zu)\n",
	       t.found, t.right, t.confirmed, t.flagged, t.flagged_old);
	ok(t.right >= 90, "single culprit: the right commit in at least 90 of 100 histories");
	ok(t.confirmed == t.found, "single culprit: every culprit found was confirmed");
	ok(t.flagged <= 2, "single culprit: 'more than one commit' in at most 2 of 100 histories");
}

static void test_two_culprits(void)
{
	/* +10 % at 20, +16 % more at 44: the second is the culprit, the first a part */
	const struct scenario sc = { .n = 64, .histories = 20, .seed = 0x2545f4914f6cdd1dull,
				     .stride = 104729, .culprit = { 20, 44 },
				     .shift = { 0.10, 0.16 } };
	struct tally t = { 0 };

	histories(&t, &sc);
	printf("# two culprits: found %zu, right %zu, confirmed %zu, flagged %zu, re-tested %zu\n",
	       t.found, t.right, t.confirmed, t.flagged, t.retested);
	ok(t.found >= 15 && t.flagged >= t.found * 9 / 10,
	   "two culprits: 'more than one commit' in at least 9 of 10 histories with a culprit");
	ok(t.retested >= t.flagged, "two culprits: a culprit is flagged only after a re-test with more boots");
}

/*
 * A boot effect: every boot's samples share an offset (sd 4 %), and one
 * boot in seven runs 15 % slower (a busy host), while samples within a
 * boot vary by 0.2 %. One boot of a good commit that happens to be slow
 * lies beyond half of a 20 % effect; the bisection must not be fooled.
 */
static void test_boot_effect(void)
{
	const struct scenario sc = { .n = 32, .histories = 40, .seed = 0x5851f42d4c957f2dull,
				     .stride = 6364136223846793005ull, .cv = 0.002,
				     .boot_cv = 0.04, .slow_every = 7, .slow = 0.15,
				     .shift = { 0.20 } };
	struct tally t = { 0 };

	histories(&t, &sc);
	printf("# boot effect: found %zu, right %zu, confirmed %zu, flagged %zu, wrong and unflagged %zu, %zu boots\n",
	       t.found, t.right, t.confirmed, t.flagged, t.wrong_unflagged, t.boots);
	ok(t.right >= 36, "boot effect: the right commit in at least 36 of 40 histories");
	is_int(t.wrong_unflagged, 0, "boot effect: no wrong culprit passes its own check");
}

/* Near-deterministic boots (icount): a 3 % step, found in few boots. */
static void test_near_deterministic(void)
{
	const struct scenario sc = { .n = 64, .histories = 20, .seed = 0x853c49e6748fea9bull,
				     .stride = 1442695040888963407ull, .cv = 0.0000005,
				     .shift = { 0.03 } };
	struct tally t = { 0 };

	histories(&t, &sc);
	printf("# near-deterministic 3 %% step: found %zu, right %zu, flagged %zu, %zu boots in 20 bisections\n",
	       t.found, t.right, t.flagged, t.boots);
	is_int(t.right, 20, "near-deterministic: the right commit every time");
	is_int(t.flagged, 0, "near-deterministic: every culprit explains the whole effect");
	/* 2 + 2 boots for G->B, 6 steps of 2 boots and their 2 of the ends, 4 + 4 to confirm */
	ok(t.boots <= 20 * 36, "near-deterministic: at most 36 boots a bisection of 64 commits");
}

/*
 * The same in virtual time (bisect_ops.exact): a step boots its commit
 * once and no end, so the whole bisection takes about half the boots;
 * and a 0.3 % step, below the default band, is found with --delta 0.1 %.
 */
static void test_virtual_time(void)
{
	static const double shifts[] = { 0.03, 0.003 };

	for (size_t k = 0; k < ARRAY_SIZE(shifts); k++) {
		const struct scenario sc = { .n = 64, .histories = 20,
					     .seed = 0x853c49e6748fea9bull,
					     .stride = 1442695040888963407ull, .cv = 0.0000005,
					     .exact = 1, .shift = { shifts[k] },
					     .delta = shifts[k] < 0.02 ? 0.001 : 0 };
		struct tally t = { 0 };

		histories(&t, &sc);
		printf("# virtual time, %g %% step: right %zu, flagged %zu, %zu boots, %zu of them "
		       "in %zu steps\n", 100 * shifts[k], t.right, t.flagged, t.boots, t.step_boots,
		       t.steps);
		is_int(t.right, 20, "virtual time: the right commit every time");
		is_int(t.flagged, 0, "virtual time: every culprit explains the whole effect");
		ok(t.steps && t.step_boots * 2 <= t.steps * 3,
		   "virtual time: at most 1.5 boots a step");
		/* 2 + 2 for G->B, 6 steps of about one boot, one of the parent to confirm */
		ok(t.boots <= 20 * 12, "virtual time: at most 12 boots a bisection of 64 commits");
		/* all but the first step's commit could be built while the step before booted */
		is_int(t.told_first, t.first_boots - 20, "each step's commit was named ahead, "
		       "but the first");
	}
}

/*
 * Three targets test three candidates a step (a k-ary search): in virtual
 * time each step splits what is left in four, so the bisection takes
 * about half the boot times of one target's; in wall time (CV 3 %) the
 * culprit is as right as one at a time.
 */
static void test_several_targets(void)
{
	const struct scenario one_target = { .n = 64, .histories = 20,
					     .seed = 0x853c49e6748fea9bull,
					     .stride = 1442695040888963407ull, .cv = 0.0000005,
					     .exact = 1, .shift = { 0.03 } };
	struct scenario sc = one_target;
	struct tally t1 = { 0 }, t3 = { 0 }, wall = { 0 };

	histories(&t1, &one_target);
	sc.width = 3;
	histories(&t3, &sc);
	printf("# virtual time on 3 targets: right %zu, %zu boots in %zu boot times "
	       "(one target: %zu in %zu)\n", t3.right, t3.boots, t3.elapsed, t1.boots, t1.elapsed);
	is_int(t3.right, 20, "3 targets, virtual time: the right commit every time");
	is_int(t3.flagged, 0, "3 targets, virtual time: every culprit explains the whole effect");
	ok(t3.elapsed * 10 <= t1.elapsed * 6,
	   "3 targets, virtual time: at most 60 % of one target's boot times");

	sc = (struct scenario){ .n = 64, .histories = 50, .seed = 0x9e3779b97f4a7c15ull,
				.stride = 7919, .shift = { 0.08 }, .width = 3 };
	histories(&wall, &sc);
	printf("# wall time on 3 targets: found %zu, right %zu, flagged %zu, %zu boots in %zu "
	       "boot times\n", wall.found, wall.right, wall.flagged, wall.boots, wall.elapsed);
	ok(wall.right >= 45, "3 targets, wall time: the right commit in at least 45 of 50 histories");
	ok(wall.flagged <= 1, "3 targets, wall time: 'more than one commit' in at most 1 of 50");
}

/* A k-ary bisection run again on what it stored boots nothing more and finds the same. */
static void test_several_targets_resume(void)
{
	for (int exact = 0; exact < 2; exact++) {
		struct bisect_options opt = BISECT_OPTIONS_INIT;
		struct bisect_graph g;
		struct sim s;
		struct bisect_ops ops = { sim_boots, sim_measure, NULL, &s, sim_exact, NULL,
					  sim_measure_many, 3 };
		struct bisect_result first, again;
		size_t boots;

		sim_line_graph(&g, 64);
		sim_init(&s, 64, 0x510e527fade682d1ull + (unsigned long long)exact);
		s.exact = exact;
		s.cv = exact ? 0.0000005 : 0.01;
		s.width = 3;
		s.culprit[0] = 40;
		s.shift[0] = 0.08;
		ok(!bisect_search(&first, &g, &opt, &ops) && first.found && first.culprit == 40,
		   exact ? "3 targets, virtual time: commit 40 found" :
			   "3 targets, wall time: commit 40 found");
		boots = s.boots;
		ok(!bisect_search(&again, &g, &opt, &ops) && again.found && again.culprit == 40 &&
		   s.boots == boots, "... and again on its stored boots, none booted more");
		bisect_result_release(&first);
		bisect_result_release(&again);
		sim_release(&s);
		sim_graph_release(&g);
	}
}

/* On a line, the quantiles of what is left; fewer when fewer are left. */
static void test_next_many(void)
{
	struct bisect_graph g;
	enum bisect_mark marks[64] = { 0 };
	long picks[BISECT_MAX_WIDTH];
	size_t n;

	sim_line_graph(&g, 64);
	marks[63] = BISECT_BAD;
	n = bisect_next_many(&g, marks, 3, picks);
	ok(n == 3 && picks[0] == 15 && picks[1] == 31 && picks[2] == 47,
	   "a line of 64: commits 15, 31 and 47 split it in four");
	marks[15] = BISECT_GOOD;
	marks[31] = BISECT_BAD;
	n = bisect_next_many(&g, marks, 3, picks);
	ok(n == 3 && picks[0] == 19 && picks[1] == 23 && picks[2] == 27,
	   "16 left: 19, 23 and 27");
	memset(marks, 0, sizeof(marks));
	marks[63] = BISECT_BAD;
	marks[60] = BISECT_GOOD;
	n = bisect_next_many(&g, marks, 5, picks);
	ok(n == 2 && picks[0] == 61 && picks[1] == 62, "3 left, 5 asked: the 2 untested");
	sim_graph_release(&g);
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
	struct bisect_ops ops = { sim_boots, sim_measure, sim_decided, &s, sim_exact, NULL, NULL, 0 };
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
		sim_release(&s);
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
	sim_release(&s);
}

static void test_decided_error_stops(void)
{
	struct bisect_graph g;
	struct bisect_options opt = BISECT_OPTIONS_INIT;
	struct bisect_result res;
	struct sim s;
	struct bisect_ops ops = { sim_boots, sim_measure, sim_decided, &s, sim_exact, NULL, NULL, 0 };

	sim_line_graph(&g, 16);
	sim_init(&s, 16, 12345);
	s.culprit[0] = 5;
	s.shift[0] = 0.08;
	s.fail_decided = 1;
	ok(bisect_search(&res, &g, &opt, &ops) == -1 && s.decided == 1,
	   "a step that cannot be recorded stops the bisection at once");
	bisect_result_release(&res);
	sim_release(&s);
	sim_graph_release(&g);
}

/* A graph from each commit's parents (-1: none), parents before children. */
static void graph_of(struct bisect_graph *g, size_t n, const int (*parents)[2])
{
	g->n = n;
	g->nparents = calloc(n, sizeof(size_t));
	g->parents = calloc(n, sizeof(size_t *));
	for (size_t i = 0; i < n; i++) {
		g->parents[i] = malloc(2 * sizeof(size_t));
		for (int k = 0; k < 2; k++)
			if (parents[i][k] >= 0)
				g->parents[i][g->nparents[i]++] = (size_t)parents[i][k];
	}
}

/*
 * 0 - 1 - 2 ------- 5 - 6     a side branch 3 - 4 from 0, merged at 5;
 *  \               /          6 is the bad end
 *   3 ----------- 4
 */
static const int merged[7][2] = {
	{ -1, -1 }, { 0, -1 }, { 1, -1 }, { 0, -1 }, { 3, -1 }, { 2, 4 }, { 5, -1 },
};

/* bisect_next() with some marks set ("3G 5B 2S"), the rest unknown and n-1 bad. */
static long next_with(const struct bisect_graph *g, const char *marks)
{
	enum bisect_mark m[16] = { BISECT_UNKNOWN };
	const char *p = marks;

	m[g->n - 1] = BISECT_BAD;
	while (*p) {
		char *end;
		long i = strtol(p, &end, 10);
		m[i] = *end == 'G' ? BISECT_GOOD : *end == 'B' ? BISECT_BAD : BISECT_SKIP;
		p = end + 1;
		while (*p == ' ')
			p++;
	}
	return bisect_next(g, m);
}

static void test_next_line(void)
{
	struct bisect_graph g;

	sim_line_graph(&g, 8);
	is_int(next_with(&g, ""), 3, "line of 8: first the commit that halves it (4 of 8 below)");
	is_int(next_with(&g, "3G"), 5, "line: 3 good, then the middle of 4..7");
	is_int(next_with(&g, "3B"), 1, "line: 3 bad, then the middle of 0..3");
	is_int(next_with(&g, "3S"), 2, "line: 3 skipped, then the next best, the earlier on a tie");
	is_int(next_with(&g, "3S 2S"), 4, "line: 3 and 2 skipped, then 4");
	is_int(next_with(&g, "3G 5B 4G"), -1, "line: the first bad found, nothing left to test");
	is_int(next_with(&g, "3G 5B 4S"), -1, "line: only a skipped commit left: nothing to test");
	sim_graph_release(&g);

	sim_line_graph(&g, 1);
	is_int(next_with(&g, ""), -1, "line of 1: the bad end is the culprit, nothing to test");
	sim_graph_release(&g);
}

static void test_next_merges(void)
{
	struct bisect_graph g;

	graph_of(&g, 7, merged);
	/* 2 and 4 have 3 of 7 below them: 2 comes first */
	is_int(next_with(&g, ""), 2, "merge: the commit with half below it, counted over both sides");
	is_int(next_with(&g, "2G"), 4, "merge: main line good, then the side branch");
	is_int(next_with(&g, "4G"), 2, "merge: side branch good, then the main line");
	is_int(next_with(&g, "2B"), 0, "merge: 2 bad, then what is below it only");
	is_int(next_with(&g, "2S"), 4, "merge: 2 skipped, then 4, as good a split");
	is_int(next_with(&g, "2G 4G"), 5, "merge: both sides good, then the merge");
	is_int(next_with(&g, "2G 4G 5G"), -1, "merge: the merge good, the bad end is the culprit");
	is_int(next_with(&g, "2G 4G 5S"), -1, "merge: the merge skipped, nothing left to test");
	sim_graph_release(&g);
}

/* bisect_conclude() with marks as next_with() reads them. */
static int conclude_with(struct bisect_result *r, const struct bisect_graph *g, const char *marks)
{
	enum bisect_mark m[16] = { BISECT_UNKNOWN };
	const char *p = marks;

	m[g->n - 1] = BISECT_BAD;
	while (*p) {
		char *end;
		long i = strtol(p, &end, 10);
		m[i] = *end == 'G' ? BISECT_GOOD : *end == 'B' ? BISECT_BAD : BISECT_SKIP;
		p = end + 1;
		while (*p == ' ')
			p++;
	}
	return bisect_conclude(r, g, m);
}

static void test_conclude(void)
{
	struct bisect_result r;
	struct bisect_graph g;

	memset(&r, 0, sizeof(r));
	graph_of(&g, 7, merged);
	is_int(conclude_with(&r, &g, "2G"), 0, "conclude: the side branch still to test, not over");
	is_int(conclude_with(&r, &g, "2G 4G 5B"), 1, "conclude: both sides good, the merge bad: over");
	ok(r.found && r.culprit == 5 && r.nremaining == 1, "... the merge is the first bad commit");
	is_int(conclude_with(&r, &g, "2G 3G 4B"), 1, "conclude: 3 good, 4 bad: over");
	ok(r.found && r.culprit == 4, "... 4 is the first bad commit, the main line aside");
	is_int(conclude_with(&r, &g, "2G 4G 5S"), 1, "conclude: only the skipped merge left: over");
	ok(!r.found && r.nremaining == 2 && r.remaining[0] == 5 && r.remaining[1] == 6,
	   "... the merge and the bad end both stand");
	bisect_result_release(&r);
	sim_graph_release(&g);
}

/* bisect_search() on a graph with merges, commits that do not build. */
static void test_run_graph(void)
{
	struct bisect_options opt = BISECT_OPTIONS_INIT;
	struct bisect_graph g;
	struct bisect_result res;
	struct sim s;
	struct bisect_ops ops = { sim_boots, sim_measure, sim_decided, &s, sim_exact, NULL, NULL, 0 };

	graph_of(&g, 7, merged);
	sim_init(&s, 7, 0x6a09e667f3bcc909ull);
	s.graph = &g;
	s.culprit[0] = 4;	/* on the side branch */
	s.shift[0] = 0.10;
	s.broken = calloc(7, 1);
	s.broken[2] = 1;
	ok(!bisect_search(&res, &g, &opt, &ops) && res.found && res.culprit == 4,
	   "merge: the culprit on the side branch found, past a commit that does not build");
	is_int(s.mark[2], BISECT_SKIP, "... the commit that does not build decided SKIP");
	is_int(s.mark[4], BISECT_BAD, "... the culprit BAD");
	ok(s.mark[3] == BISECT_GOOD && s.mark[5] == BISECT_UNKNOWN,
	   "... its parent GOOD, the merge never measured");
	bisect_result_release(&res);
	sim_release(&s);

	sim_init(&s, 7, 0xbb67ae8584caa73bull);
	s.graph = &g;
	s.culprit[0] = 5;	/* the merge itself */
	s.shift[0] = 0.10;
	ok(!bisect_search(&res, &g, &opt, &ops) && res.found && res.culprit == 5,
	   "merge: a merge of two good sides is the culprit");
	ok(s.mark[2] == BISECT_GOOD && s.mark[4] == BISECT_GOOD, "... both its sides GOOD");
	bisect_result_release(&res);
	sim_release(&s);
	sim_graph_release(&g);

	sim_line_graph(&g, 16);
	sim_init(&s, 16, 0x3c6ef372fe94f82bull);
	s.culprit[0] = 9;
	s.shift[0] = 0.10;
	s.broken = calloc(16, 1);
	s.broken[8] = 1;
	ok(!bisect_search(&res, &g, &opt, &ops) && !res.found,
	   "line: the culprit's parent does not build: no single culprit");
	ok(res.nremaining == 2 && res.remaining[0] == 8 && res.remaining[1] == 9,
	   "... the first bad is one of the two, and both are left");
	ok(s.mark[7] == BISECT_GOOD && s.mark[8] == BISECT_SKIP && s.mark[9] == BISECT_BAD,
	   "... the one below them GOOD, the broken one SKIP, the culprit BAD");
	bisect_result_release(&res);
	sim_release(&s);
	sim_graph_release(&g);
}

/*
 * Boots that repeat to the last digit, as under icount (k0310): the good
 * end 13.539, the culprit's parent 0.2 % slower (the commits before it),
 * the culprit and the bad end 455 times slower. The rest of G->B is
 * significant but no change that matters: the culprit explains it.
 */
struct fixed {
	double value[4];	/* G, B, parent, culprit */
	size_t n[4];
};

static int fixed_who(int who)
{
	return who == BISECT_G ? 0 : who == BISECT_B ? 1 : who == -3 ? 2 : 3;
}

static int fixed_boots(void *data, int who, double **v, size_t *n)
{
	struct fixed *f = data;
	int k = fixed_who(who);

	*n = f->n[k];
	*v = calloc(*n ? *n : 1, sizeof(**v));
	for (size_t i = 0; i < *n; i++)
		(*v)[i] = f->value[k] * (1 + 1e-6 * (double)(i % 3));
	return 0;
}

static int fixed_measure(void *data, int who)
{
	struct fixed *f = data;

	f->n[fixed_who(who)]++;
	return 0;
}

static void test_confirm_small_rest(void)
{
	struct fixed f = { { 13.539, 6158.183, 13.5658, 6158.183 }, { 6, 6, 0, 2 } };
	struct bisect_ops ops = { fixed_boots, fixed_measure, NULL, &f, NULL, NULL, NULL, 0 };
	struct bisect_result res;
	struct bisect_confirmation conf;

	memset(&res, 0, sizeof(res));
	ok(!bisect_confirm(&conf, &res, &ops, -3, 0), "icount boots: the check runs");
	ok(fabs(conf.z) > 3, "the 0.2 % rest of good -> bad is significant");
	ok(!conf.more_than_one, "... but no change that matters: the culprit explains the effect");
	is_int(conf.rounds, 1, "... at the first look, no re-test");
	f.value[2] = 13.539 * 1.05;
	f.n[2] = 0;
	f.n[3] = 2;
	ok(!bisect_confirm(&conf, &res, &ops, -3, 0) && conf.more_than_one,
	   "a rest of 5 % is more than one commit");
}

/*
 * The pick against the n×n ancestry it replaced, on random histories with
 * merges (a main line, topic branches forked a little or a long way back,
 * back-merges) and random marks: the same commit, the same batch of
 * picks, the same conclusion.
 */
static unsigned long long ref_rng;

static size_t ref_below(size_t n)
{
	ref_rng ^= ref_rng << 13;
	ref_rng ^= ref_rng >> 7;
	ref_rng ^= ref_rng << 17;
	return (size_t)(ref_rng % n);
}

/* R as the old code had it: ancestors of every BAD, of no GOOD, by rows of bits. */
static unsigned char *ref_remaining(const struct bisect_graph *g, const enum bisect_mark *m,
				    unsigned char **anc_out)
{
	size_t n = g->n;
	unsigned char *anc = calloc(n * n, 1), *r = malloc(n);

	for (size_t i = 0; i < n; i++) {
		anc[i * n + i] = 1;
		for (size_t k = 0; k < g->nparents[i]; k++)
			for (size_t j = 0; j < n; j++)
				anc[i * n + j] |= anc[g->parents[i][k] * n + j];
	}
	memset(r, 1, n);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			if (m[i] == BISECT_BAD)
				r[j] &= anc[i * n + j];
			else if (m[i] == BISECT_GOOD && anc[i * n + j])
				r[j] = 0;
		}
	*anc_out = anc;
	return r;
}

static long ref_next(const struct bisect_graph *g, const enum bisect_mark *m)
{
	unsigned char *anc, *r = ref_remaining(g, m, &anc);
	size_t n = g->n, left = 0, best_score = 0;
	long best = -1;

	for (size_t j = 0; j < n; j++)
		left += r[j];
	for (size_t i = 0; i < n && left > 1; i++) {
		size_t w = 0, s;

		if (!r[i] || m[i] != BISECT_UNKNOWN)
			continue;
		for (size_t j = 0; j < n; j++)
			w += anc[i * n + j] && r[j];
		s = w < left - w ? w : left - w;
		if (best < 0 || s > best_score) {
			best = (long)i;
			best_score = s;
		}
	}
	free(anc);
	free(r);
	return best;
}

/* The old batch of k picks, in the order of what each leaves below it. */
static size_t ref_next_many(const struct bisect_graph *g, const enum bisect_mark *m, size_t k,
			    long *out)
{
	unsigned char *anc, *r = ref_remaining(g, m, &anc);
	size_t n = g->n, left = 0, got = 0, below[BISECT_MAX_WIDTH];

	for (size_t j = 0; j < n; j++)
		left += r[j];
	for (size_t q = 1; q <= k && left > 1; q++) {
		double want = (double)left * (double)q / (double)(k + 1), best_gap = 0;
		long best = -1;
		size_t best_w = 0, at;

		for (size_t i = 0; i < n; i++) {
			size_t w = 0;
			int taken = 0;

			if (!r[i] || m[i] != BISECT_UNKNOWN)
				continue;
			for (size_t x = 0; x < got; x++)
				taken |= out[x] == (long)i;
			for (size_t j = 0; j < n; j++)
				w += anc[i * n + j] && r[j];
			if (taken || w >= left)
				continue;
			if (best < 0 || fabs((double)w - want) < best_gap) {
				best = (long)i;
				best_gap = fabs((double)w - want);
				best_w = w;
			}
		}
		if (best < 0)
			break;
		for (at = got; at > 0 && below[at - 1] > best_w; at--) {
			out[at] = out[at - 1];
			below[at] = below[at - 1];
		}
		out[at] = best;
		below[at] = best_w;
		got++;
	}
	free(anc);
	free(r);
	return got;
}

/* A random history of n commits: mostly a line, with forks from near or far and merges. */
static void random_history(struct bisect_graph *g, size_t n, int far)
{
	g->n = n;
	g->nparents = calloc(n, sizeof(size_t));
	g->parents = calloc(n, sizeof(size_t *));
	for (size_t i = 0; i < n; i++) {
		g->parents[i] = malloc(2 * sizeof(size_t));
		if (!i)
			continue;
		/* the first parent: the commit before, or a fork point further back */
		g->parents[i][g->nparents[i]++] = ref_below(4) ? i - 1 :
						  i - 1 - ref_below(far ? i : (i < 6 ? i : 6));
		if (i > 1 && ref_below(3) == 0) {
			size_t p = ref_below(i);
			if (p != g->parents[i][0])
				g->parents[i][g->nparents[i]++] = p;
		}
	}
}

static void test_next_against_ancestry(void)
{
	size_t next_same = 0, many_same = 0, conclude_same = 0, tried = 0;

	ref_rng = 0x243f6a8885a308d3ull;
	for (size_t h = 0; h < 300; h++) {
		struct bisect_graph g;
		size_t n = 2 + ref_below(h < 150 ? 24 : 160);
		enum bisect_mark *m = calloc(n, sizeof(*m));
		long got[BISECT_MAX_WIDTH], want[BISECT_MAX_WIDTH];
		size_t ngot, nwant, k = 1 + ref_below(5);
		struct bisect_result res;
		unsigned char *anc, *r;
		size_t left = 0;
		int over;

		random_history(&g, n, h % 2);
		m[n - 1] = BISECT_BAD;
		for (size_t j = ref_below(6); j > 0; j--)
			m[ref_below(n)] = (enum bisect_mark)(1 + ref_below(3));
		tried++;
		next_same += bisect_next(&g, m) == ref_next(&g, m);
		ngot = bisect_next_many(&g, m, k, got);
		nwant = ref_next_many(&g, m, k, want);
		many_same += ngot == nwant && !memcmp(got, want, ngot * sizeof(*got));
		memset(&res, 0, sizeof(res));
		over = bisect_conclude(&res, &g, m);
		r = ref_remaining(&g, m, &anc);
		for (size_t j = 0; j < n; j++)
			left += r[j];
		if (over == (ref_next(&g, m) < 0)) {
			int same = !over || res.nremaining == left;
			for (size_t j = 0; over && same && j < res.nremaining; j++)
				same = r[res.remaining[j]];
			conclude_same += same;
		}
		free(anc);
		free(r);
		bisect_result_release(&res);
		free(m);
		sim_graph_release(&g);
	}
	is_int(next_same, tried, "300 random histories with merges: bisect_next() as the n×n ancestry picked");
	is_int(many_same, tried, "... bisect_next_many() the same picks in the same order");
	is_int(conclude_same, tried, "... bisect_conclude() the same end and the same commits left");
}

/*
 * Long-lived branches merging each other (the walk counts every weight
 * by its chains when there are few), and the walk kept as marks come one
 * by one (bisect_search()'s way, and tell-ahead's): after each mark, the
 * same pick as the n×n ancestry's on all the marks so far.
 */
static void branches_history(struct bisect_graph *g, size_t n, size_t nb)
{
	size_t tip[BISECT_WALK_CHAINS + 4] = { 0 };

	g->n = n;
	g->nparents = calloc(n, sizeof(size_t));
	g->parents = calloc(n, sizeof(size_t *));
	for (size_t i = 0; i < n; i++) {
		size_t b = ref_below(nb), o = ref_below(nb);

		g->parents[i] = malloc(2 * sizeof(size_t));
		if (!i)
			continue;
		g->parents[i][g->nparents[i]++] = tip[b];
		if (tip[o] != tip[b] && ref_below(4) == 0)
			g->parents[i][g->nparents[i]++] = tip[o];
		tip[b] = i;
	}
}

static void test_walk_against_ancestry(void)
{
	size_t same = 0, looks = 0;

	ref_rng = 0x13198a2e03707344ull;
	for (size_t h = 0; h < 200; h++) {
		struct bisect_graph g;
		size_t n = 2 + ref_below(200), nb = 1 + ref_below(BISECT_WALK_CHAINS + 4);
		enum bisect_mark *m = calloc(n, sizeof(*m));
		struct bisect_walk wk;

		branches_history(&g, n, nb);
		m[n - 1] = BISECT_BAD;
		bisect_walk_init(&wk, &g);
		bisect_walk_from_marks(&wk, m);
		for (size_t j = 0; j < 8; j++) {
			size_t c = ref_below(n);
			enum bisect_mark mk = (enum bisect_mark)(1 + ref_below(2));

			looks++;
			same += bisect_walk_next(&wk, m) == ref_next(&g, m);
			if (m[c] != BISECT_UNKNOWN)
				continue;
			m[c] = mk;
			bisect_walk_mark(&wk, c, mk);
		}
		bisect_walk_release(&wk);
		free(m);
		sim_graph_release(&g);
	}
	is_int(same, looks, "long-lived branches, marks one by one: the n×n ancestry's every pick");
}

/*
 * One step on boots made to order: G, B and M each boot value * exp(e * z)
 * with z +1, -1, +1, ... (a spread of e, or none), virtual time or not.
 */
struct made {
	double value[3], e[3];		/* G, B, M */
	size_t n[3];
	int exact;
};

static int made_who(int who)
{
	return who == BISECT_G ? 0 : who == BISECT_B ? 1 : 2;
}

static int made_boots(void *data, int who, double **v, size_t *n)
{
	struct made *m = data;
	int k = made_who(who);

	*n = m->n[k];
	*v = calloc(*n ? *n : 1, sizeof(**v));
	for (size_t i = 0; i < *n; i++)
		(*v)[i] = m->value[k] * exp(m->e[k] * (i % 2 ? -1 : 1));
	return 0;
}

static int made_measure(void *data, int who)
{
	struct made *m = data;

	m->n[made_who(who)]++;
	return 0;
}

static int made_exact(void *data)
{
	return ((struct made *)data)->exact;
}

/* Classify M (commit 0) on made boots: its mark, and M's boots in *n. */
static enum bisect_mark made_step(struct made *m, size_t *n)
{
	struct bisect_options opt = BISECT_OPTIONS_INIT;
	struct bisect_ops ops = { made_boots, made_measure, NULL, m, made_exact, NULL, NULL, 0 };
	enum bisect_mark mark = BISECT_UNKNOWN;
	struct stats_hl hl;

	if (bisect_classify(&mark, &hl, n, &opt, &ops, 0, log(m->value[1] / m->value[0])))
		return BISECT_UNKNOWN;
	return mark;
}

static void test_step_decisions(void)
{
	const double g = 100, b = 110, mid = sqrt(100.0 * 110.0);
	struct made m;
	size_t n;

	/*
	 * Boots that repeat to the last digit, M exactly halfway (1, 2, 4:
	 * ln 4 is twice ln 2 in doubles too): more boots repeat it.
	 */
	m = (struct made){ { 1, 4, 2 }, { 0, 0, 0 }, { 2, 2, 0 }, 1 };
	is_int(made_step(&m, &n), BISECT_SKIP, "virtual time, no spread, M at the midpoint: SKIP");
	is_int(n, 1, "... after its one boot, not 16 of the same number");
	m = (struct made){ { 1, 4, 2 }, { 0, 0, 0 }, { 2, 2, 0 }, 0 };
	is_int(made_step(&m, &n), BISECT_SKIP, "wall time, no spread, M at the midpoint: SKIP");
	is_int(n, 2, "... after its first look's 2 boots, not 16");

	/* an eighth of L past the midpoint, no spread: a second boot would only repeat the first */
	m = (struct made){ { g, b, mid * pow(b / g, 1.0 / 8) }, { 0, 0, 0 }, { 2, 2, 0 }, 1 };
	is_int(made_step(&m, &n), BISECT_BAD, "virtual time, no spread, M L/8 towards B: BAD");
	is_int(n, 1, "... on its one boot, no second boot that repeats it");

	/*
	 * M as B, with a spread of 0.3 %: at two boots the interval excludes
	 * the midpoint but is wider than L/4; the guard holds at every look,
	 * so M gets more boots before it is BAD.
	 */
	m = (struct made){ { g, b, b }, { 0.003, 0.003, 0.003 }, { 2, 2, 0 }, 1 };
	is_int(made_step(&m, &n), BISECT_BAD, "virtual time, a spread: M as bad as B is BAD");
	ok(n > 2, "... on more than two boots: the interval narrower than L/4 first");

	/*
	 * Wall time, M as B with a spread of 1 %: the interval at 2 boots
	 * excludes 0 at 99 % but not at the per-look level of four looks
	 * (0.29 %), so the step takes its second look.
	 */
	m = (struct made){ { g, b, b }, { 0.01, 0.01, 0.01 }, { 2, 2, 0 }, 0 };
	is_int(made_step(&m, &n), BISECT_BAD, "wall time, a spread: M as bad as B is BAD");
	ok(n > 2, "... at a later look: each look at the schedule's per-look alpha");
}

/* A clock that cannot be read stops the bisection: never taken for wall time. */
static int exact_fails(void *data)
{
	(void)data;
	return -1;
}

static void test_exact_error(void)
{
	struct bisect_options opt = BISECT_OPTIONS_INIT;
	struct bisect_graph g;
	struct bisect_result res;
	struct bisect_confirmation conf;
	struct sim s;
	struct bisect_ops ops = { sim_boots, sim_measure, sim_decided, &s, exact_fails, NULL, NULL, 0 };
	enum bisect_mark mark;
	struct stats_hl hl;
	size_t n, boots;

	sim_line_graph(&g, 16);
	sim_init(&s, 16, 0x1f83d9abfb41bd6bull);
	s.culprit[0] = 9;
	s.shift[0] = 0.10;
	s.cv = 0.0000005;
	ok(bisect_search(&res, &g, &opt, &ops) == -1 && s.decided == 0,
	   "the clock unknown: the bisection stops before its first step");
	boots = s.boots;
	ok(bisect_classify(&mark, &hl, &n, &opt, &ops, 3, 0.1) == -1 && s.boots == boots,
	   "... a step alone stops too, no commit booted");
	ops.measure_many = sim_measure_many;
	ops.width = 3;
	s.width = 3;
	ok(bisect_search(&res, &g, &opt, &ops) == -1 && s.decided == 0,
	   "... and on several targets");
	memset(&res, 0, sizeof(res));
	ok(bisect_confirm(&conf, &res, &ops, SIM_PARENT, 9) == -1,
	   "... and the culprit's own check");
	bisect_result_release(&res);
	sim_release(&s);
	sim_graph_release(&g);
}

int main(void)
{
	test_single_culprit();
	test_two_culprits();
	test_boot_effect();
	test_near_deterministic();
	test_virtual_time();
	test_several_targets();
	test_several_targets_resume();
	test_next_many();
	test_effect_takes_more_boots();
	test_decided_error_stops();
	test_next_line();
	test_next_merges();
	test_next_against_ancestry();
	test_walk_against_ancestry();
	test_conclude();
	test_run_graph();
	test_confirm_small_rest();
	test_step_decisions();
	test_exact_error();
	return done_testing();
}
