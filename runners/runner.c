#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "cpio.h"
#include "runner.h"
#include "strbuf.h"
#include "strvec.h"
#include "tempfile.h"

/* where the guest finds the boot's nonce (guest/main.c) */
#define NONCE_FILE "lab.nonce"

void run_spec_cmdline(const struct run_spec *spec, char *out, size_t size)
{
	snprintf(out, size, "console=%s panic=-1 %s%s%s",
		 strcmp(spec->arch, "aarch64") ? "ttyS0" : "ttyAMA0",
		 spec->params ? spec->params : "",
		 spec->cmdline && *spec->cmdline ? " " : "",
		 spec->cmdline ? spec->cmdline : "");
}

/*
 * The boot's nonce goes to the guest as the file /lab.nonce of an archive
 * appended to the lab's initramfs, not on the command line: Linux mixes
 * its command line into the entropy pool, so a nonce there gave each boot
 * other random numbers and, on several vCPUs, other work, and two boots of
 * one kernel in virtual time differed. The contents of an initramfs reach
 * no entropy. The file is this boot's: removed after it.
 */
int run_spec_nonce_initrd(struct strbuf *initrd, const struct run_spec *spec)
{
	struct strbuf word = STRBUF_INIT;
	int ret = 0;

	strbuf_reset(initrd);
	if (!spec->nonce) {
		strbuf_addstr(initrd, spec->initrd);
		return 0;
	}
	/* named like the lab's, so that what a killed lab left is removed (tempfile.h) */
	strbuf_addf(initrd, "%s.%s", spec->initrd, spec->nonce);
	strbuf_addf(&word, "lab.nonce=%s\n", spec->nonce);
	if (tempfile_register(initrd->buf) ||
	    initramfs_write_appended(initrd->buf, spec->initrd, NONCE_FILE, word.buf, word.len))
		ret = -1;
	strbuf_release(&word);
	return ret;
}

void run_spec_nonce_initrd_drop(const struct strbuf *initrd, const struct run_spec *spec)
{
	if (spec->nonce && initrd->len)
		tempfile_delete(initrd->buf);
}

void run_spec_clock_args(struct strvec *av, const struct run_spec *spec)
{
	if (!spec->clock || strcmp(spec->clock, "icount"))
		return;
	/* sleep=off: idle time is skipped, not waited for in real time */
	strvec_push(av, "-icount");
	strvec_pushf(av, "shift=%d,sleep=off", spec->icount_shift);
	/*
	 * Nothing of the host's time or chance reaches the guest, so that
	 * boots repeat to the instruction, of several vCPUs too: RDRAND
	 * draws from a seeded generator (it seeds the kernel's, hence the
	 * work and the order of its CPUs' threads), and the RTC counts
	 * virtual time from a fixed date instead of the host's clock.
	 */
	strvec_push(av, "-rtc");
	strvec_push(av, "base=2024-01-01T00:00:00,clock=vm");
	strvec_push(av, "-seed");
	strvec_push(av, "1");
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
