/*
 * results/units.c's choice of units with targets: a target effect, like a
 * boot effect, makes per-boot medians (per target and boot) the units.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "units.h"

#define BOOTS 6
#define PER_BOOT 20

/*
 * Six boots of 20 samples with the same spread (sd 1) each, the last three
 * on a second target shifted by shift: too small a shift for the
 * boot-to-boot rule over six boots, plain over two targets of 60.
 */
static void fill(struct unit_metric *m, double shift, size_t ntargets)
{
	static double v[BOOTS * PER_BOOT];
	static size_t len[BOOTS], target[BOOTS];

	memset(m, 0, sizeof(*m));
	for (size_t b = 0; b < BOOTS; b++) {
		len[b] = PER_BOOT;
		target[b] = ntargets > 1 && b >= BOOTS / 2;
		for (size_t i = 0; i < PER_BOOT; i++)
			v[b * PER_BOOT + i] = 100 + ((double)i - 9.5) / 5.77 +
					      (b >= BOOTS / 2 ? shift : 0);
	}
	m->samples.v = v;
	m->samples.nr = BOOTS * PER_BOOT;
	m->len = len;
	m->target = target;
	m->nboots = BOOTS;
	m->ntargets = ntargets;
}

int main(void)
{
	struct unit_metric m;
	struct strvec higher = STRVEC_INIT;
	double *v, med;
	size_t n;

	fill(&m, 0, 2);
	ok(!units_boot_effect(&m), "no target effect, no boot effect: samples are the units");
	fill(&m, 0.5, 1);
	ok(!units_boot_effect(&m), "a shift of half a sd between boots 1-3 and 4-6 is no boot effect");
	fill(&m, 0.5, 2);
	ok(units_boot_effect(&m), "the same shift between two targets is a target effect: per-boot medians");
	fill(&m, 3, 1);
	ok(units_boot_effect(&m), "a shift of 3 sd is a boot effect without targets");
	/* each boot's 20 samples are symmetric about 100, or 103 for boots 4-6 */
	v = units_values(&m, 1, &n);
	ok(v && n == BOOTS && fabs(v[0] - 100) < 1e-12 && fabs(v[2] - 100) < 1e-12 &&
	   fabs(v[3] - 103) < 1e-12 && fabs(v[5] - 103) < 1e-12,
	   "per-boot medians: 100 for boots 1-3, 103 for boots 4-6");
	free(v);
	ok(!stats_boot_median(&med, m.samples.v, m.len, m.nboots) && fabs(med - 101.5) < 1e-12,
	   "the median of the boots' medians: (100 + 103) / 2 = 101.5");
	v = units_values(&m, 0, &n);
	ok(v && n == BOOTS * PER_BOOT && v[PER_BOOT] == m.samples.v[PER_BOOT], "samples: all 120 of them");
	free(v);

	strvec_push(&higher, "pf.ops");
	strvec_push(&higher, "stress-ng-mmap.bogo_ops_s");
	ok(units_direction(&higher, "pf", "ops") == STATS_HIGHER_IS_BETTER,
	   "a metric its runs said higher of is a rate");
	ok(units_direction(&higher, "pf", "t_us") == STATS_LOWER_IS_BETTER, "any other is a cost");
	ok(units_direction(&higher, "p", "ops") == STATS_LOWER_IS_BETTER &&
	   units_direction(&higher, "pfx", "ops") == STATS_LOWER_IS_BETTER,
	   "the workload is matched whole, not as a prefix");
	ok(units_direction(&higher, NULL, "bogo_ops_s") == STATS_HIGHER_IS_BETTER,
	   "without a workload, the metric of any");
	strvec_release(&higher);
	return done_testing();
}
