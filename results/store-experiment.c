/* Experiments, variants, runs and samples as typed rows (store-experiment.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "array.h"
#include "log.h"
#include "store-experiment.h"
#include "store-private.h"
#include "strbuf.h"
#include "subprocess.h"

int store_experiment_done(struct store *st, long long exp_id)
{
	return store_exec(st, "cannot finish experiment",
			  "UPDATE experiments SET status = 'DONE', "
			  "finished = (julianday('now') - 2440587.5) * 86400.0 WHERE id = ?1",
			  exp_id, NULL);
}

int store_experiment_interrupted(struct store *st, long long exp_id)
{
	return store_exec(st, "cannot mark experiment interrupted",
			  "UPDATE experiments SET status = 'INTERRUPTED' "
			  "WHERE id = ?1 AND status = 'RUNNING'", exp_id, NULL);
}

int store_experiment_resumed(struct store *st, long long exp_id)
{
	return store_exec(st, "cannot resume experiment",
			  "UPDATE experiments SET status = 'RUNNING' "
			  "WHERE id = ?1 AND status = 'INTERRUPTED'", exp_id, NULL);
}

int store_runs_interrupted(struct store *st, long long exp_id)
{
	return store_exec(st, "cannot resume experiment",
			  "UPDATE runs SET status = 'INFRA', error = 'interrupted' "
			  "WHERE experiment_id = ?1 AND status = 'RUNNING' AND "
			  "id NOT IN (SELECT run_id FROM run_owners)", exp_id, NULL);
}

int store_experiment_exists(struct store *st, long long exp_id, int *exists)
{
	long long found = 0;

	*exists = 0;
	if (store_rows(st, "cannot look up experiment", "SELECT 1 FROM experiments WHERE id = ?1",
		       STORE_ARGS(STORE_INT(exp_id)), store_row_int, &found))
		return -1;
	*exists = found == 1;
	return 0;
}

int store_experiment_runs(struct store *st, long long *n, long long exp_id)
{
	return store_rows(st, "cannot count runs", "SELECT count(*) FROM runs WHERE "
			  "experiment_id = ?1", STORE_ARGS(STORE_INT(exp_id)), store_row_int, n);
}

int store_experiment_clock_words(struct store *st, struct strbuf *out, long long exp_id)
{
	struct strvec clocks = STRVEC_INIT;
	int ret = store_experiment_clocks(st, &clocks, exp_id);

	for (size_t i = 0; !ret && i < clocks.nr; i++) {
		if (i)
			strbuf_addstr(out, " and ");
		clock_words(out, clocks.v[i]);
	}
	/* no run yet: nothing was measured, in any clock */
	if (!ret && !clocks.nr)
		strbuf_addstr(out, "no runs yet");
	strvec_release(&clocks);
	return ret;
}

int store_experiment_virtual(struct store *st, long long exp_id)
{
	struct strvec clocks = STRVEC_INIT;
	int ret = store_experiment_clocks(st, &clocks, exp_id);

	if (!ret)
		ret = clocks.nr == 1 && !strncmp(clocks.v[0], "icount", 6);
	strvec_release(&clocks);
	return ret;
}

int store_experiment_refused(struct store *st, long long exp_id)
{
	return store_exec(st, "cannot record refusal",
			  "UPDATE experiments SET status = 'REFUSED' WHERE id = ?1", exp_id, NULL);
}

/* "[4096,16384]": a list for json_each() */
static void json_ids(struct strbuf *sb, const long *v, size_t n)
{
	strbuf_addch(sb, '[');
	for (size_t i = 0; i < n; i++)
		strbuf_addf(sb, "%s%ld", i ? "," : "", v[i]);
	strbuf_addch(sb, ']');
}

struct found_experiment {
	long long *id;
	int *done;
};

static int found_row(sqlite3_stmt *q, void *data)
{
	struct found_experiment *f = data;

	*f->id = sqlite3_column_int64(q, 0);
	*f->done = sqlite3_column_int(q, 1);
	return 0;
}

