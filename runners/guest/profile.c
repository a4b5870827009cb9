#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "profile.h"
#include "sysfs.h"
#include "trace.h"

/* Functions one workload calls: a few thousand at most; past this they are counted, not kept. */
#define PROFILE_SLOTS 16384
#define PROFILE_CPUS 64

struct fn {
	char name[64];		/* the profiler prints at most 30 characters (6.1) */
	unsigned long long hits;
	double ns;
};

static struct trace tr;
static int active;
static struct fn *table;
static long kept, dropped;

int profile_active(void)
{
	return active;
}

int profile_begin(char *why, size_t whysize)
{
	const struct trace_step steps[] = {
		{ "function_profile_enabled", "0", 0 },
		{ "current_tracer", "nop", 0 },
		{ "set_ftrace_filter", "", 0 },
		{ "options/graph-time", "1", 1 },
		{ "options/sleep-time", "1", 1 },
		/* 0 to 1 empties the counts */
		{ "function_profile_enabled", "1", 0 },
	};
	char probe[8];

	if (trace_open(&tr, 1, why, whysize))
		return -1;
	if (trace_read(&tr, "function_profile_enabled", probe, sizeof(probe)) < 0) {
		snprintf(why, whysize, "this kernel has no function profiler "
			 "(CONFIG_FUNCTION_PROFILER is not set)");
		return -1;
	}
	if (trace_write_steps(&tr, steps, sizeof(steps) / sizeof(steps[0]), why, whysize)) {
		trace_write(&tr, "function_profile_enabled", "0");
		return -1;
	}
	active = 1;
	return 0;
}

static unsigned long hash(const char *s)
{
	unsigned long h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

static void add(const char *name, unsigned long long hits, double ns)
{
	unsigned long i = hash(name) % PROFILE_SLOTS;

	for (long n = 0; n < PROFILE_SLOTS; n++, i = (i + 1) % PROFILE_SLOTS) {
		struct fn *f = &table[i];
		if (!f->name[0]) {
			if (kept >= PROFILE_SLOTS / 2)
				break;
			snprintf(f->name, sizeof(f->name), "%s", name);
			kept++;
		} else if (strcmp(f->name, name)) {
			continue;
		}
		f->hits += hits;
		f->ns += ns;
		return;
	}
	dropped++;
}

/*
 * One line of trace_stat/functionN:
 * "  name  hits    time us    avg us    s^2 us". The time has at most
 * seven digits, so it is exact to the nanosecond below a second and to
 * the microsecond above.
 */
static void read_line(const char *line)
{
	char name[64];
	unsigned long long hits;
	double us;

	if (sscanf(line, " %63s %llu %lf us", name, &hits, &us) == 3 && hits)
		add(name, hits, us * 1000.0);
}

static void read_cpu(int cpu)
{
	struct lines *r = malloc(sizeof(*r));
	char path[160];
	const char *line;

	snprintf(path, sizeof(path), "%s/trace_stat/function%d", tr.dir, cpu);
	if (!r || lines_open(r, path)) {
		free(r);
		return;
	}
	while (lines_next(r, &line) > 0)
		read_line(line);
	lines_close(r);
	free(r);
}

void profile_end(const char *workload)
{
	if (!active)
		return;
	active = 0;
	trace_write(&tr, "function_profile_enabled", "0");
	table = calloc(PROFILE_SLOTS, sizeof(*table));
	kept = dropped = 0;
	if (!table) {
		emit_error(workload, "profile: out of memory");
	} else {
		for (int cpu = 0; cpu < PROFILE_CPUS; cpu++)
			read_cpu(cpu);
		for (long i = 0; i < PROFILE_SLOTS; i++)
			if (table[i].name[0])
				emit_profile(workload, table[i].name, table[i].hits, table[i].ns);
		emit_meta("guest.profile", "%s: %ld functions%s", workload, kept,
			  dropped ? " (more than the guest keeps: some left out)" : "");
	}
	free(table);
	table = NULL;
}
