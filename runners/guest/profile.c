#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "pmu-sample.h"
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
static int graph;		/* by function_graph on chosen functions, not the profiler */
static int sampled;		/* by the PMU's samples, no tracer */
static char no_pmu[128];	/* why the PMU did not sample, for the meta */
static char graph_functions[512];
static struct fn *table;
static long kept, dropped;

int profile_active(void)
{
	return active && !sampled;
}

/*
 * function_graph on functions ("f1,f2"), for a kernel without the
 * profiler: each name as available_filter_functions has it.
 */
static int graph_begin(const char *functions, char *why, size_t whysize)
{
	char filter[sizeof(graph_functions)] = "", name[128], func[128];
	const char *p = functions;
	const struct trace_step steps[] = {
		{ "tracing_on", "0", 0 },
		{ "current_tracer", "nop", 0 },
		{ "set_ftrace_filter", filter, 0 },
		{ "set_graph_function", "", 0 },
		{ "set_ftrace_pid", "", 0 },
		{ "max_graph_depth", "0", 0 },
		{ "options/funcgraph-tail", "1", 1 },
		{ "options/sleep-time", "1", 1 },
		{ "buffer_size_kb", "65536", 1 },
		{ "trace", "", 0 },
		{ "current_tracer", "function_graph", 0 },
		{ "tracing_on", "1", 0 },
	};
	size_t len = 0;

	while (*p) {
		size_t n = strcspn(p, ",");
		if (n && n < sizeof(func)) {
			memcpy(func, p, n);
			func[n] = '\0';
			if (trace_find_function(&tr, func, name, sizeof(name)) != 1) {
				snprintf(why, whysize, "%s is not a traceable function of this kernel",
					 func);
				return -1;
			}
			len += (size_t)snprintf(filter + len, sizeof(filter) - len, "%s%s",
						len ? " " : "", name);
			if (len >= sizeof(filter)) {
				snprintf(why, whysize, "too many functions to trace");
				return -1;
			}
		}
		p += n + (p[n] == ',');
	}
	if (!len) {
		snprintf(why, whysize, "no function to trace");
		return -1;
	}
	if (trace_write_steps(&tr, steps, sizeof(steps) / sizeof(steps[0]), why, whysize)) {
		trace_reset(&tr);
		return -1;
	}
	snprintf(graph_functions, sizeof(graph_functions), "%s", filter);
	graph = active = 1;
	return 0;
}

int profile_begin(const char *functions, char *why, size_t whysize)
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
	int chosen = functions && *functions;

	no_pmu[0] = '\0';
	/* chosen functions are timed by ftrace; else where the PMU samples, it is used */
	if (!chosen) {
		if (!pmu_sample_begin(no_pmu, sizeof(no_pmu))) {
			sampled = active = 1;
			return 0;
		}
	}
	if (trace_open(&tr, 1, why, whysize))
		return -1;
	if (trace_read(&tr, "function_profile_enabled", probe, sizeof(probe)) < 0) {
		if (chosen)
			return graph_begin(functions, why, whysize);
		snprintf(why, whysize, "no PMU sampling (%s), and this kernel has no function "
			 "profiler (CONFIG_FUNCTION_PROFILER is not set); function_graph can "
			 "time chosen functions (lab.profile_functions)", no_pmu);
		return -1;
	}
	if (trace_write_steps(&tr, steps, sizeof(steps) / sizeof(steps[0]), why, whysize)) {
		trace_write(&tr, "function_profile_enabled", "0");
		return -1;
	}
	graph = 0;
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

static int graph_call(const char *func, double usecs, const char *comment, void *ctx)
{
	(void)ctx;
	if (func && !comment)
		add(func, 1, usecs * 1000.0);
	return 0;
}

/* What function_graph timed, into the table; the meta says what was traced and what was lost. */
static void graph_end(const char *workload)
{
	struct trace_stats st = { 0 };
	char why[160];

	trace_stop(&tr);
	if (trace_collect(&tr, graph_call, NULL, &st, why, sizeof(why)))
		emit_error(workload, "profile: %s", why);
	emit_meta("guest.profile_graph", "%s: function_graph on %s: %ld calls, %ld lost, "
		  "%ld overwritten", workload, graph_functions, st.calls, st.lost, st.overrun);
	trace_reset(&tr);
}

/* What the PMU sampled, into the table, said in the meta. */
static void sampled_end(const char *workload)
{
	char what[256];

	pmu_sample_end(add, what, sizeof(what));
	emit_meta("guest.profile_by", "%s: %s", workload, what);
}

void profile_end(const char *workload)
{
	if (!active)
		return;
	active = 0;
	if (!graph && !sampled)
		trace_write(&tr, "function_profile_enabled", "0");
	table = calloc(PROFILE_SLOTS, sizeof(*table));
	kept = dropped = 0;
	if (!table) {
		emit_error(workload, "profile: out of memory");
		if (graph)
			trace_reset(&tr);
		if (sampled)
			pmu_sample_end(NULL, NULL, 0);
	} else {
		if (graph) {
			graph_end(workload);
		} else if (sampled) {
			sampled_end(workload);
		} else {
			for (int cpu = 0; cpu < PROFILE_CPUS; cpu++)
				read_cpu(cpu);
			if (no_pmu[0])
				emit_meta("guest.profile_by", "%s: the function profiler (ftrace): "
					  "no PMU sampling: %s", workload, no_pmu);
		}
		for (long i = 0; i < PROFILE_SLOTS; i++)
			if (table[i].name[0])
				emit_profile(workload, table[i].name, table[i].hits, table[i].ns);
		emit_meta("guest.profile", "%s: %ld functions%s", workload, kept,
			  dropped ? " (more than the guest keeps: some left out)" : "");
	}
	free(table);
	table = NULL;
	graph = sampled = 0;
}
