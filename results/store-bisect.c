/* Bisections and their steps (store-bisect.h). */
#include <math.h>
#include <string.h>

#include "log.h"
#include "store-bisect.h"

void bisect_spec_row_init(struct bisect_spec_row *r)
{
	memset(r, 0, sizeof(*r));
}

void bisect_spec_row_release(struct bisect_spec_row *r)
{
	struct strbuf *all[] = { &r->good_ref, &r->bad_ref, &r->repo, &r->arch, &r->metric,
				 &r->workloads, &r->params, &r->cmdline, &r->runner, &r->accel,
				 &r->clock, &r->guest, &r->target, &r->targets };

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		strbuf_release(all[i]);
	memset(r, 0, sizeof(*r));
}

/*
 * The columns of bisect_specs after experiment_id, in the order
 * bind_spec() binds them: what makes two bisections the same, and then
 * their budget.
 */
#define SPEC_KEY_COLUMNS "good_ref, bad_ref, repo, arch, metric, workload_list, " \
	"guest_params, kernel_cmdline, iters, mem_mib, cpus, numa, timeout_s, runner, accel, " \
	"boot_clock, guest, target_name, target_class, alpha"
#define SPEC_COLUMNS SPEC_KEY_COLUMNS ", max_boots"

static const char *text_or_null(const struct strbuf *sb)
{
	return sb->len ? sb->buf : NULL;
}

/* The key columns, bound from ?first on. */
static void bind_spec(sqlite3_stmt *q, int first, const struct bisect_spec_row *r)
{
	const struct strbuf *text[] = { &r->good_ref, &r->bad_ref, &r->repo, &r->arch,
					&r->metric, &r->workloads, &r->params, &r->cmdline };
	const long num[] = { r->iters, r->mem_mib, r->cpus, r->numa, r->timeout_s };
	const struct strbuf *text2[] = { &r->runner, &r->accel, &r->clock, &r->guest,
					 &r->target, &r->targets };
	int i = first;

	for (size_t k = 0; k < sizeof(text) / sizeof(text[0]); k++)
		store_bind_text(q, i++, text_or_null(text[k]));
	for (size_t k = 0; k < sizeof(num) / sizeof(num[0]); k++)
		store_bind_id(q, i++, num[k]);
	for (size_t k = 0; k < sizeof(text2) / sizeof(text2[0]); k++)
		store_bind_text(q, i++, text_or_null(text2[k]));
	store_bind_num(q, i, r->alpha > 0 ? r->alpha : NAN);
}

