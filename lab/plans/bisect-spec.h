#ifndef BISECT_SPEC_H
#define BISECT_SPEC_H
/*
 * What a bisection is asked (struct bisect_spec) and what it ends with
 * (struct bisect_outcome), for the driver (bisect-run.h) and the plans
 * that start one (lab nightly): the spec checked, written to its stored
 * row and read back for a resume. The outcome owns its strings
 * (bisect_outcome_release()); a stored spec owns what its spec points
 * to (bisect_stored_spec_release()).
 */
#include <git2.h>

#include "bisect.h"
#include "boot.h"
#include "context.h"
#include "store-bisect.h"
#include "strbuf.h"
#include "strvec.h"

struct bisect_spec {
	const char *good, *bad;		/* refs or commit ids; bad must descend from good */
	const char *repo;		/* NULL: core.repo */
	const char *arch;		/* x86_64 | aarch64; NULL: this host */
	/*
	 * Config fragments every commit is built with (files, in order); NULL
	 * or empty: none. Each is stored with the blob id of its content, and
	 * a resume refuses one that changed since: it would build the commits
	 * still to measure with another config than those measured.
	 */
	const struct strvec *fragments;
	/*
	 * NULL: measure both ends (more boots while unclear) and bisect the
	 * metric with the largest significant regression from good to bad.
	 */
	const char *metric;
	/*
	 * The boots: workloads (required), cmdline, mem, cpus, iters, numa,
	 * params, runner, accel, clock, timeout. kernel, experiment_id and
	 * variant_id are the driver's and ignored. clock NULL: run.clock of
	 * the config, which is then kept with the bisection, so that a
	 * resume measures in the clock it started with.
	 */
	struct boot_opts boot;
	double alpha;			/* good -> bad over all its looks; 0: 0.05 */
	/*
	 * The band of a verdict (docs/statistics.md): good -> bad must regress
	 * beyond it to be bisected, and a step is judged against it; 0: 0.02.
	 * Under virtual time an effect far below 2 % is resolved exactly.
	 */
	double delta;
	long long max_boots;		/* budget of boots in all; 0: from the number of commits */
	/*
	 * Non-zero: an A/B of the two ends (the nightly's confirming one)
	 * whose boots the ends start from, taken when it ran in virtual time
	 * with the same kernels, command line, workloads, memory and CPUs
	 * (bisector_take_seed()); otherwise the ends are booted as usual.
	 */
	long long seed;
	/*
	 * Non-zero: continue that bisection with the spec stored when it
	 * started (results/store-bisect.h, table bisect_specs); of this
	 * spec only max_boots counts, raising the budget when non-zero. A
	 * bisection stored by a lab older than bisect_specs is refused.
	 */
	long long resume;
	const char *command;		/* what `lab list` and the reports show; may be NULL */
	/*
	 * The command that resumes the bisection but its id ("lab bisect
	 * --db lab.db --resume"), said when it starts; NULL: none said.
	 */
	const char *resume_command;
};

#define BISECT_SPEC_INIT { 0 }

enum bisect_verdict {
	BISECT_FOUND,		/* one first-bad commit, confirmed (or nothing to confirm it against) */
	BISECT_UNCLEAR,		/* a culprit that does not explain the whole effect */
	BISECT_CANDIDATES,	/* several commits left that the boots could not tell apart */
	BISECT_NO_REGRESSION,	/* bad is not worse than good: nothing bisected */
	BISECT_INCONCLUSIVE,	/* could not tell whether bad is worse, at the most boots */
	BISECT_FAILED,		/* cannot finish: an end's boot reported no sample of the metric */
};

const char *bisect_verdict_name(enum bisect_verdict v);

struct bisect_outcome {
	enum bisect_verdict verdict;
	char metric[64];		/* the metric bisected; "" when none regressed */
	/* FOUND and UNCLEAR: the culprit, with its subject and "Name <email>" */
	char culprit[GIT_OID_HEXSZ + 1];
	struct strbuf subject, author;
	struct strvec candidates;	/* CANDIDATES: each left, as "id subject" */
	/*
	 * R(good -> bad) of the metric, Hodges-Lehmann on per-boot medians,
	 * with its CI at 1 - effect_alpha, decided on effect_boots a side;
	 * NaN when no metric regressed at all (metric "").
	 */
	struct stats_hl effect;
	double effect_alpha;
	size_t effect_boots;
	double delta;			/* the band good -> bad was judged with */
	int confirmed;			/* culprit^ against the culprit was measured: */
	struct bisect_confirmation confirmation;
	size_t steps, builds, boots;	/* of this call; boots include the confirmation's */
	int unmarked;			/* stopped by a signal, but not stored INTERRUPTED (said) */
};

void bisect_outcome_init(struct bisect_outcome *out);
void bisect_outcome_release(struct bisect_outcome *out);

/*
 * A metric the workloads cannot report is refused (-1 after a message)
 * before anything is built or stored, where the lab's guest runs them
 * (workload_metric()). An exec: program's own names, or what the local
 * runner's build.command artifact prints in the guest's stead, only the
 * good end's first boot tells: *unknown is 1 then.
 */
int bisect_spec_metric_check(int *unknown, struct lab_context *ctx,
			     const struct bisect_spec *spec);

/*
 * The spec as bisect_specs stores it (results/store-bisect.h): written
 * from a spec and the boots as the driver settled them (the clock), read
 * back for a resume into a spec whose strings the stored spec owns. Both
 * read the config fragments: -1 after a message naming a fragment that
 * cannot be read, or, on loading, one that changed since.
 */
int bisect_spec_to_row(struct bisect_spec_row *r, const struct bisect_spec *spec,
		       const struct boot_opts *bo);
struct bisect_stored_spec {
	struct bisect_spec_row row;
	struct workload_list workloads;
	struct strvec params, fragments;
	struct bisect_spec spec;
};
int bisect_spec_load(struct bisect_stored_spec *s, struct store *st, long long id);
void bisect_stored_spec_release(struct bisect_stored_spec *s);

#endif
