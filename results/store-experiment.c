/* Experiments, variants, runs and samples as typed rows (store-experiment.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "store-experiment.h"
#include "strbuf.h"
#include "subprocess.h"

int store_experiment_done(struct store *st, long long exp_id)
{
	return store_exec(st, "cannot finish experiment",
			  "UPDATE experiments SET status = 'DONE', "
			  "finished = (julianday('now') - 2440587.5) * 86400.0 WHERE id = ?1",
			  exp_id, NULL);
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
	sqlite3_stmt *q = NULL;
	int ret = -1, rc;

	*exists = 0;
	if (sqlite3_prepare_v2(st->db, "SELECT 1 FROM experiments WHERE id = ?1", -1, &q,
			       NULL) != SQLITE_OK)
		return store_error(st, "cannot look up experiment");
	sqlite3_bind_int64(q, 1, exp_id);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW || rc == SQLITE_DONE) {
		*exists = rc == SQLITE_ROW;
		ret = 0;
	} else {
		store_error(st, "cannot look up experiment");
	}
	sqlite3_finalize(q);
	return ret;
}

int store_experiment_runs(struct store *st, long long *n, long long exp_id)
{
	sqlite3_stmt *q = NULL;
	int ret = 0;

	if (sqlite3_prepare_v2(st->db, "SELECT count(*) FROM runs WHERE experiment_id = ?1", -1,
			       &q, NULL) != SQLITE_OK)
		return store_error(st, "cannot count runs");
	sqlite3_bind_int64(q, 1, exp_id);
	if (sqlite3_step(q) == SQLITE_ROW)
		*n = sqlite3_column_int64(q, 0);
	else
		ret = store_error(st, "cannot count runs");
	sqlite3_finalize(q);
	return ret;
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

int store_experiment_find_ab(struct store *st, long long *id, int *done,
			     const struct store_ab_spec *spec)
{
	struct strbuf mems = STRBUF_INIT, cpus = STRBUF_INIT;
	sqlite3_stmt *q;
	int ret = -1, rc;

	*id = 0;
	*done = 0;
	if (store_prepare(st, &q,
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
			  "cannot look up earlier experiments"))
		return -1;
	json_ids(&mems, spec->mems, spec->nmems);
	json_ids(&cpus, spec->cpus, spec->ncpus);
	sqlite3_bind_text(q, 1, spec->workloads, -1, SQLITE_STATIC);
	for (int i = 0; i < 2; i++) {
		store_bind_id(q, 2 + 2 * i, spec->kernel_id[i]);
		sqlite3_bind_text(q, 3 + 2 * i, spec->cmdline[i] ? spec->cmdline[i] : "", -1,
				  SQLITE_STATIC);
	}
	sqlite3_bind_text(q, 6, spec->params, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 7, spec->runner, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 8, mems.buf, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 9, cpus.buf, -1, SQLITE_STATIC);
	store_bind_text(q, 10, spec->clock);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(q, 0);
		*done = sqlite3_column_int(q, 1);
	} else if (rc != SQLITE_DONE) {
		/* "none" would start a duplicate of an experiment that may exist */
		store_error(st, "cannot look up earlier experiments");
		goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(q);
	strbuf_release(&mems);
	strbuf_release(&cpus);
	return ret;
}

