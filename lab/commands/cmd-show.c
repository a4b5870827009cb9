/* lab show RUN: one run's provenance, metadata, samples, event counts and console log. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab-report.h"
#include "array.h"
#include "commands.h"
#include "config.h"
#include "context.h"
#include "escape.h"
#include "ab-spec.h"
#include "explain.h"
#include "log.h"
#include "options.h"
#include "redact.h"
#include "sample.h"
#include "store-experiment.h"
#include "table.h"

static const char *const show_usage[] = {
	"usage: lab show RUN|EXP [--format text|csv|json] [--db PATH] [--config FILE]",
	"  RUN is a run id (12), EXP an experiment id (E3)",
	"  a run as csv is its samples, one a row; as json its fields, metadata,",
	"  samples, event counts and dropped lines",
	"",
	parse_options_here,
	NULL,
};

/* The run's fields, in the order of enum store_run_field. */
static const struct {
	const char *label, *key;
	int number;
} run_fields[] = {
	{ "status", "status", 0 },
	{ "error", "error", 0 },
	{ "runner", "runner", 0 },
	{ "target", "target", 0 },
	{ "class", "class", 0 },
	{ "workloads", "workloads", 0 },
	{ "parameters", "params", 0 },
	{ "kernel", "kernel", 0 },
	{ "kernel hash", "kernel_hash", 0 },
	{ "arch", "arch", 0 },
	{ "command line", "cmdline", 0 },
	{ "memory MiB", "mem_mib", 1 },
	{ "cpus", "cpus", 1 },
	{ "accel", "accel", 0 },
	{ "host", "host", 0 },
	{ "host cpu", "host_cpu", 0 },
	{ "qemu", "qemu_version", 0 },
	{ "wall s", "wall_s", 1 },
	{ "to hello s", "to_hello_s", 1 },
	{ "bad lines", "bad_lines", 1 },
	{ "console log", "console_log", 0 },
};
#define NR_RUN_FIELDS (int)ARRAY_SIZE(run_fields)
_Static_assert(ARRAY_SIZE(run_fields) == RUN_STARTED,
	       "run_fields follows enum store_run_field up to the start time");

/*
 * Text from a guest's console must not drive the user's terminal: shown
 * as escape_term() shows it, newlines and tabs kept.
 */
static void put_escaped(FILE *f, const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	escape_term(&sb, s, ESCAPE_TERM_LINES);
	fputs(strbuf_str(&sb), f);
	strbuf_release(&sb);
}

static void json_field(FILE *f, const struct store_run_view *r, int i, int number)
{
	if (!r->text[i])
		fputs("null", f);
	else if (number)
		fprintf(f, "%.10g", r->num[i]);
	else
		escape_json(f, r->text[i]);
}

struct show_out {
	FILE *f;
	long long run_id;
	enum ab_format fmt;
	size_t n;
	struct store *st;
};

static int show_sample(const struct sample *s, void *data)
{
	struct show_out *o = data;

	if (o->fmt == AB_CSV) {
		fprintf(o->f, "%lld,", o->run_id);
		escape_csv(o->f, s->workload);
		fputc(',', o->f);
		escape_csv(o->f, s->metric);
		fprintf(o->f, ",%ld,%.10g,", s->iteration, s->value);
		escape_csv(o->f, s->unit);
		fprintf(o->f, ",%d\n", (s->flags & SAMPLE_WARMUP) != 0);
	} else {
		fputs(o->n++ ? ",\n    {\"workload\": " : "\n    {\"workload\": ", o->f);
		escape_json(o->f, s->workload);
		fputs(", \"metric\": ", o->f);
		escape_json(o->f, s->metric);
		fprintf(o->f, ", \"iteration\": %ld, \"value\": %.10g, \"unit\": ", s->iteration,
			s->value);
		escape_json(o->f, s->unit);
		fprintf(o->f, ", \"warmup\": %s}", (s->flags & SAMPLE_WARMUP) ? "true" : "false");
	}
	return 0;
}

static int show_dropped(long long seq, const char *reason, const char *line, void *data)
{
	struct show_out *o = data;

	if (o->fmt == AB_TEXT) {
		if (!o->n++)
			fprintf(o->f, "\ndropped lines\n");
		fprintf(o->f, "  %-4lld ", seq);
		put_escaped(o->f, reason);
		fputs(": ", o->f);
		put_escaped(o->f, line);
		fputc('\n', o->f);
		return 0;
	}
	fprintf(o->f, "%s\n    {\"seq\": %lld, \"reason\": ", o->n++ ? "," : "", seq);
	escape_json(o->f, reason);
	fputs(", \"line\": ", o->f);
	escape_json(o->f, line);
	fputc('}', o->f);
	return 0;
}

