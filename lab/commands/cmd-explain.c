/* lab explain: where the time went, by the kernel's function profiler on both sides. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab-report.h"
#include "ab-spec.h"
#include "commands.h"
#include "escape.h"
#include "explain.h"
#include "log.h"
#include "options.h"
#include "say.h"
#include "store-experiment.h"
#include "store-profile.h"
#include "store-verdict.h"
#include "strbuf.h"
#include "strvec.h"
#include "tempfile.h"

static const char *const explain_usage[] = {
	"usage: lab explain EXP [--metric M] [--top N] [--again] [--boots N] [--format F]",
	"       lab explain --a REF --b REF --workload W [A/B options] [--metric M]",
	"       lab explain XN [--top N] [--format F]",
	"",
	"Boots A and B with the kernel's function profiler on around the workload and",
	"prints the functions whose time and calls changed most. EXP is",
	"an A/B (E12): its kernels, command lines and workload, booted again; an",
	"explanation already stored for it is printed instead, unless --again. XN",
	"prints stored explanation N. The profiled boots never reach a verdict. In",
	"wall time each side boots 5 times (--boots N) and each change has its interval.",
	"",
	parse_options_here,
	"",
	"exit status: 0 explained, 2 error",
	NULL,
};

struct explain_cli {
	struct ab_spec s;
	const char *metric, *functions;
	long top;
	int again;
};

/* The options an A/B is given by, and the ones lab ab's recorded command may carry. */
#define EXPLAIN_SPEC_OPTIONS(c, fmt, ignored, ignored_flag) \
	AB_SPEC_OPTIONS(&(c)->s), \
	FORMAT_OPTION(fmt), \
	OPT_CALLBACK(0, "arch", &(c)->s.arch, "A", \
		     "x86_64 or aarch64 for builds (default: this host)", boot_opt_arch), \
	{ .type = OPTION_STRING, .long_name = "resume", .value = (ignored), .argh = "EXP", \
	  .flags = PARSE_OPT_HIDDEN }, \
	{ .type = OPTION_BOOL, .long_name = "verbose", .value = (ignored_flag), \
	  .flags = PARSE_OPT_HIDDEN }

/* Experiment id's A/B, parsed from the command it was started with, into c->s. */
static int spec_of_experiment(struct explain_cli *c, struct strvec *words,
			      struct lab_context *ctx, long long id)
{
	struct strbuf command = STRBUF_INIT;
	const char *ignored = NULL, *db = NULL, *config = NULL;
	int ignored_flag = 0, n, ret = -1;
	enum ab_format ignored_fmt;
	const struct parse_option options[] = {
		EXPLAIN_SPEC_OPTIONS(c, &ignored_fmt, &ignored, &ignored_flag),
		CONTEXT_OPTIONS(&db, &config),
		OPT_END(),
	};
	struct option_parser parser = { "the experiment's lab ab", explain_usage, options, NULL };

	if (store_experiment_command(&ctx->st, &command, id))
		goto out;
	if (split_shell_words(words, command.buf) || words->nr < 2 ||
	    strcmp(words->v[0], "lab") || strcmp(words->v[1], "ab")) {
		error("E%lld was not made by lab ab ('%s'): explain its kernels with --a/--b or "
		      "--a-kernel/--b-kernel", id, term_safe(command.buf));
		goto out;
	}
	n = parse_options(&parser, (int)words->nr - 1, words->v + 1);
	if (n < 0)
		goto out;
	if (n > 0) {
		error("E%lld's command has a word that is not an option: '%s'", id,
		      term_safe(words->v[1]));
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&command);
	return ret;
}

