#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "emit.h"
#include "events.h"
#include "parse.h"
#include "sysfs.h"

/* The vmstat counters sent, then those of getrusage(2). */
static const char *const vmstat_names[] = {
	"pgfault", "pgmajfault", "thp_fault_alloc", "thp_fault_fallback",
	"nr_tlb_remote_flush", "nr_tlb_local_flush_all", "nr_tlb_local_flush_one",
	"pgalloc_dma32", "pgalloc_normal", "pgfree",
};
#define NR_VMSTAT (sizeof(vmstat_names) / sizeof(vmstat_names[0]))
#define CTXSW NR_VMSTAT
#define NR_COUNTERS (NR_VMSTAT + 1)
_Static_assert(NR_COUNTERS <= EVENTS_MAX, "room for every counter");

/* /proc/vmstat is about 5 KiB in 6.1; static, so that a read faults no new stack page. */
static char vmstat[32768];

static unsigned read_counters(long long *v, enum events_whose whose)
{
	unsigned have = 0;
	struct rusage ru;

	if (sysfs_read("/proc/vmstat", vmstat, sizeof(vmstat)) > 0)
		have = parse_vmstat(v, vmstat_names, NR_VMSTAT, vmstat);
	if (!getrusage(whose == EVENTS_CHILDREN ? RUSAGE_CHILDREN : RUSAGE_SELF, &ru)) {
		v[CTXSW] = (long long)ru.ru_nvcsw + (long long)ru.ru_nivcsw;
		have |= 1u << CTXSW;
	}
	return have;
}

void events_begin(struct events *e, enum events_whose whose)
{
	memset(e, 0, sizeof(*e));
	e->whose = whose;
	e->have = read_counters(e->before, whose);
	/* last in, first out: reading /proc/vmstat is not the workload's */
	pmu_read(&e->pmu_before);
}

void events_end(struct events *e)
{
	pmu_read(&e->pmu_after);
	e->have &= read_counters(e->after, e->whose);
}

void events_emit(const struct events *e, const char *workload, long iteration, unsigned flags)
{
	char metric[64];

	for (size_t i = 0; i < NR_COUNTERS; i++) {
		if (!(e->have & (1u << i)))
			continue;
		snprintf(metric, sizeof(metric), "%s%s", PROTOCOL_EVENT_PREFIX,
			 i == CTXSW ? "ctxsw" : vmstat_names[i]);
		emit_sample(workload, metric, iteration, (double)(e->after[i] - e->before[i]),
			    PROTOCOL_EVENT_UNIT, flags);
	}
	for (size_t i = 0; i < PMU_COUNTERS; i++) {
		long long n;

		if (pmu_delta(&e->pmu_before, &e->pmu_after, i, &n))
			continue;
		snprintf(metric, sizeof(metric), "%s%s", PROTOCOL_EVENT_PREFIX, pmu_name(i));
		emit_sample(workload, metric, iteration, (double)n, PROTOCOL_EVENT_UNIT, flags);
	}
}
