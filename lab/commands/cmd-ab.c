/* lab ab: is B slower than A? Interleaved boots, one verdict per metric. */
#include <stdio.h>
#include <string.h>

#include "ab-report.h"
#include "ab-spec.h"
#include "commands.h"
#include "escape.h"
#include "log.h"
#include "options.h"
#include "say.h"
#include "store-experiment.h"
#include "strbuf.h"
#include "tempfile.h"

static const char *const ab_usage[] = {
	"usage: lab ab --a-kernel IMG --b-kernel IMG --workload W [options]",
	"       lab ab --a REF --b REF --workload W [options]",
	"       lab ab --a REF --patch FILE|URL --workload W [options]",
	"",
	parse_options_here,
	"",
	"exit status: 0 no regression found, 1 regression, 2 error",
	NULL,
};

static int opt_resume(const struct parse_option *opt, const char *arg)
{
	long v;

	if (parse_positive_int(arg + (arg[0] == 'E'), &v))
		return PARSE_OPT_BAD;
	*(long long *)opt->value = v;
	return 0;
}

/* Stopped by a signal (fatal_signal_defer()): say how the experiment goes on, and die of it. */
__attribute__((noreturn))
static void interrupted(struct lab_context *ctx, long long exp_id, const char *command)
{
	struct strbuf started = STRBUF_INIT;

	/* stopped before its experiment was stored, there is nothing to resume */
	if (exp_id) {
		if (store_experiment_command(&ctx->st, &started, exp_id))
			strbuf_addstr(&started, command);
		strbuf_addf(&started, " --resume E%lld", exp_id);
		say_interrupted(started.buf, "experiment E%lld", exp_id);
	}
	strbuf_release(&started);
	context_release(ctx);
	fatal_signal_die();
}

int cmd_ab(int argc, char **argv)
{
	struct strbuf command = STRBUF_INIT;
	struct lab_context ctx;
	struct ab_spec s;
	const char *db = NULL, *config = NULL;
	long long exp_id = 0;
	int verbose = 0, aa = 0;
	enum ab_format fmt = AB_TEXT;
	const struct parse_option options[] = {
		AB_SPEC_OPTIONS(&s),
		FORMAT_OPTION(&fmt),
		OPT_CALLBACK(0, "arch", &s.arch, "A",
			     "x86_64 or aarch64 for builds (default: this host)", boot_opt_arch),
		OPT_CALLBACK(0, "resume", &s.o.resume, "EXP",
			     "continue experiment EXP (same options as when it started)", opt_resume),
		OPT_BOOL(0, "aa", &aa, "A and B the same kernel and command line on purpose (an A/A)"),
		OPT_BOOL(0, "verbose", &verbose,
			 "text: each metric's means, deviations, p and MDE after the table"),
		CONTEXT_OPTIONS(&db, &config),
		OPT_END(),
	};
	struct option_parser parser = { "lab ab", ab_usage, options, NULL };
	int ret = 2;

	ab_spec_init(&s);
	/* the recorded command line is the one given, before parsing reorders argv */
	strbuf_addstr(&command, "lab ");
	escape_shell_words(&command, argc, argv);
	if (context_start(&ctx, &parser, argc, argv, &db, &config, CONTEXT_NO_STORE) ||
	    ab_spec_prepare(&s, &ctx))
		goto out;
	/* the same kernel twice is a noise floor, never a comparison by mistake */
	if (!aa && !s.o.resume && ab_spec_same_sides(&s)) {
		error("A and B are one kernel with one command line: give --a-cmdline/--b-cmdline, "
		      "or --aa for an A/A");
		goto out;
	}
	s.o.command = command.buf;

	/* Ctrl-C between boots: the experiment is marked, and says how it goes on */
	fatal_signal_defer(1);
	ret = (int)ab_run(&exp_id, &ctx, &s.o);
	if (ret == AB_INTERRUPTED || (ret == AB_ERROR && fatal_signal_pending()))
		interrupted(&ctx, ret == AB_INTERRUPTED ? exp_id : 0, command.buf);
	if (ret != AB_ERROR) {
		struct strbuf report = STRBUF_INIT;

		if (ab_report(&report, &ctx.st, exp_id, fmt, verbose ? AB_REPORT_VERBOSE : 0))
			ret = AB_ERROR;
		strbuf_fwrite(&report, stdout);
		strbuf_release(&report);
	}
	if (exp_id && !s.o.resume && ret == AB_ERROR && store_is_open(&ctx.st)) {
		int exists = 0;
		/* a rolled-back experiment (a full disk) cannot be resumed */
		if (!store_experiment_exists(&ctx.st, exp_id, &exists) && exists)
			say("experiment E%lld: continue with the same command and --resume E%lld",
			    exp_id, exp_id);
	}
out:
	ab_spec_release(&s);
	context_release(&ctx);
	strbuf_release(&command);
	return ret;
}
