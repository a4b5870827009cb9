/* lab show RUN: one run's provenance, metadata, samples and console log. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "config.h"
#include "context.h"
#include "ab.h"
#include "log.h"
#include "table.h"

static const char show_usage[] =
"usage: lab show RUN|EXP [--format text|csv|json] [--db PATH] [--config FILE]\n"
"  RUN is a run id (12), EXP an experiment id (E3)\n";

static const char *col(sqlite3_stmt *q, int i)
{
	const unsigned char *t = sqlite3_column_text(q, i);
	return t ? (const char *)t : "-";
}

static int show_run(struct store *st, long long id)
{
	static const char *const labels[] = {
		"status", "error", "runner", "workloads", "kernel", "kernel hash", "arch",
		"command line", "memory MiB", "cpus", "accel", "host", "host cpu", "qemu",
		"wall s", "to hello s", "bad lines", "console log",
	};
	sqlite3_stmt *q = NULL;
	int ret = -1, rc;
	char when[32], tail[8200] = "";

	if (sqlite3_prepare_v2(st->db,
			       "SELECT r.status, r.error, r.runner, r.workloads, k.path, k.hash, k.arch, "
			       "r.cmdline, r.mem_mib, r.cpus, r.accel, r.host, r.host_cpu, "
			       "r.qemu_version, r.wall_s, r.to_hello_s, r.bad_lines, r.console_log, "
			       "r.started, r.console_tail FROM runs r LEFT JOIN kernels k ON k.id = r.kernel_id "
			       "WHERE r.id = ?1", -1, &q, NULL) != SQLITE_OK)
		return store_error(st, "cannot read run");
	sqlite3_bind_int64(q, 1, id);
	rc = sqlite3_step(q);
	if (rc == SQLITE_DONE) {
		error("no run %lld in database '%s'", id, st->path);
		goto out;
	}
	if (rc != SQLITE_ROW) {
		store_error(st, "cannot read run");
		goto out;
	}
	format_time(when, sizeof(when), sqlite3_column_double(q, 18));
	if (sqlite3_column_text(q, 19))
		snprintf(tail, sizeof(tail), "%s", (const char *)sqlite3_column_text(q, 19));
	printf("run %lld, started %s\n", id, when);
	for (int i = 0; i < (int)(sizeof(labels) / sizeof(labels[0])); i++)
		printf("  %-14s %s\n", labels[i], col(q, i));
	sqlite3_finalize(q);
	q = NULL;

	if (sqlite3_prepare_v2(st->db, "SELECT key, value FROM run_meta WHERE run_id = ?1 "
			       "ORDER BY key", -1, &q, NULL) != SQLITE_OK)
		return store_error(st, "cannot read run metadata");
	sqlite3_bind_int64(q, 1, id);
	printf("\nmetadata\n");
	while ((rc = sqlite3_step(q)) == SQLITE_ROW)
		printf("  %-28s %s\n", col(q, 0), col(q, 1));
	if (rc != SQLITE_DONE) {
		store_error(st, "cannot read run metadata");
		goto out;
	}
	printf("\n");
	ret = table_print_runs(stdout, st, &id, 1);
	if (!ret && tail[0])
		printf("\nconsole tail\n%s\n", tail);
out:
	sqlite3_finalize(q);
	return ret;
}

int cmd_show(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "config", required_argument, NULL, 'c' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct lab_context ctx;
	const char *db = NULL, *config = NULL;
	enum ab_format fmt = AB_TEXT;
	const char *arg;
	long id;
	int c, ret = 2, experiment;

	memset(&ctx, 0, sizeof(ctx));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': db = optarg; break;
		case 'c': config = optarg; break;
		case 'f':
			if (ab_format_parse(&fmt, optarg)) {
				error("bad value '%s' for --format: expected text, csv or json", optarg);
				return 2;
			}
			break;
		case 'h': fputs(show_usage, stdout); return 0;
		default:
			error("unknown option '%s' for 'lab show'", argv[optind - 1]);
			return 2;
		}
	}
	if (optind + 1 != argc) {
		error("'lab show' takes one run id (see 'lab show --help')");
		return 2;
	}
	arg = argv[optind];
	experiment = arg[0] == 'E' || arg[0] == 'e';
	if (parse_positive_int(arg + experiment, &id)) {
		error("bad id '%s': expected a run id (12) or an experiment id (E3)", arg);
		return 2;
	}
	if (context_load_config(&ctx, config, db) || context_open_store_read(&ctx))
		goto out;
	if (experiment)
		ret = ab_report(stdout, &ctx.st, id, fmt) ? 2 : 0;
	else
		ret = show_run(&ctx.st, id) ? 2 : 0;
out:
	context_release(&ctx);
	return ret;
}
