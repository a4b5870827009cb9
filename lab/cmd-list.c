/* lab list: recent runs, newest first. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "config.h"
#include "context.h"
#include "log.h"
#include "options.h"

static const char list_usage[] =
"usage: lab list [--limit N] [--db PATH] [--config FILE]\n";

int cmd_list(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "limit", required_argument, NULL, 'n' },
		{ "db", required_argument, NULL, 'd' },
		{ "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct lab_context ctx;
	const char *db = NULL, *config = NULL;
	sqlite3_stmt *q = NULL;
	long limit = 20;
	int c, ret = 2, rc;

	memset(&ctx, 0, sizeof(ctx));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "hn:", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (parse_positive_int(optarg, &limit)) {
				error("bad value '%s' for --limit: expected a positive integer", optarg);
				goto out;
			}
			break;
		case 'd': db = optarg; break;
		case 'c': config = optarg; break;
		case 'h': fputs(list_usage, stdout); return 0;
		default:
			option_error("lab list", "hn:", longopts, argv);
			goto out;
		}
	}
	if (context_load_config(&ctx, config, db) || context_open_store_read(&ctx))
		goto out;
	if (sqlite3_prepare_v2(ctx.st.db,
			       "SELECT r.id, r.started, r.status, r.runner, r.workloads, "
			       "COALESCE(k.release, k.path, '-'), r.mem_mib, r.cpus, "
			       "(SELECT count(*) FROM samples s WHERE s.run_id = r.id), "
			       "COALESCE(r.wall_s, 0), r.experiment_id "
			       "FROM runs r LEFT JOIN kernels k ON k.id = r.kernel_id "
			       "ORDER BY r.id DESC LIMIT ?1", -1, &q, NULL) != SQLITE_OK) {
		store_error(&ctx.st, "cannot list runs");
		goto out;
	}
	sqlite3_bind_int64(q, 1, limit);
	printf("%6s  %-19s  %-11s  %-6s  %-16s  %7s  %4s  %7s  %7s  %s\n", "run", "started",
	       "status", "runner", "workloads", "mem", "cpus", "samples", "wall", "kernel");
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		char when[32];
		format_time(when, sizeof(when), sqlite3_column_double(q, 1));
		printf("%6lld  %-19s  %-11s  %-6s  %-16s  %6lldM  %4d  %7d  %6.1fs  %s\n",
		       sqlite3_column_int64(q, 0), when,
		       (const char *)sqlite3_column_text(q, 2),
		       (const char *)sqlite3_column_text(q, 3),
		       (const char *)sqlite3_column_text(q, 4),
		       sqlite3_column_int64(q, 6), sqlite3_column_int(q, 7),
		       sqlite3_column_int(q, 8), sqlite3_column_double(q, 9),
		       (const char *)sqlite3_column_text(q, 5));
	}
	if (rc != SQLITE_DONE) {
		store_error(&ctx.st, "cannot list runs");
		goto out;
	}
	sqlite3_finalize(q);
	if (sqlite3_prepare_v2(ctx.st.db,
			       "SELECT e.id, e.created, e.status, e.kind, COALESCE(e.workloads, ''), "
			       "(SELECT count(*) FROM runs r WHERE r.experiment_id = e.id), "
			       "(SELECT group_concat(DISTINCT verdict) FROM verdicts v WHERE "
			       "v.experiment_id = e.id) FROM experiments e ORDER BY e.id DESC "
			       "LIMIT ?1", -1, &q, NULL) != SQLITE_OK) {
		store_error(&ctx.st, "cannot list experiments");
		goto out;
	}
	sqlite3_bind_int64(q, 1, limit);
	printf("\n%6s  %-19s  %-8s  %-6s  %-16s  %5s  %s\n", "exp", "created", "status", "kind",
	       "workloads", "runs", "verdicts");
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		char when[32], id[24];
		format_time(when, sizeof(when), sqlite3_column_double(q, 1));
		snprintf(id, sizeof(id), "E%lld", sqlite3_column_int64(q, 0));
		printf("%6s  %-19s  %-8s  %-6s  %-16s  %5d  %s\n", id, when,
		       (const char *)sqlite3_column_text(q, 2), (const char *)sqlite3_column_text(q, 3),
		       (const char *)sqlite3_column_text(q, 4), sqlite3_column_int(q, 5),
		       sqlite3_column_text(q, 6) ? (const char *)sqlite3_column_text(q, 6) : "-");
	}
	if (rc != SQLITE_DONE) {
		store_error(&ctx.st, "cannot list experiments");
		goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(q);
	context_release(&ctx);
	return ret;
}
