/*
 * Bisect on the synthetic model of tests/bisect-sim.h (not a test): N
 * commits in a line, one of them shifts the metric by 8 % at CV 3 %, 10
 * samples per boot. Counts builds, boots and samples to the culprit and
 * how often it was right over 100 runs, for the lab's schedule (2 -> 16
 * boots per step) and two baselines: a fixed 2 boots, and doubling to 32.
 * Then at icount's noise (CV 5e-7, a 3 % shift): the lab in virtual time
 * (bisect_ops.exact: one boot a step, no end booted again) against plain
 * doubling, which it must beat by half with the same accuracy (exit 1
 * when not). The bisection compares per-boot medians (lab/plans/bisect.h).
 *
 * Then a release's worth of commits: a line, a merge-heavy history (a
 * third of the commits merges of topic branches) and the walk's worst
 * case, eight long-lived branches merging each other at random, of
 * 1,000, 15,000 and 100,000 commits, one bisection each in a child
 * process of its own: the longest and the mean CPU time from one decision
 * to the next (the first from G->B's last boot: the walk over the graph,
 * tell-ahead's two looks, the statistics and the model's boots), the peak memory beyond the graph's, and the steps and boots to
 * the culprit. Exit 1 when a decision at 100,000 takes more than 50 ms
 * or 64 MiB. CPU time, not wall time: two cores shared by several builds
 * would otherwise fail it for the load alone. Arguments: only those sizes, e.g. `bench-bisect 15000`.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bisect-sim.h"
#include "bisect.h"

struct model {
	double cv, shift;
	int exact;
};

static const struct model wall = { 0.03, 0.08, 0 };

/* The boots of 100 bisections, and in *right how many found the culprit. */
static size_t run(const char *name, size_t n, size_t start, size_t cap, const struct model *m,
		  size_t *right_out)
{
	struct bisect_graph g;
	size_t right = 0, builds = 0, boots = 0, samples = 0, runs = 100;

	sim_line_graph(&g, n);
	for (size_t r = 0; r < runs; r++) {
		struct sim s;
		struct bisect_options opt = BISECT_OPTIONS_INIT;
		struct bisect_ops ops = { sim_boots, sim_measure, NULL, &s, sim_exact, NULL, NULL, 0 };
		struct bisect_result res;

		sim_init(&s, n, 0x9e3779b97f4a7c15ull ^ (r * 7919 + n));
		s.culprit[0] = 1 + (size_t)(sim_uniform(&s) * (double)(n - 1));
		s.cv = m->cv;
		s.shift[0] = m->shift;
		s.exact = m->exact;
		opt.start = start;
		opt.cap = cap;
		if (!bisect_search(&res, &g, &opt, &ops) && res.found && res.culprit == s.culprit[0])
			right++;
		builds += s.builds;
		boots += s.boots;
		samples += s.samples;
		bisect_result_release(&res);
		sim_release(&s);
	}
	printf("  %-28s N=%-5zu right %3zu %%  builds %5.1f (goal <= %.0f)  boots %6.1f  samples %7.1f\n",
	       name, n, right * 100 / runs, (double)builds / runs, ceil(log2((double)n)) + 2,
	       (double)boots / runs, (double)samples / runs);
	sim_graph_release(&g);
	if (right_out)
		*right_out = right;
	return boots;
}

/* A merge-heavy history: bisect-sim's random numbers for its shape. */
static void merge_graph(struct bisect_graph *g, size_t n, struct sim *rng)
{
	size_t *main_line = calloc(n, sizeof(*main_line)), nmain = 0, i = 0;

	g->n = n;
	g->nparents = calloc(n, sizeof(size_t));
	g->parents = calloc(n, sizeof(size_t *));
	for (size_t k = 0; k < n; k++)
		g->parents[k] = malloc(2 * sizeof(size_t));
	main_line[nmain++] = i++;
	while (i < n) {
		size_t len = 1 + (size_t)(sim_uniform(rng) * 8), back, fork, tip;

		if (sim_uniform(rng) < 0.5 || i + len + 1 >= n) {
			g->parents[i][g->nparents[i]++] = main_line[nmain - 1];
			main_line[nmain++] = i++;
			continue;
		}
		/* a topic branch from a recent main-line commit, one in ten from far back */
		back = (size_t)(sim_uniform(rng) * (sim_uniform(rng) < 0.1 ? 5000 : 200));
		fork = main_line[back < nmain ? nmain - 1 - back : 0];
		tip = fork;
		for (size_t k = 0; k < len; k++, i++) {
			g->parents[i][g->nparents[i]++] = tip;
			tip = i;
		}
		g->parents[i][g->nparents[i]++] = main_line[nmain - 1];
		g->parents[i][g->nparents[i]++] = tip;
		main_line[nmain++] = i++;
	}
	free(main_line);
}