static int show_meta_row(const char *key, const char *value, void *data)
{
	struct show_out *o = data;

	/* an older lab stored addresses with their secrets (lava.url with its password) */
	value = url_redacted(value);

	if (o->fmt == AB_JSON) {
		fputs(o->n++ ? ",\n    " : "\n    ", stdout);
		escape_json(stdout, key);
		fputs(": ", stdout);
		escape_json(stdout, value);
	} else {
		printf("  %-28s ", key);
		put_escaped(stdout, value);
		putchar('\n');
	}
	return 0;
}

static int show_meta(struct store *st, long long id, enum ab_format fmt)
{
	struct show_out o = { stdout, id, fmt, 0, st };

	fputs(fmt == AB_JSON ? ",\n  \"meta\": {" : "\nmetadata\n", stdout);
	return store_run_meta(st, id, show_meta_row, &o);
}

/* The run row stays open until the end: its console tail is printed last. */
static int show_run_row(const struct store_run_view *r, void *data)
{
	struct show_out *o = data;
	struct store *st = o->st;
	long long id = r->id;
	enum ab_format fmt = o->fmt;
	char when[32];
	int i;

	if (fmt == AB_CSV) {
		puts("run,workload,metric,iteration,value,unit,warmup");
		return store_run_samples(st, id, show_sample, o);
	}
	if (fmt == AB_JSON) {
		printf("{\"run\": %lld, \"started\": %.6f", id, r->num[RUN_STARTED]);
		for (i = 0; i < NR_RUN_FIELDS; i++) {
			printf(", \"%s\": ", run_fields[i].key);
			json_field(stdout, r, i, run_fields[i].number);
		}
		fputs(", \"console_tail\": ", stdout);
		json_field(stdout, r, RUN_CONSOLE_TAIL, 0);
	} else {
		format_time(when, sizeof(when), r->num[RUN_STARTED]);
		printf("run %lld, started %s\n", id, when);
		for (i = 0; i < NR_RUN_FIELDS; i++) {
			printf("  %-14s ", run_fields[i].label);
			put_escaped(stdout, r->text[i] ? r->text[i] : "-");
			putchar('\n');
		}
	}

	if (show_meta(st, id, fmt))
		return -1;
	if (fmt == AB_JSON) {
		fputs("},\n  \"samples\": [", stdout);
		if (store_run_samples(st, id, show_sample, o))
			return -1;
		fputs("],\n  \"events\": [", stdout);
		o->n = 0;
		if (store_run_events(st, id, show_sample, o))
			return -1;
		fputs("],\n  \"dropped_lines\": [", stdout);
		o->n = 0;
		if (store_dropped_lines(st, id, show_dropped, o))
			return -1;
		fputs("]}\n", stdout);
		return 0;
	}
	printf("\n");
	if (table_print_runs(stdout, st, &id, 1) ||
	    table_print_run_events(stdout, st, id, "\nevents, counted an iteration (exact in any "
				   "clock)") ||
	    store_dropped_lines(st, id, show_dropped, o))
		return -1;
	if (r->text[RUN_CONSOLE_TAIL]) {
		printf("\nconsole tail\n");
		put_escaped(stdout, r->text[RUN_CONSOLE_TAIL]);
		printf("\n");
	}
	return 0;
}

static int show_run(struct store *st, long long id, enum ab_format fmt)
{
	struct show_out o = { stdout, id, fmt, 0, st };

	return store_run_read(st, id, show_run_row, &o);
}

int cmd_show(int argc, char **argv)
{
	struct lab_context ctx;
	const char *db = NULL, *config = NULL;
	enum ab_format fmt = AB_TEXT;
	const char *arg;
	long id;
	const struct parse_option options[] = {
		{ .type = OPTION_CALLBACK, .long_name = "format", .value = &fmt, .argh = "F",
		  .help = "text, csv or json (default text)", .cb = ab_opt_format,
		  .expect = "text, csv or json" },
		CONTEXT_OPTIONS(&db, &config),
		OPT_END(),
	};
	struct option_parser parser = { "lab show", show_usage, options, NULL };
	int n, ret = 2, experiment;

	memset(&ctx, 0, sizeof(ctx));
	n = parse_command_options(&parser, argc, argv, PARSE_OPT_ANY_ARGS);
	if (n < 0)
		return 2;
	if (n != 1) {
		error("'lab show' takes one run id N or experiment id EN (see 'lab show --help')");
		return 2;
	}
	arg = argv[0];
	experiment = arg[0] == 'E' || arg[0] == 'e';
	if (parse_positive_int(arg + experiment, &id)) {
		error("bad id '%s': expected a run id (12) or an experiment id (E3)", arg);
		return 2;
	}
	if (context_load_config(&ctx, config, db) || context_open_store_read(&ctx))
		goto out;
	if (experiment)
		ret = ab_report(stdout, &ctx.st, id, fmt, AB_REPORT_VERBOSE) ||
		      (fmt == AB_TEXT && explain_report_all(stdout, &ctx.st, id, EXPLAIN_TOP)) ? 2 : 0;
	else
		ret = show_run(&ctx.st, id, fmt) ? 2 : 0;
out:
	context_release(&ctx);
	return ret;
}
