#ifndef GUEST_PMU_H
#define GUEST_PMU_H
/*
 * Hardware counters around a workload's iteration, where the CPU has a
 * PMU the kernel drives: cycles, instructions, cache references and
 * misses, dTLB load misses, branch misses. They are opened once, by
 * perf_event_open(2) on this process with inherit set, so that a user's
 * program forked later is counted too, and read before and after each
 * iteration (events.h sends the differences as "ev.cycles" and so on).
 *
 * Under TCG on x86 there is no PMU: nothing opens, and the run's meta
 * says why. TCG's arm64 PMUv3 counts instructions exactly but derives
 * cycles from the clock, so its IPC is not a core's.
 *
 * Counters that the PMU multiplexes are scaled by the time each ran; an
 * iteration during which a counter never ran is not sent.
 */
#include <stddef.h>

#define PMU_COUNTERS 6

struct perf_event_attr;

struct pmu_count {
	unsigned long long value, enabled, running;
};

struct pmu_snapshot {
	unsigned have;			/* bit i: counter i was read */
	struct pmu_count c[PMU_COUNTERS];
};

/*
 * Opens the counters (the first call only) and says what opened, for the
 * run's meta: the names, or "none: " and the first counter's error.
 */
void pmu_describe(char *buf, size_t size);
/*
 * perf_event_open(2) of event type/config, on process pid (and its children
 * if attr inherits) or on every process of one CPU, as the call takes them.
 * attr says the rest (sampling, inheritance, the kernel's share) and is zero
 * elsewhere; what both the counters and the sampler want is set here: the
 * hypervisor left out, the times enabled and running read with a count, the
 * descriptor closed on exec. The descriptor, or -1 with errno set.
 */
int pmu_open(struct perf_event_attr *attr, unsigned type, unsigned long long config, int pid,
	     int cpu);
void pmu_read(struct pmu_snapshot *s);
/* Counter i's name in a metric ("cycles", "dtlb_load_misses"). */
const char *pmu_name(size_t i);
/* Counter i's count from a to b, scaled; -1 when it did not run between them. */
int pmu_delta(const struct pmu_snapshot *a, const struct pmu_snapshot *b, size_t i,
	      long long *out);

#endif
