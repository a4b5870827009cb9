#ifndef STORE_EXPERIMENT_H
#define STORE_EXPERIMENT_H
/*
 * Experiments, their variants, and the runs and samples they hold, as
 * typed rows: the commands ask, results/ speaks SQL. A row handed to a
 * callback lives until the callback returns; a callback returns non-zero
 * to stop, and the reader then returns -1 without a message of its own.
 * Every other failure is reported here, naming the database.
 */
#include "store.h"
#include "strvec.h"

/* Mark an experiment DONE with its end time. */
int store_experiment_done(struct store *st, long long exp_id);
/* Mark it REFUSED: its runs differ in what they must share. */
int store_experiment_refused(struct store *st, long long exp_id);
/*
 * Mark a RUNNING experiment INTERRUPTED: its lab was stopped by a signal
 * and said how to resume it; store_experiment_resumed() makes it RUNNING again.
 */
int store_experiment_interrupted(struct store *st, long long exp_id);
int store_experiment_resumed(struct store *st, long long exp_id);
/*
 * Boots of an experiment left RUNNING by a lab that was stopped become
 * INFRA; those with a live owner (store_open closed the others) are left.
 */
int store_runs_interrupted(struct store *st, long long exp_id);
/* *exists: whether experiment exp_id is in the database. */
int store_experiment_exists(struct store *st, long long exp_id, int *exists);
/* How many runs (boots) an experiment has stored, whatever their status. */
int store_experiment_runs(struct store *st, long long *n, long long exp_id);
/*
 * An A/B as its experiment row, its variants and its runs hold it: what
 * store_experiment_find_ab() looks for.
 */
struct store_ab_spec {
	long long kernel_id[2];		/* A's and B's; 0: none (the local runner's own) */
	const char *cmdline[2];		/* NULL: "" */
	const char *workloads;		/* "zeroing,demote", as runs store them */
	const char *params;		/* the runs' lab.* parameters, as stored */
	const char *runner;
	const char *clock;		/* "wall", "icount", or NULL: either */
	const long *mems, *cpus;	/* the sweep's points */
	size_t nmems, ncpus;
};
/*
 * The newest A/B experiment, REFUSED ones aside, with these kernels,
 * command lines and workloads, none of whose runs differs from the spec in
 * parameters, runner or clock, or was booted at a point the sweep does
 * not have (one without runs yet matches): *id 0 when none, else its id,
 * with *done set when it finished.
 */
int store_experiment_find_ab(struct store *st, long long *id, int *done,
			     const struct store_ab_spec *spec);

/*
 * The words for the clock(s) an experiment was measured in: one clock's
 * (clock_words()), or each clock's joined by " and " for an experiment
 * refused for mixing them; "no runs yet" before its first run.
 */
int store_experiment_clock_words(struct store *st, struct strbuf *out, long long exp_id);

/* 1 when the experiment has runs and all of them ran in virtual time (icount), else 0; -1 error. */
int store_experiment_virtual(struct store *st, long long exp_id);

/* What a new variant is built from; kernel_id 0: none (the local runner). */
struct store_variant_spec {
	long long kernel_id;
	const char *cmdline;		/* NULL: "" */
	const char *git_ref;		/* NULL: none */
};
/*
 * A new A/B experiment with its variants A and B (vid[0], vid[1]), in one
 * transaction: one rolled back (a full disk) leaves no id to resume.
 */
int store_experiment_create_ab(struct store *st, long long *exp_id, long long vid[2],
			       const char *command, const char *workloads,
			       const struct store_variant_spec v[2]);

struct store_variant {
	long long id, kernel_id;	/* kernel_id 0: none */
	const char *name, *cmdline;
	const char *kernel;		/* "ref commit", the image's path, or "(this host)" */
	const char *hash;		/* the image's, cut to 12; "" for none */
	const char *workloads;		/* the experiment's */
};
typedef int store_variant_fn(const struct store_variant *v, void *data);
/* The variants of an experiment, by name; kind NULL: an experiment of any kind. */
int store_experiment_variants(struct store *st, long long exp_id, const char *kind,
			      store_variant_fn *fn, void *data);
/* The variant called name in an experiment: *id 0 when there is none. */
int store_variant_id(struct store *st, long long *id, long long exp_id, const char *name);
/* Find or add variant name, recording the commit it stands for. */
int store_variant_record(struct store *st, long long *id, long long exp_id, const char *name,
			 const char *git_ref);
/* The kernel image a variant was built into. */
int store_variant_kernel(struct store *st, long long variant_id, long long kernel_id);
/*
 * A variant's boots at a sweep point so far: OK ones, and failed ones. A
 * boot left INFRA by a lab that was stopped is not the variant's failure.
 */
int store_variant_boots(struct store *st, long long variant_id, long mem, long cpus,
			long *ok, long *failed);

/*
 * Every column in which an experiment's OK runs differ, though they must
 * not (clock, the class of their targets, runner, host, ...), in a fixed
 * order, with two of the values (NULL read as ""); then every meta entry
 * workload.NAME.sha256 or .version (a user's workload program) that
 * differs, named by its key.
 */
typedef int store_provenance_fn(const char *column, const char *first, const char *second,
				void *data);
/* The distinct classes of the targets of an experiment's OK runs ("": none), onto out. */
int store_experiment_classes(struct store *st, struct strvec *out, long long exp_id);
int store_experiment_provenance(struct store *st, long long exp_id, store_provenance_fn *fn,
				void *data);

