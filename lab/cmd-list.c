/* lab list: recent runs, newest first. */
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

static const char *const list_usage[] = {
	"usage: lab list [--limit N] [--db PATH] [--config FILE]",
	"",
	parse_options_here,
	NULL,
};

static int print_run(const struct store_run_summary *r, void *data)
{
	char when[32];

	(void)data;
	format_time(when, sizeof(when), r->started);
	printf("%6lld  %-19s  %-11s  %-6s  %-16s  %6lldM  %4d  %7d  %6.1fs  %s\n", r->id, when,
	       r->status, r->runner, term_safe(r->workloads), r->mem_mib, r->cpus, r->samples,
	       r->wall_s, term_safe(r->kernel));
	return 0;
}

static int print_experiment(const struct store_experiment_summary *e, void *data)
{
	char when[32], id[24];

	(void)data;
	format_time(when, sizeof(when), e->created);
	snprintf(id, sizeof(id), "E%lld", e->id);
	printf("%6s  %-19s  %-8s  %-6s  %-16s  %5d  %s\n", id, when, e->status, e->kind,
	       term_safe(e->workloads), e->runs, e->verdicts ? e->verdicts : "-");
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
	printf("%6s  %-19s  %-11s  %-6s  %-16s  %7s  %4s  %7s  %7s  %s\n", "run", "started",
	       "status", "runner", "workloads", "mem", "cpus", "samples", "wall", "kernel");
	if (store_runs_recent(&ctx.st, limit, print_run, NULL))
		goto out;
	printf("\n%6s  %-19s  %-8s  %-6s  %-16s  %5s  %s\n", "exp", "created", "status", "kind",
	       "workloads", "runs", "verdicts");
	if (store_experiments_recent(&ctx.st, limit, print_experiment, NULL))
		goto out;
	ret = 0;
out:
	context_release(&ctx);
	return ret;
}
