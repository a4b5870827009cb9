#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot.h"
#include "emit.h"
#include "kmsg.h"
#include "parse.h"
#include "sysfs.h"
#include "trace.h"

struct timespec boot_init_start;

#define BOOT_MAX_FUNCS 16
#define BOOT_MAX_NODES 64
#define BOOT_MAX_PROBES 8

struct boot_fn {
	char name[PARSE_FUNC_MAX];	/* as lab.trace names it */
	double *usecs;
	size_t n, alloc;
	char why[512];			/* set when there is nothing to report */
};

static struct {
	int done;
	int nfn;
	struct boot_fn fn[BOOT_MAX_FUNCS];
	struct trace_stats stats;
	char list_error[256];
} cap;

struct log_scan {
	int nodes;
	int node[BOOT_MAX_NODES];
	double node_ms[BOOT_MAX_NODES];
	int have_freeing, have_init;
	double freeing_s, init_s;
	int probes;
	char probe[BOOT_MAX_PROBES][48];
	double probe_ms[BOOT_MAX_PROBES];
	long long first_seq;
};

static int push(struct boot_fn *f, double usecs)
{
	if (f->n == f->alloc) {
		size_t alloc = f->alloc ? 2 * f->alloc : 64;
		double *v = realloc(f->usecs, alloc * sizeof(*v));
		if (!v)
			return -1;
		f->usecs = v;
		f->alloc = alloc;
	}
	f->usecs[f->n++] = usecs;
	return 0;
}

static int on_call(const char *func, double usecs, const char *comment, void *ctx)
{
	(void)ctx;
	if (comment)
		return 0;
	for (int i = 0; i < cap.nfn; i++)
		if (graph_name_matches(func, cap.fn[i].name) && push(&cap.fn[i], usecs))
			return 1;
	return 0;
}

static void set_all_why(const char *fmt, const char *arg)
{
	for (int i = 0; i < cap.nfn; i++)
		snprintf(cap.fn[i].why, sizeof(cap.fn[i].why), fmt, arg);
}

/* Is func in the graph filter the kernel command line set up? */
static int in_graph_filter(const struct trace *t, const char *func)
{
	struct lines r;
	char path[160];
	const char *line;
	int found = 0, n;

	n = snprintf(path, sizeof(path), "%s/set_graph_function", t->dir);
	if (n < 0 || (size_t)n >= sizeof(path) || lines_open(&r, path))
		return -1;
	/* An empty filter reads "#### all functions enabled ####". */
	while (!found && lines_next(&r, &line) > 0)
		found = graph_name_matches(line, func) || !strncmp(line, "####", 4);
	lines_close(&r);
	return found;
}

int boot_capture(const struct params *p, int pid1)
{
	const char *s = p->trace;
	char name[PARSE_FUNC_MAX], why[256], tracer[64];
	struct trace t;
	int ret;

	if (cap.done)
		return 0;
	cap.done = 1;
	while ((ret = parse_list_next(name, sizeof(name), &s))) {
		if (ret < 0 || cap.nfn == BOOT_MAX_FUNCS) {
			snprintf(cap.list_error, sizeof(cap.list_error),
				 ret < 0 ? "lab.trace: a function name is too long"
					 : "lab.trace: more than 16 functions");
			continue;
		}
		snprintf(cap.fn[cap.nfn++].name, PARSE_FUNC_MAX, "%s", name);
	}
	if (!cap.nfn)
		return 0;

	if (trace_open(&t, 1, why, sizeof(why))) {
		set_all_why("tracefs unavailable: %s", why);
		return -1;
	}
	if (trace_read(&t, "current_tracer", tracer, sizeof(tracer)) < 0)
		snprintf(tracer, sizeof(tracer), "unknown");
	if (strcmp(tracer, "function_graph")) {
		set_all_why("current_tracer is '%s', not function_graph: boot with "
			    "ftrace=function_graph ftrace_graph_filter=<functions> "
			    "ftrace_graph_max_depth=1", tracer);
		return -1;
	}
	trace_stop(&t);
	if (trace_collect(&t, on_call, NULL, &cap.stats, why, sizeof(why))) {
		set_all_why("%s", why);
		return -1;
	}
	for (int i = 0; i < cap.nfn; i++) {
		struct boot_fn *f = &cap.fn[i];
		int listed;
		if (f->n)
			continue;
		listed = in_graph_filter(&t, f->name);
		if (!listed)
			snprintf(f->why, sizeof(f->why), "not in set_graph_function: add it "
				 "to ftrace_graph_filter= (or it cannot be traced: inlined, "
				 "notrace, or it runs before ftrace starts, as in setup_arch)");
		else
			snprintf(f->why, sizeof(f->why), "in the graph filter, but no "
				 "completed call in the trace: it ran before the "
				 "function_graph tracer started (a core_initcall; in 6.1 "
				 "that is after page_alloc_init_late, so deferred_init_memmap "
				 "is missed), it runs deeper than ftrace_graph_max_depth, or "
				 "it has not returned");
	}
	/* From here on the tracer would only slow down the other workloads. */
	if (pid1)
		trace_reset(&t);
	else
		trace_write(&t, "tracing_on", "1");
	return 0;
}

