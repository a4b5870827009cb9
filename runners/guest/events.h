#ifndef GUEST_EVENTS_H
#define GUEST_EVENTS_H
/*
 * The kernel's own counts around one iteration of a workload, each sent
 * as a sample of its own metric, PROTOCOL_EVENT_PREFIX and the counter's
 * name ("ev.pgfault"), in unit PROTOCOL_EVENT_UNIT. Under emulation time
 * charges nothing for what hardware pays per fault, TLB flush or cache
 * miss, so a time can move one way while the work moved the other; the
 * counts are the same in any clock.
 *
 * From /proc/vmstat: page faults, THP allocations and fallbacks, TLB
 * flushes (kernels with CONFIG_DEBUG_TLBFLUSH), pages allocated and freed;
 * a counter the kernel lacks is not sent. They are the whole system's: in
 * the VM the guest is all that runs, on a host (the local and ssh
 * runners) other processes add to them. Context switches come from
 * getrusage(2): this process's for a built-in workload, its waited-for
 * children's for a user's program. Where the CPU has a PMU, its counters
 * too (pmu.h): cycles, instructions, cache, dTLB and branch misses.
 *
 * events_begin() reads the counters just before an iteration,
 * events_end() just after it, before anything is written to the console;
 * events_emit() then sends the differences. The struct is the caller's.
 */

enum events_whose {
	EVENTS_SELF,		/* the workload runs in this process */
	EVENTS_CHILDREN,	/* in a child it waited for */
};

#include "pmu.h"

#define EVENTS_MAX 16

struct events {
	enum events_whose whose;
	unsigned have;		/* bit i: counter i was read both times */
	long long before[EVENTS_MAX], after[EVENTS_MAX];
	struct pmu_snapshot pmu_before, pmu_after;
};

void events_begin(struct events *e, enum events_whose whose);
void events_end(struct events *e);
/* One sample per counter read: iteration and flags (enum sample_flags) as the workload's. */
void events_emit(const struct events *e, const char *workload, long iteration, unsigned flags);

#endif