/* The metric explained by default: the experiment's first regression, else the first verdict. */
static int default_metric(struct strbuf *workload, struct strbuf *metric, struct store *st,
			  long long exp_id)
{
	struct verdict_list l = { 0 };
	const struct verdict_row *pick = NULL;

	if (store_verdicts_read(st, &l, exp_id))
		return -1;
	for (size_t i = 0; i < l.nr && !pick; i++)
		if (!strcmp(l.v[i].verdict, "REGRESSION"))
			pick = &l.v[i];
	for (size_t i = 0; i < l.nr && !pick; i++)
		if (strcmp(l.v[i].verdict, "SAME"))
			pick = &l.v[i];
	if (!pick && l.nr)
		pick = &l.v[0];
	if (pick) {
		strbuf_addstr(workload, pick->workload);
		strbuf_addstr(metric, pick->metric);
	}
	verdict_list_release(&l);
	return pick ? 0 : error("E%lld has no verdict to explain: give --metric", exp_id);
}

struct found {
	const char *workload, *metric;
	long long id;
};

static int found_take(const struct store_explanation *e, void *data)
{
	struct found *f = data;

	if (!strcmp(e->workload, f->workload) && !strcmp(e->metric, f->metric))
		f->id = e->id;
	return 0;
}

/* "workload.metric" or "metric" of workload into the two buffers. */
static int split_metric(struct strbuf *workload, struct strbuf *metric, const char *arg,
			const struct strvec *workloads)
{
	const char *dot = strchr(arg, '.');

	if (dot && dot != arg && dot[1]) {
		strbuf_add(workload, arg, (size_t)(dot - arg));
		strbuf_addstr(metric, dot + 1);
		return 0;
	}
	if (workloads->nr != 1)
		return error("--metric %s: name its workload too (WORKLOAD.METRIC)", arg);
	strbuf_addstr(workload, workloads->v[0]);
	strbuf_addstr(metric, arg);
	return 0;
}

/* explain_report() on stdout: 2 when the explanation cannot be read, else 0. */
static int print_report(struct store *st, long long id, int top, enum ab_format fmt)
{
	struct strbuf report = STRBUF_INIT;
	int ret = explain_report(&report, st, id, top, fmt) ? 2 : 0;

	strbuf_fwrite(&report, stdout);
	strbuf_release(&report);
	return ret;
}

/* Stopped by a signal (fatal_signal_defer()): say how to explain it after all, and die of it. */
__attribute__((noreturn))
static void interrupted(struct lab_context *ctx, const char *command)
{
	say_stopped(command, "lab explain: interrupted, no explanation stored; run it again with:");
	context_release(ctx);
	fatal_signal_die();
}

