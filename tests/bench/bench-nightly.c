/*
 * A simulated year of nightly runs (numbers to read, and a goal to meet):
 * 365 nights of one series per metric and clock, with the noise the lab
 * measured for each clock (README, `make bench`'s bench-clock table), three
 * steps of 2-10 % injected on commits, and spikes (a night the host made
 * slow, which a confirming A/B on a later, quiet host does not see).
 *
 * Each night does what `lab nightly` does: the night's point is the median
 * of its boots; change points (results/changepoint.c) of the series since
 * the last accepted change, and a suspect among the newest points, are
 * candidates; each candidate is confirmed by an A/B of the last ordinary
 * commit before it against the first after it (a step is found when it lies
 * between them, where the bisection would look), simulated with lab ab's units (per-boot
 * medians), adaptive schedule and verdicts (results/stats*.c). Printed per
 * series: steps found and their delay in nights (the night of the alert
 * minus the night the step's commit was first measured), and false alerts
 * before the confirmation (candidates at no step) and after it (confirmed
 * REGRESSION or IMPROVEMENT at no step).
 *
 * Goal (exit 1 when missed): in icount, no false alert after confirmation,
 * and every step of 3 % or more found within 2 nights.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "changepoint.h"
#include "rng.h"
#include "stats.h"

#define NIGHTS		365
#define STEPS		3
#define SPIKES		8
#define BOOTS_NIGHT	3	/* boots of the night's commit */
#define YEARS		4	/* simulated years per series */
#define TAIL		100	/* points E-divisive looks at each night */

struct noise {
	const char *metric, *clock;
	double cv_within, cv_between;	/* bench-clock's table, as fractions */
	int per_boot;			/* samples per boot */
};

/* README: "make bench measures both clocks side by side". */
static const struct noise noises[] = {
	{ "zeroing.touch", "icount", 0.000640, 0.000019, 3 },
	{ "zeroing.clear_huge_page", "icount", 0.001148, 0.0000001, 150 },
	{ "demote.demote_page_wall", "icount", 0.002078, 0.000001, 3 },
	{ "boot.to_init", "icount", 0, 0.000270, 1 },
	{ "zeroing.touch", "wall", 0.352658, 0.545227, 3 },
	{ "zeroing.clear_huge_page", "wall", 0.619618, 0.469120, 150 },
	{ "demote.demote_page_wall", "wall", 0.514976, 0.831215, 3 },
	{ "boot.to_init", "wall", 0, 0.377704, 1 },
};

/* The spread of one boot's median: between boots, and its samples' median. */
static double boot_cv(const struct noise *nz)
{
	double w = 1.2533 * nz->cv_within / sqrt(nz->per_boot);

	return sqrt(nz->cv_between * nz->cv_between + w * w);
}

static double lognormal(double level, double cv)
{
	double s = sqrt(log1p(cv * cv));

	return level * exp(s * rng_normal() - s * s / 2);
}

static int cmp_double(const void *pa, const void *pb)
{
	double x = *(const double *)pa, y = *(const double *)pb;
	return (x > y) - (x < y);
}

static double night_point(double level, double cv)
{
	double b[BOOTS_NIGHT];

	for (int i = 0; i < BOOTS_NIGHT; i++)
		b[i] = lognormal(level, cv);
	qsort(b, BOOTS_NIGHT, sizeof(*b), cmp_double);
	return b[BOOTS_NIGHT / 2];
}

/*
 * lab ab between two commits' true levels: per-boot medians as units,
 * looks at 5, 10, ... 160 boots a side at the per-look alpha of 5 %
 * overall, delta 2 %. Returns the verdict; *boots gets the boots spent.
 */
static enum verdict confirm(double level_a, double level_b, double cv, long *boots)
{
	static double a[160], b[160];
	struct stats_schedule sched = STATS_SCHEDULE_INIT;
	struct stats_options opt = STATS_OPTIONS_INIT;
	struct stats_comparison c;
	size_t n = 0, level;

	opt.alpha = stats_schedule_alpha(&sched);
	for (level = sched.start; level <= sched.cap; level *= 2) {
		for (; n < level; n++) {
			a[n] = lognormal(level_a, cv);
			b[n] = lognormal(level_b, cv);
		}
		if (stats_compare(&c, a, n, b, n, &opt))
			return VERDICT_INCONCLUSIVE;
		if (c.verdict != VERDICT_INCONCLUSIVE)
			break;
	}
	*boots += (long)(2 * n);
	return c.verdict;
}

struct tally {
	int steps, found, found_within2, big, big_within2;
	int delay_sum, delay_max;
	int cand_false, alert_false, missed_big;
	long ab_boots;
	int abs;
};

static int examined_has(const size_t *v, size_t n, size_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return 1;
	return 0;
}

