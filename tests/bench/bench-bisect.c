/*
 * Bisect on the synthetic model of tests/bisect-sim.h (not a test): N
 * commits in a line, one of them shifts the metric by 8 % at CV 3 %, 10
 * samples per boot. Counts builds, boots and samples to the culprit and
 * how often it was right over 100 runs, for the lab's schedule (2 -> 16
 * boots per step) and two baselines: a fixed 2 boots, and doubling to 32.
 * The bisection compares per-boot medians (lab/plans/bisect.h).
 */
#include <math.h>
#include <stdio.h>

#include "bisect-sim.h"
#include "bisect.h"

static void run(const char *name, size_t n, size_t start, size_t cap)
{
	struct bisect_graph g;
	size_t right = 0, builds = 0, boots = 0, samples = 0, runs = 100;

	sim_line_graph(&g, n);
	for (size_t r = 0; r < runs; r++) {
		struct sim s;
		struct bisect_options opt = BISECT_OPTIONS_INIT;
		struct bisect_ops ops = { sim_boots, sim_measure, NULL, &s };
		struct bisect_result res;

		sim_init(&s, n, 0x9e3779b97f4a7c15ull ^ (r * 7919 + n));
		s.culprit[0] = 1 + (size_t)(sim_uniform(&s) * (double)(n - 1));
		s.shift[0] = 0.08;
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
}

int main(void)
{
	static const size_t sizes[] = { 64, 1024 };

	printf("bisect, synthetic model: CV 3 %%, 8 %% shift, %d samples per boot, 100 runs each\n",
	       SIM_PER_BOOT);
	for (size_t i = 0; i < 2; i++) {
		run("lab (2 -> 16 boots a step)", sizes[i], 2, 16);
		run("fixed 2 boots", sizes[i], 2, 2);
		run("doubling 2 -> 32 boots", sizes[i], 2, 32);
	}
	return 0;
}
