/* Kernels and runs as they are booted and finished (store.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host.h"
#include "log.h"
#include "store.h"
#include "strbuf.h"
#include "subprocess.h"

int store_kernel(struct store *st, long long *id, const struct kernel_image *k)
{
	sqlite3_stmt *q = NULL;
	int ret = -1;

	/* the image was hashed once, when it was resolved or built: not here */
	if (sqlite3_prepare_v2(st->db,
			       "INSERT INTO kernels(path, hash, arch, git_commit, created) "
			       "VALUES (?1, ?2, ?3, ?4, ?5) "
			       "ON CONFLICT(hash, path) DO UPDATE SET arch = excluded.arch, "
			       "git_commit = COALESCE(excluded.git_commit, git_commit) "
			       "RETURNING id", -1, &q, NULL) != SQLITE_OK) {
		store_error(st, "cannot record kernel");
		goto out;
	}
	store_bind_text(q, 1, k->path);
	store_bind_text(q, 2, k->hash);
	store_bind_text(q, 3, k->arch);
	store_bind_text(q, 4, k->commit[0] ? k->commit : NULL);
	sqlite3_bind_double(q, 5, now_wall());
	if (sqlite3_step(q) != SQLITE_ROW) {
		store_error(st, "cannot record kernel");
		goto out;
	}
	*id = sqlite3_column_int64(q, 0);
	ret = 0;
out:
	sqlite3_finalize(q);
	return ret;
}

