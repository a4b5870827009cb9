/* What the HTML report reads (store-report.h). */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "store-report.h"
#include "store-private.h"

/* The reader's callback and its data, for the row functions below. */
struct reader {
	union {
		store_page_fn *page;
		store_report_experiment_summary_fn *experiment_summary;
		store_report_run_summary_fn *run_summary;
		store_series_kernel_fn *series_kernel;
		store_series_run_fn *series_run;
		store_report_experiment_fn *experiment;
		store_report_experiment_run_fn *experiment_run;
		store_ab_sample_fn *ab_sample;
		store_report_run_fn *run;
		store_report_bisection_fn *bisection;
		store_bisect_step_fn *step;
		store_report_nightly_fn *nightly;
		store_report_nightly_point_fn *nightly_point;
		store_report_nightly_change_fn *nightly_change;
	} fn;
	void *data;
};

/* Text that is NULL when the column is. */
static const char *nullable(sqlite3_stmt *q, int col)
{
	return (const char *)sqlite3_column_text(q, col);
}

static int page_row(sqlite3_stmt *q, void *data)
{
	struct reader *r = data;

	return r->fn.page(store_text(q, 1)[0], sqlite3_column_int64(q, 0), r->data);
}

int store_report_pages(struct store *st, store_page_fn *fn, void *data)
{
	struct reader r = { .fn.page = fn, .data = data };

	return store_rows(st, "cannot read experiments and runs",
			  "SELECT id, CASE kind WHEN 'bisect' THEN 'b' ELSE 'e' END FROM experiments "
			  "UNION ALL SELECT min(id), 'n' FROM nightly_nights GROUP BY nightly "
			  "UNION ALL SELECT id, 'r' FROM runs ORDER BY 2, 1", NULL, 0, page_row, &r);
}

static int experiment_summary_row(sqlite3_stmt *q, void *data)
{
	struct reader *r = data;
	struct store_report_experiment_summary e = {
		.id = sqlite3_column_int64(q, 0),
		.kind = store_text(q, 1),
		.status = store_text(q, 2),
		.workloads = store_text(q, 3),
		.created = store_num(q, 4),
		.verdict = store_text(q, 5),
		.culprit = store_text(q, 6),
		.workload = store_text(q, 7),
		.metric = store_text(q, 8),
		.mem_mib = sqlite3_column_int64(q, 9),
		.cpus = sqlite3_column_int64(q, 10),
		.ratio = store_num(q, 11),
		.metrics = sqlite3_column_int64(q, 12),
		.points = sqlite3_column_int64(q, 13),
		.good = store_text(q, 14),
		.bad = store_text(q, 15),
		.good_ref = store_text(q, 16),
		.bad_ref = store_text(q, 17),
	};

	return r->fn.experiment_summary(&e, r->data);
}

/* Each experiment with its worst verdict (store-report.h), as the columns of experiment_summary_row(). */
#define EXPERIMENT_SUMMARY "SELECT * FROM (SELECT e.id, e.kind, e.status, e.workloads, " \
	"e.created, CASE e.kind WHEN 'bisect' THEN b.outcome ELSE w.verdict END AS verdict, " \
	"b.culprit AS culprit, COALESCE(b.workload, w.workload), COALESCE(b.metric, w.metric), " \
	"w.mem_mib, w.cpus, CASE e.kind WHEN 'bisect' THEN b.effect ELSE w.ratio END, " \
	"(SELECT count(DISTINCT workload || '.' || metric) FROM verdicts " \
	"WHERE experiment_id = e.id), (SELECT count(DISTINCT mem_mib || ',' || cpus) FROM " \
	"verdicts WHERE experiment_id = e.id), b.good, b.bad, bs.good_ref, bs.bad_ref " \
	"FROM experiments e LEFT JOIN verdicts w ON w.id = (SELECT id FROM verdicts " \
	"WHERE experiment_id = e.id ORDER BY CASE verdict WHEN 'REGRESSION' THEN 0 " \
	"WHEN 'IMPROVEMENT' THEN 1 WHEN 'INCONCLUSIVE' THEN 2 WHEN 'SMALL' THEN 3 " \
	"ELSE 4 END, max(ratio, 1.0 / ratio) DESC, id LIMIT 1) " \
	"LEFT JOIN bisections b ON b.experiment_id = e.id " \
	"LEFT JOIN bisect_specs bs ON bs.experiment_id = e.id) "

