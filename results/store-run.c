/* Kernels and runs as they are booted and finished (store.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events.h"
#include "host.h"
#include "log.h"
#include "store-private.h"
#include "strbuf.h"
#include "subprocess.h"

int store_kernel(struct store *st, long long *id, const struct kernel_image *k)
{
	long long got = 0;

	/* the image was hashed once, when it was resolved or built: not here */
	if (store_rows(st, "cannot record kernel", "INSERT INTO kernels(path, hash, arch, git_commit, created) "
		       "VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT(hash, path) DO UPDATE SET "
		       "arch = excluded.arch, git_commit = COALESCE(excluded.git_commit, git_commit) "
		       "RETURNING id",
		       STORE_ARGS(STORE_TEXT(k->path), STORE_TEXT(k->hash), STORE_TEXT(k->arch),
				  STORE_TEXT(k->commit[0] ? k->commit : NULL), STORE_NUM(now_wall())),
		       store_row_int, &got))
		return -1;
	*id = got;
	debug("kernel '%s' recorded as row %lld", k->path, got);
	return 0;
}

int store_kernel_once(struct store *st, struct kernel_image *k)
{
	if (!k || k->id)
		return 0;
	return store_kernel(st, &k->id, k);
}

static int insert_owner(struct store *st, long long run_id)
{
	char host[256], start[128];

	host_name(host, sizeof(host));
	if (host_process_start(start, sizeof(start), getpid()))
		return error("cannot read the start time of this process from /proc");
	return store_rows(st, "cannot record run", "INSERT INTO run_owners(run_id, host, pid, "
			  "pid_start) VALUES (?1, ?2, ?3, ?4)",
			  STORE_ARGS(STORE_INT(run_id), STORE_TEXT(host), STORE_INT(getpid()),
				     STORE_TEXT(start)), NULL, NULL);
}

static int insert_target(struct store *st, long long run_id, const struct run_row *row)
{
	return store_rows(st, "cannot record run's target", "INSERT INTO run_targets(run_id, "
			  "target, class) VALUES (?1, ?2, ?3)",
			  STORE_ARGS(STORE_INT(run_id), STORE_TEXT(row->target),
				     STORE_TEXT(row->target_class ? row->target_class : row->target)),
			  NULL, NULL);
}

int store_run_begin(struct store *st, long long *run_id, const struct run_row *row)
{
	long long id;
	int ret = -1;

	if (store_begin(st))
		return -1;
	if (store_rows(st, "cannot record run", "INSERT INTO runs(kernel_id, experiment_id, "
		       "variant_id, runner, workloads, cmdline, mem_mib, cpus, accel, host, host_cpu, "
		       "qemu_version, started, params, clock, status) VALUES (?1, ?2, ?3, ?4, ?5, "
		       "?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, 'RUNNING')",
		       STORE_ARGS(STORE_ID(row->kernel_id), STORE_ID(row->experiment_id),
				  STORE_ID(row->variant_id), STORE_TEXT(row->runner),
				  STORE_TEXT(row->workloads),
				  STORE_TEXT(row->cmdline ? row->cmdline : ""),
				  STORE_INT(row->mem_mib), STORE_INT(row->cpus),
				  STORE_TEXT(row->accel), STORE_TEXT(row->host),
				  STORE_TEXT(row->host_cpu), STORE_TEXT(row->qemu_version),
				  STORE_NUM(now_wall()), STORE_TEXT(row->params ? row->params : ""),
				  STORE_TEXT(row->clock ? row->clock : "wall")), NULL, NULL))
		goto out;
	/* the owner, so that the next lab can tell a boot in progress from a dead one */
	id = store_last_id(st);
	if (insert_owner(st, id) || (row->target && insert_target(st, id, row)))
		goto out;
	ret = store_commit(st);
	if (!ret)
		*run_id = id;
out:
	if (ret)
		store_rollback(st);
	return ret;
}

static int finish_row(struct store *st, long long run_id, const struct run_result *res,
		      const char *console_log)
{
	return store_rows(st, NULL, "UPDATE runs SET status = ?2, error = ?3, ended = ?4, "
			  "console_log = ?5, wall_s = ?6, to_hello_s = ?7, bad_lines = ?8, accel = ?9, "
			  "cmdline = CASE WHEN ?10 = '' THEN cmdline ELSE ?10 END, console_tail = ?11 "
			  "WHERE id = ?1",
			  STORE_ARGS(STORE_INT(run_id), STORE_TEXT(run_status_name(res->status)),
				     STORE_TEXT(res->error.len ? res->error.buf : NULL),
				     STORE_NUM(now_wall()), STORE_TEXT(console_log),
				     STORE_NUM(res->wall_s),
				     STORE_NUM(res->to_hello_s >= 0 ? res->to_hello_s : NAN),
				     STORE_INT(res->bad_lines),
				     STORE_TEXT(res->accel[0] ? res->accel : NULL),
				     STORE_TEXT(res->full_cmdline),
				     STORE_TEXT(res->status != RUN_OK && res->tail.len ?
						res->tail.buf : NULL)), NULL, NULL);
}

/*
 * One statement run for each of n rows in a batch: ?1 is the run, args()
 * fills the rest of row i from args[1] on. Nothing said: the caller names
 * what failed.
 */
#define ROW_ARGS 8
typedef void row_args_fn(struct store_arg *args, size_t i, const void *data);

static int insert_rows(struct store *st, const char *sql, long long run_id, size_t n,
		       row_args_fn *fill, size_t nargs, const void *data)
{
	struct store_arg args[ROW_ARGS];

	for (size_t i = 0; i < n; i++) {
		args[0] = STORE_INT(run_id);
		fill(args, i, data);
		if (store_rows(st, NULL, sql, args, nargs, NULL, NULL))
			return -1;
	}
	return 0;
}

