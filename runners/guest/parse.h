#ifndef GUEST_PARSE_H
#define GUEST_PARSE_H
/*
 * Pure parsers for the text the guest reads from the kernel: function_graph
 * trace lines, kernel log records, a few kernel messages and sysfs formats.
 *
 * Strings in, values out: no I/O, no allocation, nothing but libc, so a
 * host-side unit test can compile parse.c on its own. Every output buffer
 * belongs to the caller; text that does not fit is cut, never overflowed.
 */
#include <stddef.h>

#define PARSE_FUNC_MAX 128

/*
 * One line of the function_graph tracer's "trace" file, in any of the
 * layouts its options produce (funcgraph-cpu, -proc, -abstime, -tail):
 *
 *    0) ! 312.345 us  |  clear_huge_page();
 *    0)               |  deferred_init_memmap() {
 *    0) $ 1234567 us  |  }   (or "} / * deferred_init_memmap * /")
 *    0)               |  / * lab iter 1 * /
 *   CPU:0 [LOST 42 EVENTS]
 */
enum graph_kind {
	GRAPH_OTHER = 0,	/* header, blank line, context-switch banner */
	GRAPH_CALL,		/* "func();": a whole call with its duration */
	GRAPH_ENTRY,		/* "func() {": the duration comes with the exit */
	GRAPH_EXIT,		/* "}": a duration, maybe the function's name */
	GRAPH_COMMENT,		/* a trace_marker write or another event */
	GRAPH_LOST,		/* the ring buffer dropped events */
};

struct graph_line {
	enum graph_kind kind;
	int cpu;			/* -1 when the line shows none */
	double usecs;			/* CALL, EXIT; -1 when not shown */
	long lost;			/* LOST: events dropped */
	char func[PARSE_FUNC_MAX];	/* CALL, ENTRY; EXIT when named */
	char comment[256];		/* COMMENT */
};

enum graph_kind parse_graph_line(struct graph_line *out, const char *line);

/*
 * A duration column such as "! 312.345 us", "$ 1234567 us", "2.5 ms":
 * overhead markers (+ ! # * @ $) are skipped, units ns/us/ms/s convert
 * to microseconds. Returns 0, or -1 when s holds no duration.
 */
int parse_duration_us(double *usecs, const char *s);

/*
 * Pairs entries with exits, per CPU, so that a call printed as
 * "func() {" ... "}" yields the same (name, duration) as "func();".
 * Big (about 128 KiB): allocate it, zeroed, on the heap.
 */
#define GRAPH_MAX_CPUS 256
#define GRAPH_MAX_DEPTH 4

struct graph_pairing {
	int depth[GRAPH_MAX_CPUS];
	char open[GRAPH_MAX_CPUS][GRAPH_MAX_DEPTH][PARSE_FUNC_MAX];
	long unmatched;			/* exits whose entry was not seen */
};

/*
 * Feed one parsed line. Returns 1 when it completes a call, with the
 * function's name in func and its duration in *usecs; 0 otherwise.
 */
int graph_pairing_feed(struct graph_pairing *p, const struct graph_line *l,
		       char *func, size_t size, double *usecs);

/* Does a traced name stand for func? ("func", or "func.constprop.0") */
int graph_name_matches(const char *traced, const char *func);

/* One kernel log record, from /dev/kmsg or from syslog(2). */
struct kmsg_record {
	int level;			/* 0 (emerg) .. 7 (debug) */
	int facility;
	long long seq;			/* -1 in the syslog(2) format */
	int has_time;
	unsigned long long usec;	/* printk clock, since boot */
	char text[1024];		/* first line of the message, maybe cut */
};

/*
 * A /dev/kmsg record: "6,123,1234567,-;text\n KEY=value\n...". buf need
 * not be NUL-terminated. Returns 0, or -1 when it is not such a record.
 */
int parse_kmsg_record(struct kmsg_record *out, const char *buf, size_t len);

/* A syslog(2) line: "<6>[    1.234567] text" (the time is optional). */
int parse_syslog_line(struct kmsg_record *out, const char *line, size_t len);

/*
 * "node 0 deferred pages initialised in 28ms": returns 1 and fills *node
 * and *ms, or 0 when text is some other message.
 */
int parse_deferred_init(int *node, double *ms, const char *text);

/*
 * A probe's line (kernels/probes/): "lab-probe: map_mem 1234567 ns".
 * Returns 1 and fills name (a C identifier, at most size - 1 bytes) and
 * *ms, or 0 for any other message (a line in cycles is not a duration).
 */
int parse_probe(char *name, size_t size, double *ms, const char *text);

/*
 * "HugeTLB: 16380 KiB vmemmap can be freed for a 1.00 GiB page": returns
 * 1 and fills *kib and page ("1.00 GiB"), or 0 for any other message.
 */
int parse_hvo_message(long *kib, char *page, size_t size, const char *text);

/* "always [madvise] never" -> "madvise". Returns 0, or -1 when none. */
int parse_bracketed(char *out, size_t size, const char *s);

/*
 * A command-line word "lab.key=value": returns 1 and fills key and value
 * ("lab.x" alone gives value ""), 0 for a word that is not lab.*, -1 for
 * a lab.* word that does not fit or has an empty key.
 */
int parse_lab_param(char *key, size_t ksize, char *value, size_t vsize,
		    const char *word);

/*
 * A "key<spaces or tabs>: value" line as in /proc/cpuinfo or
 * /proc/meminfo. Returns 1 and fills value (trimmed) when the line's key
 * is exactly key, 0 otherwise.
 */
int parse_field(char *value, size_t size, const char *line, const char *key);

/*
 * /proc/vmstat, "name value" a line: the value of each of names[0..n)
 * into out[i], with bit i of the result set when the file has that name
 * (n at most 32). A counter the kernel was built without, such as
 * CONFIG_DEBUG_TLBFLUSH's nr_tlb_*, keeps its bit clear.
 */
unsigned parse_vmstat(long long *out, const char *const *names, size_t n, const char *buf);

/*
 * Iterate over a comma-separated list: copies the next non-empty item to
 * item and advances *s. Returns 1 per item, 0 at the end, -1 for an item
 * that does not fit (it is skipped).
 */
int parse_list_next(char *item, size_t size, const char **s);

#endif