int store_insert_experiment(struct store *st, long long *id, const char *kind,
			    const char *command, const char *workloads)
{
	sqlite3_stmt *q = NULL;
	int ret = -1;

	if (sqlite3_prepare_v2(st->db, "INSERT INTO experiments(kind, command, workloads, created) "
			       "VALUES (?1, ?2, ?3, ?4)", -1, &q, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(q, 1, kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, command, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 3, workloads, -1, SQLITE_STATIC);
	sqlite3_bind_double(q, 4, now_wall());
	if (sqlite3_step(q) == SQLITE_DONE) {
		*id = sqlite3_last_insert_rowid(st->db);
		ret = 0;
	}
	sqlite3_finalize(q);
	return ret;
}

int store_experiment_create_ab(struct store *st, long long *exp_id, long long vid[2],
			       const char *command, const char *workloads,
			       const struct store_variant_spec v[2])
{
	sqlite3_stmt *q = NULL;
	long long id;

	if (store_begin(st))
		return -1;
	if (store_insert_experiment(st, &id, "ab", command, workloads))
		goto fail;
	if (sqlite3_prepare_v2(st->db, "INSERT INTO variants(experiment_id, name, kernel_id, "
			       "cmdline, git_ref) VALUES (?1, ?2, ?3, ?4, ?5)", -1, &q,
			       NULL) != SQLITE_OK)
		goto fail;
	for (int i = 0; i < 2; i++) {
		sqlite3_reset(q);
		sqlite3_bind_int64(q, 1, id);
		sqlite3_bind_text(q, 2, i ? "B" : "A", -1, SQLITE_STATIC);
		store_bind_id(q, 3, v[i].kernel_id);
		sqlite3_bind_text(q, 4, v[i].cmdline ? v[i].cmdline : "", -1, SQLITE_STATIC);
		store_bind_text(q, 5, v[i].git_ref);
		if (sqlite3_step(q) != SQLITE_DONE)
			goto fail;
		vid[i] = sqlite3_last_insert_rowid(st->db);
	}
	sqlite3_finalize(q);
	if (store_commit(st))
		return -1;
	*exp_id = id;
	return 0;
fail:
	store_error(st, "cannot create experiment");
	sqlite3_finalize(q);
	store_rollback(st);
	return -1;
}

int store_experiment_variants(struct store *st, long long exp_id, const char *kind,
			      store_variant_fn *fn, void *data)
{
	sqlite3_stmt *q;
	int ret = -1, rc;

	if (store_prepare(st, &q, "SELECT v.id, COALESCE(v.kernel_id, 0), v.name, v.cmdline, "
			  "COALESCE(v.git_ref || ' ' || substr(k.git_commit, 1, 12), k.path, "
			  "'(this host)'), COALESCE(substr(k.hash, 1, 12), '-'), e.workloads "
			  "FROM variants v JOIN experiments e ON e.id = v.experiment_id "
			  "LEFT JOIN kernels k ON k.id = v.kernel_id WHERE e.id = ?1 AND "
			  "(?2 IS NULL OR e.kind = ?2) ORDER BY v.name", "cannot read experiment"))
		return -1;
	sqlite3_bind_int64(q, 1, exp_id);
	store_bind_text(q, 2, kind);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		struct store_variant v = {
			.id = sqlite3_column_int64(q, 0),
			.kernel_id = sqlite3_column_int64(q, 1),
			.name = store_text(q, 2),
			.cmdline = store_text(q, 3),
			.kernel = store_text(q, 4),
			.hash = store_text(q, 5),
			.workloads = store_text(q, 6),
		};
		if (fn(&v, data))
			goto out;
	}
	if (rc != SQLITE_DONE) {
		store_error(st, "cannot read experiment");
		goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(q);
	return ret;
}

int store_variant_id(struct store *st, long long *id, long long exp_id, const char *name)
{
	sqlite3_stmt *q;
	int ret = 0, rc;

	*id = 0;
	if (store_prepare(st, &q, "SELECT id FROM variants WHERE experiment_id = ?1 AND name = ?2",
			  "cannot read variants"))
		return -1;
	sqlite3_bind_int64(q, 1, exp_id);
	sqlite3_bind_text(q, 2, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW)
		*id = sqlite3_column_int64(q, 0);
	else if (rc != SQLITE_DONE)
		ret = store_error(st, "cannot read variants");
	sqlite3_finalize(q);
	return ret;
}

int store_variant_record(struct store *st, long long *id, long long exp_id, const char *name,
			 const char *git_ref)
{
	sqlite3_stmt *q;
	int ret = -1;

	if (store_prepare(st, &q, "INSERT INTO variants(experiment_id, name, git_ref) "
			  "VALUES (?1, ?2, ?3) ON CONFLICT DO UPDATE SET git_ref = excluded.git_ref "
			  "RETURNING id", "cannot record bisect step"))
		return -1;
	sqlite3_bind_int64(q, 1, exp_id);
	sqlite3_bind_text(q, 2, name, -1, SQLITE_STATIC);
	store_bind_text(q, 3, git_ref);
	if (sqlite3_step(q) == SQLITE_ROW) {
		*id = sqlite3_column_int64(q, 0);
		ret = 0;
	} else {
		store_error(st, "cannot record bisect step");
	}
	sqlite3_finalize(q);
	return ret;
}

int store_variant_kernel(struct store *st, long long variant_id, long long kernel_id)
{
	sqlite3_stmt *q;
	int ret = 0;

	if (store_prepare(st, &q, "UPDATE variants SET kernel_id = ?2 WHERE id = ?1",
			  "cannot record kernel"))
		return -1;
	sqlite3_bind_int64(q, 1, variant_id);
	sqlite3_bind_int64(q, 2, kernel_id);
	if (sqlite3_step(q) != SQLITE_DONE)
		ret = store_error(st, "cannot record kernel");
	sqlite3_finalize(q);
	return ret;
}

int store_variant_boots(struct store *st, long long variant_id, long mem, long cpus,
			long *ok, long *failed)
{
	sqlite3_stmt *q;
	int ret = -1;

	if (store_prepare(st, &q, "SELECT count(*) FILTER (WHERE status = 'OK'), "
			  "count(*) FILTER (WHERE status NOT IN ('OK', 'INFRA', 'RUNNING')) "
			  "FROM runs WHERE variant_id = ?1 AND mem_mib = ?2 AND cpus = ?3",
			  "cannot count boots"))
		return -1;
	sqlite3_bind_int64(q, 1, variant_id);
	sqlite3_bind_int64(q, 2, mem);
	sqlite3_bind_int64(q, 3, cpus);
	if (sqlite3_step(q) != SQLITE_ROW) {
		store_error(st, "cannot count boots");
		goto out;
	}
	*ok = sqlite3_column_int64(q, 0);
	*failed = sqlite3_column_int64(q, 1);
	ret = 0;
out:
	sqlite3_finalize(q);
	return ret;
}

/*
 * A user's workload (lab/workload.h) is the same benchmark only when its
 * program is the same build: its meta entries workload.NAME.sha256 and
 * .version differ nowhere among the OK runs.
 */
static int workload_provenance(struct store *st, long long exp_id, store_provenance_fn *fn,
			       void *data)
{
	sqlite3_stmt *q;
	int ret = 0, rc;

	if (store_prepare(st, &q, "SELECT m.key, min(m.value), max(m.value) FROM run_meta m "
			  "JOIN runs r ON r.id = m.run_id WHERE r.experiment_id = ?1 AND "
			  "r.status = 'OK' AND (m.key GLOB 'workload.*.sha256' OR "
			  "m.key GLOB 'workload.*.version') GROUP BY m.key "
			  "HAVING count(DISTINCT m.value) > 1 ORDER BY m.key",
			  "cannot check provenance"))
		return -1;
	sqlite3_bind_int64(q, 1, exp_id);
	while (!ret && (rc = sqlite3_step(q)) == SQLITE_ROW)
		ret = fn(store_text(q, 0), store_text(q, 1), store_text(q, 2), data) ? -1 : 0;
	if (!ret && rc != SQLITE_DONE)
		ret = store_error(st, "cannot check provenance");
	sqlite3_finalize(q);
	return ret;
}

int store_experiment_provenance(struct store *st, long long exp_id, store_provenance_fn *fn,
				void *data)
{
	/* the clock first: it is refused even with --force */
	/* then the class of the targets: its targets are interchangeable, others not */
	static const char *const cols[] = { "clock", "class", "runner", "host", "host_cpu",
					    "qemu_version", "accel", "workloads", "params" };
	struct strbuf first = STRBUF_INIT, sql = STRBUF_INIT;
	int ret = 0, rc;

	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]) && !ret; i++) {
		sqlite3_stmt *q;

		strbuf_reset(&sql);
		strbuf_addf(&sql, "SELECT DISTINCT COALESCE(%s, '') FROM runs WHERE "
			    "experiment_id = ?1 AND status = 'OK' LIMIT 2",
			    strcmp(cols[i], "class") ? cols[i] :
			    "(SELECT class FROM run_targets t WHERE t.run_id = runs.id)");
		if (store_prepare(st, &q, sql.buf, "cannot check provenance")) {
			ret = -1;
			break;
		}
		sqlite3_bind_int64(q, 1, exp_id);
		rc = sqlite3_step(q);
		if (rc == SQLITE_ROW) {
			strbuf_reset(&first);
			strbuf_addstr(&first, store_text(q, 0));
			rc = sqlite3_step(q);
		}
		if (rc == SQLITE_ROW)
			ret = fn(cols[i], first.buf, store_text(q, 0), data) ? -1 : 0;
		else if (rc != SQLITE_DONE)
			ret = store_error(st, "cannot check provenance");
		sqlite3_finalize(q);
	}
	if (!ret)
		ret = workload_provenance(st, exp_id, fn, data);
	strbuf_release(&first);
	strbuf_release(&sql);
	return ret;
}