int store_experiment_find_ab(struct store *st, long long *id, int *done,
			     const struct store_ab_spec *spec)
{
	struct strbuf mems = STRBUF_INIT, cpus = STRBUF_INIT;
	struct found_experiment f = { id, done };
	int ret;

	*id = 0;
	*done = 0;
	json_ids(&mems, spec->mems, spec->nmems);
	json_ids(&cpus, spec->cpus, spec->ncpus);
	/* an error is not "none": that would start a duplicate of one that may exist */
	ret = store_rows(st, "cannot look up earlier experiments",
			 "SELECT e.id, e.status = 'DONE' FROM experiments e "
			 "JOIN variants a ON a.experiment_id = e.id AND a.name = 'A' "
			 "JOIN variants b ON b.experiment_id = e.id AND b.name = 'B' "
			 "WHERE e.kind = 'ab' AND e.status != 'REFUSED' AND e.workloads = ?1 "
			 "AND a.kernel_id IS ?2 AND a.cmdline = ?3 "
			 "AND b.kernel_id IS ?4 AND b.cmdline = ?5 "
			 "AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.experiment_id = e.id AND ("
			 "  r.params != ?6 OR r.runner != ?7 "
			 "  OR r.mem_mib NOT IN (SELECT value FROM json_each(?8)) "
			 "  OR r.cpus NOT IN (SELECT value FROM json_each(?9)) "
			 "  OR (?10 IS NOT NULL AND r.clock != ?10 AND r.clock NOT LIKE ?10 || ' %'))) "
			 "ORDER BY e.id DESC LIMIT 1",
			 STORE_ARGS(STORE_TEXT(spec->workloads), STORE_ID(spec->kernel_id[0]),
				    STORE_TEXT(spec->cmdline[0] ? spec->cmdline[0] : ""),
				    STORE_ID(spec->kernel_id[1]),
				    STORE_TEXT(spec->cmdline[1] ? spec->cmdline[1] : ""),
				    STORE_TEXT(spec->params), STORE_TEXT(spec->runner),
				    STORE_TEXT(mems.buf), STORE_TEXT(cpus.buf), STORE_TEXT(spec->clock)),
			 found_row, &f);
	strbuf_release(&mems);
	strbuf_release(&cpus);
	return ret;
}

int store_insert_experiment(struct store *st, long long *id, const char *kind,
			    const char *command, const char *workloads)
{
	if (store_rows(st, NULL, "INSERT INTO experiments(kind, command, workloads, created) "
		       "VALUES (?1, ?2, ?3, ?4)", STORE_ARGS(STORE_TEXT(kind), STORE_TEXT(command),
		       STORE_TEXT(workloads), STORE_NUM(now_wall())), NULL, NULL))
		return -1;
	*id = store_last_id(st);
	return 0;
}

int store_experiment_create_ab(struct store *st, long long *exp_id, long long vid[2],
			       const char *command, const char *workloads,
			       const struct store_variant_spec v[2])
{
	long long id;

	if (store_begin(st))
		return -1;
	if (store_insert_experiment(st, &id, "ab", command, workloads))
		goto fail;
	for (int i = 0; i < 2; i++) {
		if (store_rows(st, NULL, "INSERT INTO variants(experiment_id, name, kernel_id, "
			       "cmdline, git_ref) VALUES (?1, ?2, ?3, ?4, ?5)",
			       STORE_ARGS(STORE_INT(id), STORE_TEXT(i ? "B" : "A"),
					  STORE_ID(v[i].kernel_id),
					  STORE_TEXT(v[i].cmdline ? v[i].cmdline : ""),
					  STORE_TEXT(v[i].git_ref)), NULL, NULL))
			goto fail;
		vid[i] = store_last_id(st);
	}
	if (store_commit(st))
		return -1;
	*exp_id = id;
	return 0;
fail:
	store_error(st, "cannot create experiment");
	store_rollback(st);
	return -1;
}

struct variant_reader {
	store_variant_fn *fn;
	void *data;
};

static int variant_row(sqlite3_stmt *q, void *data)
{
	struct variant_reader *r = data;
	struct store_variant v = {
		.id = sqlite3_column_int64(q, 0),
		.kernel_id = sqlite3_column_int64(q, 1),
		.name = store_text(q, 2),
		.cmdline = store_text(q, 3),
		.kernel = store_text(q, 4),
		.hash = store_text(q, 5),
		.workloads = store_text(q, 6),
	};

	return r->fn(&v, r->data);
}

int store_experiment_variants(struct store *st, long long exp_id, const char *kind,
			      store_variant_fn *fn, void *data)
{
	struct variant_reader r = { fn, data };

	return store_rows(st, "cannot read experiment", "SELECT v.id, COALESCE(v.kernel_id, 0), "
			  "v.name, v.cmdline, COALESCE(v.git_ref || ' ' || substr(k.git_commit, 1, 12), "
			  "k.path, '(this host)'), COALESCE(substr(k.hash, 1, 12), ''), e.workloads "
			  "FROM variants v JOIN experiments e ON e.id = v.experiment_id "
			  "LEFT JOIN kernels k ON k.id = v.kernel_id WHERE e.id = ?1 AND "
			  "(?2 IS NULL OR e.kind = ?2) ORDER BY v.name",
			  STORE_ARGS(STORE_INT(exp_id), STORE_TEXT(kind)), variant_row, &r);
}