/* max(ratio, 1.0 / ratio): the size of a change either way; NULL (not compared) sorts last */
int store_report_experiments(struct store *st, long limit, int regressions,
			     store_report_experiment_summary_fn *fn, void *data)
{
	struct reader r = { .fn.experiment_summary = fn, .data = data };

	return store_rows(st, "cannot read experiments", EXPERIMENT_SUMMARY
			  "WHERE NOT ?2 OR verdict = 'REGRESSION' OR COALESCE(culprit, '') != '' "
			  "ORDER BY id DESC LIMIT ?1",
			  STORE_ARGS(STORE_INT(limit), STORE_INT(regressions)), experiment_summary_row,
			  &r);
}

int store_report_experiment_summary(struct store *st, long long exp_id,
				    store_report_experiment_summary_fn *fn, void *data)
{
	struct reader r = { .fn.experiment_summary = fn, .data = data };

	return store_rows(st, "cannot read experiment", EXPERIMENT_SUMMARY "WHERE id = ?1",
			  STORE_ARGS(STORE_INT(exp_id)), experiment_summary_row, &r);
}

static int run_summary_row(sqlite3_stmt *q, void *data)
{
	struct reader *r = data;
	struct store_report_run_summary s = {
		.id = sqlite3_column_int64(q, 0),
		.started = store_num(q, 1),
		.status = store_text(q, 2),
		.runner = store_text(q, 3),
		.workloads = store_text(q, 4),
		.experiment_id = sqlite3_column_int64(q, 5),
		.experiment_kind = nullable(q, 6),
		.variant = store_text(q, 7),
		.kernel = store_text(q, 8),
		.error = store_text(q, 9),
		.git_ref = store_text(q, 10),
	};

	if (sqlite3_column_type(q, 5) == SQLITE_NULL)
		s.experiment_kind = NULL;
	return r->fn.run_summary(&s, r->data);
}

int store_report_runs(struct store *st, long limit, store_report_run_summary_fn *fn,
		      void *data)
{
	struct reader r = { .fn.run_summary = fn, .data = data };

	return store_rows(st, "cannot read runs",
			  "SELECT r.id, r.started, r.status, r.runner, r.workloads, "
			  "r.experiment_id, e.kind, v.name, COALESCE(k.git_commit, k.path), r.error, "
			  "CASE WHEN k.git_commit IS NOT NULL THEN v.git_ref END "
			  "FROM runs r LEFT JOIN experiments e ON e.id = r.experiment_id "
			  "LEFT JOIN variants v ON v.id = r.variant_id "
			  "LEFT JOIN kernels k ON k.id = r.kernel_id ORDER BY r.id DESC LIMIT ?1",
			  STORE_ARGS(STORE_INT(limit)), run_summary_row, &r);
}

static int series_kernel_row(sqlite3_stmt *q, void *data)
{
	struct reader *r = data;
	struct store_series_kernel k = {
		.kernel_id = sqlite3_column_int64(q, 0),
		.cmdline = store_text(q, 1),
		.mem_mib = sqlite3_column_int64(q, 2),
		.cpus = sqlite3_column_int64(q, 3),
		.runs = sqlite3_column_int(q, 4),
		.git_commit = store_text(q, 5),
		.release = store_text(q, 6),
		.path = store_text(q, 7),
	};

	return r->fn.series_kernel(&k, r->data);
}

int store_report_series_kernels(struct store *st, long limit, store_series_kernel_fn *fn,
				void *data)
{
	struct reader r = { .fn.series_kernel = fn, .data = data };

	return store_rows(st, "cannot read runs",
			  "SELECT r.kernel_id, r.cmdline, COALESCE(r.mem_mib, 0), "
			  "COALESCE(r.cpus, 0), count(*), k.git_commit, k.release, k.path "
			  "FROM runs r JOIN kernels k ON k.id = r.kernel_id WHERE r.status = 'OK' "
			  "GROUP BY r.kernel_id, r.cmdline, COALESCE(r.mem_mib, 0), COALESCE(r.cpus, 0) "
			  "HAVING count(*) > 1 ORDER BY max(r.started) DESC, max(r.id) DESC LIMIT ?1",
			  STORE_ARGS(STORE_INT(limit)), series_kernel_row, &r);
}

