/* Event counts and what an experiment's runs measured, as typed rows (store-events.h). */
#include "store-events.h"
#include "store-private.h"
#include "strbuf.h"

/* The reader's callback and its data, for the row functions below. */
struct reader {
	union {
		store_event_fn *event;
		store_accel_fn *accel;
	} fn;
	void *data;
};

static int event_row(sqlite3_stmt *q, void *data)
{
	struct reader *r = data;
	struct store_event e = {
		.variant = store_text(q, 0),
		.mem_mib = sqlite3_column_int64(q, 1),
		.cpus = sqlite3_column_int(q, 2),
		.workload = store_text(q, 3),
		.metric = store_text(q, 4),
		.value = sqlite3_column_double(q, 5),
	};

	return r->fn.event(&e, r->data);
}

/*
 * The events of the OK runs the rest of the statement picks (after FROM
 * events e JOIN runs r ON r.id = e.run_id: more joins, then WHERE and its
 * condition), warm-ups left out, each with its side (side: an SQL
 * expression), in the order events.c groups them: by point, workload,
 * metric and side.
 */
static int events_of(struct store *st, const char *table, const char *what, const char *with,
		     const char *side, const char *rest, const struct store_arg *args, size_t nargs,
		     store_event_fn *fn, void *data)
{
	struct reader r = { .fn.event = fn, .data = data };
	struct strbuf sql = STRBUF_INIT;
	int ret;

	strbuf_addf(&sql, "%s SELECT %s AS side, r.mem_mib, r.cpus, e.workload, e.metric, e.value "
		    "FROM events e JOIN runs r ON r.id = e.run_id %s AND r.status = 'OK' AND "
		    "(e.flags & 1) = 0 ORDER BY r.mem_mib, r.cpus, e.workload, e.metric, side, e.id",
		    with, side, rest);
	ret = store_rows_if_table(st, table, what, sql.buf, args, nargs, event_row, &r);
	strbuf_release(&sql);
	return ret;
}

int store_experiment_events(struct store *st, long long exp_id, store_event_fn *fn,
			    void *data)
{
	return events_of(st, "events", "cannot read events", "", "v.name",
			 "JOIN variants v ON v.id = r.variant_id WHERE r.experiment_id = ?1",
			 STORE_ARGS(STORE_INT(exp_id)), fn, data);
}

int store_culprit_events(struct store *st, long long exp_id, const char *culprit,
			 store_event_fn *fn, void *data)
{
	return events_of(st, "events", "cannot read the culprit's events", "",
			 "CASE WHEN k.git_commit = ?2 THEN 'B' ELSE 'A' END",
			 "JOIN kernels k ON k.id = r.kernel_id WHERE r.experiment_id = ?1 AND "
			 "(k.git_commit = ?2 OR k.git_commit = (SELECT pk.git_commit FROM runs pr "
			 "JOIN variants pv ON pv.id = pr.variant_id JOIN kernels pk ON "
			 "pk.id = pr.kernel_id WHERE pr.experiment_id = ?1 AND pv.name = 'P' "
			 "LIMIT 1))", STORE_ARGS(STORE_INT(exp_id), STORE_TEXT(culprit)), fn, data);
}

int store_explanation_events(struct store *st, long long explanation_id, store_event_fn *fn,
			     void *data)
{
	/* an explanation of version 11 has no explanation_runs: its two runs */
	return events_of(st, "explanation_runs", "cannot read the explanation's events",
			 "WITH x(side, run_id) AS (SELECT side, run_id FROM explanation_runs "
			 "WHERE explanation_id = ?1 UNION ALL SELECT 0, a_run_id FROM "
			 "explanations WHERE id = ?1 AND NOT EXISTS (SELECT 1 FROM "
			 "explanation_runs WHERE explanation_id = ?1) UNION ALL SELECT 1, "
			 "b_run_id FROM explanations WHERE id = ?1 AND NOT EXISTS (SELECT 1 "
			 "FROM explanation_runs WHERE explanation_id = ?1))",
			 "CASE WHEN x.side = 1 THEN 'B' ELSE 'A' END",
			 "JOIN x ON x.run_id = r.id WHERE 1", STORE_ARGS(STORE_INT(explanation_id)),
			 fn, data);
}

static int accel_row(sqlite3_stmt *q, void *data)
{
	struct reader *r = data;
	struct run_host host;

	store_run_host(&host, q, 5);
	return r->fn.accel(sqlite3_column_int64(q, 0), sqlite3_column_int(q, 1), store_text(q, 2),
			   store_text(q, 3), store_text(q, 4), &host, r->data);
}

int store_experiment_accels(struct store *st, long long exp_id, store_accel_fn *fn,
			    void *data)
{
	struct reader r = { .fn.accel = fn, .data = data };

	return store_rows(st, "cannot read the accelerators of an experiment",
			  "SELECT r.mem_mib, r.cpus, COALESCE(r.accel, ''), r.clock, "
			  "COALESCE(r.runner, ''), " STORE_RUN_HOST_COLUMNS " FROM runs r "
			  "WHERE r.experiment_id = ?1 AND r.status = 'OK' GROUP BY r.mem_mib, "
			  "r.cpus, r.accel, r.clock, r.runner, host_mem_mib, host_cpus "
			  "ORDER BY r.mem_mib, r.cpus, min(r.id)",
			  STORE_ARGS(STORE_INT(exp_id)), accel_row, &r);
}
