#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "run.h"
#include "textfmt.h"
#include "xalloc.h"

const char *run_status_name(enum run_status s)
{
	switch (s) {
	case RUN_RUNNING: return "RUNNING";
	case RUN_OK: return "OK";
	case RUN_FAILED: return "FAILED";
	case RUN_BOOT_FAILED: return "BOOT_FAILED";
	case RUN_TIMEOUT: return "TIMEOUT";
	case RUN_INFRA: return "INFRA";
	}
	return "?";
}

void run_result_init(struct run_result *r)
{
	/* the buffers zeroed are empty, as STRBUF_INIT leaves them */
	*r = (struct run_result){ .to_hello_s = -1, .done_count = -1 };
}

void run_result_infra(struct run_result *r, const char *fmt, ...)
{
	va_list ap;

	r->status = RUN_INFRA;
	va_start(ap, fmt);
	strbuf_vsetf(&r->error, fmt, ap);
	va_end(ap);
}

void run_result_drop(struct run_result *r, const char *reason, const char *line, size_t len)
{
	struct dropped_line *d;

	r->bad_lines++;
	if (r->dropped_nr >= RUN_DROPPED_KEEP)
		return;
	if (!r->dropped)
		r->dropped = xcalloc(RUN_DROPPED_KEEP, sizeof(*r->dropped));
	d = &r->dropped[r->dropped_nr++];
	if (len > RUN_DROPPED_LINE_MAX)
		len = RUN_DROPPED_LINE_MAX;
	d->reason = xstrdup(reason);
	d->line = xcalloc(len + 1, 1);
	memcpy(d->line, line, len);
}

int run_result_add_profile(struct run_result *r, const char *workload, const char *function,
			   long long calls, double ns)
{
	struct profile_fn *f;

	for (size_t i = 0; i < r->profile_nr; i++)
		if (!strcmp(r->profile[i].function, function) &&
		    !strcmp(r->profile[i].workload, workload))
			return 1;
	ALLOC_GROW(r->profile, r->profile_nr + 1, r->profile_alloc);
	f = &r->profile[r->profile_nr++];
	f->workload = xstrdup(workload);
	f->function = xstrdup(function);
	f->calls = calls;
	f->ns = ns;
	return 0;
}

void run_result_release(struct run_result *r)
{
	for (size_t i = 0; i < r->profile_nr; i++) {
		free(r->profile[i].workload);
		free(r->profile[i].function);
	}
	free(r->profile);
	for (size_t i = 0; i < r->dropped_nr; i++) {
		free(r->dropped[i].reason);
		free(r->dropped[i].line);
	}
	free(r->dropped);
	sample_set_release(&r->set);
	strbuf_release(&r->error);
	strbuf_release(&r->tail);
}

void run_host_words(struct strbuf *out, long long host_mem_mib, int host_cpus)
{
	char mem[16];

	textfmt_value(mem, sizeof(mem), (double)host_mem_mib / 1024.0);
	strbuf_addf(out, "%sG and %d CPU%s", mem, host_cpus, host_cpus == 1 ? "" : "s");
}

void run_size_words(struct strbuf *out, long long mem_mib, int cpus, long long host_mem_mib,
		    int host_cpus)
{
	if (host_mem_mib > 0 && host_cpus > 0) {
		strbuf_addstr(out, "this host, ");
		run_host_words(out, host_mem_mib, host_cpus);
	} else {
		strbuf_addf(out, "%lldM, %d cpu%s", mem_mib, cpus, cpus == 1 ? "" : "s");
	}
}
