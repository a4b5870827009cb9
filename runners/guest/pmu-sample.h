#ifndef GUEST_PMU_SAMPLE_H
#define GUEST_PMU_SAMPLE_H
/*
 * Where the cycles of a workload went, by the PMU's sampling: a cycles
 * counter on every CPU (instructions where cycles cannot sample) that
 * interrupts once a period and records where the CPU was, read from a
 * ring buffer per CPU after the workload and each address resolved to
 * its kernel function through /proc/kallsyms ("[user]" for user space).
 * A function's time is its own cycles, callees not included: its samples
 * times the period, at the rate the counter ran on that CPU over the
 * workload. Nothing is traced, so the workload's own tracers stay on.
 *
 * Under TCG on x86 there is no PMU and nothing opens: begin says why. TCG's
 * arm64 PMUv3 samples its cycle counter, which counts virtual time (a
 * nanosecond a cycle); its other counters interrupt late (at the next
 * exception), which the sample count against the periods counted shows.
 */
#include <stddef.h>

/* Opens and starts the counters: 0, or -1 with the reason in why. */
int pmu_sample_begin(char *why, size_t whysize);

/* One function's share: its samples and the time they stand for, in ns. */
typedef void pmu_sample_fn(const char *function, unsigned long long samples, double ns);

/*
 * Stops the counters, hands each function's samples to fn and writes
 * what was sampled (the event, period, CPUs, samples, lost) into what.
 */
void pmu_sample_end(pmu_sample_fn *fn, char *what, size_t whatsize);

#endif
