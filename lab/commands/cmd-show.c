/* lab show RUN: one run's provenance, metadata, samples, event counts and console log. */
#include <math.h>
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
#include "json-writer.h"
#include "log.h"
#include "numfmt.h"
#include "options.h"
#include "redact.h"
#include "run.h"
#include "sample.h"
#include "store-experiment.h"
#include "table.h"
#include "textfmt.h"

static const char *const show_usage[] = {
	"usage: lab show RUN|EXP [--format text|csv|json] [--db PATH] [--config FILE]",
	"  RUN is a run id (12), EXP an experiment id (E3)",
	"  a run as csv is its samples, one a row; as json its fields, metadata,",
	"  samples, event counts and dropped lines",
	"",
	parse_options_here,
	NULL,
};

/* How a field is shown: text as stored, a number, seconds as a duration in text. */
enum { FIELD_TEXT, FIELD_NUMBER, FIELD_SECONDS };

/* The run's fields, in the order of enum store_run_field. */
static const struct {
	const char *label, *key;
	int kind;
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
	{ "memory MiB", "mem_mib", FIELD_NUMBER },
	{ "cpus", "cpus", FIELD_NUMBER },
	{ "accel", "accel", 0 },
	{ "host", "host", 0 },
	{ "host cpu", "host_cpu", 0 },
	{ "qemu", "qemu_version", 0 },
	{ "wall", "wall_s", FIELD_SECONDS },
	{ "to hello", "to_hello_s", FIELD_SECONDS },
	{ "bad lines", "bad_lines", FIELD_NUMBER },
	{ "console log", "console_log", 0 },
};
#define NR_RUN_FIELDS (int)ARRAY_SIZE(run_fields)
_Static_assert(ARRAY_SIZE(run_fields) == RUN_STARTED,
	       "run_fields follows enum store_run_field up to the start time");

/*
 * Text from outside (a guest's console, its metadata) within 100 columns:
 * never driving the user's terminal (escape_term(), newlines kept), each
 * of its lines broken at spaces, the first after lead, the rest after
 * indent.
 */
static void put_wrapped(FILE *f, const char *lead, const char *indent, const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	char *line, *next;
	const char *first = lead;

	escape_term(&sb, s, ESCAPE_TERM_LINES);
	/* an empty value still has its line */
	for (line = sb.len ? sb.buf : (char *)""; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		textfmt_wrap(f, first, indent, line);
		first = indent;
	}
	strbuf_release(&sb);
}

static void json_field(struct json_writer *jw, const struct store_run_view *r, int i, int kind)
{
	if (r->text[i] && kind != FIELD_TEXT)
		json_number(jw, run_fields[i].key, r->num[i]);
	else
		json_string(jw, i < NR_RUN_FIELDS ? run_fields[i].key : "console_tail", r->text[i]);
}

struct show_out {
	FILE *f;
	struct json_writer *jw;	/* NULL: text or csv */
	long long run_id;
	enum ab_format fmt;
	size_t n;
	struct store *st;
};

static int show_sample(const struct sample *s, void *data)
{
	struct show_out *o = data;
	char value[NUMFMT_EXACT_SIZE];

	if (o->fmt == AB_CSV) {
		fprintf(o->f, "%lld,", o->run_id);
		escape_csv(o->f, s->workload);
		fputc(',', o->f);
		escape_csv(o->f, s->metric);
		numfmt_exact(value, sizeof(value), s->value);
		fprintf(o->f, ",%ld,%s,", s->iteration, value);
		escape_csv(o->f, s->unit);
		fprintf(o->f, ",%d\n", (s->flags & SAMPLE_WARMUP) != 0);
	} else {
		json_object_begin(o->jw, NULL);
		json_string(o->jw, "workload", s->workload);
		json_string(o->jw, "metric", s->metric);
		json_int(o->jw, "iteration", s->iteration);
		json_number(o->jw, "value", s->value);
		json_string(o->jw, "unit", s->unit);
		json_bool(o->jw, "warmup", (s->flags & SAMPLE_WARMUP) != 0);
		json_object_end(o->jw);
	}
	return 0;
}

