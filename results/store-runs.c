/* Runs as the commands read them: their samples, metadata and clocks (store-experiment.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "store-experiment.h"
#include "strbuf.h"

int store_dropped_lines(struct store *st, long long run_id, store_dropped_fn *fn, void *data)
{
	sqlite3_stmt *q = NULL;
	int ret = -1, rc;

	if (sqlite3_prepare_v2(st->db, "SELECT seq, reason, line FROM dropped_lines "
			       "WHERE run_id = ?1 ORDER BY seq", -1, &q, NULL) != SQLITE_OK)
		return store_error(st, "cannot read dropped lines");
	sqlite3_bind_int64(q, 1, run_id);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW)
		if (fn(sqlite3_column_int64(q, 0), store_text(q, 1), store_text(q, 2), data))
			goto out;
	if (rc != SQLITE_DONE) {
		store_error(st, "cannot read dropped lines");
		goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(q);
	return ret;
}

struct sample_reader {
	store_sample_fn *fn;
	void *data;
};

static int sample_row(sqlite3_stmt *q, void *data)
{
	struct sample_reader *r = data;
	struct sample s = {
		.workload = store_text(q, 0),
		.metric = store_text(q, 1),
		.unit = store_text(q, 2),
		.iteration = (long)sqlite3_column_int64(q, 3),
		.value = sqlite3_column_double(q, 4),
		.flags = (unsigned)sqlite3_column_int(q, 5),
	};

	return r->fn(&s, r->data);
}

int store_run_samples(struct store *st, long long run_id, store_sample_fn *fn, void *data)
{
	struct sample_reader r = { fn, data };

	return store_rows(st, "cannot read samples", "SELECT workload, metric, unit, iteration, "
			  "value, flags FROM samples WHERE run_id = ?1 ORDER BY id",
			  STORE_ARGS(STORE_INT(run_id)), sample_row, &r);
}

int store_run_metrics(struct store *st, struct strvec *out, long long run_id)
{
	sqlite3_stmt *q = NULL;
	int rc;

	if (sqlite3_prepare_v2(st->db, "SELECT DISTINCT metric FROM samples WHERE run_id = ?1 "
			       "ORDER BY metric", -1, &q, NULL) != SQLITE_OK)
		return store_error(st, "cannot read samples");
	sqlite3_bind_int64(q, 1, run_id);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW)
		strvec_push(out, store_text(q, 0));
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		return store_error(st, "cannot read samples");
	return 0;
}

int store_runs_recent(struct store *st, long limit, store_run_summary_fn *fn, void *data)
{
	sqlite3_stmt *q;
	int ret = -1, rc;

	if (store_prepare(st, &q, "SELECT r.id, r.started, r.status, r.runner, r.workloads, "
			  "COALESCE(k.release, k.path, '-'), r.mem_mib, r.cpus, "
			  "(SELECT count(*) FROM samples s WHERE s.run_id = r.id), "
			  "COALESCE(r.wall_s, 0), r.experiment_id "
			  "FROM runs r LEFT JOIN kernels k ON k.id = r.kernel_id "
			  "ORDER BY r.id DESC LIMIT ?1", "cannot list runs"))
		return -1;
	sqlite3_bind_int64(q, 1, limit);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		struct store_run_summary r = {
			.id = sqlite3_column_int64(q, 0),
			.started = sqlite3_column_double(q, 1),
			.status = store_text(q, 2),
			.runner = store_text(q, 3),
			.workloads = store_text(q, 4),
			.kernel = store_text(q, 5),
			.mem_mib = sqlite3_column_int64(q, 6),
			.cpus = sqlite3_column_int(q, 7),
			.samples = sqlite3_column_int(q, 8),
			.wall_s = sqlite3_column_double(q, 9),
			.experiment_id = sqlite3_column_int64(q, 10),
		};
		if (fn(&r, data))
			goto out;
	}
	if (rc != SQLITE_DONE) {
		store_error(st, "cannot list runs");
		goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(q);
	return ret;
}

int store_run_read(struct store *st, long long run_id, store_run_view_fn *fn, void *data)
{
	struct store_run_view r;
	sqlite3_stmt *q;
	int ret = -1, rc;

	/* the columns in the order of enum store_run_field */
	if (store_prepare(st, &q, "SELECT r.status, r.error, r.runner, r.workloads, r.params, "
			  "k.path, k.hash, k.arch, r.cmdline, r.mem_mib, r.cpus, r.accel, r.host, "
			  "r.host_cpu, r.qemu_version, r.wall_s, r.to_hello_s, r.bad_lines, "
			  "r.console_log, r.started, r.console_tail FROM runs r "
			  "LEFT JOIN kernels k ON k.id = r.kernel_id WHERE r.id = ?1",
			  "cannot read run"))
		return -1;
	sqlite3_bind_int64(q, 1, run_id);
	rc = sqlite3_step(q);
	if (rc == SQLITE_DONE) {
		error("no run %lld in database '%s'", run_id, st->path);
		goto out;
	}
	if (rc != SQLITE_ROW) {
		store_error(st, "cannot read run");
		goto out;
	}
	r.id = run_id;
	for (int i = 0; i < RUN_NR_FIELDS; i++) {
		/* the number first: reading a column as text may convert it */
		r.num[i] = store_num(q, i);
		r.text[i] = (const char *)sqlite3_column_text(q, i);
	}
	ret = fn(&r, data) ? -1 : 0;
