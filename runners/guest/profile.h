#ifndef GUEST_PROFILE_H
#define GUEST_PROFILE_H
/*
 * Where a CPU's PMU can sample (pmu-sample.h), its cycles around one
 * workload, each function's samples and the time they stand for sent as
 * PROTOCOL_PROFILE lines, what was sampled in the meta (guest.profile_by);
 * nothing is traced then. Elsewhere (TCG x86), or for chosen functions:
 *
 * the kernel's function profiler (CONFIG_FUNCTION_PROFILER) around one
 * workload, its setup and every iteration: each traceable function called
 * on any CPU while it runs (in the VM the workload is all that runs; the
 * profiler heeds no set_ftrace_pid), with its number of calls and the
 * time spent in it, callees and time asleep included (the profiler's
 * graph-time and sleep-time), sent as one PROTOCOL_PROFILE line per
 * function. Times are the profiler's, inflated by its own cost on every
 * call; the counts are exact. The profiler takes the function_graph machinery: a workload
 * that traces with it (zeroing's clear_huge_page) loses that metric in a
 * profiled boot and says so.
 *
 * A kernel without the profiler (Debian's) still has function_graph:
 * given functions ("f1,f2"), those alone are traced, each call's
 * duration summed, callees included and sleep too, and sent the same way;
 * nested calls of two of them both count. A ring buffer that overflowed
 * is said in the meta (guest.profile), its counts then short.
 *
 * The profiler's meta says why the PMU was not used (guest.profile_by).
 *
 * profile_begin() resets and starts it (0, or -1 with a reason in why);
 * profile_end() stops it and sends what it counted, summed over the CPUs.
 */
#include <stddef.h>

int profile_begin(const char *functions, char *why, size_t whysize);
void profile_end(const char *workload);

/* Whether ftrace is profiling now: tracers that would fail stay off. */
int profile_active(void);

#endif