int store_variant_id(struct store *st, long long *id, long long exp_id, const char *name)
{
	*id = 0;
	return store_rows(st, "cannot read variants", "SELECT id FROM variants WHERE "
			  "experiment_id = ?1 AND name = ?2",
			  STORE_ARGS(STORE_INT(exp_id), STORE_TEXT(name)), store_row_int, id);
}

int store_variant_record(struct store *st, long long *id, long long exp_id, const char *name,
			 const char *git_ref)
{
	long long got = 0;

	if (store_rows(st, "cannot record bisect step", "INSERT INTO variants(experiment_id, name, "
		       "git_ref) VALUES (?1, ?2, ?3) ON CONFLICT DO UPDATE SET "
		       "git_ref = excluded.git_ref RETURNING id",
		       STORE_ARGS(STORE_INT(exp_id), STORE_TEXT(name), STORE_TEXT(git_ref)),
		       store_row_int, &got))
		return -1;
	*id = got;
	return 0;
}

int store_variant_kernel(struct store *st, long long variant_id, long long kernel_id)
{
	return store_rows(st, "cannot record kernel", "UPDATE variants SET kernel_id = ?2 "
			  "WHERE id = ?1", STORE_ARGS(STORE_INT(variant_id), STORE_INT(kernel_id)),
			  NULL, NULL);
}

struct boots {
	long *ok, *failed;
};

static int boots_row(sqlite3_stmt *q, void *data)
{
	struct boots *b = data;

	*b->ok = sqlite3_column_int64(q, 0);
	*b->failed = sqlite3_column_int64(q, 1);
	return 0;
}

int store_variant_boots(struct store *st, long long variant_id, long mem, long cpus,
			long *ok, long *failed)
{
	struct boots b = { ok, failed };

	return store_rows(st, "cannot count boots", "SELECT count(*) FILTER (WHERE status = 'OK'), "
			  "count(*) FILTER (WHERE status NOT IN ('OK', 'INFRA', 'RUNNING')) "
			  "FROM runs WHERE variant_id = ?1 AND mem_mib = ?2 AND cpus = ?3",
			  STORE_ARGS(STORE_INT(variant_id), STORE_INT(mem), STORE_INT(cpus)),
			  boots_row, &b);
}

/*
 * A user's workload (lab/config/workload.h) is the same benchmark only when its
 * program is the same build: its meta entries workload.NAME.sha256 and
 * .version differ nowhere among the OK runs.
 */
struct provenance_reader {
	const char *column;		/* NULL: the key of each row */
	struct strbuf first;
	int rows;
	store_provenance_fn *fn;
	void *data;
};

static int workload_row(sqlite3_stmt *q, void *data)
{
	struct provenance_reader *r = data;

	return r->fn(store_text(q, 0), store_text(q, 1), store_text(q, 2), r->data);
}

static int workload_provenance(struct store *st, long long exp_id, struct provenance_reader *r)
{
	return store_rows(st, "cannot check provenance", "SELECT m.key, min(m.value), max(m.value) "
			  "FROM run_meta m JOIN runs r ON r.id = m.run_id WHERE r.experiment_id = ?1 "
			  "AND r.status = 'OK' AND (m.key GLOB 'workload.*.sha256' OR "
			  "m.key GLOB 'workload.*.version') GROUP BY m.key "
			  "HAVING count(DISTINCT m.value) > 1 ORDER BY m.key",
			  STORE_ARGS(STORE_INT(exp_id)), workload_row, r);
}

/* The first value, then the second, of a column that differs: told to fn. */
static int column_row(sqlite3_stmt *q, void *data)
{
	struct provenance_reader *r = data;

	if (!r->rows++) {
		strbuf_addstr(&r->first, store_text(q, 0));
		return 0;
	}
	return r->fn(r->column, r->first.buf, store_text(q, 0), r->data);
}

/* Up to two values of a column among an experiment's OK runs. */
#define DISTINCT_OK(col) "SELECT DISTINCT COALESCE(" col ", '') FROM runs WHERE " \
	"experiment_id = ?1 AND status = 'OK' LIMIT 2"

