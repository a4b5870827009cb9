#ifndef STORE_PROFILE_H
#define STORE_PROFILE_H
/*
 * Profiles and explanations (schema.sql): what the function profiler
 * counted in a profiled boot, and which two such boots explain a change
 * of which metric, for an experiment (an A/B, a bisection) or none.
 */
#include "store.h"
#include "strbuf.h"

struct store_explanation {
	long long id, experiment_id;	/* an A/B or a bisection; 0: none */
	long long a_run_id, b_run_id;	/* each side's first boot */
	/* adding: every boot of each side, first a_run_id and b_run_id */
	const long long *runs[2];
	size_t nruns[2];
	const char *workload, *metric;
	double created;
};

/* Inside no transaction: one explanation row and its runs', its id in *id. */
int store_explanation_add(struct store *st, long long *id, const struct store_explanation *e);

typedef int store_explanation_fn(const struct store_explanation *e, void *data);
/* The explanations of an experiment, oldest first. */
int store_explanations(struct store *st, long long experiment_id, store_explanation_fn *fn,
		       void *data);
/* One explanation by id: -1 after a message when there is none. */
int store_explanation_read(struct store *st, long long id, store_explanation_fn *fn,
			   void *data);

typedef int store_explanation_run_fn(int side, long long run_id, void *data);
/* The profiled boots of explanation e, side by side, each side's in order. */
int store_explanation_runs(struct store *st, const struct store_explanation *e,
			   store_explanation_run_fn *fn, void *data);

typedef int store_profile_fn(const char *function, long long calls, double ns, void *data);
/* A run's profile of workload, by function name. */
int store_run_profile(struct store *st, long long run_id, const char *workload,
		      store_profile_fn *fn, void *data);

/* The kernel a run booted, in a few words: its commit's short id, else its image's path. */
int store_run_kernel_label(struct store *st, struct strbuf *out, long long run_id);

#endif