static int insert_owner(struct store *st, long long run_id)
{
	sqlite3_stmt *q = NULL;
	char host[256], start[128];
	int ret = -1;

	host_name(host, sizeof(host));
	if (host_process_start(start, sizeof(start), getpid()))
		return error("cannot read the start time of this process from /proc");
	if (sqlite3_prepare_v2(st->db, "INSERT INTO run_owners(run_id, host, pid, pid_start) "
			       "VALUES (?1, ?2, ?3, ?4)", -1, &q, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_int64(q, 1, run_id);
	sqlite3_bind_text(q, 2, host, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 3, getpid());
	sqlite3_bind_text(q, 4, start, -1, SQLITE_STATIC);
	if (sqlite3_step(q) != SQLITE_DONE)
		goto out;
	ret = 0;
out:
	if (ret)
		store_error(st, "cannot record run");
	sqlite3_finalize(q);
	return ret;
}

static int insert_target(struct store *st, long long run_id, const struct run_row *row)
{
	sqlite3_stmt *q = NULL;
	int ret = -1;

	if (sqlite3_prepare_v2(st->db, "INSERT INTO run_targets(run_id, target, class) "
			       "VALUES (?1, ?2, ?3)", -1, &q, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(q, 1, run_id);
		store_bind_text(q, 2, row->target);
		store_bind_text(q, 3, row->target_class ? row->target_class : row->target);
		if (sqlite3_step(q) == SQLITE_DONE)
			ret = 0;
	}
	if (ret)
		store_error(st, "cannot record run's target");
	sqlite3_finalize(q);
	return ret;
}

int store_run_begin(struct store *st, long long *run_id, const struct run_row *row)
{
	sqlite3_stmt *q = NULL;
	long long id;
	int ret = -1;

	if (store_begin(st))
		return -1;
	if (sqlite3_prepare_v2(st->db,
			       "INSERT INTO runs(kernel_id, experiment_id, variant_id, runner, "
			       "workloads, cmdline, mem_mib, cpus, accel, host, host_cpu, "
			       "qemu_version, started, params, clock, status) VALUES "
			       "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, "
			       "'RUNNING')",
			       -1, &q, NULL) != SQLITE_OK) {
		store_error(st, "cannot record run");
		goto out;
	}
	store_bind_id(q, 1, row->kernel_id);
	store_bind_id(q, 2, row->experiment_id);
	store_bind_id(q, 3, row->variant_id);
	store_bind_text(q, 4, row->runner);
	store_bind_text(q, 5, row->workloads);
	store_bind_text(q, 6, row->cmdline ? row->cmdline : "");
	sqlite3_bind_int64(q, 7, row->mem_mib);
	sqlite3_bind_int(q, 8, row->cpus);
	store_bind_text(q, 9, row->accel);
	store_bind_text(q, 10, row->host);
	store_bind_text(q, 11, row->host_cpu);
	store_bind_text(q, 12, row->qemu_version);
	sqlite3_bind_double(q, 13, now_wall());
	store_bind_text(q, 14, row->params ? row->params : "");
	store_bind_text(q, 15, row->clock ? row->clock : "wall");
	if (sqlite3_step(q) != SQLITE_DONE) {
		store_error(st, "cannot record run");
		goto out;
	}
	/* the owner, so that the next lab can tell a boot in progress from a dead one */
	id = sqlite3_last_insert_rowid(st->db);
	if (insert_owner(st, id) || (row->target && insert_target(st, id, row)))
		goto out;
	ret = store_commit(st);
	if (!ret)
		*run_id = id;
out:
	if (ret)
		store_rollback(st);
	sqlite3_finalize(q);
	return ret;
}

static int finish_row(struct store *st, long long run_id, const struct run_result *res,
		      const char *console_log)
{
	sqlite3_stmt *q = NULL;
	int ret = -1;

	if (sqlite3_prepare_v2(st->db,
			       "UPDATE runs SET status = ?2, error = ?3, ended = ?4, console_log = ?5, "
			       "wall_s = ?6, to_hello_s = ?7, bad_lines = ?8, accel = ?9, "
			       "cmdline = CASE WHEN ?10 = '' THEN cmdline ELSE ?10 END, console_tail = ?11 "
			       "WHERE id = ?1",
			       -1, &q, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_int64(q, 1, run_id);
	store_bind_text(q, 2, run_status_name(res->status));
	store_bind_text(q, 3, res->error.len ? res->error.buf : NULL);
	sqlite3_bind_double(q, 4, now_wall());
	store_bind_text(q, 5, console_log);
	sqlite3_bind_double(q, 6, res->wall_s);
	if (res->to_hello_s >= 0)
		sqlite3_bind_double(q, 7, res->to_hello_s);
	else
		sqlite3_bind_null(q, 7);
	sqlite3_bind_int(q, 8, res->bad_lines);
	store_bind_text(q, 9, res->accel[0] ? res->accel : NULL);
	store_bind_text(q, 10, res->full_cmdline);
	store_bind_text(q, 11, res->status != RUN_OK && res->tail.len ? res->tail.buf : NULL);
	if (sqlite3_step(q) != SQLITE_DONE)
		goto out;
	ret = 0;
out:
	sqlite3_finalize(q);
	return ret;
}

/*
 * One statement run for each of n rows in a batch: ?1 is the run, bind()
 * binds the rest of row i. Nothing said: the caller names what failed.
 */
typedef void bind_row_fn(sqlite3_stmt *q, size_t i, const void *data);

static int insert_rows(struct store *st, const char *sql, long long run_id, size_t n,
		       bind_row_fn *bind, const void *data)
{
	sqlite3_stmt *q = NULL;
	int ret = -1;

	if (sqlite3_prepare_v2(st->db, sql, -1, &q, NULL) != SQLITE_OK)
		goto out;
	for (size_t i = 0; i < n; i++) {
		sqlite3_bind_int64(q, 1, run_id);
		bind(q, i, data);
		if (sqlite3_step(q) != SQLITE_DONE)
			goto out;
		sqlite3_reset(q);
	}
	ret = 0;
out:
	sqlite3_finalize(q);
	return ret;
}

static void bind_meta(sqlite3_stmt *q, size_t i, const void *data)
{
	const struct sample_set *set = data;

	store_bind_text(q, 2, set->meta[i].key);
	store_bind_text(q, 3, set->meta[i].value);
}

static void bind_sample(sqlite3_stmt *q, size_t i, const void *data)
{
	struct sample s;

	sample_set_get(data, i, &s);
	sqlite3_bind_text(q, 2, s.workload, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 3, s.metric, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 4, s.iteration);
	sqlite3_bind_double(q, 5, s.value);
	sqlite3_bind_text(q, 6, s.unit, -1, SQLITE_STATIC);
	sqlite3_bind_int(q, 7, (int)s.flags);
}

static void bind_dropped(sqlite3_stmt *q, size_t i, const void *data)
{
	const struct run_result *res = data;

	sqlite3_bind_int64(q, 2, (long long)i + 1);
	sqlite3_bind_text(q, 3, res->dropped[i].reason, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 4, res->dropped[i].line, -1, SQLITE_STATIC);
}

int store_run_finish(struct store *st, long long run_id, const struct run_result *res,
		     const char *console_log)
{
	if (store_begin(st))
		return -1;
	if (finish_row(st, run_id, res, console_log) ||
	    store_clear_owner(st, run_id) ||
	    insert_rows(st, "INSERT OR REPLACE INTO run_meta(run_id, key, value) "
			"VALUES (?1, ?2, ?3)", run_id, res->set.meta_nr, bind_meta, &res->set) ||
	    insert_rows(st, "INSERT INTO samples(run_id, workload, metric, iteration, value, "
			"unit, flags) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", run_id, res->set.nr,
			bind_sample, &res->set) ||
	    insert_rows(st, "INSERT INTO dropped_lines(run_id, seq, reason, line) "
			"VALUES (?1, ?2, ?3, ?4)", run_id, res->dropped_nr, bind_dropped, res)) {
		store_error(st, "cannot store run");
		store_rollback(st);
		return -1;
	}
	return store_commit(st);
}
