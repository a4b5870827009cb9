/* Runs as the commands read them: their samples, metadata and clocks (store-experiment.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "store-experiment.h"
#include "store-private.h"
#include "strbuf.h"

struct dropped_reader {
	store_dropped_fn *fn;
	void *data;
};

static int dropped_row(sqlite3_stmt *q, void *data)
{
	struct dropped_reader *r = data;

	return r->fn(sqlite3_column_int64(q, 0), store_text(q, 1), store_text(q, 2), r->data);
}

int store_dropped_lines(struct store *st, long long run_id, store_dropped_fn *fn, void *data)
{
	struct dropped_reader r = { fn, data };

	return store_rows(st, "cannot read dropped lines", "SELECT seq, reason, line FROM "
			  "dropped_lines WHERE run_id = ?1 ORDER BY seq",
			  STORE_ARGS(STORE_INT(run_id)), dropped_row, &r);
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

int store_run_events(struct store *st, long long run_id, store_sample_fn *fn, void *data)
{
	struct sample_reader r = { fn, data };

	return store_rows_if_table(st, "events", "cannot read events", "SELECT workload, metric, "
				   "unit, iteration, value, flags FROM events WHERE run_id = ?1 "
				   "ORDER BY workload, metric, unit, id",
				   STORE_ARGS(STORE_INT(run_id)), sample_row, &r);
}

int store_run_metrics(struct store *st, struct strvec *out, long long run_id)
{
	return store_rows(st, "cannot read samples", "SELECT DISTINCT metric FROM samples "
			  "WHERE run_id = ?1 ORDER BY metric", STORE_ARGS(STORE_INT(run_id)),
			  store_row_strvec, out);
}

struct run_summary_reader {
	store_run_summary_fn *fn;
	void *data;
};

static int run_summary_row(sqlite3_stmt *q, void *data)
{
	struct run_summary_reader *r = data;
	struct store_run_summary s = {
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

	store_run_host(&s.host, q, 11);
	return r->fn(&s, r->data);
}

int store_runs_recent(struct store *st, long limit, store_run_summary_fn *fn, void *data)
{
	struct run_summary_reader r = { fn, data };

	return store_rows(st, "cannot list runs", "SELECT r.id, r.started, r.status, r.runner, "
			  "r.workloads, COALESCE(k.release, k.path, '-'), r.mem_mib, r.cpus, "
			  "(SELECT count(*) FROM samples s WHERE s.run_id = r.id), "
			  "COALESCE(r.wall_s, 0), r.experiment_id, " STORE_RUN_HOST_COLUMNS
			  " FROM runs r LEFT JOIN kernels k ON k.id = r.kernel_id "
			  "ORDER BY r.id DESC LIMIT ?1", STORE_ARGS(STORE_INT(limit)),
			  run_summary_row, &r);
}

struct run_reader {
	long long id;
	store_run_view_fn *fn;
	void *data;
};

static int run_row(sqlite3_stmt *q, void *data)
{
	struct run_reader *r = data;
	struct store_run_view v;

	v.id = r->id;
	for (int i = 0; i < RUN_NR_FIELDS; i++) {
		/* the number first: reading a column as text may convert it */
		v.num[i] = store_num(q, i);
		v.text[i] = (const char *)sqlite3_column_text(q, i);
	}
	store_run_host(&v.host, q, RUN_NR_FIELDS);
	return r->fn(&v, r->data);
}

int store_run_read(struct store *st, long long run_id, store_run_view_fn *fn, void *data)
{
	struct run_reader r = { .id = run_id, .fn = fn, .data = data };

	/* the columns in the order of enum store_run_field, then the host's */
	return store_read_one(st, "run", run_id, "SELECT r.status, r.error, r.runner, t.target, "
			      "t.class, r.workloads, r.params, k.path, k.hash, k.arch, r.cmdline, "
			      "r.mem_mib, r.cpus, r.accel, r.host, r.host_cpu, r.qemu_version, "
			      "r.wall_s, r.to_hello_s, r.bad_lines, r.console_log, r.started, "
			      "r.console_tail, r.experiment_id, v.name, " STORE_RUN_HOST_COLUMNS
			      " FROM runs r "
			      "LEFT JOIN kernels k ON k.id = r.kernel_id "
			      "LEFT JOIN variants v ON v.id = r.variant_id "
			      "LEFT JOIN run_targets t ON t.run_id = r.id WHERE r.id = ?1",
			      run_row, &r);
}

void store_run_host(struct run_host *out, sqlite3_stmt *q, int col)
{
	/* stored as text; NULL, for another runner's run, reads as 0 */
	out->mem_mib = sqlite3_column_int64(q, col);
	out->cpus = sqlite3_column_int(q, col + 1);
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
	struct sample_reader r = { fn, data };
	struct strbuf ids = STRBUF_INIT;
	int ret;

	id_array(&ids, run_ids, nr);
	ret = store_rows(st, "cannot read samples", "SELECT workload, metric, unit, iteration, "
			 "value, flags FROM samples WHERE run_id IN (SELECT value FROM "
			 "json_each(?1)) ORDER BY workload, metric, unit",
			 STORE_ARGS(STORE_TEXT(ids.buf)), sample_row, &r);
	strbuf_release(&ids);
	return ret;
}

int store_runs_clocks(struct store *st, struct strvec *out, const long long *run_ids,
		      size_t nr)
{
	struct strbuf ids = STRBUF_INIT;
	int ret;

	id_array(&ids, run_ids, nr);
	ret = store_rows(st, "cannot read runs", "SELECT DISTINCT clock FROM runs WHERE id IN "
			 "(SELECT value FROM json_each(?1)) ORDER BY id",
			 STORE_ARGS(STORE_TEXT(ids.buf)), store_row_strvec, out);
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
