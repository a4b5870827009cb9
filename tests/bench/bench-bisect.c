/*
 * Bisect on the synthetic model (not a test): N commits in a line, one of
 * them shifts the metric by 8 % at CV 3 %, 10 samples per boot. Counts
 * builds, boots and samples to the culprit and how often it was right over
 * 100 runs, for the lab's schedule (2 -> 16 boots per step) and two
 * baselines: a fixed 2 boots, and doubling to 32. The bisection compares
 * per-boot medians (lab/bisect.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect.h"

#define PER_BOOT 10

struct sim {
	size_t n, culprit;
	double cv, shift;
	unsigned long long rng;
	double **v;		/* per-boot medians: per candidate, G at n, B at n + 1 */
	size_t *len, *cap;
	size_t boots, samples, builds;
	unsigned char *built;
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
	return who == BISECT_G ? s->n : who == BISECT_B ? s->n + 1 : (size_t)who;
}

static int cmp_double(const void *pa, const void *pb)
{
	double x = *(const double *)pa, y = *(const double *)pb;
	return (x > y) - (x < y);
}

static int sim_boots(void *data, int who, double **v, size_t *n)
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
	int bad = who == BISECT_B || (who >= 0 && (size_t)who >= s->culprit);

	if (!s->built[k]) {
		s->built[k] = 1;
		s->builds++;
	}
	double x[PER_BOOT];

	if (s->len[k] + 1 > s->cap[k]) {
		s->cap[k] = 2 * (s->len[k] + 1);
		s->v[k] = realloc(s->v[k], s->cap[k] * sizeof(double));
	}
	for (int i = 0; i < PER_BOOT; i++)
		x[i] = 100 * (bad ? 1 + s->shift : 1) * exp(s->cv * gauss(s));
	qsort(x, PER_BOOT, sizeof(x[0]), cmp_double);
	s->v[k][s->len[k]++] = (x[PER_BOOT / 2 - 1] + x[PER_BOOT / 2]) / 2;
	s->boots++;
	s->samples += PER_BOOT;
	return 0;
}

static void run(const char *name, size_t n, size_t start, size_t cap)
{
	struct bisect_graph g = { n, NULL, NULL };
	size_t right = 0, builds = 0, boots = 0, samples = 0, runs = 100;

	g.nparents = calloc(n, sizeof(size_t));
	g.parents = calloc(n, sizeof(size_t *));
	for (size_t i = 0; i < n; i++) {
		g.parents[i] = malloc(sizeof(size_t));
		if (i) {
			g.parents[i][0] = i - 1;
			g.nparents[i] = 1;
		}
	}
	for (size_t r = 0; r < runs; r++) {
		struct sim s = { n, 0, 0.03, 0.08, 0x9e3779b97f4a7c15ull ^ (r * 7919 + n), NULL,
				 NULL, NULL, 0, 0, 0, NULL };
		struct bisect_options opt = BISECT_OPTIONS_INIT;
		struct bisect_ops ops = { sim_boots, measure, NULL, &s };
		struct bisect_result res;

		s.culprit = 1 + (size_t)(uniform(&s) * (double)(n - 1));
		s.v = calloc(n + 2, sizeof(double *));
		s.len = calloc(n + 2, sizeof(size_t));
		s.cap = calloc(n + 2, sizeof(size_t));
		s.built = calloc(n + 2, 1);
		opt.start = start;
		opt.cap = cap;
		if (!bisect_run(&res, &g, &opt, &ops) && res.found && res.culprit == s.culprit)
			right++;
		builds += s.builds;
		boots += s.boots;
		samples += s.samples;
		bisect_result_release(&res);
		for (size_t i = 0; i < n + 2; i++)
			free(s.v[i]);
		free(s.v);
		free(s.len);
		free(s.cap);
		free(s.built);
	}
	printf("  %-28s N=%-5zu right %3zu %%  builds %5.1f (goal <= %.0f)  boots %6.1f  samples %7.1f\n",
	       name, n, right * 100 / runs, (double)builds / runs, ceil(log2((double)n)) + 2,
	       (double)boots / runs, (double)samples / runs);
	for (size_t i = 0; i < n; i++)
		free(g.parents[i]);
	free(g.parents);
	free(g.nparents);
}

int main(void)
{
	static const size_t sizes[] = { 64, 1024 };

	printf("bisect, synthetic model: CV 3 %%, 8 %% shift, %d samples per boot, 100 runs each\n",
	       PER_BOOT);
	for (size_t i = 0; i < 2; i++) {
		run("lab (2 -> 16 boots a step)", sizes[i], 2, 16);
		run("fixed 2 boots", sizes[i], 2, 2);
		run("doubling 2 -> 32 boots", sizes[i], 2, 32);
	}
	return 0;
}
