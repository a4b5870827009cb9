#ifndef STORE_EVENTS_H
#define STORE_EVENTS_H
/*
 * Event counts (events.h) as the store keeps them: the table events,
 * shaped as samples and written with them by store_run_finish(), which
 * parts the two by metric_is_event(). Typed rows as in
 * store-experiment.h: a row lives until its callback returns, a callback
 * returns non-zero to stop. A database made before the table reads as
 * one without events.
 */
#include "store.h"

struct store_event {
	const char *variant;		/* the run's variant: "A", "B" */
	long long mem_mib;
	int cpus;
	const char *workload, *metric;
	double value;
};
typedef int store_event_fn(const struct store_event *e, void *data);
/*
 * The events of an experiment's runs that ended OK, warm-ups left out, by
 * memory size, CPU count, workload, metric and variant.
 */
int store_experiment_events(struct store *st, long long exp_id, store_event_fn *fn,
			    void *data);

/*
 * The events of a bisection's (exp_id) OK runs of its culprit (variant
 * "B") and of the culprit's parent, as its confirmation measured it
 * (variant "A"), warm-ups left out, ordered as above.
 */
int store_culprit_events(struct store *st, long long exp_id, const char *culprit,
			 store_event_fn *fn, void *data);

/*
 * The events of an explanation's profiled boots (store-profile.h), its A
 * boots as variant "A" and its B boots as "B", warm-ups left out, ordered
 * as above.
 */
int store_explanation_events(struct store *st, long long explanation_id, store_event_fn *fn,
			     void *data);

/*
 * Each distinct accelerator, clock and runner of an experiment's OK runs
 * at each point, with the host the local runner recorded it measured (0
 * for other runners).
 */
typedef int store_accel_fn(long long mem_mib, int cpus, const char *accel, const char *clock,
			   const char *runner, const struct run_host *host, void *data);
int store_experiment_accels(struct store *st, long long exp_id, store_accel_fn *fn,
			    void *data);

#endif
