#ifndef AB_H
#define AB_H
/*
 * The A/B plan: two variants (kernel image plus command line) booted in
 * interleaved rounds (AB BA AB ...) at each sweep point (memory size x CPU
 * count), until every metric has a verdict or the boot budget is spent,
 * then one verdict per (metric, point) stored in the experiment.
 *
 * Everything lives in the database as it happens: killing the plan loses
 * no finished boot, and ab_run() with opts.resume continues the
 * experiment. Statistics come from results/stats; this module only decides
 * what to boot next and what to compare.
 */
#include "boot.h"
#include "context.h"
#include "stats.h"
#include "strvec.h"

struct ab_variant {
	const struct kernel_image *kernel;	/* resolved once, by the command or its build */
	const char *cmdline;
	const char *git_ref;	/* what the kernel was built from, if anything */
};

struct ab_opts {
	struct ab_variant v[2];		/* A, B */
	struct boot_opts boot;		/* what both share; kernel, cmdline, mem, cpus unused */
	const long *mems;		/* MiB; one entry per sweep point */
	size_t nmems;
	const long *cpus;
	size_t ncpus;
	long boots;			/* fixed boots per side; 0: adaptive */
	long max_boots;			/* adaptive: most boots per side per point */
	double alpha, delta;
	int force;			/* compare despite differing provenance */
	long long resume;		/* experiment to continue; 0: new */
	const char *command;		/* recorded with the experiment */
};

enum ab_outcome {
	AB_NO_REGRESSION = 0,
	AB_REGRESSION = 1,
	AB_ERROR = 2,
};

/* Runs the plan; *exp_id is the experiment (also when resumed). */
enum ab_outcome ab_run(long long *exp_id, struct lab_context *ctx,
		       const struct ab_opts *opts);

/*
 * An earlier experiment of this plan, found by what it is (kernels,
 * command lines, workloads, the runs' parameters, runner, clock and
 * points), to resume or reuse: *id 0 when none, *done when it finished.
 */
int ab_find(long long *id, int *done, struct lab_context *ctx, const struct ab_opts *o);

enum ab_format { AB_TEXT, AB_CSV, AB_JSON };

/* "text", "csv" or "json"; -1 for anything else (nothing printed). */
int ab_format_parse(enum ab_format *out, const char *name);

enum ab_report_flags {
	/* text: after the table, each metric's block (means, deviations, p, MDE) */
	AB_REPORT_VERBOSE = 1 << 0,
};

/*
 * Print an experiment's stored verdicts; -1 when it does not exist. As
 * text: what the experiment is, then a table of one row per metric.
 */
int ab_report(FILE *f, struct store *st, long long exp_id, enum ab_format fmt,
	      enum ab_report_flags flags);

/*
 * Print the event counts that differ between a bisection's culprit (hex id)
 * and its parent, as its confirmation measured them, a table per point:
 * nothing when none differ. -1 when they cannot be read.
 */
int ab_report_culprit_events(FILE *f, struct store *st, long long bisection,
			     const char *culprit);

struct events_report;
/* The event counts of ev that differ, a table per point, the sides headed a and b. */
void ab_report_print_events(FILE *f, const struct events_report *ev, const char *a,
			    const char *b);
/* ',\n"events": [...]': the rows of ev, as the A/B's json has them. */
void ab_report_json_events(FILE *f, const struct events_report *ev);

/* AB_REGRESSION when any stored verdict of the experiment is REGRESSION. */
enum ab_outcome ab_outcome_of(struct store *st, long long exp_id);

#endif