static void meta_args(struct store_arg *args, size_t i, const void *data)
{
	const struct sample_set *set = data;

	args[1] = STORE_TEXT(set->meta[i].key);
	args[2] = STORE_TEXT(set->meta[i].value);
}

static void sample_args(struct store_arg *args, size_t i, const void *data)
{
	struct sample s;

	sample_set_get(data, i, &s);
	args[1] = STORE_TEXT(s.workload);
	args[2] = STORE_TEXT(s.metric);
	args[3] = STORE_INT(s.iteration);
	args[4] = STORE_NUM(s.value);
	args[5] = STORE_TEXT(s.unit);
	args[6] = STORE_INT((int)s.flags);
}

/*
 * Samples into samples, event counts (metric_is_event()) into events:
 * the one place they part, so that no reader of samples sees an event.
 */
static int insert_samples(struct store *st, long long run_id, const struct sample_set *set)
{
	struct store_arg args[ROW_ARGS];

	for (size_t i = 0; i < set->nr; i++) {
		struct sample s;

		sample_set_get(set, i, &s);
		args[0] = STORE_INT(run_id);
		sample_args(args, i, set);
		if (store_rows(st, NULL, metric_is_event(s.metric) ?
			       "INSERT INTO events(run_id, workload, metric, iteration, value, "
			       "unit, flags) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)" :
			       "INSERT INTO samples(run_id, workload, metric, iteration, value, "
			       "unit, flags) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", args, 7, NULL, NULL))
			return -1;
	}
	return 0;
}

static void dropped_args(struct store_arg *args, size_t i, const void *data)
{
	const struct run_result *res = data;

	args[1] = STORE_INT((long long)i + 1);
	args[2] = STORE_TEXT(res->dropped[i].reason);
	args[3] = STORE_TEXT(res->dropped[i].line);
}

static void profile_args(struct store_arg *args, size_t i, const void *data)
{
	const struct run_result *res = data;

	args[1] = STORE_TEXT(res->profile[i].workload);
	args[2] = STORE_TEXT(res->profile[i].function);
	args[3] = STORE_INT(res->profile[i].calls);
	args[4] = STORE_NUM(res->profile[i].ns);
}

int store_run_finish_tx(struct store *st, long long run_id, const struct run_result *res,
			const char *console_log, int replace)
{
	sqlite3 *db = st->conn->db;
	int rc;

	rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return rc;
	if ((replace &&
	     (store_exec(st, NULL, "DELETE FROM samples WHERE run_id = ?1", run_id, NULL) ||
	      store_exec(st, NULL, "DELETE FROM events WHERE run_id = ?1", run_id, NULL) ||
	      store_exec(st, NULL, "DELETE FROM dropped_lines WHERE run_id = ?1", run_id, NULL) ||
	      store_exec(st, NULL, "DELETE FROM profiles WHERE run_id = ?1", run_id, NULL))) ||
	    finish_row(st, run_id, res, console_log) ||
	    store_clear_owner(st, run_id) ||
	    insert_rows(st, "INSERT OR REPLACE INTO run_meta(run_id, key, value) "
			"VALUES (?1, ?2, ?3)", run_id, res->set.meta_nr, meta_args, 3, &res->set) ||
	    /* the release a kernel's first boot reports is the kernel's */
	    store_rows(st, NULL, "UPDATE kernels SET release = (SELECT value FROM run_meta "
		       "WHERE run_id = ?1 AND key = 'kernel.release') WHERE release IS NULL AND "
		       "id = (SELECT kernel_id FROM runs WHERE id = ?1) AND EXISTS (SELECT 1 FROM "
		       "run_meta WHERE run_id = ?1 AND key = 'kernel.release' AND "
		       "value NOT LIKE 'unavailable:%')", STORE_ARGS(STORE_INT(run_id)), NULL, NULL) ||
	    insert_samples(st, run_id, &res->set) ||
	    insert_rows(st, "INSERT INTO dropped_lines(run_id, seq, reason, line) "
			"VALUES (?1, ?2, ?3, ?4)", run_id, res->dropped_nr, dropped_args, 4, res) ||
	    insert_rows(st, "INSERT INTO profiles(run_id, workload, function, calls, ns) "
			"VALUES (?1, ?2, ?3, ?4, ?5)", run_id, res->profile_nr, profile_args, 5, res))
		rc = sqlite3_extended_errcode(db);
	else
		rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		/* the code is the failure's, not the rollback's */
		rc = sqlite3_extended_errcode(db);
		store_rollback(st);
		if (rc == SQLITE_OK)
			rc = SQLITE_ERROR;
	}
	return rc;
}

int store_commit_measured(struct store *st, const char *commit_hex, const char *subject,
			  const char *author, double date)
{
	/* as it read when first measured: a later rewrite of the repository changes nothing */
	return store_rows(st, "cannot record commit", "INSERT INTO commits(id, subject, author, "
			  "date) VALUES (?1, ?2, ?3, ?4) ON CONFLICT(id) DO NOTHING",
			  STORE_ARGS(STORE_TEXT(commit_hex), STORE_TEXT(subject ? subject : ""),
				     STORE_TEXT(author ? author : ""), STORE_NUM(date)), NULL, NULL);
}

int store_commit_subject(struct store *st, struct strbuf *out, int *found,
			 const char *commit_hex)
{
	return store_rows_found(st, found, "cannot read commits",
				"SELECT subject FROM commits WHERE id = ?1",
				STORE_ARGS(STORE_TEXT(commit_hex)), store_row_text, out);
}
