/*
 * lab run: boot a kernel N times (or run the guest locally), run workloads,
 * store every boot, print a table per metric.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot.h"
#include "commands.h"
#include "image.h"
#include "log.h"
#include "options.h"
#include "pool.h"
#include "say.h"
#include "subprocess.h"
#include "table.h"
#include "tempfile.h"
#include "escape.h"

static const char *const run_usage[] = {
	"usage: lab run --kernel IMAGE --workload W [options]",
	"",
	parse_options_here,
	NULL,
};

/* Say how to run the boots a signal left undone, and die of it. */
__attribute__((noreturn))
static void interrupted(struct lab_context *ctx, const long long *run_ids, long boots,
			struct strbuf *command)
{
	long done = 0;

	for (long k = 0; k < boots; k++)
		done += run_ids[k] != 0;
	strbuf_addf(command, " --boots %ld", boots - done);
	say_stopped(command->buf,
		    "lab run: interrupted after %ld of %ld boot%s, %s kept; the other %ld with:", done,
		    boots, boots == 1 ? "" : "s", done == 1 ? "it" : done ? "all" : "none",
		    boots - done);
	strbuf_release(command);
	context_release(ctx);
	fatal_signal_die();
}

int cmd_run(int argc, char **argv)
{
	struct workload_list workloads = WORKLOAD_LIST_INIT;
	struct strvec params = STRVEC_INIT, args = STRVEC_INIT;
	struct strbuf command = STRBUF_INIT;
	struct boot_opts o = { .workloads = &workloads, .params = &params };
	struct lab_context ctx;
	struct kernel_image image;
	const char *db = NULL, *config = NULL, *kernel = NULL;
	long long *run_ids = NULL;
	long boots = 1;
	const struct parse_option options[] = {
		OPT_STRING(0, "kernel", &kernel, "IMAGE",
			   "kernel image to boot (bzImage, vmlinux with PVH, arm64 Image)"),
		OPT_CALLBACK(0, "workload", &workloads, "W",
			     "zeroing, demote, boot, exec:PATH, stress-ng:STRESSOR or a\n"
			     "[workload] section's name; repeat or use W1,W2", boot_opt_workloads),
		OPT_STRVEC(0, "arg", &args, "ARG",
			   "argument of the exec: or stress-ng: workload (repeatable)"),
		OPT_INT(0, "boots", &boots, 1, INT_MAX, "N", "boots to run (default 1)"),
		BOOT_GUEST_OPTIONS(&o),
		BOOT_OPTIONS(&o, &params),
		OPT_STRING(0, "guest", &o.guest, "PATH",
			   "guest program (default: the one built beside lab)"),
		CONTEXT_OPTIONS(&db, &config),
		OPT_END(),
	};
	struct option_parser parser = { "lab run", run_usage, options, NULL };
	long bad_boots = 0;
	int ret = 2;

	kernel_image_init(&image);
	/* as given, before parsing reorders argv */
	strbuf_addstr(&command, "lab ");
	escape_shell_words(&command, argc, argv);
	if (context_start(&ctx, &parser, argc, argv, &db, &config, CONTEXT_NO_STORE))
		goto out;
	run_ids = calloc((size_t)boots, sizeof(*run_ids));
	if (!run_ids) {
		error("out of memory");
		goto out;
	}
	if (workloads_resolve(&workloads, &args, NULL, 0, ctx.cfg.workloads, ctx.cfg.nworkloads))
		goto out;
	/* read once here; every boot, on every target, takes it as it is */
	if (kernel) {
		if (kernel_image_resolve(&image, kernel,
					 !(boot_opts_runner_flags(&o, &ctx.cfg) & RUNNER_THIS_HOST)))
			goto out;
		o.kernel = &image;
	}
	/* Ctrl-C between boots: those that ended stay, and the rest is one command away */
	fatal_signal_defer(1);
	if (boots_run(&ctx, &o, boots, run_ids, &bad_boots)) {
		if (fatal_signal_pending())
			interrupted(&ctx, run_ids, boots, &command);
		goto out;
	}
	if (table_print_runs(stdout, &ctx.st, run_ids, (size_t)boots))
		goto out;
	ret = bad_boots ? 1 : 0;
out:
	kernel_image_release(&image);
	context_release(&ctx);
	free(run_ids);
	workload_list_release(&workloads);
	strvec_release(&params);
	strvec_release(&args);
	strbuf_release(&command);
	return ret;
}
