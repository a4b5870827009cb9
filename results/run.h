#ifndef RUN_H
#define RUN_H
/*
 * What one run (one boot) produced, as a runner fills it and the store
 * keeps it: the status, the samples and metadata the guest reported, the
 * lines the reader refused and the end of the console. Plain data, so that
 * the store needs nothing of the runners that make it. The caller owns the
 * struct; run_result_release() frees what was put into it.
 */
#include <stddef.h>

#include "sample.h"
#include "strbuf.h"

enum run_status {
	RUN_RUNNING = 0,	/* stored at the start, replaced at the end */
	RUN_OK,			/* the guest said done ok */
	RUN_FAILED,		/* booted, but a workload reported an error */
	RUN_BOOT_FAILED,	/* panic, BUG, Oops, or no done line */
	RUN_TIMEOUT,		/* deadline passed; the process group was killed */
	RUN_INFRA,		/* the lab's side failed */
};

const char *run_status_name(enum run_status s);

/* A console line the reader refused, and why (the dropped_lines table). */
struct dropped_line {
	char *reason;
	char *line;		/* cut to RUN_DROPPED_LINE_MAX bytes */
};

/*
 * What the kernel's function profiler counted for one function over one
 * workload of a profiled boot (the profiles table): calls, and the time in
 * it, callees and sleep included, with the profiler's cost.
 */
struct profile_fn {
	char *workload;
	char *function;
	long long calls;
	double ns;
};

#define RUN_DROPPED_KEEP 100	/* lines kept with their reason; all are counted */
#define RUN_DROPPED_LINE_MAX 300

struct run_result {
	enum run_status status;
	struct sample_set set;
	struct strbuf error;		/* one line, when status != OK */
	struct strbuf tail;		/* last few KiB of the console */
	char accel[8];			/* what was really used */
	char full_cmdline[4096];	/* the kernel's, or the program's arguments */
	double wall_s;			/* start to end */
	double to_hello_s;		/* start to the guest's hello; < 0 if none */
	int bad_lines;			/* protocol lines dropped, for whatever reason */
	struct dropped_line *dropped;	/* the first RUN_DROPPED_KEEP of them */
	size_t dropped_nr;
	long done_count;		/* samples the guest said it sent; -1 if no done */
	struct profile_fn *profile;	/* a profiled boot's functions */
	size_t profile_nr, profile_alloc;
};

void run_result_init(struct run_result *r);
/*
 * The run failed in the lab, not in the kernel: status RUN_INFRA, the
 * error replaced by the formatted one.
 */
__attribute__((format(printf, 2, 3)))
void run_result_infra(struct run_result *r, const char *fmt, ...);
/* Count a dropped line, and keep it with its reason while there is room. */
void run_result_drop(struct run_result *r, const char *reason, const char *line, size_t len);
/*
 * Add a copy of one function's profile; 1 when workload already had that
 * function (nothing added), 0 when added.
 */
int run_result_add_profile(struct run_result *r, const char *workload, const char *function,
			   long long calls, double ns);
void run_result_release(struct run_result *r);

/*
 * The host a run of the local runner measured, as it recorded it (run
 * meta host.mem_mib, host.cpus; its --mem and --cpus change nothing):
 * both 0 for a run of another runner, whose size is the guest's.
 */
struct run_host {
	long long mem_mib;
	int cpus;
};

/*
 * What runs ran on, in words, the same in every table, page and mail: the
 * guest they were given, "2048M, 1 cpu"; or, where the local runner
 * recorded the host it measured (host_mem_mib and host_cpus > 0),
 * "this host, 23.54G and 2 CPUs".
 */
void run_size_words(struct strbuf *out, long long mem_mib, int cpus, long long host_mem_mib,
		    int host_cpus);
/* The host's part alone: "23.54G and 2 CPUs". */
void run_host_words(struct strbuf *out, long long host_mem_mib, int host_cpus);

#endif
