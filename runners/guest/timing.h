#ifndef GUEST_TIMING_H
#define GUEST_TIMING_H
/* Clock readings for the workloads: nanoseconds, and CPU time spent in the kernel. */
#include <sys/resource.h>
#include <time.h>

static inline long long timing_ns(clockid_t clock)
{
	struct timespec ts;

	if (clock_gettime(clock, &ts))
		return 0;
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* System time of this process so far (getrusage ru_stime), in nanoseconds. */
static inline long long timing_sys_ns(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (long long)ru.ru_stime.tv_sec * 1000000000LL +
	       (long long)ru.ru_stime.tv_usec * 1000LL;
}

#endif