/*
 * The walk's worst case: eight long-lived branches, each commit on one
 * of them at random, and one commit in five a merge of another branch
 * into it, so that most commits lie off any one first-parent chain and
 * each branch carries much of the others' history. The last commit
 * merges every branch, so that all of it is in question.
 */
#define BRANCHES 8

static void branches_graph(struct bisect_graph *g, size_t n, struct sim *rng)
{
	size_t tip[BRANCHES];

	g->n = n;
	g->nparents = calloc(n, sizeof(size_t));
	g->parents = calloc(n, sizeof(size_t *));
	for (size_t k = 0; k < n; k++)
		g->parents[k] = malloc((BRANCHES + 1) * sizeof(size_t));
	for (size_t b = 0; b < BRANCHES; b++)
		tip[b] = 0;
	for (size_t i = 1; i + 1 < n; i++) {
		size_t b = (size_t)(sim_uniform(rng) * BRANCHES) % BRANCHES;
		size_t other = (size_t)(sim_uniform(rng) * BRANCHES) % BRANCHES;

		g->parents[i][g->nparents[i]++] = tip[b];
		if (sim_uniform(rng) < 0.01 && other != b && tip[other] != tip[b])
			g->parents[i][g->nparents[i]++] = tip[other];
		tip[b] = i;
	}
	for (size_t b = 0; b < BRANCHES && n > 1; b++) {
		int dup = 0;

		for (size_t k = 0; k < g->nparents[n - 1]; k++)
			dup |= g->parents[n - 1][k] == tip[b];
		if (!dup)
			g->parents[n - 1][g->nparents[n - 1]++] = tip[b];
	}
}

enum shape { LINE, MERGES, BRANCHES_SHAPE };

static const char *const shape_name[] = { "line", "merges", "8 long" };

struct timed {
	struct sim *s;
	struct timespec last;
	double max_ms, sum_ms;
	size_t decisions;
	int picked;
};

static double ms_since(struct timespec *t)
{
	struct timespec now;
	double ms;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
	ms = (double)(now.tv_sec - t->tv_sec) * 1e3 + (double)(now.tv_nsec - t->tv_nsec) / 1e6;
	*t = now;
	return ms;
}

static int timed_boots(void *data, int who, double **v, size_t *n)
{
	return sim_boots(((struct timed *)data)->s, who, v, n);
}

/*
 * The first decision starts after G->B's last boot: G->B is not a step,
 * but the first pick is (a step's own boots of the ends come after it is
 * told ahead).
 */
static int timed_measure(void *data, int who)
{
	struct timed *t = data;
	int rc = sim_measure(t->s, who);

	if (!t->decisions && !t->picked && who < 0)
		ms_since(&t->last);
	return rc;
}

static int timed_exact(void *data)
{
	return sim_exact(((struct timed *)data)->s);
}

static void timed_ahead(void *data, int who, const int *next, size_t n)
{
	((struct timed *)data)->picked = 1;
	sim_ahead(((struct timed *)data)->s, who, next, n);
}

static int timed_decided(void *data, int who, enum bisect_mark mark, size_t n,
			 const struct stats_hl *hl)
{
	struct timed *t = data;
	double ms = ms_since(&t->last);

	if (ms > t->max_ms)
		t->max_ms = ms;
	t->sum_ms += ms;
	t->decisions++;
	return sim_decided(t->s, who, mark, n, hl);
}

static size_t rss_kib(void)
{
	long pages = 0, resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
			resident = 0;
		fclose(f);
	}
	return (size_t)resident * (size_t)sysconf(_SC_PAGESIZE) / 1024;
}

