#ifndef EXPLAIN_H
#define EXPLAIN_H
/*
 * Where the time went: one boot of each side with the workload's cycles
 * sampled where the PMU can, else the kernel's function profiler on,
 * around the workload (the guest's lab.profile=1), every
 * function's calls and time stored (profiles), and an explanation row
 * tying the two boots to the metric they explain. The profiled boots
 * belong to no experiment's variants and never reach a statistic
 * (counted_samples leaves them out): the verdict stays the one of the
 * boots without the profiler.
 */
#include "ab.h"
#include "ab-report.h"
#include "boot.h"
#include "context.h"

struct explain_opts {
	struct ab_variant v[2];		/* A, B */
	struct boot_opts boot;		/* shared; kernel, cmdline, mem, cpus unused */
	long mem_mib, cpus;		/* 0: the configuration's */
	const char *workload, *metric;	/* the metric whose change is explained */
	long long experiment_id;	/* the A/B or bisection it explains; 0: none */
	int boots;			/* a side; 0: one in virtual time, else EXPLAIN_WALL_BOOTS */
	const char *functions;		/* "f1,f2": by function_graph where no profiler; NULL */
};

/* Profiled boots a side in wall time unless told, where one boot's times are noise. */
#define EXPLAIN_WALL_BOOTS 5
#define EXPLAIN_MAX_BOOTS 20

/*
 * --functions "f1,f2": each a name ftrace knows a function by (a C
 * identifier, perhaps with a compiler clone's suffix: "f.isra.0"), at most
 * as many bytes as the guest takes. -1 after one line naming the bad name.
 */
int explain_functions_check(const char *functions);

/*
 * Boot both sides profiled, A and B in turn, and store the explanation,
 * its id in *id. -1 after a message.
 */
int explain_run(long long *id, struct lab_context *ctx, const struct explain_opts *o);

/*
 * A bisection's culprit against its parent, when its boots ran in virtual
 * time (clock "icount ...") with the lab's guest, where one profiled boot
 * a side is exact: stored with the bisection. A kernel without the
 * profiler, or a boot that fails, leaves the bisection as it is, with a
 * line saying why.
 */
void explain_culprit(struct lab_context *ctx, struct kernel_image *parent,
		     struct kernel_image *culprit, const struct boot_opts *bo,
		     const char *clock, const char *metric, long long bisection);

/*
 * Append explanation id to out: the metric in the two profiled boots, then the
 * top functions whose time or calls changed most (all with top 0). -1
 * when it cannot be read.
 */
int explain_report(struct strbuf *out, struct store *st, long long id, int top,
		   enum ab_format fmt);

/* Every explanation of experiment exp_id, each after an empty line, top functions each. */
int explain_report_all(struct strbuf *out, struct store *st, long long exp_id, int top);

/* The functions explain_report() shows by default. */
#define EXPLAIN_TOP 10

#endif