static void year(struct tally *t, const struct noise *nz)
{
	double level[NIGHTS], x[NIGHTS];
	int step_at[STEPS], spike_at[SPIKES], found_night[STEPS];
	double step_size[STEPS];
	size_t examined[NIGHTS], nexamined = 0, start = 0, refuted = 0;
	double cv = boot_cv(nz);
	struct changepoint_opts o = CHANGEPOINT_OPTS_INIT;
	int i, s, night;

	/* steps 30 nights or more from the ends and 60 apart; sizes 2-10 %, either sign */
	for (s = 0; s < STEPS; s++) {
		step_at[s] = 30 + s * 110 + (int)(rng_unit() * 50);
		step_size[s] = 0.02 + 0.08 * rng_unit();
		if (rng_unit() < 0.3)
			step_size[s] = -step_size[s];
		found_night[s] = -1;
	}
	for (i = 0; i < SPIKES; i++)
		spike_at[i] = 5 + (int)(rng_unit() * (NIGHTS - 10));
	/* two spikes on consecutive nights: what a suspect alone cannot tell from a step */
	spike_at[1] = spike_at[0] + 1;
	for (night = 0; night < NIGHTS; night++) {
		double l = night ? level[night - 1] : 1000;

		for (s = 0; s < STEPS; s++)
			if (step_at[s] == night)
				l *= 1 + step_size[s];
		level[night] = l;
	}

	for (night = 0; night < NIGHTS; night++) {
		struct changepoint *cps = NULL, sus;
		size_t ncps = 0, from, n = (size_t)night + 1;
		double host = 1;

		for (i = 0; i < SPIKES; i++)
			if (spike_at[i] == night)
				host = 1.15 + 0.3 * rng_unit();
		x[night] = night_point(level[night] * host, cv);

		from = n > TAIL && n - TAIL > start ? n - TAIL : start;
		if (changepoints_find(&cps, &ncps, x + from, n - from, &o))
			ncps = 0;
		for (size_t c = 0; c <= ncps; c++) {
			size_t idx, before;
			enum verdict v;

			if (c < ncps) {
				idx = from + cps[c].index;
				before = from + cps[c].before;
			} else if (changepoint_suspect(&sus, x, n, start, refuted, &o) == 1) {
				idx = sus.index;
				before = sus.before;
			} else {
				break;
			}
			if (idx <= start || examined_has(examined, nexamined, idx))
				continue;
			examined[nexamined++] = idx;
			if (getenv("BENCH_DEBUG"))
				fprintf(stderr, "night %d candidate %zu (%s)\n", night, idx,
					c < ncps ? "change point" : "suspect");
			/* the bisection that follows looks at (before, idx] */
			for (s = 0; s < STEPS && !(step_at[s] > (int)before && step_at[s] <= (int)idx); s++)
				;
			if (s == STEPS)
				t->cand_false++;
			v = confirm(level[before], level[idx], cv, &t->ab_boots);
			t->abs++;
			if (v != VERDICT_REGRESSION && v != VERDICT_IMPROVEMENT) {
				if (c == ncps && idx > refuted)
					refuted = idx;
				continue;
			}
			start = idx;
			if (s == STEPS) {
				t->alert_false++;
			} else if (found_night[s] < 0) {
				found_night[s] = night;
			}
		}
		free(cps);
	}
	for (s = 0; s < STEPS; s++) {
		int big = fabs(step_size[s]) >= 0.03;
		int delay = found_night[s] - step_at[s];

		if (getenv("BENCH_DEBUG"))
			fprintf(stderr, "%s %s step %d %+.2f%% found %d\n", nz->metric, nz->clock,
				step_at[s], 100 * step_size[s], found_night[s]);

		t->steps++;
		t->big += big;
		if (found_night[s] < 0) {
			t->missed_big += big;
			continue;
		}
		t->found++;
		t->delay_sum += delay;
		if (delay > t->delay_max)
			t->delay_max = delay;
		if (delay <= 2) {
			t->found_within2++;
			t->big_within2 += big;
		} else {
			t->missed_big += big;
		}
	}
}

int main(void)
{
	int goal_met = 1;

	rng_seed(365);
	printf("%d nights x %d years per series, %d steps of 2-10 %% a year, %d spikes a year,"
	       " %d boots a night\n", NIGHTS, YEARS, STEPS, SPIKES, BOOTS_NIGHT);
	printf("%-24s %-6s %8s %6s %6s %9s %9s %10s %10s %8s\n", "metric", "clock", "cv boot",
	       "steps", "found", "<=2 nights", "delay max", "false cand", "false alert",
	       "A/B boots");
	for (size_t k = 0; k < sizeof(noises) / sizeof(noises[0]); k++) {
		struct tally t;
		char cvs[32];

		memset(&t, 0, sizeof(t));
		for (int y = 0; y < YEARS; y++)
			year(&t, &noises[k]);
		snprintf(cvs, sizeof(cvs), "%.4f %%", 100 * boot_cv(&noises[k]));
		printf("%-24s %-6s %8s %6d %6d %9d %9d %10d %10d %8ld\n", noises[k].metric,
		       noises[k].clock, cvs, t.steps, t.found, t.found_within2, t.delay_max,
		       t.cand_false, t.alert_false, t.ab_boots);
		if (!strcmp(noises[k].clock, "icount") && (t.alert_false || t.missed_big))
			goal_met = 0;
	}
	printf("columns: steps injected; found (a confirmed A/B whose two commits enclose the step);"
	       " found within 2 nights;\n  the longest delay; false candidates (before confirmation) and false"
	       " alerts (after);\n  boots the confirming A/Bs took\n");
	printf("goal (icount: no false alert, every step >= 3 %% within 2 nights): %s\n",
	       goal_met ? "met" : "MISSED");
	return goal_met ? 0 : 1;
}
