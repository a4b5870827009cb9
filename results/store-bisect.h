#ifndef STORE_BISECT_H
#define STORE_BISECT_H
/*
 * Bisections (an experiment of kind 'bisect' with its row in bisections)
 * and their steps, as typed rows. Numbers not finite are stored as NULL
 * and read back as NaN. Failures are reported here, naming the database.
 */
#include "store.h"
#include "strbuf.h"

/*
 * A new bisection of good..bad (commit ids) on workload, with the options
 * (args, one per line) a resume re-reads; metric NULL: chosen later.
 */
int store_bisection_create(struct store *st, long long *exp_id, const char *args,
			   const char *workload, const char *good, const char *bad,
			   const char *metric);
/* Its stored options; "no bisection N in database 'X'" when there is none. */
int store_bisection_args(struct store *st, struct strbuf *args, long long exp_id);
/* What a resume continues with: the metric ("" when not chosen yet), and its unit. */
int store_bisection_resume(struct store *st, struct strbuf *metric, int *per_boot,
			   long long exp_id);
int store_bisection_set_metric(struct store *st, long long exp_id, const char *metric);
int store_bisection_set_per_boot(struct store *st, long long exp_id, int per_boot);
/* No metric regressed from good to bad: nothing was bisected. */
int store_bisection_no_regression(struct store *st, long long exp_id);

struct bisection_outcome {
	const char *metric;
	int per_boot;
	double effect, effect_lo, effect_hi;	/* R(G->B), Hodges-Lehmann, with its CI */
	double effect_alpha;			/* the CI is at 1 - effect_alpha */
	const char *culprit;			/* commit id; NULL: none */
	const char *outcome;			/* FOUND | UNCLEAR | CANDIDATES | NO_REGRESSION */
};
int store_bisection_finish(struct store *st, long long exp_id,
			   const struct bisection_outcome *o);

/* The newest bisection: "no bisection in database 'X'" when there is none. */
int store_bisection_latest(struct store *st, long long *exp_id);
/* The newest bisection stored with exactly these options: *exp_id 0 when none. */
int store_bisection_by_args(struct store *st, long long *exp_id, const char *args);

struct bisection_status {
	const char *good, *bad, *workload;
	const char *metric, *outcome, *culprit;	/* "-", "RUNNING", "-" when not yet known */
	int per_boot;
	double effect, effect_lo, effect_hi, effect_alpha;
	int boots, kernels;		/* runs stored; variants with a kernel */
};
typedef int store_bisection_fn(const struct bisection_status *b, void *data);
/* Bisection exp_id: "no bisection N in database 'X'" when there is none. */
int store_bisection_read(struct store *st, long long exp_id, store_bisection_fn *fn,
			 void *data);

struct bisect_step_row {
	long long seq;
	const char *commit;		/* full id when written; cut to 12 when read */
	const char *mark;		/* GOOD | BAD | SKIP */
	long long n;			/* units of the commit */
	double ratio, ci_low, ci_high;	/* M/G with its 99 % CI */
};
/* Write (or replace) a step. */
int store_bisect_step(struct store *st, long long exp_id, const struct bisect_step_row *s);
/* Each step of a bisection, in order; fn returns non-zero to stop (then so does this, with -1). */
typedef int store_bisect_step_fn(const struct bisect_step_row *s, void *data);
int store_bisect_steps(struct store *st, long long exp_id, store_bisect_step_fn *fn,
		       void *data);

#endif
