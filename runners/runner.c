#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner.h"
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
	memset(r, 0, sizeof(*r));
	strbuf_init(&r->error, 0);
	strbuf_init(&r->tail, 0);
	r->to_hello_s = -1;
	r->done_count = -1;
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

void run_result_release(struct run_result *r)
{
	for (size_t i = 0; i < r->dropped_nr; i++) {
		free(r->dropped[i].reason);
		free(r->dropped[i].line);
	}
	free(r->dropped);
	sample_set_release(&r->set);
	strbuf_release(&r->error);
	strbuf_release(&r->tail);
}

const struct runner *runner_find(const char *name)
{
	static const struct runner *const all[] = { &runner_qemu, &runner_local,
							     &runner_libvirt };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (!strcmp(all[i]->name, name))
			return all[i];
	return NULL;
}

void run_spec_cmdline(const struct run_spec *spec, char *out, size_t size)
{
	snprintf(out, size, "console=%s panic=-1 %s%s%s",
		 strcmp(spec->arch, "aarch64") ? "ttyS0" : "ttyAMA0",
		 spec->params ? spec->params : "",
		 spec->cmdline && *spec->cmdline ? " " : "",
		 spec->cmdline ? spec->cmdline : "");
}

int runner_boots_kernel(const struct runner *r)
{
	return r == &runner_qemu || r == &runner_libvirt;
}

int workload_known(const char *name)
{
	static const char *const known[] = { "zeroing", "demote", "boot" };
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(known[i], name))
			return 1;
	return 0;
}
