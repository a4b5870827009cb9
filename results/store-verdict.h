#ifndef STORE_VERDICT_H
#define STORE_VERDICT_H
/*
 * One verdict of an experiment: a metric at a sweep point (memory size,
 * CPU count), with the summaries of the units compared (samples, or
 * per-boot medians). The row has one writer and one reader: a number that
 * is not finite is stored as NULL and read back as NaN.
 */
#include "store.h"

struct verdict_row {
	char workload[32], metric[64], unit[16];	/* as struct unit_metric's */
	long long mem_mib;
	int cpus;
	char direction[8];		/* lower | higher (is better) */
	char unit_compared[16];		/* samples | boot-medians */
	long long n_a, n_b;
	double mean_a, mean_b, std_a, std_b, median_a, median_b;
	double ratio, ci_low, ci_high;	/* Hodges-Lehmann B/A and its CI */
	double p, p_adjusted;		/* p_adjusted: Benjamini-Hochberg over the experiment */
	double alpha, delta, mde;
	char verdict[16];		/* REGRESSION, ..., INCONCLUSIVE, UNCOMPARABLE */
};

/* Write (or replace: one per metric and point) n verdicts; the caller holds the transaction. */
int store_verdicts_write(struct store *st, long long exp_id, const struct verdict_row *v,
			 size_t n);

struct verdict_list {
	struct verdict_row *v;
	size_t nr, alloc;
};
void verdict_list_release(struct verdict_list *l);
/* An experiment's verdicts, by workload, metric, memory size and CPU count. */
int store_verdicts_read(struct store *st, struct verdict_list *out, long long exp_id);
/* The verdict of workload.metric at a point into *out: *found 0 when there is none. */
int store_verdict_get(struct store *st, struct verdict_row *out, int *found, long long exp_id,
		      const char *workload, const char *metric, long long mem, long long cpus);
/* *n: how many of an experiment's verdicts are REGRESSION. */
int store_verdict_regressions(struct store *st, long long *n, long long exp_id);

#endif