out:
	sqlite3_finalize(q);
	return ret;
}

struct meta_reader {
	store_meta_fn *fn;
	void *data;
};

static int meta_row(sqlite3_stmt *q, void *data)
{
	struct meta_reader *r = data;

	return r->fn(store_text(q, 0), store_text(q, 1), r->data);
}

int store_run_meta(struct store *st, long long run_id, store_meta_fn *fn, void *data)
{
	struct meta_reader r = { fn, data };

	return store_rows(st, "cannot read run metadata", "SELECT key, value FROM run_meta "
			  "WHERE run_id = ?1 ORDER BY key", STORE_ARGS(STORE_INT(run_id)), meta_row, &r);
}

/* Run ids as a JSON array, for json_each(): one statement for any number of runs. */
static void id_array(struct strbuf *out, const long long *ids, size_t nr)
{
	strbuf_addch(out, '[');
	for (size_t i = 0; i < nr; i++)
		strbuf_addf(out, "%s%lld", i ? "," : "", ids[i]);
	strbuf_addch(out, ']');
}

int store_runs_samples(struct store *st, const long long *run_ids, size_t nr,
		       store_sample_fn *fn, void *data)
{
	struct strbuf ids = STRBUF_INIT;
	sqlite3_stmt *q = NULL;
	struct sample s;
	int ret = -1, rc;

	id_array(&ids, run_ids, nr);
	if (store_prepare(st, &q, "SELECT workload, metric, unit, iteration, value, flags "
			  "FROM samples WHERE run_id IN (SELECT value FROM json_each(?1)) "
			  "ORDER BY workload, metric, unit", "cannot read samples"))
		goto out;
	sqlite3_bind_text(q, 1, ids.buf, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		s.workload = store_text(q, 0);
		s.metric = store_text(q, 1);
		s.unit = store_text(q, 2);
		s.iteration = (long)sqlite3_column_int64(q, 3);
		s.value = sqlite3_column_double(q, 4);
		s.flags = (unsigned)sqlite3_column_int(q, 5);
		if (fn(&s, data))
			goto out;
	}
	if (rc != SQLITE_DONE) {
		store_error(st, "cannot read samples");
		goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(q);
	strbuf_release(&ids);
	return ret;
}

int store_runs_clocks(struct store *st, struct strvec *out, const long long *run_ids,
		      size_t nr)
{
	struct strbuf ids = STRBUF_INIT;
	sqlite3_stmt *q = NULL;
	int ret = -1, rc;

	id_array(&ids, run_ids, nr);
	if (store_prepare(st, &q, "SELECT DISTINCT clock FROM runs WHERE id IN "
			  "(SELECT value FROM json_each(?1)) ORDER BY id", "cannot read runs"))
		goto out;
	sqlite3_bind_text(q, 1, ids.buf, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW)
		strvec_push(out, store_text(q, 0));
	if (rc != SQLITE_DONE) {
		store_error(st, "cannot read runs");
		goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(q);
	strbuf_release(&ids);
	return ret;
}

static int clock_row(sqlite3_stmt *q, void *data)
{
	strbuf_addstr(data, *store_text(q, 0) ? store_text(q, 0) : "wall");
	return 0;
}

int store_run_clock(struct store *st, struct strbuf *out, long long run_id)
{
	return store_rows(st, "cannot read the clock of a run", "SELECT clock FROM runs WHERE id = ?1",
			  STORE_ARGS(STORE_INT(run_id)), clock_row, out);
}
