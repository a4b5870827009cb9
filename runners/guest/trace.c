#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

#include "parse.h"
#include "sysfs.h"
#include "trace.h"

static const char *const trace_dirs[] = {
	"/sys/kernel/tracing",
	"/sys/kernel/debug/tracing",
};

static int path_in(char *buf, size_t size, const char *dir, const char *file)
{
	int n = snprintf(buf, size, "%s/%s", dir, file);
	return (n < 0 || (size_t)n >= size) ? -ENAMETOOLONG : 0;
}

static int find_mounted(struct trace *t)
{
	char path[128];

	for (size_t i = 0; i < sizeof(trace_dirs) / sizeof(trace_dirs[0]); i++) {
		if (path_in(path, sizeof(path), trace_dirs[i], "trace") ||
		    !sysfs_exists(path))
			continue;
		snprintf(t->dir, sizeof(t->dir), "%s", trace_dirs[i]);
		return 0;
	}
	return -1;
}

int trace_mount(char *why, size_t whysize)
{
	struct trace t;
	int first;

	if (!find_mounted(&t))
		return 0;
	if (!mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL))
		return 0;
	first = errno;
	if (mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL)) {
		snprintf(why, whysize, "cannot mount tracefs at /sys/kernel/tracing: %s; "
			 "nor debugfs at /sys/kernel/debug: %s", strerror(first),
			 strerror(errno));
		return -1;
	}
	if (!find_mounted(&t))
		return 0;
	snprintf(why, whysize, "cannot mount tracefs at /sys/kernel/tracing: %s; "
		 "debugfs has no tracing/ (kernel without CONFIG_FTRACE?)",
		 strerror(first));
	return -1;
}

int trace_open(struct trace *t, int may_mount, char *why, size_t whysize)
{
	if (!find_mounted(t))
		return 0;
	if (!may_mount) {
		snprintf(why, whysize, "tracefs is not mounted");
		return -1;
	}
	if (trace_mount(why, whysize))
		return -1;
	if (!find_mounted(t))
		return 0;
	snprintf(why, whysize, "tracefs mounted but has no trace file "
		 "(kernel without CONFIG_FTRACE?)");
	return -1;
}

int trace_read(const struct trace *t, const char *file, char *buf, size_t size)
{
	char path[160];
	int ret = path_in(path, sizeof(path), t->dir, file);

	return ret ? ret : sysfs_read(path, buf, size);
}

int trace_write(const struct trace *t, const char *file, const char *value)
{
	char path[160];
	int ret = path_in(path, sizeof(path), t->dir, file);

	return ret ? ret : sysfs_write(path, value);
}

int trace_find_function(const struct trace *t, const char *func, char *name,
			size_t size)
{
	struct lines *r = malloc(sizeof(*r));
	char path[160];
	const char *line;
	int ret, found = 0;

	if (!r)
		return -ENOMEM;
	if ((ret = path_in(path, sizeof(path), t->dir, "available_filter_functions")) ||
	    (ret = lines_open(r, path))) {
		free(r);
		return ret;
	}
	/* Lines are "name" or "name [module]". */
	while ((ret = lines_next(r, &line)) > 0) {
		size_t n = strcspn(line, " \t");
		if (n == strlen(func) && !strncmp(line, func, n)) {
			snprintf(name, size, "%s", func);
			found = 1;
			break;
		}
		if (!found && n < size && n > strlen(func) &&
		    !strncmp(line, func, strlen(func)) && line[strlen(func)] == '.') {
			memcpy(name, line, n);
			name[n] = '\0';
			found = 2;
		}
	}
	lines_close(r);
	free(r);
	if (ret < 0)
		return ret;
	return found ? 1 : 0;
}

int trace_write_steps(const struct trace *t, const struct trace_step *steps, size_t n,
		      char *why, size_t whysize)
{
	for (size_t i = 0; i < n; i++) {
		int ret = trace_write(t, steps[i].file, steps[i].value);
		if (!ret || steps[i].optional)
			continue;
		snprintf(why, whysize, "cannot write '%s' to %s/%s: %s", steps[i].value,
			 t->dir, steps[i].file, strerror(-ret));
		return -1;
	}
	return 0;
}