static int series_run_row(sqlite3_stmt *q, void *data)
{
	struct reader *r = data;

	return r->fn.series_run(sqlite3_column_int64(q, 0),
					      sqlite3_column_double(q, 1), r->data);
}

int store_report_series_runs(struct store *st, const struct store_series_kernel *k, long limit,
			     store_series_run_fn *fn, void *data)
{
	struct reader r = { .fn.series_run = fn, .data = data };

	return store_rows(st, "cannot read runs",
			  "SELECT id, started FROM runs WHERE kernel_id = ?1 AND cmdline = ?2 AND "
			  "COALESCE(mem_mib, 0) = ?3 AND COALESCE(cpus, 0) = ?4 AND status = 'OK' "
			  "ORDER BY started DESC, id DESC LIMIT ?5",
			  STORE_ARGS(STORE_INT(k->kernel_id), STORE_TEXT(k->cmdline), STORE_INT(k->mem_mib),
			       STORE_INT(k->cpus), STORE_INT(limit)), series_run_row, &r);
}

static int experiment_row(sqlite3_stmt *q, void *data)
{
	struct reader *r = data;
	struct store_report_experiment e = {
		.status = store_text(q, 0),
		.command = store_text(q, 1),
		.workloads = store_text(q, 2),
		.created = store_num(q, 3),
		.finished = store_num(q, 4),
	};

	return r->fn.experiment(&e, r->data);
}

int store_report_experiment(struct store *st, long long exp_id, store_report_experiment_fn *fn,
			    void *data)
{
	struct reader r = { .fn.experiment = fn, .data = data };

	return store_rows(st, "cannot read experiment",
			  "SELECT status, command, workloads, created, finished FROM experiments "
			  "WHERE id = ?1", STORE_ARGS(STORE_INT(exp_id)), experiment_row, &r);
}

static long long int_or(sqlite3_stmt *q, int col, long long none)
{
	return sqlite3_column_type(q, col) == SQLITE_NULL ? none : sqlite3_column_int64(q, col);
}

static int experiment_run_row(sqlite3_stmt *q, void *data)
{
	struct reader *r = data;
	struct store_report_experiment_run e = {
		.id = sqlite3_column_int64(q, 0),
		.variant = store_text(q, 1),
		.status = store_text(q, 2),
		.started = store_num(q, 3),
		.mem_mib = int_or(q, 4, -1),
		.cpus = int_or(q, 5, -1),
		.error = store_text(q, 6),
	};

	return r->fn.experiment_run(&e, r->data);
}

int store_report_experiment_runs(struct store *st, long long exp_id,
				 store_report_experiment_run_fn *fn, void *data)
{
	struct reader r = { .fn.experiment_run = fn, .data = data };

	return store_rows(st, "cannot read runs",
			  "SELECT r.id, v.name, r.status, r.started, r.mem_mib, r.cpus, r.error "
			  "FROM runs r LEFT JOIN variants v ON v.id = r.variant_id "
			  "WHERE r.experiment_id = ?1 ORDER BY r.id", STORE_ARGS(STORE_INT(exp_id)),
			  experiment_run_row, &r);
}

struct ids {
	long long *v;
	size_t n, alloc;
};

static int id_row(sqlite3_stmt *q, void *data)
{
	struct ids *ids = data;

	ALLOC_GROW(ids->v, ids->n + 1, ids->alloc);
	ids->v[ids->n++] = sqlite3_column_int64(q, 0);
	return 0;
}

struct variant_reader {
	struct store *st;
	long long exp_id;
	struct ids runs;
	store_report_variant_fn *fn;
	void *data;
};

