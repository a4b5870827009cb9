#ifndef EVENTS_H
#define EVENTS_H
/*
 * Event counts beside times. The guest sends what the kernel counted
 * around each iteration (page faults, THP allocations, TLB flushes,
 * context switches) as samples of metrics "ev.NAME" in unit "events"
 * (runners/protocol.h, PROTOCOL_EVENT_PREFIX). Under emulation nothing
 * charges time for what hardware pays per fault or miss, so a time can
 * move one way while the work moved the other: the counts tell which, in
 * any clock. They are never decided on: the store keeps them apart from
 * the samples (store-events.h), so that no verdict, Benjamini-Hochberg
 * adjustment, schedule, bisection or nightly series reads one.
 *
 * Here: which metric is an event count, what the runs of an A/B measured
 * (emulated in virtual or wall time, or hardware), the event metrics whose
 * median an iteration differs between A and B, and the verdicts those
 * counts contradict. An events_report owns its arrays;
 * events_report_release() frees them.
 */
#include <stddef.h>

#include "store.h"
#include "store-verdict.h"
#include "strbuf.h"

/* runners/protocol.h's PROTOCOL_EVENT_PREFIX (tests/unit/test-events.c checks it) */
#define EVENT_METRIC_PREFIX "ev."

/* 1 when metric (without its workload) is an event count. */
int metric_is_event(const char *metric);

/* What runs measured, from their accelerator and clock. */
enum measured {
	MEASURED_HARDWARE = 1 << 0,		/* KVM, a remote host, a board */
	MEASURED_EMULATED_WALL = 1 << 1,	/* TCG, wall time */
	MEASURED_EMULATED_VIRTUAL = 1 << 2,	/* TCG, icount */
	MEASURED_UNKNOWN = 1 << 3,		/* no accelerator recorded */
	MEASURED_THIS_HOST = 1 << 4,		/* the local runner: the host's own kernel */
};
enum measured measured_of(const char *accel, const char *clock, const char *runner);
/*
 * kinds, a set of enum measured, in words: "emulated, virtual time",
 * "emulated, wall time", "hardware (KVM, this host or a remote host)",
 * joined by " and " when runs differ.
 */
void measured_words(struct strbuf *out, unsigned kinds);

/* One event metric at one sweep point: its median an iteration on each side. */
struct event_row {
	char workload[32], metric[64];
	long long mem_mib;
	int cpus;
	size_t n_a, n_b;		/* iterations counted: OK runs, warm-ups left out */
	double median_a, median_b;
};

struct measured_point {
	long long mem_mib;
	int cpus;
	unsigned kinds;			/* enum measured */
	int counters;			/* some run sent hardware counters (cycles, instructions) */
	/* the local runner's host as its runs recorded it; 0: not recorded, -1: runs differ */
	struct run_host host;
};

struct events_report {
	struct event_row *v;		/* those whose medians differ, by point, workload, metric */
	size_t nr, alloc;
	struct measured_point *points;
	size_t npoints, points_alloc;
};

int events_report_load(struct events_report *r, struct store *st, long long exp_id);
/* The same of a bisection: its culprit's parent as A, the culprit (hex id) as B. */
int events_report_load_culprit(struct events_report *r, struct store *st, long long exp_id,
			       const char *culprit);
/* The same of an explanation's profiled boots, A's against B's (no points: nothing judged). */
int events_report_load_explanation(struct events_report *r, struct store *st,
				   long long explanation_id);
void events_report_release(struct events_report *r);
/*
 * The host the local runner's runs at a point measured, in words: "23.48G
 * and 2 CPUs"; 0 when its runs recorded none or not the same, or the point
 * had runs of other runners too.
 */
int events_host_words(struct strbuf *out, const struct events_report *r, long long mem_mib,
		      int cpus);
/*
 * A point's size as its table and blocks say it (run_size_words()): the
 * host where an experiment of one point ran only on the local runner,
 * "this host, 23.54G and 2 CPUs"; else the guest's, "2048M, 1 cpu" (a
 * sweep's points keep their names; r NULL: no events read).
 */
void events_point_words(struct strbuf *out, const struct events_report *r, long long mem_mib,
			int cpus);
/* What the runs at a point measured: a set of enum measured, 0 when it has none. */
unsigned events_measured_at(const struct events_report *r, long long mem_mib, int cpus);
/*
 * Where runs at a point sent no hardware counters, why in a few words
 * ("no hardware counters (emulated)"); NULL where they did, or where
 * nothing ran.
 */
const char *events_no_counters(const struct events_report *r, long long mem_mib, int cpus);
/* Every point's kinds together. */
unsigned events_measured_all(const struct events_report *r);

/*
 * An emulated verdict whose time moved one way (REGRESSION or IMPROVEMENT;
 * for a rate, higher is less time) while its workload's page faults
 * (ev.pgfault) moved the other by more than a factor of two: real
 * hardware may disagree. The count that says so, or NULL.
 */
#define EVENTS_DISAGREE_FACTOR 2.0
const struct event_row *events_disagree(const struct events_report *r,
					const struct verdict_row *v);
/* That warning in one line: "zeroing.touch: emulated time +19.3 %, page faults ...". */
void events_disagree_words(struct strbuf *out, const struct verdict_row *v,
			   const struct event_row *e);

#endif
