#ifndef GUEST_BOOT_H
#define GUEST_BOOT_H
/*
 * The boot workload: one sample set per boot. to_init (kernel start to
 * the first instruction of /init), what the kernel log says about early
 * memory setup (deferred struct page init per node, the time it freed
 * its init memory), and the per-call durations of functions traced from
 * the kernel command line (ftrace=function_graph ftrace_graph_filter=...).
 *
 * The boot trace lives in the machine-wide ring buffer that other
 * workloads reuse, so boot_capture() reads it before any workload runs
 * and boot_run() reports it in its turn.
 */
#include <time.h>

#include "params.h"

/* CLOCK_BOOTTIME when main() started: set there before anything else. */
extern struct timespec boot_init_start;

/* Read the boot trace (and, as init, hand the tracer back). Returns 0 or -1. */
int boot_capture(const struct params *p, int pid1);

int boot_run(const struct params *p, int pid1);

#endif
