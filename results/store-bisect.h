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
 * What a bisection was started with (the table bisect_specs), so that a
 * resume reads it back as data: refs as given, boot options as parsed.
 * Empty strings and numbers 0 are "not given" and stored as NULL, so that
 * the config's defaults apply when it is resumed.
 */
struct bisect_spec_row {
	struct strbuf good_ref, bad_ref, repo, arch, metric;
	struct strbuf workloads;		/* comma-separated, in order */
	struct strbuf params;			/* K=V, space-separated */
	struct strbuf cmdline, runner, accel, clock, guest, target, targets;
	struct strbuf fragments;		/* "BLOB-ID PATH" a line, in order */
	struct strbuf good, bad;		/* read back: the commits the refs were then */
	long iters, mem_mib, cpus, numa, timeout_s;
	double alpha;
	double delta;				/* 0: 2 % (the band of a verdict) */
	long long max_boots;
	long long seed;				/* the A/B whose boots of the ends it starts from */
};
void bisect_spec_row_init(struct bisect_spec_row *r);
void bisect_spec_row_release(struct bisect_spec_row *r);

/*
 * A new bisection of good..bad (commit ids) with its spec, in one
 * transaction; command is what `lab list` shows.
 */
int store_bisection_create(struct store *st, long long *exp_id, const char *command,
			   const char *good, const char *bad, const struct bisect_spec_row *spec);
/*
 * Its spec, into r (initialized here): "no bisection N in database 'X'"
 * when there is none, and a one-line error for a bisection stored before
 * specs were, which cannot be resumed.
 */
int store_bisect_spec_read(struct store *st, long long exp_id, struct bisect_spec_row *r);
/*
 * The newest bisection stored with this spec, its budget and seed aside, of these
 * commits (a ref that moved since makes another bisection): *exp_id 0
 * when none.
 */
int store_bisection_by_spec(struct store *st, long long *exp_id,
			    const struct bisect_spec_row *spec, const char *good, const char *bad);
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
