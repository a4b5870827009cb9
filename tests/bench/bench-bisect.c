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
 */
#include <math.h>
#include <stdio.h>

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

int main(void)
{
	static const size_t sizes[] = { 64, 1024 };
	const struct model icount = { 0.0000005, 0.03, 1 }, icount_doubling = { 0.0000005, 0.03, 0 };
	int ret = 0;

	printf("bisect, synthetic model: CV 3 %%, 8 %% shift, %d samples per boot, 100 runs each\n",
	       SIM_PER_BOOT);
	for (size_t i = 0; i < 2; i++) {
		run("lab (2 -> 16 boots a step)", sizes[i], 2, 16, &wall, NULL);
		run("fixed 2 boots", sizes[i], 2, 2, &wall, NULL);
		run("doubling 2 -> 32 boots", sizes[i], 2, 32, &wall, NULL);
	}
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
	return ret;
}