int store_experiment_provenance(struct store *st, long long exp_id, store_provenance_fn *fn,
				void *data)
{
	/* the clock first: it is refused even with --force */
	/* then the class of the targets: its targets are interchangeable, others not */
	static const struct {
		const char *name, *sql;
	} cols[] = {
		{ "clock", DISTINCT_OK("clock") },
		{ "class", DISTINCT_OK("(SELECT class FROM run_targets t WHERE t.run_id = runs.id)") },
		{ "runner", DISTINCT_OK("runner") },
		{ "host", DISTINCT_OK("host") },
		{ "host_cpu", DISTINCT_OK("host_cpu") },
		{ "qemu_version", DISTINCT_OK("qemu_version") },
		{ "accel", DISTINCT_OK("accel") },
		{ "workloads", DISTINCT_OK("workloads") },
		{ "params", DISTINCT_OK("params") },
	};
	struct provenance_reader r = { .first = STRBUF_INIT, .fn = fn, .data = data };
	int ret = 0;

	for (size_t i = 0; i < ARRAY_SIZE(cols) && !ret; i++) {
		r.column = cols[i].name;
		r.rows = 0;
		strbuf_reset(&r.first);
		ret = store_rows(st, "cannot check provenance", cols[i].sql,
				 STORE_ARGS(STORE_INT(exp_id)), column_row, &r);
	}
	if (!ret)
		ret = workload_provenance(st, exp_id, &r);
	strbuf_release(&r.first);
	return ret;
}

struct experiment_reader {
	store_experiment_fn *fn;
	void *data;
};

static int experiment_row(sqlite3_stmt *q, void *data)
{
	struct experiment_reader *r = data;
	struct store_experiment e = {
		.status = store_text(q, 0),
		.workloads = store_text(q, 1),
		.command = store_text(q, 2),
		.kind = store_text(q, 3),
		.created = sqlite3_column_double(q, 4),
		.points = sqlite3_column_int(q, 5),
		.boots_ok = sqlite3_column_int(q, 6),
		.boots_failed = sqlite3_column_int(q, 7),
	};

	return r->fn(&e, r->data);
}

int store_experiment_read(struct store *st, long long exp_id, store_experiment_fn *fn,
			  void *data)
{
	struct experiment_reader r = { .fn = fn, .data = data };

	return store_read_one(st, "experiment", exp_id, "SELECT e.status, e.workloads, "
			      "e.command, e.kind, e.created, (SELECT count(DISTINCT mem_mib || ',' "
			      "|| cpus) FROM verdicts WHERE experiment_id = e.id), "
			      "(SELECT count(*) FROM runs WHERE experiment_id = e.id AND "
			      "status = 'OK'), (SELECT count(*) FROM runs WHERE "
			      "experiment_id = e.id AND status != 'OK') FROM experiments e "
			      "WHERE e.id = ?1", experiment_row, &r);
}

struct experiment_summary_reader {
	store_experiment_summary_fn *fn;
	void *data;
};

static int experiment_summary_row(sqlite3_stmt *q, void *data)
{
	struct experiment_summary_reader *r = data;
	struct store_experiment_summary e = {
		.id = sqlite3_column_int64(q, 0),
		.created = sqlite3_column_double(q, 1),
		.status = store_text(q, 2),
		.kind = store_text(q, 3),
		.workloads = store_text(q, 4),
		.runs = sqlite3_column_int(q, 5),
		.verdicts = (const char *)sqlite3_column_text(q, 6),
		.culprit = (const char *)sqlite3_column_text(q, 7),
		.outcome = (const char *)sqlite3_column_text(q, 8),
	};

	return r->fn(&e, r->data);
}

int store_experiments_recent(struct store *st, long limit, store_experiment_summary_fn *fn,
			     void *data)
{
	struct experiment_summary_reader r = { fn, data };

	return store_rows(st, "cannot list experiments", "SELECT e.id, e.created, e.status, "
			  "e.kind, COALESCE(e.workloads, ''), "
			  "(SELECT count(*) FROM runs r WHERE r.experiment_id = e.id), "
			  "(SELECT group_concat(verdict || ' ' || n, ', ') FROM (SELECT verdict, "
			  "count(*) AS n FROM verdicts v WHERE v.experiment_id = e.id GROUP BY "
			  "verdict ORDER BY CASE verdict WHEN 'REGRESSION' THEN 0 WHEN "
			  "'IMPROVEMENT' THEN 1 WHEN 'SAME' THEN 2 ELSE 3 END, verdict)), "
			  "b.culprit, b.outcome FROM experiments e LEFT JOIN bisections b ON "
			  "b.experiment_id = e.id ORDER BY e.id DESC LIMIT ?1", STORE_ARGS(STORE_INT(limit)), experiment_summary_row, &r);
}