static int variant_row(sqlite3_stmt *q, void *data)
{
	struct variant_reader *r = data;
	struct store_report_variant v = {
		.id = sqlite3_column_int64(q, 0),
		.name = store_text(q, 1),
		.git_ref = store_text(q, 2),
		.commit = store_text(q, 3),
		.path = nullable(q, 4),
		.hash = store_text(q, 5),
		.release = store_text(q, 6),
		.cmdline = store_text(q, 7),
	};

	r->runs.n = 0;
	if (store_rows(r->st, "cannot read runs", "SELECT id FROM runs WHERE experiment_id = ?2 AND "
		       "variant_id = ?1 ORDER BY id", STORE_ARGS(STORE_INT(v.id), STORE_INT(r->exp_id)),
		       id_row, &r->runs))
		return -1;
	v.runs = r->runs.v;
	v.nruns = r->runs.n;
	return r->fn(&v, r->data);
}

int store_report_variants(struct store *st, long long exp_id, store_report_variant_fn *fn,
			  void *data)
{
	struct variant_reader r = { .st = st, .exp_id = exp_id, .fn = fn, .data = data };
	int ret;

	ret = store_rows(st, "cannot read variants",
			 "SELECT v.id, v.name, v.git_ref, k.git_commit, k.path, k.hash, "
			 "k.release, v.cmdline FROM variants v LEFT JOIN kernels k ON k.id = v.kernel_id "
			 "WHERE v.experiment_id = ?1 ORDER BY v.name", STORE_ARGS(STORE_INT(exp_id)),
			 variant_row, &r);
	free(r.runs.v);
	return ret;
}

static int ab_sample_row(sqlite3_stmt *q, void *data)
{
	struct reader *r = data;
	struct store_ab_sample s = {
		.side = store_text(q, 0)[0] == 'B',
		.workload = store_text(q, 1),
		.metric = store_text(q, 2),
		.mem_mib = sqlite3_column_int64(q, 3),
		.cpus = sqlite3_column_int64(q, 4),
		.value = sqlite3_column_double(q, 5),
		.run_id = sqlite3_column_int64(q, 6),
		.iteration = sqlite3_column_int64(q, 7),
	};

	return r->fn.ab_sample(&s, r->data);
}

int store_experiment_ab_samples(struct store *st, long long exp_id, store_ab_sample_fn *fn,
				void *data)
{
	struct reader r = { .fn.ab_sample = fn, .data = data };

	/*
	 * CROSS JOIN keeps runs the outer loop, so samples are found by run and
	 * not by metric (which visits every experiment's), and come in index
	 * order with no sort.
	 */
	return store_rows(st, "cannot read samples",
			  "SELECT v.name, s.workload, s.metric, COALESCE(r.mem_mib, 0), "
			  "COALESCE(r.cpus, 0), s.value, r.id, s.iteration FROM runs r "
			  "CROSS JOIN counted_samples s "
			  "ON s.run_id = r.id JOIN variants v ON v.id = r.variant_id "
			  "WHERE r.experiment_id = ?1 AND v.name IN ('A', 'B') ORDER BY r.id, s.id",
			  STORE_ARGS(STORE_INT(exp_id)), ab_sample_row, &r);
}

static int run_row(sqlite3_stmt *q, void *data)
{
	struct reader *r = data;
	struct store_report_run run = {
		.id = sqlite3_column_int64(q, 27),
		.started = store_num(q, 20),
		.ended = store_num(q, 21),
		.console_log = store_text(q, 22),
		.console_tail = store_text(q, 23),
		.experiment_id = int_or(q, 24, 0),
		.experiment_kind = nullable(q, 25),
		.variant = nullable(q, 26),
	};

	for (int i = 0; i < RR_NR_FIELDS; i++)
		run.text[i] = nullable(q, i);
	if (!run.experiment_id)
		run.experiment_kind = NULL;
	return r->fn.run(&run, r->data);
}

int store_report_run(struct store *st, long long run_id, store_report_run_fn *fn, void *data)
{
	struct reader r = { .fn.run = fn, .data = data };

	/* the first columns in the order of enum store_report_run_field */
	return store_rows(st, "cannot read run",
			  "SELECT r.status, r.error, r.runner, r.workloads, r.params, r.cmdline, "
			  "r.mem_mib, r.cpus, r.accel, r.host, r.host_cpu, r.qemu_version, r.wall_s, "
			  "r.to_hello_s, r.bad_lines, k.path, k.hash, k.arch, k.release, k.git_commit, "
			  "r.started, r.ended, r.console_log, r.console_tail, r.experiment_id, e.kind, "
			  "v.name, r.id FROM runs r LEFT JOIN kernels k ON k.id = r.kernel_id "
			  "LEFT JOIN experiments e ON e.id = r.experiment_id "
			  "LEFT JOIN variants v ON v.id = r.variant_id WHERE r.id = ?1",
			  STORE_ARGS(STORE_INT(run_id)), run_row, &r);
}