static int show_dropped(long long seq, const char *reason, const char *line, void *data)
{
	struct show_out *o = data;

	if (o->fmt == AB_TEXT) {
		struct strbuf sb = STRBUF_INIT;
		char lead[32];

		if (!o->n++)
			fprintf(o->f, "\ndropped lines\n");
		snprintf(lead, sizeof(lead), "  %-4lld ", seq);
		strbuf_addf(&sb, "%s: %s", reason, line);
		put_wrapped(o->f, lead, "       ", sb.buf);
		strbuf_release(&sb);
		return 0;
	}
	json_object_begin(o->jw, NULL);
	json_int(o->jw, "seq", seq);
	json_string(o->jw, "reason", reason);
	json_string(o->jw, "line", line);
	json_object_end(o->jw);
	return 0;
}

/*
 * A meta value whose key ends in its unit (lab.cpu_s, host.to_init_s,
 * host.mem_mib) in that unit as a person reads it, scaled: "146.7 ms" for
 * a stored 0.146743; any other value as it was stored.
 */
static const char *meta_shown(char *buf, size_t size, const char *key, const char *value)
{
	static const struct {
		const char *suffix, *unit;
	} units[] = {
		{ "_s", "s" }, { "_ms", "ms" }, { "_us", "us" }, { "_ns", "ns" },
		{ "_bytes", "B" }, { "_mib", "MiB" },
	};
	size_t klen = strlen(key);

	for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
		size_t n = strlen(units[i].suffix);
		char *end;
		double v;

		if (klen <= n || strcmp(key + klen - n, units[i].suffix))
			continue;
		v = strtod(value, &end);
		if (end == value || *end || !isfinite(v))
			return value;
		textfmt_quantity(buf, size, v, units[i].unit, v);
		return buf;
	}
	return value;
}

static int show_meta_row(const char *key, const char *value, void *data)
{
	struct show_out *o = data;
	char shown[64];

	/* an older lab stored addresses with their secrets (lava.url with its password) */
	value = url_redacted(value);

	if (o->jw) {
		json_string(o->jw, key, value);
	} else {
		struct strbuf lead = STRBUF_INIT;

		/* a key as wide as the lines are goes on a line of its own */
		strbuf_addf(&lead, "  %s ", term_safe(key));
		while (textfmt_width(lead.buf) < 31)
			strbuf_addch(&lead, ' ');
		if (textfmt_width(lead.buf) > 60) {
			fprintf(o->f, "%s\n", lead.buf);
			strbuf_reset(&lead);
			strbuf_addstr(&lead, "                               ");
		}
		put_wrapped(o->f, lead.buf, "                               ",
			    meta_shown(shown, sizeof(shown), key, value));
		strbuf_release(&lead);
	}
	return 0;
}

/* "E3, variant B", or "-" for a run of lab run. */
static void experiment_words(char *buf, size_t size, const struct store_run_view *r)
{
	if (!r->text[RUN_EXPERIMENT])
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "E%lld%s%s", (long long)r->num[RUN_EXPERIMENT],
			 r->text[RUN_VARIANT] ? ", variant " : "",
			 r->text[RUN_VARIANT] ? term_safe(r->text[RUN_VARIANT]) : "");
}

/* A run's samples or events, as the array name. */
static int show_samples_json(struct show_out *o, const char *name, long long run_id,
			     int (*read)(struct store *, long long, store_sample_fn *, void *))
{
	json_array_begin(o->jw, name);
	if (read(o->st, run_id, show_sample, o))
		return -1;
	json_array_end(o->jw);
	return 0;
}