int cmd_explain(int argc, char **argv)
{
	struct explain_cli c = { .top = EXPLAIN_TOP };
	struct strbuf workload = STRBUF_INIT, metric = STRBUF_INIT, command = STRBUF_INIT;
	struct strvec words = STRVEC_INIT;
	struct lab_context ctx;
	struct explain_opts o;
	const char *db = NULL, *config = NULL, *ignored = NULL;
	long long exp_id = 0, id = 0;
	int ignored_flag = 0, n, ret = 2;
	enum ab_format fmt = AB_TEXT;
	long boots = 0;
	const struct parse_option options[] = {
		OPT_STRING(0, "metric", &c.metric, "M",
			   "the metric whose change is explained: METRIC or WORKLOAD.METRIC\n"
			   "(default: EXP's first regression, else the workload's first)"),
		OPT_INT(0, "top", &c.top, 0, 100000, "N",
			"functions shown, 0 for all (default 10)"),
		OPT_BOOL(0, "again", &c.again, "EXP: boot again even when it was explained"),
		OPT_STRING(0, "functions", &c.functions, "F1,F2",
			   "a kernel without the function profiler: time these functions\n"
			   "by function_graph instead (callees included)"),
		EXPLAIN_SPEC_OPTIONS(&c, &fmt, &ignored, &ignored_flag),
		CONTEXT_OPTIONS(&db, &config),
		OPT_END(),
	};
	struct option_parser parser = { "lab explain", explain_usage, options, NULL };

	memset(&ctx, 0, sizeof(ctx));
	memset(&o, 0, sizeof(o));
	ab_spec_init(&c.s);
	/* as given: parsing reorders argv */
	strbuf_addstr(&command, "lab ");
	escape_shell_words(&command, argc, argv);
	n = parse_command_options(&parser, argc, argv, 1);
	/* refused before a database or a boot: the names go on a kernel command line */
	if (n < 0 || (c.functions && explain_functions_check(c.functions)))
		goto out;
	boots = c.s.o.boots;
	if (context_load_config(&ctx, config, db))
		goto out;
	if (n == 1 && (argv[0][0] == 'X' || argv[0][0] == 'x')) {
		long v;
		if (parse_positive_int(argv[0] + 1, &v)) {
			error("bad explanation id '%s': expected X3", argv[0]);
			goto out;
		}
		if (!context_open_store_read(&ctx))
			ret = print_report(&ctx.st, v, (int)c.top, fmt);
		goto out;
	}
	if (n == 1) {
		long v;
		if (parse_positive_int(argv[0] + (argv[0][0] == 'E' || argv[0][0] == 'e'), &v)) {
			error("bad experiment id '%s': expected E12 (or X3, an explanation)",
			      argv[0]);
			goto out;
		}
		exp_id = v;
		if (c.s.ref[0] || c.s.ref[1] || c.s.kernel || c.s.side_kernel[0] ||
		    c.s.side_kernel[1] || c.s.workloads.specs.nr) {
			error("E%lld names its kernels and workload: give no --a, --b, --kernel or "
			      "--workload with it", exp_id);
			goto out;
		}
		if (context_need_store(&ctx) || spec_of_experiment(&c, &words, &ctx, exp_id))
			goto out;
	}
	if (ab_spec_prepare(&c.s, &ctx))
		goto out;
	if (c.metric) {
		if (split_metric(&workload, &metric, c.metric, &c.s.workloads.specs))
			goto out;
	} else if (exp_id) {
		if (default_metric(&workload, &metric, &ctx.st, exp_id))
			goto out;
	} else {
		const char *const *m = workload_metrics(c.s.workloads.specs.v[0]);
		if (!m || !m[0] || strchr(m[0], '*')) {
			error("which metric of %s? give --metric", c.s.workloads.specs.v[0]);
			goto out;
		}
		strbuf_addstr(&workload, c.s.workloads.specs.v[0]);
		strbuf_addstr(&metric, m[0]);
	}
	if (exp_id && !c.again) {
		struct found f = { workload.buf, metric.buf, 0 };
		if (store_explanations(&ctx.st, exp_id, found_take, &f))
			goto out;
		id = f.id;
	}
	if (!id) {
		o.v[0] = c.s.o.v[0];
		o.v[1] = c.s.o.v[1];
		o.boot = c.s.o.boot;
		o.mem_mib = c.s.mems[0];
		o.cpus = c.s.cpus[0];
		o.workload = workload.buf;
		o.metric = metric.buf;
		o.experiment_id = exp_id;
		o.boots = (int)boots;
		o.functions = c.functions;
		if (c.s.nmems > 1 || c.s.ncpus > 1)
			say("explaining at the first point of the sweep: %ldM, %ld cpu%s", o.mem_mib,
			    o.cpus, o.cpus == 1 ? "" : "s");
		/* Ctrl-C between boots: the boot under way ends INFRA, and the command is said */
		fatal_signal_defer(1);
		if (explain_run(&id, &ctx, &o)) {
			if (fatal_signal_pending())
				interrupted(&ctx, command.buf);
			goto out;
		}
	}
	ret = print_report(&ctx.st, id, (int)c.top, fmt);
out:
	ab_spec_release(&c.s);
	context_release(&ctx);
	strvec_release(&words);
	strbuf_release(&workload);
	strbuf_release(&metric);
	strbuf_release(&command);
	return ret;
}
