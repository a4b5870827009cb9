/* Profiles and explanations as typed rows (store-profile.h). */
#include "log.h"
#include "subprocess.h"
#include "store-private.h"
#include "store-profile.h"

/* What a row function passes each row to, and how many rows came. */
struct reader {
	union {
		store_explanation_run_fn *run;
		store_explanation_fn *explanation;
		store_profile_fn *profile;
	} fn;
	void *data;
	int rows;
};

int store_explanation_add(struct store *st, long long *id, const struct store_explanation *e)
{
	if (store_begin(st))
		return -1;
	if (store_rows(st, "cannot store the explanation", "INSERT INTO explanations("
		       "experiment_id, a_run_id, b_run_id, workload, metric, created) "
		       "VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
		       STORE_ARGS(STORE_ID(e->experiment_id),
				  STORE_INT(e->a_run_id), STORE_INT(e->b_run_id),
				  STORE_TEXT(e->workload), STORE_TEXT(e->metric),
				  STORE_NUM(now_wall())), NULL, NULL))
		goto fail;
	*id = store_last_id(st);
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < e->nruns[s]; i++)
			if (store_rows(st, "cannot store the explanation's runs", "INSERT INTO "
				       "explanation_runs(explanation_id, side, run_id) VALUES "
				       "(?1, ?2, ?3)", STORE_ARGS(STORE_INT(*id), STORE_INT(s),
				       STORE_INT(e->runs[s][i])), NULL, NULL))
				goto fail;
	return store_commit(st);
fail:
	store_rollback(st);
	return -1;
}

static int explanation_run_row(sqlite3_stmt *q, void *data)
{
	struct reader *r = data;

	r->rows++;
	return r->fn.run((int)sqlite3_column_int64(q, 0), sqlite3_column_int64(q, 1), r->data);
}

int store_explanation_runs(struct store *st, const struct store_explanation *e,
			   store_explanation_run_fn *fn, void *data)
{
	struct reader r = { .fn.run = fn, .data = data };

	if (store_rows_if_table(st, "explanation_runs", "cannot read an explanation's runs",
				"SELECT side, run_id FROM explanation_runs WHERE explanation_id = ?1 "
				"ORDER BY side, run_id", STORE_ARGS(STORE_INT(e->id)),
				explanation_run_row, &r))
		return -1;
	if (r.rows)
		return 0;
	return fn(0, e->a_run_id, data) || fn(1, e->b_run_id, data) ? -1 : 0;
}

static int explanation_row(sqlite3_stmt *q, void *data)
{
	struct reader *r = data;
	struct store_explanation e = {
		.id = sqlite3_column_int64(q, 0),
		.experiment_id = sqlite3_column_int64(q, 1),
		.a_run_id = sqlite3_column_int64(q, 2),
		.b_run_id = sqlite3_column_int64(q, 3),
		.workload = store_text(q, 4),
		.metric = store_text(q, 5),
		.created = sqlite3_column_double(q, 6),
	};

	r->rows++;
	return r->fn.explanation(&e, r->data);
}

#define EXPLANATION_COLUMNS "SELECT id, COALESCE(experiment_id, 0), a_run_id, b_run_id, " \
	"workload, metric, created FROM explanations "

int store_explanations(struct store *st, long long experiment_id, store_explanation_fn *fn,
		       void *data)
{
	struct reader r = { .fn.explanation = fn, .data = data };

	return store_rows_if_table(st, "explanations", "cannot read explanations",
				   EXPLANATION_COLUMNS "WHERE experiment_id = ?1 ORDER BY id",
				   STORE_ARGS(STORE_INT(experiment_id)), explanation_row, &r);
}

int store_explanation_read(struct store *st, long long id, store_explanation_fn *fn,
			   void *data)
{
	struct reader r = { .fn.explanation = fn, .data = data };

	if (store_rows_if_table(st, "explanations", "cannot read explanations",
				EXPLANATION_COLUMNS "WHERE id = ?1", STORE_ARGS(STORE_INT(id)),
				explanation_row, &r))
		return -1;
	return r.rows ? 0 : error("no explanation X%lld", id);
}

static int profile_row(sqlite3_stmt *q, void *data)
{
	struct reader *r = data;

	return r->fn.profile(store_text(q, 0), sqlite3_column_int64(q, 1),
			     sqlite3_column_double(q, 2), r->data);
}

int store_run_profile(struct store *st, long long run_id, const char *workload,
		      store_profile_fn *fn, void *data)
{
	struct reader r = { .fn.profile = fn, .data = data };

	return store_rows_if_table(st, "profiles", "cannot read a profile", "SELECT function, "
				   "calls, ns FROM profiles WHERE run_id = ?1 AND workload = ?2 "
				   "ORDER BY function", STORE_ARGS(STORE_INT(run_id),
				   STORE_TEXT(workload)), profile_row, &r);
}

int store_run_kernel_label(struct store *st, struct strbuf *out, long long run_id)
{
	return store_rows(st, "cannot read a run's kernel", "SELECT COALESCE(substr(k.git_commit, "
			  "1, 12), k.path, '(no kernel)') FROM runs r LEFT JOIN kernels k ON "
			  "k.id = r.kernel_id WHERE r.id = ?1", STORE_ARGS(STORE_INT(run_id)),
			  store_row_text, out);
}