int store_bisection_create(struct store *st, long long *exp_id, const char *command,
			   const char *good, const char *bad, const struct bisect_spec_row *spec)
{
	struct strbuf first = STRBUF_INIT;
	sqlite3_stmt *q = NULL;
	long long id;

	/* the experiment's workload is the first: the one the metric is looked up in */
	strbuf_add(&first, spec->workloads.buf ? spec->workloads.buf : "",
		   spec->workloads.buf ? strcspn(spec->workloads.buf, ",") : 0);
	if (store_begin(st)) {
		strbuf_release(&first);
		return -1;
	}
	if (store_insert_experiment(st, &id, "bisect", command, first.buf))
		goto fail;
	/* args is kept for older labs' rows; the spec is in bisect_specs */
	if (sqlite3_prepare_v2(st->db, "INSERT INTO bisections(experiment_id, good, bad, "
			       "workload, metric, args) VALUES (?1, ?2, ?3, ?4, ?5, '')", -1, &q,
			       NULL) != SQLITE_OK)
		goto fail;
	sqlite3_bind_int64(q, 1, id);
	sqlite3_bind_text(q, 2, good, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 3, bad, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 4, first.buf, -1, SQLITE_STATIC);
	store_bind_text(q, 5, text_or_null(&spec->metric));
	if (sqlite3_step(q) != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(q);
	if (sqlite3_prepare_v2(st->db, "INSERT INTO bisect_specs(experiment_id, " SPEC_COLUMNS
			       ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, "
			       "?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22)", -1, &q, NULL) != SQLITE_OK)
		goto fail;
	sqlite3_bind_int64(q, 1, id);
	bind_spec(q, 2, spec);
	store_bind_id(q, 22, spec->max_boots);
	if (sqlite3_step(q) != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(q);
	strbuf_release(&first);
	if (store_commit(st))
		return -1;
	*exp_id = id;
	return 0;
fail:
	store_error(st, "cannot create bisection");
	sqlite3_finalize(q);
	store_rollback(st);
	strbuf_release(&first);
	return -1;
}

int store_bisect_spec_read(struct store *st, long long exp_id, struct bisect_spec_row *r)
{
	sqlite3_stmt *q;
	int ret = -1, rc;

	bisect_spec_row_init(r);
	if (store_prepare(st, &q, "SELECT " SPEC_COLUMNS ", (SELECT count(*) FROM bisections "
			  "WHERE experiment_id = ?1) FROM (SELECT 1) LEFT JOIN bisect_specs ON "
			  "experiment_id = ?1", "cannot read bisection"))
		return -1;
	sqlite3_bind_int64(q, 1, exp_id);
	rc = sqlite3_step(q);
	if (rc != SQLITE_ROW) {
		store_error(st, "cannot read bisection");
	} else if (!sqlite3_column_int(q, 21)) {
		error("no bisection %lld in database '%s'", exp_id, st->path);
	} else if (sqlite3_column_type(q, 0) == SQLITE_NULL) {
		error("bisection E%lld in database '%s' was stored by an older lab without its "
		      "spec and cannot be resumed: start it again", exp_id, st->path);
	} else {
		struct strbuf *text[] = { &r->good_ref, &r->bad_ref, &r->repo, &r->arch,
					  &r->metric, &r->workloads, &r->params, &r->cmdline };
		long *num[] = { &r->iters, &r->mem_mib, &r->cpus, &r->numa, &r->timeout_s };
		struct strbuf *text2[] = { &r->runner, &r->accel, &r->clock, &r->guest,
					 &r->target, &r->targets };
		int i = 0;

		for (size_t k = 0; k < sizeof(text) / sizeof(text[0]); k++)
			strbuf_addstr(text[k], store_text(q, i++));
		for (size_t k = 0; k < sizeof(num) / sizeof(num[0]); k++)
			*num[k] = (long)sqlite3_column_int64(q, i++);
		for (size_t k = 0; k < sizeof(text2) / sizeof(text2[0]); k++)
			strbuf_addstr(text2[k], store_text(q, i++));
		r->alpha = sqlite3_column_double(q, i++);
		r->max_boots = sqlite3_column_int64(q, i);
		ret = 0;
	}
	sqlite3_finalize(q);
	return ret;
}

int store_bisection_resume(struct store *st, struct strbuf *metric, int *per_boot,
			   long long exp_id)
{
	sqlite3_stmt *q;
	int ret = -1;

	if (store_prepare(st, &q, "SELECT COALESCE(metric, ''), COALESCE(per_boot, 0) "
			  "FROM bisections WHERE experiment_id = ?1", "cannot read bisection"))
		return -1;
	sqlite3_bind_int64(q, 1, exp_id);
	if (sqlite3_step(q) != SQLITE_ROW) {
		store_error(st, "cannot read bisection");
		goto out;
	}
	strbuf_addstr(metric, store_text(q, 0));
	*per_boot = sqlite3_column_int(q, 1);
	ret = 0;
out:
	sqlite3_finalize(q);
	return ret;
}

int store_bisection_set_metric(struct store *st, long long exp_id, const char *metric)
{
	return store_exec(st, "cannot record bisection",
			  "UPDATE bisections SET metric = ?2 WHERE experiment_id = ?1", exp_id,
			  metric);
}

int store_bisection_set_per_boot(struct store *st, long long exp_id, int per_boot)
{
	return store_exec(st, "cannot record bisection",
			  "UPDATE bisections SET per_boot = ?2 WHERE experiment_id = ?1", exp_id,
			  per_boot ? "1" : "0");
}

int store_bisection_no_regression(struct store *st, long long exp_id)
{
	return store_exec(st, "cannot record bisection", "UPDATE bisections SET outcome = "
			  "'NO_REGRESSION' WHERE experiment_id = ?1", exp_id, NULL);
}

int store_bisection_finish(struct store *st, long long exp_id,
			   const struct bisection_outcome *o)
{
	sqlite3_stmt *q;
	int ret = 0;

	if (store_prepare(st, &q, "UPDATE bisections SET metric = ?2, per_boot = ?3, "
			  "effect = ?4, effect_lo = ?5, effect_hi = ?6, culprit = ?7, outcome = ?8, "
			  "effect_alpha = ?9 WHERE experiment_id = ?1", "cannot record bisection"))
		return -1;
	sqlite3_bind_int64(q, 1, exp_id);
	sqlite3_bind_text(q, 2, o->metric, -1, SQLITE_STATIC);
	sqlite3_bind_int(q, 3, o->per_boot);
	store_bind_num(q, 4, o->effect);
	store_bind_num(q, 5, o->effect_lo);
	store_bind_num(q, 6, o->effect_hi);
	store_bind_text(q, 7, o->culprit);
	sqlite3_bind_text(q, 8, o->outcome, -1, SQLITE_STATIC);
	store_bind_num(q, 9, o->effect_alpha);
	if (sqlite3_step(q) != SQLITE_DONE)
		ret = store_error(st, "cannot record bisection");
	sqlite3_finalize(q);
	return ret;
}

/* The one number a statement gives: *v. */
static int one_id(struct store *st, long long *v, const char *sql)
{
	sqlite3_stmt *q;
	int ret = 0;

	if (store_prepare(st, &q, sql, "cannot read bisections"))
		return -1;
	if (sqlite3_step(q) == SQLITE_ROW)
		*v = sqlite3_column_int64(q, 0);
	else
		ret = store_error(st, "cannot read bisections");
	sqlite3_finalize(q);
	return ret;
}

int store_bisection_latest(struct store *st, long long *exp_id)
{
	if (one_id(st, exp_id, "SELECT COALESCE(max(experiment_id), 0) FROM bisections"))
		return -1;
	if (!*exp_id)
		return error("no bisection in database '%s'", st->path);
	return 0;
}

int store_bisection_by_spec(struct store *st, long long *exp_id,
			    const struct bisect_spec_row *spec)
{
	sqlite3_stmt *q;
	int ret = 0;

	*exp_id = 0;
	if (store_prepare(st, &q, "SELECT COALESCE(max(experiment_id), 0) FROM bisect_specs WHERE "
			  "(" SPEC_KEY_COLUMNS ") IS (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, "
			  "?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)", "cannot read bisections"))
		return -1;
	bind_spec(q, 1, spec);
	if (sqlite3_step(q) == SQLITE_ROW)
		*exp_id = sqlite3_column_int64(q, 0);
	else
		ret = store_error(st, "cannot read bisections");
	sqlite3_finalize(q);
	return ret;
}

int store_bisection_read(struct store *st, long long exp_id, store_bisection_fn *fn,
			 void *data)
{
	struct bisection_status b;
	sqlite3_stmt *q;
	int ret = -1, rc;

	if (store_prepare(st, &q, "SELECT b.good, b.bad, b.workload, COALESCE(b.metric, '-'), "
			  "b.effect, b.effect_lo, b.effect_hi, COALESCE(b.outcome, 'RUNNING'), "
			  "COALESCE(b.culprit, '-'), (SELECT count(*) FROM runs r WHERE "
			  "r.experiment_id = b.experiment_id), (SELECT count(*) FROM variants v "
			  "WHERE v.experiment_id = b.experiment_id AND v.kernel_id IS NOT NULL), "
			  "b.per_boot, b.effect_alpha FROM bisections b WHERE b.experiment_id = ?1",
			  "cannot read bisection"))
		return -1;
	sqlite3_bind_int64(q, 1, exp_id);
	rc = sqlite3_step(q);
	if (rc == SQLITE_DONE) {
		error("no bisection %lld in database '%s'", exp_id, st->path);
		goto out;
	}
	if (rc != SQLITE_ROW) {
		store_error(st, "cannot read bisection");
		goto out;
	}
	b.good = store_text(q, 0);
	b.bad = store_text(q, 1);
	b.workload = store_text(q, 2);
	b.metric = store_text(q, 3);
	b.effect = store_num(q, 4);
	b.effect_lo = store_num(q, 5);
	b.effect_hi = store_num(q, 6);
	b.outcome = store_text(q, 7);
	b.culprit = store_text(q, 8);
	b.boots = sqlite3_column_int(q, 9);
	b.kernels = sqlite3_column_int(q, 10);
	b.per_boot = sqlite3_column_int(q, 11);
	b.effect_alpha = store_num(q, 12);
	ret = fn(&b, data) ? -1 : 0;
out:
	sqlite3_finalize(q);
	return ret;
}

int store_bisect_step(struct store *st, long long exp_id, const struct bisect_step_row *s)
{
	sqlite3_stmt *q;
	int ret = 0;

	if (store_prepare(st, &q, "INSERT OR REPLACE INTO bisect_steps(experiment_id, seq, "
			  "git_commit, mark, n, ratio, ci_low, ci_high) VALUES "
			  "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)", "cannot record bisect step"))
		return -1;
	sqlite3_bind_int64(q, 1, exp_id);
	sqlite3_bind_int64(q, 2, s->seq);
	sqlite3_bind_text(q, 3, s->commit, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 4, s->mark, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 5, s->n);
	store_bind_num(q, 6, s->ratio);
	store_bind_num(q, 7, s->ci_low);
	store_bind_num(q, 8, s->ci_high);
	if (sqlite3_step(q) != SQLITE_DONE)
		ret = store_error(st, "cannot record bisect step");
	sqlite3_finalize(q);
	return ret;
}

int store_bisect_steps(struct store *st, long long exp_id, store_bisect_step_fn *fn,
		       void *data)
{
	sqlite3_stmt *q;
	int ret = -1, rc;

	if (store_prepare(st, &q, "SELECT seq, substr(git_commit, 1, 12), mark, n, ratio, "
			  "ci_low, ci_high FROM bisect_steps WHERE experiment_id = ?1 ORDER BY seq",
			  "cannot read bisect steps"))
		return -1;
	sqlite3_bind_int64(q, 1, exp_id);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		struct bisect_step_row s = {
			.seq = sqlite3_column_int64(q, 0),
			.commit = store_text(q, 1),
			.mark = store_text(q, 2),
			.n = sqlite3_column_int64(q, 3),
			.ratio = store_num(q, 4),
			.ci_low = store_num(q, 5),
			.ci_high = store_num(q, 6),
		};
		if (fn(&s, data))
			goto out;
	}
	if (rc != SQLITE_DONE) {
		store_error(st, "cannot read bisect steps");
		goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(q);
	return ret;
}