int store_experiment_read(struct store *st, long long exp_id, store_experiment_fn *fn,
			  void *data)
{
	sqlite3_stmt *q;
	struct store_experiment e;
	int ret = -1, rc;

	if (store_prepare(st, &q, "SELECT e.status, e.workloads, e.command, e.kind, e.created, "
			  "(SELECT count(DISTINCT mem_mib || ',' || cpus) FROM verdicts "
			  "WHERE experiment_id = e.id), (SELECT count(*) FROM runs WHERE "
			  "experiment_id = e.id AND status = 'OK'), (SELECT count(*) FROM runs "
			  "WHERE experiment_id = e.id AND status != 'OK') "
			  "FROM experiments e WHERE e.id = ?1", "cannot read experiment"))
		return -1;
	sqlite3_bind_int64(q, 1, exp_id);
	rc = sqlite3_step(q);
	if (rc == SQLITE_DONE) {
		error("no experiment %lld in database '%s'", exp_id, st->path);
		goto out;
	}
	if (rc != SQLITE_ROW) {
		store_error(st, "cannot read experiment");
		goto out;
	}
	e.status = store_text(q, 0);
	e.workloads = store_text(q, 1);
	e.command = store_text(q, 2);
	e.kind = store_text(q, 3);
	e.created = sqlite3_column_double(q, 4);
	e.points = sqlite3_column_int(q, 5);
	e.boots_ok = sqlite3_column_int(q, 6);
	e.boots_failed = sqlite3_column_int(q, 7);
	ret = fn(&e, data) ? -1 : 0;
out:
	sqlite3_finalize(q);
	return ret;
}

