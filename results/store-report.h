#ifndef STORE_REPORT_H
#define STORE_REPORT_H
/*
 * What the HTML report (web/) reads beyond the rows the commands read too
 * (store-experiment.h, store-verdict.h, store-bisect.h), as typed rows.
 * A row handed to a callback lives until the callback returns; a callback
 * returns non-zero to stop, and the reader then returns -1 without a
 * message of its own. A reader of one row does not call its callback when
 * the row is gone. Text is "" when the column is NULL, except where NULL
 * means something and is said; a number is NaN when NULL.
 */
#include "store.h"
#include "store-bisect.h"

/*
 * Every page of the site, by kind ('b' a bisection, 'e' any other
 * experiment, 'n' a nightly, 'r' a run) and then id. A nightly's id is
 * that of its first night.
 */
typedef int store_page_fn(char kind, long long id, void *data);
int store_report_pages(struct store *st, store_page_fn *fn, void *data);

/*
 * The newest experiments, newest first, as the index lists them, each led
 * by its worst verdict. The worst: the first by verdict (REGRESSION, then
 * IMPROVEMENT, INCONCLUSIVE, SMALL, any other), then the largest change
 * either way (B/A or A/B, whichever is larger; a metric not compared
 * last), then the first stored. So a regression is the largest change in
 * the bad direction, and with none the largest improvement leads.
 */
struct store_report_experiment_summary {
	long long id;
	const char *kind, *status, *workloads;
	double created;
	/* the worst verdict (REGRESSION, IMPROVEMENT, ...), or a bisection's outcome; "" none */
	const char *verdict;
	/* the worst verdict's metric, or the bisection's ("" before it chose one) */
	const char *workload, *metric;
	long long mem_mib, cpus;	/* the worst verdict's; 0 for a bisection */
	double ratio;			/* its B/A, or a bisection's G->B effect; NaN none */
	long long metrics;		/* workload.metric pairs among the verdicts */
	long long points;		/* machine sizes (memory, CPUs) among them */
	/* a bisection's ends: commit ids and the refs they were given as ("" none) */
	const char *good, *bad, *good_ref, *bad_ref;
	const char *culprit;		/* a bisection's; "" none */
};
typedef int store_report_experiment_summary_fn(const struct store_report_experiment_summary *e,
						void *data);
/* The newest experiments; with regressions, only the A/Bs that found one and bisections with a culprit. */
int store_report_experiments(struct store *st, long limit, int regressions,
			     store_report_experiment_summary_fn *fn, void *data);
/* The experiment of that id, as above, for its page's first line. */
int store_report_experiment_summary(struct store *st, long long exp_id,
				    store_report_experiment_summary_fn *fn, void *data);

/* The newest runs, newest first, as the index lists them. */
struct store_report_run_summary {
	long long id;
	double started;
	const char *status, *runner, *workloads, *variant, *error;
	long long experiment_id;	/* 0: none */
	const char *experiment_kind;	/* NULL: no experiment */
	const char *kernel;		/* commit, else image path */
	const char *git_ref;		/* the variant's ref, as given; "" none */
};
typedef int store_report_run_summary_fn(const struct store_report_run_summary *r, void *data);
int store_report_runs(struct store *st, long limit, store_report_run_summary_fn *fn,
		      void *data);

/*
 * Series for the index: a kernel on one command line and machine size
 * (mem_mib, cpus 0 when not recorded) with more than one OK run, the most
 * recently run first.
 */
struct store_series_kernel {
	long long kernel_id, mem_mib, cpus;
	int runs;			/* its OK runs */
	const char *cmdline, *git_commit, *release, *path;
};
typedef int store_series_kernel_fn(const struct store_series_kernel *k, void *data);
int store_report_series_kernels(struct store *st, long limit, store_series_kernel_fn *fn,
				void *data);
/* The latest OK runs of such a series, newest first. */
typedef int store_series_run_fn(long long run_id, double started, void *data);
int store_report_series_runs(struct store *st, const struct store_series_kernel *k, long limit,
			     store_series_run_fn *fn, void *data);

/* The header of an experiment's page. */
struct store_report_experiment {
	const char *status, *command, *workloads;
	double created, finished;
};
typedef int store_report_experiment_fn(const struct store_report_experiment *e, void *data);
int store_report_experiment(struct store *st, long long exp_id, store_report_experiment_fn *fn,
			    void *data);

/* The runs of an experiment, by id; mem_mib and cpus -1 when not recorded. */
struct store_report_experiment_run {
	long long id, mem_mib, cpus;
	double started;
	const char *variant, *status, *error;
};
typedef int store_report_experiment_run_fn(const struct store_report_experiment_run *r,
					    void *data);
int store_report_experiment_runs(struct store *st, long long exp_id,
				 store_report_experiment_run_fn *fn, void *data);

