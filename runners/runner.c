#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "runner.h"

const struct runner *const runner_all[] = { &runner_qemu, &runner_local, &runner_libvirt,
					    &runner_ssh, &runner_lava };
const size_t runner_nr = ARRAY_SIZE(runner_all);

const struct runner *runner_find(const char *name)
{
	for (size_t i = 0; i < runner_nr; i++)
		if (!strcmp(runner_all[i]->name, name))
			return runner_all[i];
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

void runner_missing(struct strbuf *missing, const char *fmt, ...)
{
	va_list ap;

	if (missing->len)
		strbuf_addstr(missing, ", ");
	va_start(ap, fmt);
	strbuf_vaddf(missing, fmt, ap);
	va_end(ap);
}

void runner_where(const struct runner *r, const struct run_spec *spec, struct strbuf *sb)
{
	if (r && r->where)
		r->where(spec, sb);
	else
		strbuf_addstr(sb, "this machine");
}

/* As runners/guest/{zeroing,demote,boot}.c emit them, and lab/plans/boot.c host_to_init. */
static const struct {
	const char *name;
	const char *const metrics[7];
} builtin[] = {
	{ "zeroing", { "touch", "clear_huge_page", NULL } },
	{ "demote", { "demote_page_wall", "demote_page_sys", "demote_total_wall",
		      "demote_total_sys", NULL } },
	{ "boot", { "to_init", "host_to_init", "freeing_unused_kernel", "deferred_init_*",
		    "fn_*", "probe_*", NULL } },
};

int workload_known(const char *name)
{
	return workload_metrics(name) != NULL;
}

const char *const *workload_metrics(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(builtin); i++)
		if (!strcmp(builtin[i].name, name))
			return builtin[i].metrics;
	return NULL;
}
