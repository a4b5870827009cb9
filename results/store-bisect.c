/* Bisections and their steps (store-bisect.h). */
#include <math.h>
#include <string.h>

#include "array.h"
#include "log.h"
#include "store-bisect.h"
#include "store-private.h"

void bisect_spec_row_init(struct bisect_spec_row *r)
{
	memset(r, 0, sizeof(*r));
}

void bisect_spec_row_release(struct bisect_spec_row *r)
{
	struct strbuf *all[] = { &r->good_ref, &r->bad_ref, &r->repo, &r->arch, &r->metric,
				 &r->workloads, &r->params, &r->cmdline, &r->runner, &r->accel,
				 &r->clock, &r->guest, &r->target, &r->targets, &r->fragments,
				 &r->good, &r->bad };

	for (size_t i = 0; i < ARRAY_SIZE(all); i++)
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
	"boot_clock, guest, target_name, target_class, config_fragments, alpha, delta"
#define SPEC_COLUMNS SPEC_KEY_COLUMNS ", max_boots, seed_experiment"

static const char *text_or_null(const struct strbuf *sb)
{
	return sb->len ? sb->buf : NULL;
}

/* The key columns, bound from ?first on. */
#define SPEC_KEYS 22

/* The key columns, as args[0] to args[SPEC_KEYS - 1]. */
static void spec_args(struct store_arg *args, const struct bisect_spec_row *r)
{
	const struct strbuf *text[] = { &r->good_ref, &r->bad_ref, &r->repo, &r->arch,
					&r->metric, &r->workloads, &r->params, &r->cmdline };
	const long num[] = { r->iters, r->mem_mib, r->cpus, r->numa, r->timeout_s };
	const struct strbuf *text2[] = { &r->runner, &r->accel, &r->clock, &r->guest,
					 &r->target, &r->targets, &r->fragments };
	int i = 0;

	for (size_t k = 0; k < ARRAY_SIZE(text); k++)
		args[i++] = STORE_TEXT(text_or_null(text[k]));
	for (size_t k = 0; k < ARRAY_SIZE(num); k++)
		args[i++] = STORE_ID(num[k]);
	for (size_t k = 0; k < ARRAY_SIZE(text2); k++)
		args[i++] = STORE_TEXT(text_or_null(text2[k]));
	args[i++] = STORE_NUM(r->alpha > 0 ? r->alpha : NAN);
	args[i] = STORE_NUM(r->delta > 0 ? r->delta : NAN);
}

int store_bisection_create(struct store *st, long long *exp_id, const char *command,
			   const char *good, const char *bad, const struct bisect_spec_row *spec)
{
	struct strbuf first = STRBUF_INIT;
	struct store_arg args[SPEC_KEYS + 3];
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
	if (store_rows(st, NULL, "INSERT INTO bisections(experiment_id, good, bad, workload, "
		       "metric) VALUES (?1, ?2, ?3, ?4, ?5)",
		       STORE_ARGS(STORE_INT(id), STORE_TEXT(good), STORE_TEXT(bad),
				  STORE_TEXT(first.buf), STORE_TEXT(text_or_null(&spec->metric))),
		       NULL, NULL))
		goto fail;
	args[0] = STORE_INT(id);
	spec_args(args + 1, spec);
	args[SPEC_KEYS + 1] = STORE_ID(spec->max_boots);
	args[SPEC_KEYS + 2] = STORE_ID(spec->seed);
	if (store_rows(st, NULL, "INSERT INTO bisect_specs(experiment_id, " SPEC_COLUMNS
		       ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, "
		       "?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25)", args,
		       SPEC_KEYS + 3,
		       NULL, NULL))
		goto fail;
	strbuf_release(&first);
	if (store_commit(st))
		return -1;
	*exp_id = id;
	return 0;
fail:
	store_error(st, "cannot create bisection");
	store_rollback(st);
	strbuf_release(&first);
	return -1;
}

struct spec_reader {
	struct bisect_spec_row *r;
	int found, stored;
};

static int spec_row(sqlite3_stmt *q, void *data)
{
	struct spec_reader *sr = data;
	struct bisect_spec_row *r = sr->r;
	struct strbuf *text[] = { &r->good_ref, &r->bad_ref, &r->repo, &r->arch,
				  &r->metric, &r->workloads, &r->params, &r->cmdline };
	long *num[] = { &r->iters, &r->mem_mib, &r->cpus, &r->numa, &r->timeout_s };
	struct strbuf *text2[] = { &r->runner, &r->accel, &r->clock, &r->guest,
				   &r->target, &r->targets, &r->fragments };
	int i = 0;

	sr->found = sqlite3_column_int(q, SPEC_KEYS + 2);
	sr->stored = sqlite3_column_type(q, 0) != SQLITE_NULL;
	if (!sr->found || !sr->stored)
		return 0;
	for (size_t k = 0; k < ARRAY_SIZE(text); k++)
		strbuf_addstr(text[k], store_text(q, i++));
	for (size_t k = 0; k < ARRAY_SIZE(num); k++)
		*num[k] = (long)sqlite3_column_int64(q, i++);
	for (size_t k = 0; k < ARRAY_SIZE(text2); k++)
		strbuf_addstr(text2[k], store_text(q, i++));
	r->alpha = sqlite3_column_double(q, i++);
	r->delta = sqlite3_column_double(q, i++);
	r->max_boots = sqlite3_column_int64(q, i++);
	r->seed = sqlite3_column_int64(q, i);
	strbuf_addstr(&r->good, store_text(q, SPEC_KEYS + 3));
	strbuf_addstr(&r->bad, store_text(q, SPEC_KEYS + 4));
	return 0;
}

int store_bisect_spec_read(struct store *st, long long exp_id, struct bisect_spec_row *r)
{
	struct spec_reader sr = { .r = r };

	bisect_spec_row_init(r);
	if (store_rows(st, "cannot read bisection", "SELECT " SPEC_COLUMNS ", (SELECT count(*) "
		       "FROM bisections WHERE experiment_id = ?1), (SELECT good FROM bisections "
		       "WHERE experiment_id = ?1), (SELECT bad FROM bisections WHERE "
		       "experiment_id = ?1) FROM (SELECT 1) LEFT JOIN bisect_specs ON "
		       "experiment_id = ?1", STORE_ARGS(STORE_INT(exp_id)), spec_row, &sr))
		return -1;
	if (!sr.found)
		return error("no bisection %lld in database '%s'", exp_id, st->path);
	if (!sr.stored)
		return error("bisection E%lld in database '%s' was stored by an older lab without "
			     "its spec and cannot be resumed: start it again", exp_id, st->path);
	return 0;
}

struct resume_reader {
	struct strbuf *metric;
	int *per_boot;
};

static int resume_row(sqlite3_stmt *q, void *data)
{
	struct resume_reader *r = data;

	strbuf_addstr(r->metric, store_text(q, 0));
	*r->per_boot = sqlite3_column_int(q, 1);
	return 0;
}

int store_bisection_resume(struct store *st, struct strbuf *metric, int *per_boot,
			   long long exp_id)
{
	struct resume_reader r = { metric, per_boot };

	return store_read_one(st, "bisection", exp_id, "SELECT COALESCE(metric, ''), "
			      "COALESCE(per_boot, 0) FROM bisections WHERE experiment_id = ?1",
			      resume_row, &r);
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
	return store_rows(st, "cannot record bisection", "UPDATE bisections SET metric = ?2, "
			  "per_boot = ?3, effect = ?4, effect_lo = ?5, effect_hi = ?6, culprit = ?7, "
			  "outcome = ?8, effect_alpha = ?9 WHERE experiment_id = ?1",
			  STORE_ARGS(STORE_INT(exp_id), STORE_TEXT(o->metric), STORE_INT(o->per_boot),
				     STORE_NUM(o->effect), STORE_NUM(o->effect_lo),
				     STORE_NUM(o->effect_hi), STORE_TEXT(o->culprit),
				     STORE_TEXT(o->outcome), STORE_NUM(o->effect_alpha)), NULL, NULL);
}


int store_bisection_latest(struct store *st, long long *exp_id)
{
	*exp_id = 0;
	if (store_rows(st, "cannot read bisections", "SELECT COALESCE(max(experiment_id), 0) "
		       "FROM bisections", NULL, 0, store_row_int, exp_id))
		return -1;
	if (!*exp_id)
		return error("no bisection in database '%s'", st->path);
	return 0;
}

int store_bisection_by_spec(struct store *st, long long *exp_id,
			    const struct bisect_spec_row *spec, const char *good, const char *bad)
{
	struct store_arg args[SPEC_KEYS + 2];

	*exp_id = 0;
	spec_args(args, spec);
	args[SPEC_KEYS] = STORE_TEXT(good);
	args[SPEC_KEYS + 1] = STORE_TEXT(bad);
	return store_rows(st, "cannot read bisections", "SELECT COALESCE(max(experiment_id), 0) "
			  "FROM bisect_specs WHERE (" SPEC_KEY_COLUMNS ") IS (?1, ?2, ?3, ?4, ?5, ?6, "
			  "?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22) "
			  "AND experiment_id IN (SELECT experiment_id FROM bisections WHERE good = ?23 "
			  "AND bad = ?24)",
			  args, SPEC_KEYS + 2, store_row_int, exp_id);
}

struct bisection_reader {
	store_bisection_fn *fn;
	void *data;
};

static int bisection_row(sqlite3_stmt *q, void *data)
{
	struct bisection_reader *r = data;
	struct bisection_status b = {
		.good = store_text(q, 0),
		.bad = store_text(q, 1),
		.workload = store_text(q, 2),
		.metric = store_text(q, 3),
		.effect = store_num(q, 4),
		.effect_lo = store_num(q, 5),
		.effect_hi = store_num(q, 6),
		.outcome = store_text(q, 7),
		.culprit = store_text(q, 8),
		.boots = sqlite3_column_int(q, 9),
		.kernels = sqlite3_column_int(q, 10),
		.per_boot = sqlite3_column_int(q, 11),
		.effect_alpha = store_num(q, 12),
	};

	return r->fn(&b, r->data);
}

int store_bisection_read(struct store *st, long long exp_id, store_bisection_fn *fn,
			 void *data)
{
	struct bisection_reader r = { .fn = fn, .data = data };

	return store_read_one(st, "bisection", exp_id, "SELECT b.good, b.bad, b.workload, "
			      "COALESCE(b.metric, '-'), b.effect, b.effect_lo, b.effect_hi, "
			      "COALESCE(b.outcome, 'RUNNING'), COALESCE(b.culprit, '-'), "
			      "(SELECT count(*) FROM runs r WHERE r.experiment_id = "
			      "b.experiment_id), (SELECT count(*) FROM variants v WHERE "
			      "v.experiment_id = b.experiment_id AND v.kernel_id IS NOT NULL), "
			      "b.per_boot, b.effect_alpha FROM bisections b WHERE b.experiment_id = ?1",
			      bisection_row, &r);
}

int store_bisect_step(struct store *st, long long exp_id, const struct bisect_step_row *s)
{
	return store_rows(st, "cannot record bisect step", "INSERT OR REPLACE INTO "
			  "bisect_steps(experiment_id, seq, git_commit, mark, n, ratio, ci_low, "
			  "ci_high) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
			  STORE_ARGS(STORE_INT(exp_id), STORE_INT(s->seq), STORE_TEXT(s->commit),
				     STORE_TEXT(s->mark), STORE_INT(s->n), STORE_NUM(s->ratio),
				     STORE_NUM(s->ci_low), STORE_NUM(s->ci_high)), NULL, NULL);
}

struct step_reader {
	store_bisect_step_fn *fn;
	void *data;
};

static int step_row(sqlite3_stmt *q, void *data)
{
	struct step_reader *r = data;
	struct bisect_step_row s = {
		.seq = sqlite3_column_int64(q, 0),
		.commit = store_text(q, 1),
		.mark = store_text(q, 2),
		.n = sqlite3_column_int64(q, 3),
		.ratio = store_num(q, 4),
		.ci_low = store_num(q, 5),
		.ci_high = store_num(q, 6),
	};

	return r->fn(&s, r->data);
}

int store_bisect_steps(struct store *st, long long exp_id, store_bisect_step_fn *fn,
		       void *data)
{
	struct step_reader r = { fn, data };

	return store_rows(st, "cannot read bisect steps", "SELECT seq, substr(git_commit, 1, 12), "
			  "mark, n, ratio, ci_low, ci_high FROM bisect_steps WHERE "
			  "experiment_id = ?1 ORDER BY seq", STORE_ARGS(STORE_INT(exp_id)),
			  step_row, &r);
}
