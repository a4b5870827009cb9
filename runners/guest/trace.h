#ifndef GUEST_TRACE_H
#define GUEST_TRACE_H
/*
 * tracefs and the function_graph tracer: find (or mount) tracefs, trace
 * one function at depth 1, and read back one duration per call. Shared by
 * zeroing (clear_huge_page while memory is touched) and boot (functions
 * traced from the kernel command line with ftrace=function_graph).
 *
 * The tracer is a machine-wide setting: trace_graph_start() takes it
 * over and trace_reset() gives it back as nop with empty filters.
 */
#include <stddef.h>

struct trace {
	char dir[64];	/* "/sys/kernel/tracing" or "/sys/kernel/debug/tracing" */
};

/*
 * Mount tracefs at /sys/kernel/tracing, or debugfs at /sys/kernel/debug
 * (which brings tracing/ along). Returns 0, or -1 with a reason in why.
 */
int trace_mount(char *why, size_t whysize);

/*
 * Find a mounted tracefs; with may_mount, mount one when none is.
 * Returns 0, or -1 with a reason in why.
 */
int trace_open(struct trace *t, int may_mount, char *why, size_t whysize);

/* Read or write a file of the tracefs directory; as sysfs_read/sysfs_write. */
int trace_read(const struct trace *t, const char *file, char *buf, size_t size);
int trace_write(const struct trace *t, const char *file, const char *value);

/* One file of the tracefs directory and the value written to it; an optional one may fail. */
struct trace_step {
	const char *file, *value;
	int optional;
};

/*
 * Write n steps in order. Returns 0, or -1 at the first required one that
 * fails, with a reason in why; what was written stays.
 */
int trace_write_steps(const struct trace *t, const struct trace_step *steps, size_t n,
		      char *why, size_t whysize);

/*
 * Is func traceable (in available_filter_functions)? Returns 1 and the
 * name to trace in name (func itself, or a compiler-made "func.isra.0"
 * when only that exists), 0 when it is not there, -errno when the list
 * cannot be read.
 */
int trace_find_function(const struct trace *t, const char *func, char *name,
			size_t size);

/*
 * Trace func alone with function_graph at depth 1 (set_ftrace_filter too,
 * so that no other function pays for the tracer), in process pid only
 * (0: in all), into an emptied buffer. Returns 0, or -1 with a reason in
 * why (the tracer is reset then).
 */
int trace_graph_start(const struct trace *t, const char *func, int pid,
		      char *why, size_t whysize);

/* Stop recording; the buffer stays for trace_collect(). */
int trace_stop(const struct trace *t);

/* Back to the nop tracer with empty filters and an empty buffer. */
void trace_reset(const struct trace *t);

/* Write text into the buffer (trace_marker); it reads back as a comment. */
int trace_mark(const struct trace *t, const char *text);

struct trace_stats {
	long calls;	/* completed calls delivered */
	long lost;	/* events the ring buffer reported lost */
	long unmatched;	/* exits whose entry was not in the buffer */
	long overrun;	/* events overwritten (per_cpu/cpuN/stats) */
};

/*
 * Read the trace buffer. fn gets each completed call with its duration
 * (comment NULL) and each comment (func NULL) in buffer order; a nonzero
 * return stops the walk. Returns 0, or -1 with a reason in why.
 */
int trace_collect(const struct trace *t,
		  int (*fn)(const char *func, double usecs, const char *comment,
			    void *ctx),
		  void *ctx, struct trace_stats *stats, char *why, size_t whysize);

#endif