static int bisection_row(sqlite3_stmt *q, void *data)
{
	struct reader *r = data;
	struct store_report_bisection b = {
		.status = store_text(q, 0),
		.created = store_num(q, 1),
		.finished = store_num(q, 2),
		.good = store_text(q, 3),
		.bad = store_text(q, 4),
		.workload = store_text(q, 5),
		.metric = store_text(q, 6),
		.per_boot = (int)int_or(q, 7, -1),
		.effect = store_num(q, 8),
		.effect_lo = store_num(q, 9),
		.effect_hi = store_num(q, 10),
		.culprit = store_text(q, 11),
		.outcome = store_text(q, 12),
		.effect_alpha = store_num(q, 13),
		.good_ref = store_text(q, 14),
		.bad_ref = store_text(q, 15),
	};

	return r->fn.bisection(&b, r->data);
}

int store_report_bisection(struct store *st, long long exp_id, store_report_bisection_fn *fn,
			   void *data)
{
	struct reader r = { .fn.bisection = fn, .data = data };

	return store_rows(st, "cannot read bisection",
			  "SELECT e.status, e.created, e.finished, b.good, b.bad, b.workload, "
			  "b.metric, b.per_boot, b.effect, b.effect_lo, b.effect_hi, b.culprit, "
			  "b.outcome, b.effect_alpha, bs.good_ref, bs.bad_ref FROM experiments e "
			  "LEFT JOIN bisections b ON b.experiment_id = e.id "
			  "LEFT JOIN bisect_specs bs ON bs.experiment_id = e.id WHERE e.id = ?1",
			  STORE_ARGS(STORE_INT(exp_id)), bisection_row, &r);
}

static int step_row(sqlite3_stmt *q, void *data)
{
	struct reader *r = data;
	struct bisect_step_row s = {
		.seq = sqlite3_column_int64(q, 0),
		.commit = store_text(q, 1),
		.mark = store_text(q, 2),
		.n = int_or(q, 3, -1),
		.ratio = store_num(q, 4),
		.ci_low = store_num(q, 5),
		.ci_high = store_num(q, 6),
	};

	return r->fn.step(&s, r->data);
}

int store_report_bisect_steps(struct store *st, long long exp_id, store_bisect_step_fn *fn,
			      void *data)
{
	struct reader r = { .fn.step = fn, .data = data };

	return store_rows(st, "cannot read bisection steps",
			  "SELECT seq, git_commit, mark, n, ratio, ci_low, ci_high FROM bisect_steps "
			  "WHERE experiment_id = ?1 ORDER BY seq", STORE_ARGS(STORE_INT(exp_id)), step_row, &r);
}

static int nightly_row(sqlite3_stmt *q, void *data)
{
	struct reader *r = data;
	struct store_report_nightly n = {
		.id = sqlite3_column_int64(q, 0),
		.name = store_text(q, 1),
		.nights = sqlite3_column_int64(q, 2),
		.last_started = store_num(q, 3),
		.last_status = store_text(q, 4),
		.last_summary = store_text(q, 5),
		.last_head = store_text(q, 6),
		.series = sqlite3_column_int64(q, 7),
		.changes = sqlite3_column_int64(q, 8),
		.worst_metric = store_text(q, 9),
		.worst_ratio = store_num(q, 10),
		.worst_verdict = store_text(q, 11),
		.worst_kind = store_text(q, 12),
	};

	return r->fn.nightly(&n, r->data);
}

/*
 * Per nightly: its id, name, nights, its newest night, its series and
 * changes, and its worst change as store_report_experiments() picks the
 * worst verdict.
 */