/* An experiment's variants by name, with the image each ran and its runs by id. */
struct store_report_variant {
	long long id;
	const char *name, *git_ref, *cmdline;
	const char *commit, *hash, *release;
	const char *path;		/* the image's; NULL: this host (no kernel) */
	const long long *runs;
	size_t nruns;
};
typedef int store_report_variant_fn(const struct store_report_variant *v, void *data);
int store_report_variants(struct store *st, long long exp_id, store_report_variant_fn *fn,
			  void *data);

/*
 * The samples a verdict counts (counted_samples) of an experiment's
 * variants A and B, in one pass: by run, each run's in the order stored.
 * mem_mib and cpus are 0 when not recorded.
 */
struct store_ab_sample {
	int side;			/* 0 A, 1 B */
	const char *workload, *metric;
	long long mem_mib, cpus;
	long long run_id, iteration;	/* the boot that measured it, and when in it */
	double value;
};
typedef int store_ab_sample_fn(const struct store_ab_sample *s, void *data);
int store_experiment_ab_samples(struct store *st, long long exp_id, store_ab_sample_fn *fn,
				void *data);

/* A run's page: its fields as stored text (NULL: none), in this order. */
enum store_report_run_field {
	RR_STATUS, RR_ERROR, RR_RUNNER, RR_WORKLOADS, RR_PARAMS, RR_CMDLINE, RR_MEM_MIB,
	RR_CPUS, RR_ACCEL, RR_HOST, RR_HOST_CPU, RR_QEMU_VERSION, RR_WALL_S, RR_TO_HELLO_S,
	RR_BAD_LINES, RR_KERNEL_PATH, RR_KERNEL_HASH, RR_ARCH, RR_KERNEL_RELEASE,
	RR_KERNEL_COMMIT, RR_NR_FIELDS
};
struct store_report_run {
	long long id;
	const char *text[RR_NR_FIELDS];
	double started, ended;
	const char *console_log, *console_tail;
	long long experiment_id;	/* 0: none */
	const char *experiment_kind;	/* NULL: no experiment */
	const char *variant;		/* NULL: none */
};
typedef int store_report_run_fn(const struct store_report_run *r, void *data);
int store_report_run(struct store *st, long long run_id, store_report_run_fn *fn, void *data);

/* A bisection's page; per_boot -1 while its unit is not chosen. */
struct store_report_bisection {
	const char *status, *good, *bad, *workload, *metric, *culprit, *outcome;
	const char *good_ref, *bad_ref;	/* as given to lab bisect; "" not recorded */
	int per_boot;
	double created, finished, effect, effect_lo, effect_hi, effect_alpha;
};
typedef int store_report_bisection_fn(const struct store_report_bisection *b, void *data);
int store_report_bisection(struct store *st, long long exp_id, store_report_bisection_fn *fn,
			   void *data);
/*
 * Its steps in order, as store_bisect_steps() but each with its full
 * commit id, and n -1 when not recorded.
 */
int store_report_bisect_steps(struct store *st, long long exp_id, store_bisect_step_fn *fn,
			      void *data);

/* The nightlies by name, each with its id (its first night's) and its newest night. */
struct store_report_nightly {
	long long id;
	const char *name;
	long long nights, series, changes;
	double last_started;
	const char *last_status, *last_summary, *last_head;
	/* its worst change, as the worst verdict of an experiment; "" and NaN: none */
	const char *worst_metric, *worst_verdict, *worst_kind;
	double worst_ratio;
};
typedef int store_report_nightly_fn(const struct store_report_nightly *n, void *data);
int store_report_nightlies(struct store *st, store_report_nightly_fn *fn, void *data);
/* The nightly of that id, as above. */
int store_report_nightly(struct store *st, long long id, store_report_nightly_fn *fn,
			 void *data);

/* A nightly's points: by series key, each series in commit order. */
struct store_report_nightly_point {
	const char *series, *workload, *metric, *unit, *target, *cmdline, *clock;
	long long mem_mib, seq, boots;
	const char *commit;
	double value;
};
typedef int store_report_nightly_point_fn(const struct store_report_nightly_point *p,
					   void *data);
int store_report_nightly_points(struct store *st, const char *nightly,
				store_report_nightly_point_fn *fn, void *data);

/*
 * A nightly's changes, by series key and then as found. ratio is NaN when
 * not recorded; verdict, culprit and outcome "" while there is none;
 * ab_experiment and bisection 0.
 */
struct store_report_nightly_change {
	long long id, night_id, ab_experiment, bisection;
	const char *series, *kind, *before, *after, *verdict, *culprit, *outcome;
	double ratio;
};
typedef int store_report_nightly_change_fn(const struct store_report_nightly_change *c,
					    void *data);
int store_report_nightly_changes(struct store *st, const char *nightly,
				 store_report_nightly_change_fn *fn, void *data);

#endif