int trace_graph_start(const struct trace *t, const char *func, int pid,
		      char *why, size_t whysize)
{
	char pidstr[16];
	const struct trace_step steps[] = {
		{ "tracing_on", "0", 0 },
		{ "current_tracer", "nop", 0 },
		{ "set_ftrace_filter", func, 0 },
		{ "set_graph_function", func, 0 },
		{ "set_ftrace_pid", pid ? pidstr : "", 0 },
		{ "max_graph_depth", "1", 0 },
		/* Closing braces then name their function: easier pairing. */
		{ "options/funcgraph-tail", "1", 1 },
		{ "trace", "", 0 },
		{ "current_tracer", "function_graph", 0 },
		{ "tracing_on", "1", 0 },
	};

	snprintf(pidstr, sizeof(pidstr), "%d", pid);
	if (trace_write_steps(t, steps, sizeof(steps) / sizeof(steps[0]), why, whysize)) {
		trace_reset(t);
		return -1;
	}
	return 0;
}

int trace_stop(const struct trace *t)
{
	return trace_write(t, "tracing_on", "0");
}

void trace_reset(const struct trace *t)
{
	trace_write(t, "tracing_on", "0");
	trace_write(t, "current_tracer", "nop");
	trace_write(t, "set_graph_function", "");
	trace_write(t, "set_ftrace_filter", "");
	trace_write(t, "set_ftrace_pid", "");
	trace_write(t, "max_graph_depth", "0");
	trace_write(t, "options/funcgraph-tail", "0");
	trace_write(t, "trace", "");
	trace_write(t, "tracing_on", "1");
}

int trace_mark(const struct trace *t, const char *text)
{
	return trace_write(t, "trace_marker", text);
}

/* Events overwritten in the ring buffer, summed over the CPUs. */
static long overruns(const struct trace *t)
{
	char file[64], buf[512], value[32];
	long total = 0;

	for (int cpu = 0; cpu < 8192; cpu++) {
		const char *line;
		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
		if (trace_read(t, file, buf, sizeof(buf)) < 0)
			break;
		for (line = buf; line; line = strchr(line, '\n')) {
			if (*line == '\n')
				line++;
			if (parse_field(value, sizeof(value), line, "overrun")) {
				total += strtol(value, NULL, 10);
				break;
			}
		}
	}
	return total;
}

int trace_collect(const struct trace *t,
		  int (*fn)(const char *func, double usecs, const char *comment,
			    void *ctx),
		  void *ctx, struct trace_stats *stats, char *why, size_t whysize)
{
	struct graph_pairing *pairing = calloc(1, sizeof(*pairing));
	struct lines *r = malloc(sizeof(*r));
	struct graph_line gl;
	char path[160], func[PARSE_FUNC_MAX];
	const char *line;
	double usecs;
	int ret = -1, n;

	memset(stats, 0, sizeof(*stats));
	if (r)
		r->fd = -1;
	if (!pairing || !r) {
		snprintf(why, whysize, "out of memory reading the trace");
		goto out;
	}
	if ((n = path_in(path, sizeof(path), t->dir, "trace")) ||
	    (n = lines_open(r, path))) {
		snprintf(why, whysize, "cannot open %s/trace: %s", t->dir, strerror(-n));
		free(r);
		r = NULL;
		goto out;
	}
	while ((n = lines_next(r, &line)) > 0) {
		switch (parse_graph_line(&gl, line)) {
		case GRAPH_COMMENT:
			if (fn(NULL, 0, gl.comment, ctx))
				goto done;
			break;
		case GRAPH_LOST:
			stats->lost += gl.lost;
			break;
		default:
			if (graph_pairing_feed(pairing, &gl, func, sizeof(func), &usecs)) {
				stats->calls++;
				if (fn(func, usecs, NULL, ctx))
					goto done;
			}
			break;
		}
	}
	if (n < 0) {
		snprintf(why, whysize, "reading %s/trace: %s", t->dir, strerror(-n));
		goto out;
	}
done:
	stats->unmatched = pairing->unmatched;
	stats->overrun = overruns(t);
	ret = 0;
out:
	if (r)
		lines_close(r);
	free(r);
	free(pairing);
	return ret;
}