int store_experiments_recent(struct store *st, long limit, store_experiment_summary_fn *fn,
			     void *data)
{
	sqlite3_stmt *q;
	int ret = -1, rc;

	if (store_prepare(st, &q, "SELECT e.id, e.created, e.status, e.kind, "
			  "COALESCE(e.workloads, ''), "
			  "(SELECT count(*) FROM runs r WHERE r.experiment_id = e.id), "
			  "(SELECT group_concat(DISTINCT verdict) FROM verdicts v WHERE "
			  "v.experiment_id = e.id) FROM experiments e ORDER BY e.id DESC "
			  "LIMIT ?1", "cannot list experiments"))
		return -1;
	sqlite3_bind_int64(q, 1, limit);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		struct store_experiment_summary e = {
			.id = sqlite3_column_int64(q, 0),
			.created = sqlite3_column_double(q, 1),
			.status = store_text(q, 2),
			.kind = store_text(q, 3),
			.workloads = store_text(q, 4),
			.runs = sqlite3_column_int(q, 5),
			.verdicts = (const char *)sqlite3_column_text(q, 6),
		};
		if (fn(&e, data))
			goto out;
	}
	if (rc != SQLITE_DONE) {
		store_error(st, "cannot list experiments");
		goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(q);
	return ret;
}