/* One bisection of a history of n commits, in this process; exit status 1 when over the limits. */
static int large(size_t n, enum shape shape_kind)
{
	struct bisect_graph g;
	struct sim s, shape;
	struct timed t = { &s, { 0, 0 }, 0, 0, 0, 0 };
	struct bisect_options opt = BISECT_OPTIONS_INIT;
	struct bisect_ops ops = { timed_boots, timed_measure, timed_decided, &t, timed_exact,
				  timed_ahead, NULL, 0 };
	struct bisect_result res;
	struct rusage ru;
	unsigned char *has;
	size_t base, peak, extra, merged = 0;
	int rc, over;

	sim_init(&shape, 1, 0x6a09e667f3bcc908ull ^ n);
	if (shape_kind == MERGES)
		merge_graph(&g, n, &shape);
	else if (shape_kind == BRANCHES_SHAPE)
		branches_graph(&g, n, &shape);
	else
		sim_line_graph(&g, n);
	sim_init(&s, n, 0x9e3779b97f4a7c15ull ^ (n + (size_t)shape_kind));
	s.culprit[0] = 1 + (size_t)(sim_uniform(&s) * (double)(n - 1));
	s.shift[0] = 0.08;
	has = calloc(n, 1);
	for (size_t i = 0; i < n; i++) {
		merged += g.nparents[i] > 1;
		has[i] = i == s.culprit[0];
		for (size_t k = 0; k < g.nparents[i]; k++)
			has[i] |= has[g.parents[i][k]];
	}
	if (shape_kind != LINE) {
		s.graph = &g;
		s.has = has;
	}
	base = rss_kib();
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t.last);
	rc = bisect_search(&res, &g, &opt, &ops);
	getrusage(RUSAGE_SELF, &ru);
	peak = (size_t)ru.ru_maxrss;
	extra = peak > base ? peak - base : 0;
	over = n >= 100000 && (t.max_ms > 50 || extra > 64 * 1024);
	printf("  %-6s N=%-6zu (%5zu merges) %s  steps %2zu  boots %4zu  decision max %6.2f ms, mean %6.2f ms  "
	       "memory +%6.1f MiB (peak RSS %6.1f MiB)%s\n", shape_name[shape_kind], n,
	       merged, !rc && res.found && res.culprit == s.culprit[0] ? "right" : "WRONG", res.steps,
	       s.boots, t.max_ms, t.decisions ? t.sum_ms / (double)t.decisions : 0,
	       (double)extra / 1024, (double)peak / 1024, over ? "  FAIL: over 50 ms or 64 MiB" : "");
	fflush(stdout);
	bisect_result_release(&res);
	free(has);
	sim_release(&s);
	sim_release(&shape);
	sim_graph_release(&g);
	return over || rc || !res.found;
}

/* Each history in a child of its own, so that its peak memory is its own. */
static int large_all(const size_t *sizes, size_t nsizes)
{
	int ret = 0;

	printf("bisect, large histories: CV 3 %%, 8 %% shift, one bisection each\n");
	fflush(stdout);
	for (enum shape k = LINE; k <= BRANCHES_SHAPE; k++)
		for (size_t i = 0; i < nsizes; i++) {
			int status;
			pid_t pid = fork();

			if (pid == 0)
				_exit(large(sizes[i], k));
			if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
			    WEXITSTATUS(status))
				ret = 1;
		}
	return ret;
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = { 64, 1024 };
	const struct model icount = { 0.0000005, 0.03, 1 }, icount_doubling = { 0.0000005, 0.03, 0 };
	static const size_t large_sizes[] = { 1000, 15000, 100000 };
	size_t asked[16], nasked = 0;
	int ret = 0;

	for (int i = 1; i < argc && nasked < 16; i++)
		asked[nasked++] = (size_t)strtoul(argv[i], NULL, 10);
	if (nasked)
		return large_all(asked, nasked);
	printf("bisect, synthetic model: CV 3 %%, 8 %% shift, %d samples per boot, 100 runs each\n",
	       SIM_PER_BOOT);
	for (size_t i = 0; i < 2; i++) {
		run("lab (2 -> 16 boots a step)", sizes[i], 2, 16, &wall, NULL);
		run("fixed 2 boots", sizes[i], 2, 2, &wall, NULL);
		run("doubling 2 -> 32 boots", sizes[i], 2, 32, &wall, NULL);
	}
	fflush(stdout);
	printf("bisect, icount's noise: CV 5e-7, 3 %% shift, 100 runs each\n");
	for (size_t i = 0; i < 2; i++) {
		size_t right_lab, right_doubling;
		size_t lab = run("lab in virtual time", sizes[i], 2, 16, &icount, &right_lab);
		size_t doubling = run("doubling 2 -> 32 boots", sizes[i], 2, 32, &icount_doubling,
				      &right_doubling);
		if (2 * lab > doubling || right_lab < right_doubling) {
			printf("  FAIL: the lab took %zu boots, more than half of doubling's %zu, or "
			       "was right less often\n", lab, doubling);
			ret = 1;
		}
	}
	if (large_all(large_sizes, sizeof(large_sizes) / sizeof(large_sizes[0])))
		ret = 1;
	return ret;
}
