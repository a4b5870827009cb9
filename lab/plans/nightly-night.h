#ifndef NIGHTLY_NIGHT_H
#define NIGHTLY_NIGHT_H
/*
 * One night as lab/plans/nightly.c runs it, and what its parts share
 * (nightly-night.c), under it and under lab/plans/nightly-changes.c
 * (change points, confirmation, bisection) and lab/plans/nightly-notify.c
 * (what the night tells by mail and webhook), so that neither part calls
 * back into nightly.c. Only these include it.
 */
#include <git2.h>
#include <stdio.h>

#include "boot.h"
#include "context.h"
#include "store-nightly.h"
#include "strbuf.h"
#include "strvec.h"

struct night {
	struct lab_context *ctx;
	const struct lab_nightly *n;
	const char *command;		/* the lab nightly command line, as typed */
	FILE *out;
	long long id;
	struct workload_list workloads;
	struct strvec params, cmdlines;
	long *mems;
	size_t nmems;
	struct strbuf mirror;
	char head[GIT_OID_HEXSZ + 1];
	struct strvec infra;		/* what failed on the lab's side, for the summary */
	struct boot_guests guests;	/* one initramfs per content for all the night's boots */
	int measured, regressions, improvements;
	long long *counted;		/* the changes regressions and improvements count */
	size_t ncounted, counted_alloc;
	struct strbuf next;		/* stopped by a signal: what the next night goes on with */
};

/*
 * A confirmed change the night counts in its summary and exit status:
 * one it confirmed, whose bisection it ended, or that an interrupted
 * night it resumes had found; each once.
 */
void night_count(struct night *nt, long long change_id, const char *verdict);

/*
 * Something failed on the lab's side: said now, and in the night's summary.
 * Nothing while the lab stops on a signal (lib/tempfile.h): what the stop
 * broke (the boot it killed) is no failure, the night is INTERRUPTED.
 */
void night_infra(struct night *nt, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * Stopped by a signal: what the next night goes on with, in words after
 * "the next night ", for the night's last line; the first said stays.
 */
void night_stopped(struct night *nt, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Boot options of the night's boots: its clock, iters and parameters. */
void night_boot_opts(struct boot_opts *o, struct night *nt, const struct workload_list *workloads,
		     struct kernel_image *kernel, const char *cmdline, long mem);
/*
 * Build commit: 0 with *image, 1 when it does not build (the commit's
 * problem, said), -1 when the lab failed (infrastructure, said) or stops
 * on a signal (a build it killed is not the commit's).
 */
int night_build(struct night *nt, struct kernel_image *image, const char *commit);
/* The series, copied: analysing one writes to the store the list is read from. */
struct series_copy {
	struct strvec key, workload, metric, unit, target, cmdline, clock;
	long *mem;
	size_t nr, mem_alloc;
};
/* A store_nightly_series_each() callback: s appended to the copy data. */
int series_copy_add(const struct nightly_series *s, void *data);
void series_copy_release(struct series_copy *sc);
struct nightly_series series_at(const struct series_copy *sc, size_t i);

#endif