static int show_run_json(struct show_out *o, const struct store_run_view *r)
{
	struct json_writer *jw = o->jw;
	struct store *st = o->st;

	json_object_begin(jw, NULL);
	json_int(jw, "run", r->id);
	if (r->text[RUN_EXPERIMENT])
		json_int(jw, "experiment", (long long)r->num[RUN_EXPERIMENT]);
	else
		json_null(jw, "experiment");
	json_string(jw, "variant", r->text[RUN_VARIANT]);
	json_number(jw, "started", r->num[RUN_STARTED]);
	for (int i = 0; i < NR_RUN_FIELDS; i++)
		json_field(jw, r, i, run_fields[i].kind);
	json_field(jw, r, RUN_CONSOLE_TAIL, FIELD_TEXT);
	json_object_begin(jw, "meta");
	if (store_run_meta(st, r->id, show_meta_row, o))
		return -1;
	json_object_end(jw);
	if (show_samples_json(o, "samples", r->id, store_run_samples) ||
	    show_samples_json(o, "events", r->id, store_run_events))
		return -1;
	json_array_begin(jw, "dropped_lines");
	if (store_dropped_lines(st, r->id, show_dropped, o))
		return -1;
	json_array_end(jw);
	json_object_end(jw);
	json_writer_end(jw);
	return 0;
}

/* "ran on  2048M, 1 cpu", or what a run of the local runner measured: "this host, ...". */
static void print_size(const struct store_run_view *r)
{
	struct strbuf sb = STRBUF_INIT;

	run_size_words(&sb, (long long)r->num[RUN_MEM_MIB], (int)r->num[RUN_CPUS], r->host.mem_mib,
		       r->host.cpus);
	printf("  %-14s %s\n", "ran on", sb.buf);
	strbuf_release(&sb);
}

static int show_run_row(const struct store_run_view *r, void *data)
{
	struct show_out *o = data;
	struct store *st = o->st;
	long long id = r->id;
	char when[32], value[64];

	if (o->fmt == AB_CSV) {
		puts("run,workload,metric,iteration,value,unit,warmup");
		return store_run_samples(st, id, show_sample, o);
	}
	if (o->jw)
		return show_run_json(o, r);

	format_time(when, sizeof(when), r->num[RUN_STARTED]);
	printf("run %lld, started %s\n", id, when);
	experiment_words(value, sizeof(value), r);
	printf("  %-14s %s\n", "experiment", value);
	for (int i = 0; i < NR_RUN_FIELDS; i++) {
		char lead[32];

		snprintf(lead, sizeof(lead), "  %-14s ", run_fields[i].label);
		if (i == RUN_CPUS)
			continue;	/* said with the memory */
		if (i == RUN_MEM_MIB && r->text[i] && r->text[RUN_CPUS]) {
			print_size(r);
		} else if (r->text[i] && run_fields[i].kind == FIELD_SECONDS) {
			textfmt_duration(value, sizeof(value), r->num[i] * 1e9, "");
			printf("%s%s\n", lead, value);
		} else {
			put_wrapped(stdout, lead, "                 ",
				    r->text[i] && *r->text[i] ? r->text[i] : "-");
		}
	}
	printf("\nmetadata\n");
	if (store_run_meta(st, id, show_meta_row, o))
		return -1;
	printf("\n");
	if (table_print_runs(stdout, st, &id, 1) ||
	    table_print_run_events(stdout, st, id, "\nevents, counted an iteration (exact in any "
				   "clock)") ||
	    store_dropped_lines(st, id, show_dropped, o))
		return -1;
	if (r->text[RUN_CONSOLE_TAIL]) {
		printf("\nconsole tail\n");
		put_wrapped(stdout, "", "", r->text[RUN_CONSOLE_TAIL]);
	}
	return 0;
}

static int show_run(struct store *st, long long id, enum ab_format fmt)
{
	struct json_writer jw;
	struct show_out o = { stdout, fmt == AB_JSON ? &jw : NULL, id, fmt, 0, st };

	json_writer_init(&jw, stdout, 0);
	return store_run_read(st, id, show_run_row, &o);
}

int cmd_show(int argc, char **argv)
{
	struct lab_context ctx;
	struct strbuf report = STRBUF_INIT;
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
	if (experiment) {
		ret = ab_report(&report, &ctx.st, id, fmt, AB_REPORT_VERBOSE) ||
		      (fmt == AB_TEXT && explain_report_all(&report, &ctx.st, id, EXPLAIN_TOP)) ?
		      2 : 0;
		strbuf_fwrite(&report, stdout);
	} else {
		ret = show_run(&ctx.st, id, fmt) ? 2 : 0;
	}
out:
	strbuf_release(&report);
	context_release(&ctx);
	return ret;
}