/*
 * The metrics of an experiment for which higher is better, as
 * "workload.metric": those a user's workload announced in a run's meta
 * entry direction.WORKLOAD.METRIC = higher (stress-ng's bogo ops/s, say).
 * Every other metric is a cost: lower is better.
 */
int store_experiment_higher_better(struct store *st, long long exp_id, struct strvec *out);

/* The command experiment exp_id was started with, added to out; -1 when there is none. */
int store_experiment_command(struct store *st, struct strbuf *out, long long exp_id);

/* An experiment as the report's header shows it. */
struct store_experiment {
	const char *status, *workloads, *command, *kind;
	int points;			/* sweep points with verdicts */
	int boots_ok, boots_failed;
	double created;
};
typedef int store_experiment_fn(const struct store_experiment *e, void *data);
/* Experiment exp_id: "no experiment N in database 'X'" when there is none. */
int store_experiment_read(struct store *st, long long exp_id, store_experiment_fn *fn,
			  void *data);

/* lab list: the newest runs and experiments, newest first. */
struct store_run_summary {
	long long id, mem_mib, experiment_id;
	struct run_host host;		/* the local runner's; 0: none */
	double started, wall_s;		/* wall_s 0 when unknown */
	const char *status, *runner, *workloads;
	const char *kernel;		/* release, else path, else "-" */
	int cpus, samples;
};
typedef int store_run_summary_fn(const struct store_run_summary *r, void *data);
int store_runs_recent(struct store *st, long limit, store_run_summary_fn *fn, void *data);

struct store_experiment_summary {
	long long id;
	double created;
	const char *status, *kind, *workloads;
	const char *verdicts;		/* "REGRESSION 1, SAME 3", worst first; NULL: none */
	const char *culprit;		/* a bisection's, its commit id; NULL: none */
	const char *outcome;		/* a bisection's: FOUND, UNCLEAR...; NULL: none */
	int runs;
};
typedef int store_experiment_summary_fn(const struct store_experiment_summary *e, void *data);
int store_experiments_recent(struct store *st, long limit, store_experiment_summary_fn *fn,
			     void *data);

/* A run as lab show prints it: each field as stored text (NULL: none) and as a number. */
enum store_run_field {
	RUN_STATUS, RUN_ERROR, RUN_RUNNER, RUN_TARGET, RUN_CLASS, RUN_WORKLOADS, RUN_PARAMS, RUN_KERNEL,
	RUN_KERNEL_HASH, RUN_ARCH, RUN_CMDLINE, RUN_MEM_MIB, RUN_CPUS, RUN_ACCEL, RUN_HOST,
	RUN_HOST_CPU, RUN_QEMU_VERSION, RUN_WALL_S, RUN_TO_HELLO_S, RUN_BAD_LINES,
	RUN_CONSOLE_LOG, RUN_STARTED, RUN_CONSOLE_TAIL, RUN_EXPERIMENT, RUN_VARIANT, RUN_NR_FIELDS
};
struct store_run_view {
	long long id;
	const char *text[RUN_NR_FIELDS];
	double num[RUN_NR_FIELDS];
	struct run_host host;		/* the local runner's; 0: none */
};
typedef int store_run_view_fn(const struct store_run_view *r, void *data);
/* Run run_id: "no run N in database 'X'" when there is none. */
int store_run_read(struct store *st, long long run_id, store_run_view_fn *fn, void *data);

/* A run's metadata (run_meta), by key. */
typedef int store_meta_fn(const char *key, const char *value, void *data);
int store_run_meta(struct store *st, long long run_id, store_meta_fn *fn, void *data);

/* Each line a run's reader dropped, in the order read. */
typedef int store_dropped_fn(long long seq, const char *reason, const char *line, void *data);
int store_dropped_lines(struct store *st, long long run_id, store_dropped_fn *fn, void *data);

/* Each sample of a run, in the order stored. */
typedef int store_sample_fn(const struct sample *s, void *data);
int store_run_samples(struct store *st, long long run_id, store_sample_fn *fn, void *data);
/* Each event count of a run (store-events.h's table) as a sample, by workload and metric. */
int store_run_events(struct store *st, long long run_id, store_sample_fn *fn, void *data);
/* Each sample of these runs, warm-ups included, by workload, metric and unit. */
int store_runs_samples(struct store *st, const long long *run_ids, size_t nr,
		       store_sample_fn *fn, void *data);
/* The distinct clocks of these runs, in run order, pushed onto out. */
int store_runs_clocks(struct store *st, struct strvec *out, const long long *run_ids,
		      size_t nr);
/* The metrics a run's samples name, sorted, pushed onto out. */
int store_run_metrics(struct store *st, struct strvec *out, long long run_id);

/*
 * The samples a verdict counts (the view counted_samples: runs that ended
 * OK, warm-ups left out) of one variant of an experiment, by workload,
 * metric, unit and run, each run's in the order stored. mem or cpus < 0:
 * any; metric NULL: every metric.
 */
struct store_counted_sample {
	const char *workload, *metric, *unit;
	long long run_id;
	double value;
	const char *target;	/* the run's target (run_targets); "": none */
};
typedef int store_counted_fn(const struct store_counted_sample *s, void *data);
int store_counted_samples(struct store *st, long long exp_id, long long variant_id, long mem,
			  long cpus, const char *metric, store_counted_fn *fn, void *data);

#endif
