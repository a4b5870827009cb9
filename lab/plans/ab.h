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
	/*
	 * resolved once, by the command or its build, and recorded once:
	 * by its build, else by the plan's first look at the store (kernel->id)
	 */
	struct kernel_image *kernel;
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
	double alpha;
	double delta;			/* the band; 0: its clock's (STATS_DELTA_*) */
	int force;			/* compare despite differing provenance */
	long long resume;		/* experiment to continue; 0: new */
	const char *command;		/* recorded with the experiment */
};

enum ab_outcome {
	AB_NO_REGRESSION = 0,
	AB_REGRESSION = 1,
	AB_ERROR = 2,
	/*
	 * Stopped by SIGINT or SIGTERM (the command deferred them:
	 * fatal_signal_defer()): the experiment is INTERRUPTED, every boot
	 * that ended is stored, and it goes on with --resume. Never an exit
	 * status: the command says how to resume and dies of the signal.
	 */
	AB_INTERRUPTED = 3,
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

/* AB_REGRESSION when any stored verdict of the experiment is REGRESSION. */
enum ab_outcome ab_outcome_of(struct store *st, long long exp_id);

#endif
