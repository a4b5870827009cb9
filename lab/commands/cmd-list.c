/* lab list: recent runs and experiments, newest first, with their verdicts or culprits. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "config.h"
#include "context.h"
#include "escape.h"
#include "parse-options.h"
#include "store-experiment.h"
#include "textfmt.h"

static const char *const list_usage[] = {
	"usage: lab list [--limit N] [--db PATH] [--config FILE]",
	"",
	parse_options_here,
	NULL,
};

/*
 * Within 100 columns: the run's fields in fixed widths, text cut where
 * its column ends (the kernel's path from the left, as its file name is
 * what tells kernels apart), the kernel in what is left.
 */
#define RUN_ROW "%6s %-16s %-11s %-6s %-14s %6s %3s %5s %6s %s\n"
#define RUN_KERNEL_W (TEXTFMT_COLUMNS - 6 - 16 - 11 - 6 - 14 - 6 - 3 - 5 - 6 - 9)
#define EXP_ROW "%6s %-16s %-8s %-6s %-14s %4s %s\n"
#define EXP_RESULT_W (TEXTFMT_COLUMNS - 6 - 16 - 8 - 6 - 14 - 4 - 6)

static int print_run(const struct store_run_summary *r, void *data)
{
	char when[32], id[24], status[16], runner[16], work[64], mem[24], cpus[16], n[16];
	char wall[24], kernel[128];

	(void)data;
	format_time(when, sizeof(when), r->started);
	when[16] = '\0';	/* to the minute */
	snprintf(id, sizeof(id), "%lld", r->id);
	textfmt_cut(status, sizeof(status), r->status, 11, 0);
	textfmt_cut(runner, sizeof(runner), r->runner, 6, 0);
	textfmt_cut(work, sizeof(work), term_safe(r->workloads), 14, 0);
	if (r->host.mem_mib > 0 && r->host.cpus > 0) {
		/* the local runner measures this host, whatever --mem and --cpus said */
		char gib[16];

		textfmt_value(gib, sizeof(gib), (double)r->host.mem_mib / 1024.0);
		snprintf(mem, sizeof(mem), "%sG", gib);
		snprintf(cpus, sizeof(cpus), "%d", r->host.cpus);
	} else {
		snprintf(mem, sizeof(mem), "%lldM", r->mem_mib);
		snprintf(cpus, sizeof(cpus), "%d", r->cpus);
	}
	snprintf(n, sizeof(n), "%d", r->samples);
	snprintf(wall, sizeof(wall), "%.1fs", r->wall_s);
	textfmt_cut(kernel, sizeof(kernel), term_safe(r->kernel), RUN_KERNEL_W, 1);
	printf(RUN_ROW, id, when, status, runner, work, mem, cpus, n, wall, kernel);
	return 0;
}

static int print_experiment(const struct store_experiment_summary *e, void *data)
{
	char when[32], id[24], work[64], runs[16], result[128], culprit[16];
	const char *what = e->verdicts ? e->verdicts : "-";

	(void)data;
	format_time(when, sizeof(when), e->created);
	when[16] = '\0';
	snprintf(id, sizeof(id), "E%lld", e->id);
	snprintf(runs, sizeof(runs), "%d", e->runs);
	textfmt_cut(work, sizeof(work), term_safe(e->workloads), 14, 0);
	/* a bisection's result is its culprit, or how it ended without one */
	if (e->culprit) {
		snprintf(culprit, sizeof(culprit), "%.12s", e->culprit);
		what = term_safe(culprit);
	} else if (e->outcome) {
		what = term_safe(e->outcome);
	} else if (!strcmp(e->kind, "bisect")) {
		what = "-";
	}
	textfmt_cut(result, sizeof(result), what, EXP_RESULT_W, 0);
	printf(EXP_ROW, id, when, e->status, e->kind, work, runs, result);
	return 0;
}

int cmd_list(int argc, char **argv)
{
	struct lab_context ctx;
	const char *db = NULL, *config = NULL;
	long limit = 20;
	const struct parse_option options[] = {
		{ .type = OPTION_INT, .short_name = 'n', .long_name = "limit", .value = &limit,
		  .min = 1, .max = INT_MAX, .argh = "N",
		  .help = "runs and experiments to list (default 20)",
		  .expect = "a positive integer" },
		CONTEXT_OPTIONS(&db, &config),
		OPT_END(),
	};
	struct option_parser parser = { "lab list", list_usage, options, NULL };
	int ret = 2;

	if (context_start(&ctx, &parser, argc, argv, &db, &config, CONTEXT_STORE_READ))
		goto out;
	printf(RUN_ROW, "run", "started", "status", "runner", "workloads", "mem", "cpu", "n",
	       "wall", "kernel");
	if (store_runs_recent(&ctx.st, limit, print_run, NULL))
		goto out;
	printf("\n" EXP_ROW, "exp", "created", "status", "kind", "workloads", "runs",
	       "verdicts or culprit");
	if (store_experiments_recent(&ctx.st, limit, print_experiment, NULL))
		goto out;
	ret = 0;
out:
	context_release(&ctx);
	return ret;
}