#define NIGHTLY_SELECT "SELECT n.id, n.nightly, n.nights, l.started, l.status, l.summary, " \
	"l.head, (SELECT count(DISTINCT series) FROM nightly_points WHERE nightly = n.nightly), " \
	"(SELECT count(*) FROM nightly_changes WHERE nightly = n.nightly), " \
	"(SELECT workload || '.' || metric FROM nightly_points WHERE nightly = w.nightly AND " \
	"series = w.series LIMIT 1), w.ratio, w.verdict, w.kind FROM (SELECT " \
	"nightly, min(id) AS id, max(id) AS last, count(*) AS nights FROM nightly_nights " \
	"GROUP BY nightly) n JOIN nightly_nights l ON l.id = n.last " \
	"LEFT JOIN nightly_changes w ON w.id = (SELECT id FROM nightly_changes WHERE " \
	"nightly = n.nightly ORDER BY CASE verdict WHEN 'REGRESSION' THEN 0 WHEN 'IMPROVEMENT' " \
	"THEN 1 WHEN 'INCONCLUSIVE' THEN 2 WHEN 'SMALL' THEN 3 ELSE 4 END, " \
	"max(ratio, 1.0 / ratio) DESC, id LIMIT 1) "

int store_report_nightlies(struct store *st, store_report_nightly_fn *fn, void *data)
{
	struct reader r = { .fn.nightly = fn, .data = data };

	return store_rows(st, "cannot read nightlies", NIGHTLY_SELECT "ORDER BY n.nightly", NULL, 0,
			  nightly_row, &r);
}

int store_report_nightly(struct store *st, long long id, store_report_nightly_fn *fn,
			 void *data)
{
	struct reader r = { .fn.nightly = fn, .data = data };

	return store_rows(st, "cannot read nightly", NIGHTLY_SELECT "WHERE n.id = ?1",
			  STORE_ARGS(STORE_INT(id)), nightly_row, &r);
}

static int nightly_point_row(sqlite3_stmt *q, void *data)
{
	struct reader *r = data;
	struct store_report_nightly_point p = {
		.series = store_text(q, 0),
		.workload = store_text(q, 1),
		.metric = store_text(q, 2),
		.unit = store_text(q, 3),
		.target = store_text(q, 4),
		.mem_mib = sqlite3_column_int64(q, 5),
		.cmdline = store_text(q, 6),
		.clock = store_text(q, 7),
		.commit = store_text(q, 8),
		.seq = sqlite3_column_int64(q, 9),
		.value = store_num(q, 10),
		.boots = sqlite3_column_int64(q, 11),
	};

	return r->fn.nightly_point(&p, r->data);
}

int store_report_nightly_points(struct store *st, const char *nightly,
				store_report_nightly_point_fn *fn, void *data)
{
	struct reader r = { .fn.nightly_point = fn, .data = data };

	return store_rows(st, "cannot read nightly points",
			  "SELECT series, workload, metric, unit, target, mem_mib, cmdline, clock, "
			  "git_commit, seq, value, boots FROM nightly_points WHERE nightly = ?1 "
			  "ORDER BY series, seq", STORE_ARGS(STORE_TEXT(nightly)), nightly_point_row, &r);
}

static int nightly_change_row(sqlite3_stmt *q, void *data)
{
	struct reader *r = data;
	struct store_report_nightly_change c = {
		.id = sqlite3_column_int64(q, 0),
		.series = store_text(q, 1),
		.before = store_text(q, 2),
		.after = store_text(q, 3),
		.kind = store_text(q, 4),
		.ratio = store_num(q, 5),
		.night_id = sqlite3_column_int64(q, 6),
		.ab_experiment = int_or(q, 7, 0),
		.verdict = store_text(q, 8),
		.bisection = int_or(q, 9, 0),
		.culprit = store_text(q, 10),
		.outcome = store_text(q, 11),
	};

	return r->fn.nightly_change(&c, r->data);
}

int store_report_nightly_changes(struct store *st, const char *nightly,
				 store_report_nightly_change_fn *fn, void *data)
{
	struct reader r = { .fn.nightly_change = fn, .data = data };

	return store_rows(st, "cannot read nightly changes",
			  "SELECT id, series, before_commit, after_commit, kind, ratio, night_id, "
			  "ab_experiment, verdict, bisection, culprit, outcome FROM nightly_changes "
			  "WHERE nightly = ?1 ORDER BY series, id", STORE_ARGS(STORE_TEXT(nightly)),
			  nightly_change_row, &r);
}
