#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pmu.h"

static const struct {
	const char *name;
	unsigned type;
	unsigned long long config;
} counters[PMU_COUNTERS] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache_references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache_misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "dtlb_load_misses", PERF_TYPE_HW_CACHE,
	  PERF_COUNT_HW_CACHE_DTLB | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
	  (PERF_COUNT_HW_CACHE_RESULT_MISS << 16) },
	{ "branch_misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
};

static int fds[PMU_COUNTERS];
static int opened;		/* 1 once tried */
static int first_errno;		/* of the first counter that did not open */
static int user_only;		/* the kernel's share was refused (perf_event_paranoid) */

int pmu_open(struct perf_event_attr *attr, unsigned type, unsigned long long config, int pid,
	     int cpu)
{
	attr->size = sizeof(*attr);
	attr->type = type;
	attr->config = config;
	attr->exclude_hv = 1;
	attr->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static int open_counter(size_t i, int exclude_kernel)
{
	struct perf_event_attr attr = { .inherit = 1, .exclude_kernel = exclude_kernel };

	return pmu_open(&attr, counters[i].type, counters[i].config, 0, -1);
}

static void open_all(void)
{
	if (opened)
		return;
	opened = 1;
	for (size_t i = 0; i < PMU_COUNTERS; i++) {
		fds[i] = open_counter(i, user_only);
		/* a host that keeps the kernel's counts from users still gives theirs */
		if (fds[i] < 0 && (errno == EACCES || errno == EPERM) && !user_only) {
			fds[i] = open_counter(i, 1);
			if (fds[i] >= 0)
				user_only = 1;
		}
		if (fds[i] < 0 && !first_errno)
			first_errno = errno;
	}
}

void pmu_describe(char *buf, size_t size)
{
	size_t n = 0;
	int any = 0;

	open_all();
	buf[0] = '\0';
	for (size_t i = 0; i < PMU_COUNTERS && n < size; i++) {
		if (fds[i] < 0)
			continue;
		n += (size_t)snprintf(buf + n, size - n, "%s%s", any ? " " : "", counters[i].name);
		any = 1;
	}
	if (!any)
		snprintf(buf, size, "none: perf_event_open: %s", strerror(first_errno));
	else if (user_only && n < size)
		snprintf(buf + n, size - n, " (user space only)");
}

void pmu_read(struct pmu_snapshot *s)
{
	open_all();
	s->have = 0;
	for (size_t i = 0; i < PMU_COUNTERS; i++) {
		if (fds[i] < 0)
			continue;
		if (read(fds[i], &s->c[i], sizeof(s->c[i])) == (ssize_t)sizeof(s->c[i]))
			s->have |= 1u << i;
	}
}

const char *pmu_name(size_t i)
{
	return counters[i].name;
}

int pmu_delta(const struct pmu_snapshot *a, const struct pmu_snapshot *b, size_t i,
	      long long *out)
{
	unsigned long long v, enabled, running;

	if (!(a->have & b->have & (1u << i)))
		return -1;
	v = b->c[i].value - a->c[i].value;
	enabled = b->c[i].enabled - a->c[i].enabled;
	running = b->c[i].running - a->c[i].running;
	if (!running)
		return -1;
	if (running < enabled)
		v = (unsigned long long)((double)v * (double)enabled / (double)running + 0.5);
	*out = (long long)v;
	return 0;
}