int store_counted_samples(struct store *st, long long exp_id, long long variant_id, long mem,
			  long cpus, const char *metric, store_counted_fn *fn, void *data)
{
	sqlite3_stmt *q;
	int ret = -1, rc;

	if (store_prepare(st, &q, "SELECT s.workload, s.metric, s.unit, s.run_id, s.value, "
			  "COALESCE((SELECT target FROM run_targets t WHERE t.run_id = s.run_id), '') "
			  "FROM counted_samples s JOIN runs r ON r.id = s.run_id "
			  "WHERE r.experiment_id = ?1 AND r.variant_id = ?2 AND "
			  "(?3 < 0 OR r.mem_mib = ?3) AND (?4 < 0 OR r.cpus = ?4) AND "
			  "(?5 IS NULL OR s.metric = ?5) "
			  "ORDER BY s.workload, s.metric, s.unit, s.run_id, s.id",
			  "cannot read samples"))
		return -1;
	sqlite3_bind_int64(q, 1, exp_id);
	sqlite3_bind_int64(q, 2, variant_id);
	sqlite3_bind_int64(q, 3, mem);
	sqlite3_bind_int64(q, 4, cpus);
	store_bind_text(q, 5, metric);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		struct store_counted_sample s = {
			.workload = store_text(q, 0),
			.metric = store_text(q, 1),
			.unit = store_text(q, 2),
			.run_id = sqlite3_column_int64(q, 3),
			.value = sqlite3_column_double(q, 4),
			.target = store_text(q, 5),
		};
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
	return ret;
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

static int text_row(sqlite3_stmt *q, void *data)
{
	strvec_push(data, store_text(q, 0));
	return 0;
}

int store_experiment_clocks(struct store *st, struct strvec *out, long long exp_id)
{
	return store_rows(st, "cannot read the clocks of an experiment",
			  "SELECT clock FROM runs WHERE experiment_id = ?1 GROUP BY clock ORDER BY min(id)",
			  STORE_ARGS(STORE_INT(exp_id)), text_row, out);
}

int store_experiment_higher_better(struct store *st, long long exp_id, struct strvec *out)
{
	return store_rows(st, "cannot read metric directions",
			  "SELECT DISTINCT substr(m.key, 11) FROM run_meta m "
			  "JOIN runs r ON r.id = m.run_id WHERE r.experiment_id = ?1 AND "
			  "m.key GLOB 'direction.*' AND m.value = 'higher' ORDER BY 1",
			  STORE_ARGS(STORE_INT(exp_id)), text_row, out);
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

int store_experiment_by_command(struct store *st, long long *id, int *done,
				const char *command)
{
	struct found_experiment f = { id, done };

	*id = 0;
	*done = 0;
	/* an error is not "none": that would start a duplicate of one that may exist */
	return store_rows(st, "cannot look up earlier experiments",
			  "SELECT id, status = 'DONE' FROM experiments WHERE command = ?1 AND "
			  "status != 'REFUSED' ORDER BY id DESC LIMIT 1",
			  STORE_ARGS(STORE_TEXT(command)), found_row, &f);
}

int store_experiment_classes(struct store *st, struct strvec *out, long long exp_id)
{
	return store_rows(st, "cannot read the classes of an experiment's targets",
			  "SELECT DISTINCT COALESCE(t.class, '') FROM runs r "
			  "LEFT JOIN run_targets t ON t.run_id = r.id "
			  "WHERE r.experiment_id = ?1 AND r.status = 'OK' ORDER BY r.id",
			  STORE_ARGS(STORE_INT(exp_id)), text_row, out);
}
