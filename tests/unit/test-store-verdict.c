/*
 * The verdict row's one writer and one reader, on a real database: every
 * column comes back as written, a number that is not finite is stored as
 * NULL and read back as NaN, a second verdict for the same metric and
 * point replaces the first, and the reader orders an experiment's
 * verdicts by workload, metric, memory size and CPU count.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store-experiment.h"
#include "store-fixture.h"
#include "store-private.h"
#include "store-verdict.h"
#include "tap.h"

static void fill(struct verdict_row *v, const char *metric, long long mem, int cpus)
{
	memset(v, 0, sizeof(*v));
	snprintf(v->workload, sizeof(v->workload), "demote");
	snprintf(v->metric, sizeof(v->metric), "%s", metric);
	snprintf(v->unit, sizeof(v->unit), "ms");
	v->mem_mib = mem;
	v->cpus = cpus;
	snprintf(v->direction, sizeof(v->direction), "lower");
	snprintf(v->unit_compared, sizeof(v->unit_compared), "boot-medians");
	v->n_a = 10;
	v->n_b = 12;
	v->mean_a = 1.5;
	v->mean_b = 2.25;
	v->std_a = 0.125;
	v->std_b = 0.25;
	v->median_a = 1.4;
	v->median_b = 2.2;
	v->ratio = 1.5;
	v->ci_low = 1.25;
	v->ci_high = 1.75;
	v->p = 0.001;
	v->p_adjusted = 0.003;
	v->alpha = 0.05;
	v->delta = 0.02;
	v->mde = 0.04;
	snprintf(v->verdict, sizeof(v->verdict), "REGRESSION");
}

int main(void)
{
	struct store_fixture fx;
	const struct store_variant_spec spec[2] = { { 0, "a=1", NULL }, { 0, "b=1", NULL } };
	struct verdict_row w[3], r;
	struct verdict_list l = { 0 };
	struct store st;
	long long exp = 0, vid[2], n = -1;
	int found = -1;

	if (store_fixture_open(&fx, &st) ||
	    store_experiment_create_ab(&st, &exp, vid, "lab ab", "demote", spec))
		return 1;

	fill(&w[0], "demote_page_wall", 4096, 2);
	/* an uncomparable metric keeps its summaries and nothing else */
	fill(&w[1], "demote_page_sys", 4096, 1);
	w[1].std_a = NAN;
	w[1].ratio = w[1].ci_low = w[1].ci_high = w[1].p = w[1].p_adjusted = w[1].mde = NAN;
	snprintf(w[1].verdict, sizeof(w[1].verdict), "UNCOMPARABLE");
	fill(&w[2], "demote_page_wall", 1024, 2);
	ok(store_verdicts_write(&st, exp, w, 3) == 0, "three verdicts written");
	is_int(store_fixture_int(&st, "SELECT count(*) FROM verdicts"), 3, "three rows");
	is_int(store_fixture_int(&st, "SELECT count(*) FROM verdicts WHERE metric = 'demote_page_sys' AND "
		       "std_a IS NULL AND ratio IS NULL AND ci_low IS NULL AND ci_high IS NULL AND "
		       "p IS NULL AND p_adjusted IS NULL AND mde IS NULL AND mean_a = 1.5"), 1,
	       "numbers that are not finite are stored as NULL");

	ok(store_verdict_get(&st, &r, &found, exp, "demote", "demote_page_wall", 4096, 2) == 0 &&
	   found, "a verdict is found by metric and point");
	ok(!memcmp(&r, &w[0], sizeof(r)), "every column reads back as written");
	is_str(r.unit_compared, "boot-medians", "what was compared");
	is_double(r.p_adjusted, 0.003, 0, "the adjusted p");
	ok(store_verdict_get(&st, &r, &found, exp, "demote", "demote_page_sys", 4096, 1) == 0 &&
	   found, "the uncomparable verdict is found");
	ok(isnan(r.std_a) && isnan(r.ratio) && isnan(r.ci_low) && isnan(r.ci_high) &&
	   isnan(r.p) && isnan(r.p_adjusted) && isnan(r.mde), "NULL reads back as NaN");
	is_double(r.mean_b, 2.25, 0, "its summaries are kept");
	is_str(r.verdict, "UNCOMPARABLE", "its verdict");
	ok(store_verdict_get(&st, &r, &found, exp, "demote", "demote_page_wall", 2048, 2) == 0 &&
	   !found, "no verdict at a point never measured");

	ok(store_verdict_regressions(&st, &n, exp) == 0 && n == 2, "two regressions counted");
	snprintf(w[2].verdict, sizeof(w[2].verdict), "SAME");
	w[2].ratio = 1.001;
	ok(store_verdicts_write(&st, exp, &w[2], 1) == 0, "a verdict written again");
	is_int(store_fixture_int(&st, "SELECT count(*) FROM verdicts"), 3, "replaces the first");
	ok(store_verdict_regressions(&st, &n, exp) == 0 && n == 1, "one regression left");

	ok(store_verdicts_read(&st, &l, exp) == 0 && l.nr == 3, "an experiment's verdicts read");
	ok(l.nr == 3 && !strcmp(l.v[0].metric, "demote_page_sys") &&
	   !strcmp(l.v[1].metric, "demote_page_wall") && l.v[1].mem_mib == 1024 &&
	   l.v[2].mem_mib == 4096, "by metric, then memory size");
	ok(l.nr == 3 && !strcmp(l.v[1].verdict, "SAME") && l.v[1].ratio == 1.001,
	   "with the replaced row's values");
	verdict_list_release(&l);
	ok(store_verdicts_read(&st, &l, exp + 1) == 0 && l.nr == 0, "none for another experiment");
	verdict_list_release(&l);

	store_close(&st);
	if (store_fixture_remove(&fx))
		return 1;
	return done_testing();
}
