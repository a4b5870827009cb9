#ifndef BISECT_OPS_H
#define BISECT_OPS_H
/*
 * What lab bisect measures with (bisect-run.c's two drivers): the state
 * of a bisection in progress, each kernel in it (the ends, the
 * candidates, the culprit's parent) with its build and boot plans, and
 * struct bisect_ops' callbacks over them: stored boots read back, one
 * more boot built and run, a step recorded.
 */
#include "bisect.h"
#include "boot.h"
#include "context.h"
#include "gitutil.h"
#include "kernel-image.h"
#include "refbuild.h"
#include "subprocess.h"

/* The culprit's parent, measured to confirm. */
#define BISECT_PARENT (-3)

struct who {
	git_oid commit;
	char name[16];
	long long variant_id;
	struct kernel_image image;	/* built (or found) once, booted by every plan; image.id its row */
	long long seed_variant;		/* an end's variant in the seed A/B; 0: none */
	int build_failed, prepared, failures;
	int ahead;			/* handed to a build ahead (bisector_ahead) */
	/* one plan, or one per target of --targets, taken in turn boot by boot */
	struct boot_plan *plans;
	size_t nplans, turn;
};

struct bisector {
	struct lab_context *ctx;
	struct kernel_tree t;
	struct build_spec spec;
	struct boot_opts bo;
	struct boot_guests guests;	/* one initramfs for every commit's plans */
	long long exp_id;
	char metric[64];
	int per_boot, locked;
	int metric_unknown;		/* only the good end's first boot tells whether it has it */
	/*
	 * an end's boot went well and reported no sample of the metric: every
	 * boot more would do the same, so the bisection ends FAILED
	 */
	int cannot_finish;
	const char *repo;		/* --repo; NULL: core.repo */
	struct who g, b, p, *cand;
	/* a lab build of the candidates that may come next, while a boot runs */
	struct child builder;
	int building;
	int ahead_of, ahead[2];
	size_t nahead;
	/* the A/B whose boots of the ends count as theirs (bisect_spec.seed); 0: none */
	long long seed;
	char seed_clock[64];
	long seed_mem, seed_cpus;
	size_t ncand, builds, boots, seq;
	size_t width;			/* commits booted at once: the targets of --targets */
	size_t turn;			/* batches booted on the targets (bisector_measure_many) */
	size_t batch_first;		/* the first step the last batch of candidates booted for */
	long long max_boots, boots_before;	/* the budget, and boots stored by earlier runs */
	/* the band of its verdicts: --delta, else settled by the clock of its first boot */
	struct bisect_options *opt;
	int band_given, band_settled;
	/* the step under way: from its commit's first measurement, its boots and time */
	int step_open;
	size_t step_boots;
	double step_start;
};

struct who *bisector_who(struct bisector *bs, int who);
const char *bisector_workload(struct bisector *bs);
/* who's variant, recorded once. */
int bisector_variant(struct bisector *bs, struct who *w);
void bisector_release(struct bisector *bs);
/*
 * Without --delta, once the bisection has a boot: BISECT_VIRTUAL_DELTA
 * into bs->opt when its boots are in virtual time, the wall's default
 * otherwise. -1 when the store cannot be read.
 */
int bisector_settle_band(struct bisector *bs);

/*
 * Start the ends from the boots of A/B seed (0: none) when it can stand
 * for them: done, in virtual time, of these workloads, and each end a
 * variant of it with the same kernel (the bisection builds the ends
 * here to know) and command line, booted at the bisection's memory and
 * CPUs. Otherwise a line says why and the ends are booted as usual.
 * They count while the bisection's own boots run in the seed's clock.
 */
int bisector_take_seed(struct bisector *bs, long long seed);

/* struct bisect_ops over a struct bisector (data). */
int bisector_exact(void *data);
int bisector_boots(void *data, int who, double **v, size_t *n);
int bisector_measure(void *data, int who);
/* Commits boot at once on the targets of --targets: how many (1 without). */
int bisector_width(struct bisector *bs);
int bisector_measure_many(void *data, const int *who, size_t n, int *rc);
int bisector_decided(void *data, int who, enum bisect_mark mark, size_t n,
		     const struct stats_hl *hl);
/*
 * The candidates after who, built while who boots (wall time only) by a
 * `lab build` of this lab's binary, database, config, repository and
 * build spec, its output in the build logs; the bisection's own build of
 * one then waits for it (the builds' lock) and finds it in the cache.
 * One such build at a time; bisector_release() waits for it to end.
 */
void bisector_ahead(void *data, int who, const int *next, size_t n);

#endif