struct counted_reader {
	store_counted_fn *fn;
	void *data;
};

static int counted_row(sqlite3_stmt *q, void *data)
{
	struct counted_reader *r = data;
	struct store_counted_sample s = {
		.workload = store_text(q, 0),
		.metric = store_text(q, 1),
		.unit = store_text(q, 2),
		.run_id = sqlite3_column_int64(q, 3),
		.value = sqlite3_column_double(q, 4),
		.target = store_text(q, 5),
	};

	return r->fn(&s, r->data);
}

int store_counted_samples(struct store *st, long long exp_id, long long variant_id, long mem,
			  long cpus, const char *metric, store_counted_fn *fn, void *data)
{
	struct counted_reader r = { fn, data };

	return store_rows(st, "cannot read samples", "SELECT s.workload, s.metric, s.unit, "
			  "s.run_id, s.value, COALESCE((SELECT target FROM run_targets t WHERE "
			  "t.run_id = s.run_id), '') FROM counted_samples s JOIN runs r ON "
			  "r.id = s.run_id WHERE r.experiment_id = ?1 AND r.variant_id = ?2 AND "
			  "(?3 < 0 OR r.mem_mib = ?3) AND (?4 < 0 OR r.cpus = ?4) AND "
			  "(?5 IS NULL OR s.metric = ?5) "
			  "ORDER BY s.workload, s.metric, s.unit, s.run_id, s.id",
			  STORE_ARGS(STORE_INT(exp_id), STORE_INT(variant_id), STORE_INT(mem),
				     STORE_INT(cpus), STORE_TEXT(metric)), counted_row, &r);
}

void clock_words(struct strbuf *out, const char *clock)
{
	int shift = 0;

	if (!clock || strncmp(clock, "icount", 6)) {
		strbuf_addstr(out, "wall time");
		return;
	}
	sscanf(clock, "icount shift=%d", &shift);
	if (shift <= 0)
		strbuf_addstr(out, "virtual time: instructions at 1 GHz");
	else
		strbuf_addf(out, "virtual time: instructions at %g MHz (%d ns each)",
			    1000.0 / (double)(1L << shift), 1 << shift);
}

int store_experiment_clocks(struct store *st, struct strvec *out, long long exp_id)
{
	return store_rows(st, "cannot read the clocks of an experiment",
			  "SELECT clock FROM runs WHERE experiment_id = ?1 GROUP BY clock ORDER BY min(id)",
			  STORE_ARGS(STORE_INT(exp_id)), store_row_strvec, out);
}

int store_experiment_higher_better(struct store *st, long long exp_id, struct strvec *out)
{
	return store_rows(st, "cannot read metric directions",
			  "SELECT DISTINCT substr(m.key, 11) FROM run_meta m "
			  "JOIN runs r ON r.id = m.run_id WHERE r.experiment_id = ?1 AND "
			  "m.key GLOB 'direction.*' AND m.value = 'higher' ORDER BY 1",
			  STORE_ARGS(STORE_INT(exp_id)), store_row_strvec, out);
}

int store_experiment_classes(struct store *st, struct strvec *out, long long exp_id)
{
	return store_rows(st, "cannot read the classes of an experiment's targets",
			  "SELECT DISTINCT COALESCE(t.class, '') FROM runs r "
			  "LEFT JOIN run_targets t ON t.run_id = r.id "
			  "WHERE r.experiment_id = ?1 AND r.status = 'OK' ORDER BY r.id",
			  STORE_ARGS(STORE_INT(exp_id)), store_row_strvec, out);
}

int store_experiment_command(struct store *st, struct strbuf *out, long long exp_id)
{
	size_t len = out->len;
	long long n = 0;

	if (store_rows(st, "cannot read an experiment", "SELECT count(*) FROM experiments WHERE "
		       "id = ?1", STORE_ARGS(STORE_INT(exp_id)), store_row_int, &n))
		return -1;
	if (!n)
		return error("no experiment E%lld in database '%s'", exp_id, st->path);
	if (store_rows(st, "cannot read an experiment", "SELECT command FROM experiments WHERE "
		       "id = ?1", STORE_ARGS(STORE_INT(exp_id)), store_row_text, out))
		return -1;
	return out->len > len ? 0 : error("E%lld has no recorded command", exp_id);
}
