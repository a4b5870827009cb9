#ifndef UNITS_H
#define UNITS_H
/*
 * The units a verdict compares, loaded from the database: the samples of
 * each metric of one variant, grouped by boot (warm-ups and failed boots
 * left out), and the rule of docs/statistics.md that turns them into samples or
 * per-boot medians. Shared by the A/B and bisect plans. A unit_side owns
 * its arrays; units_side_release() frees them; units_values() returns an
 * array the caller frees.
 */
#include <stddef.h>

#include "dvec.h"
#include "stats.h"
#include "store.h"
#include "strvec.h"

struct unit_metric {
	char workload[32], metric[64], unit[16];
	struct dvec samples;	/* in boot order */
	size_t *len;		/* samples per boot */
	size_t *target;		/* each boot's target: an index into the side's targets */
	size_t nboots, boots_alloc;
	size_t ntargets;	/* of the side: targets[] of struct unit_side */
};

struct unit_side {
	struct unit_metric *m;
	size_t n, alloc;
	struct strvec targets;	/* the targets the boots ran on; "" for none */
};

/* mem or cpus < 0: any; metric NULL: every metric. */
int units_side_load(struct unit_side *s, struct store *st, long long exp_id,
		    long long variant_id, long mem, long cpus, const char *metric);
void units_side_release(struct unit_side *s);
/*
 * Whether this metric shows a boot-to-boot effect, or a target-to-target
 * effect among the targets its boots ran on: either way per-boot medians
 * (per target and boot: a boot runs on one target) are the units.
 */
int units_boot_effect(const struct unit_metric *m);
/*
 * The values to compare: samples, or per-boot medians (stats_boot_medians());
 * NULL with *n 0 when there is no memory for those.
 */
double *units_values(const struct unit_metric *m, int per_boot, size_t *n);
int units_all_positive(const double *v, size_t n);

/*
 * Which way is better for workload.metric (workload NULL: of any
 * workload), by lab ab's rule: higher when the runs' meta said
 * direction.WORKLOAD.METRIC = higher (higher, from
 * store_experiment_higher_better()), else lower: every other metric is a cost.
 */
enum stats_direction units_direction(const struct strvec *higher, const char *workload,
				     const char *metric);

/*
 * The per-boot medians of one metric of a variant, in boot order (*v
 * NULL and *n 0 when it has none), of its boots of mem MiB and cpus CPUs
 * (-1: any); the caller frees *v.
 */
int units_boot_medians(double **v, size_t *n, struct store *st, long long exp_id,
		       long long variant_id, long mem, long cpus, const char *metric);
/* Boots a side two variants both have: the fewer of the two, 0 when either has none. */
int units_common_boots(size_t *n, struct store *st, long long exp_id, long long variant_a,
		       long long variant_b);

/* One metric compared a -> b on its units (samples, or per-boot medians). */
struct units_comparison {
	char workload[32], metric[64], unit[16];
	int per_boot;
	/*
	 * 0: a side has a value not above 0 (the ratios are of logs) or too
	 * few units: c holds each side's summary, p NaN, INCONCLUSIVE.
	 */
	int comparable;
	struct stats_comparison c;
};
/*
 * Every metric both variants measured (the same workload, metric and
 * unit) at mem MiB and cpus CPUs (-1: any), compared a -> b at alpha with
 * the band delta, in a's order, each the way it is better
 * (units_direction() of what the experiment's runs said): lab ab's
 * verdicts. *out is an array the caller frees.
 */
int units_compare_point(struct units_comparison **out, size_t *n, struct store *st,
			long long exp_id, long long variant_a, long long variant_b, long mem,
			long cpus, double alpha, double delta);
/*
 * The comparable ones of units_compare_point() over all points; *boots_a
 * is the boots of a's first metric, 0 when a has none.
 */
int units_compare_variants(struct units_comparison **out, size_t *n, size_t *boots_a,
			   struct store *st, long long exp_id, long long variant_a,
			   long long variant_b, double alpha, double delta);

#endif