static int on_record(const struct kmsg_record *rec, void *ctx)
{
	struct log_scan *scan = ctx;
	double ms;
	int node;

	if (scan->first_seq < 0)
		scan->first_seq = rec->seq;
	if (parse_deferred_init(&node, &ms, rec->text) && scan->nodes < BOOT_MAX_NODES) {
		scan->node[scan->nodes] = node;
		scan->node_ms[scan->nodes++] = ms;
	}
	if (scan->probes < BOOT_MAX_PROBES &&
	    parse_probe(scan->probe[scan->probes], sizeof(scan->probe[0]),
			&scan->probe_ms[scan->probes], rec->text))
		scan->probes++;
	/* "Run /sbin/init as init process": the kernel's own time to init */
	if (!scan->have_init && rec->has_time && !strncmp(rec->text, "Run ", 4) &&
	    strstr(rec->text, " as init process")) {
		scan->have_init = 1;
		scan->init_s = (double)rec->usec / 1e6;
	}
	if (!scan->have_freeing && rec->has_time &&
	    strstr(rec->text, "Freeing unused kernel")) {
		scan->have_freeing = 1;
		scan->freeing_s = (double)rec->usec / 1e6;
	}
	return 0;
}

/*
 * The kernel log's boot metrics. Not running as init (a host's kernel,
 * kexec'd, with the program started over ssh), to_init is the time of the
 * kernel's "Run ... as init process" message.
 */
static void emit_log(int pid1)
{
	struct log_scan scan;
	char why[256], metric[64];
	double total = 0;

	memset(&scan, 0, sizeof(scan));
	scan.first_seq = -1;
	if (kmsg_scan(on_record, &scan, why, sizeof(why))) {
		emit_error("boot", "cannot read the kernel log: %s", why);
		return;
	}
	if (scan.first_seq > 0)
		emit_meta("boot.log_truncated", "the oldest kernel log record is #%lld: "
			  "early messages were overwritten", scan.first_seq);
	for (int i = 0; i < scan.nodes; i++) {
		snprintf(metric, sizeof(metric), "deferred_init_node%d", scan.node[i]);
		emit_sample("boot", metric, 0, scan.node_ms[i], "ms", 0);
		total += scan.node_ms[i];
	}
	if (scan.nodes)
		emit_sample("boot", "deferred_init_total", 0, total, "ms", 0);
	else
		emit_meta("boot.deferred_init", "unavailable: no \"deferred pages "
			  "initialised\" message in the kernel log "
			  "(CONFIG_DEFERRED_STRUCT_PAGE_INIT off, or too little memory)");
	for (int i = 0; i < scan.probes; i++) {
		snprintf(metric, sizeof(metric), "probe_%s", scan.probe[i]);
		emit_sample("boot", metric, 0, scan.probe_ms[i], "ms", 0);
	}
	if (!pid1 && scan.have_init)
		emit_sample("boot", "to_init", 0, scan.init_s, "s", 0);
	else if (!pid1)
		emit_meta("boot.to_init", "unavailable: not running as init, and no \"Run ... as "
			  "init process\" message with a timestamp in the kernel log");
	if (scan.have_freeing)
		emit_sample("boot", "freeing_unused_kernel", 0, scan.freeing_s, "s", 0);
	else
		emit_meta("boot.freeing_unused_kernel", "unavailable: no \"Freeing unused "
			  "kernel\" message with a timestamp in the kernel log");
}

/* "fn_" and the name as a snake-case metric ("a.isra.0" -> "fn_a_isra_0"). */
static void fn_metric(char *metric, size_t size, const char *name)
{
	int n = snprintf(metric, size, "fn_%s", name);

	if (n < 0)
		metric[0] = '\0';
	for (char *c = metric; *c; c++)
		if (*c == '.' || *c == '-')
			*c = '_';
}

int boot_run(const struct params *p, int pid1)
{
	int errors = emit_error_count();
	char metric[64];

	if (!cap.done)
		boot_capture(p, pid1);
	if (pid1) {
		double s = (double)boot_init_start.tv_sec + boot_init_start.tv_nsec / 1e9;
		emit_sample("boot", "to_init", 0, s, "s", 0);
	}
	emit_log(pid1);

	if (cap.list_error[0])
		emit_error("boot", "%s", cap.list_error);
	for (int i = 0; i < cap.nfn; i++) {
		struct boot_fn *f = &cap.fn[i];
		fn_metric(metric, sizeof(metric), f->name);
		if (!f->n) {
			char key[96];
			snprintf(key, sizeof(key), "boot.%s", metric);
			emit_meta(key, "unavailable: %s", f->why);
			continue;
		}
		for (size_t k = 0; k < f->n; k++)
			emit_sample("boot", metric, (long)k, f->usecs[k], "us", 0);
		free(f->usecs);
		f->usecs = NULL;
		f->n = f->alloc = 0;
	}
	if (cap.stats.lost || cap.stats.overrun)
		emit_meta("boot.trace_lost", "%ld events lost, %ld overwritten: some "
			  "calls may be missing", cap.stats.lost, cap.stats.overrun);
	return emit_error_count() > errors ? -1 : 0;
}
