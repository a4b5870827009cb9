/* The verdicts table (store-verdict.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store-verdict.h"
#include "xalloc.h"

/* Every column of a verdict but its experiment, in the order of the row's reader and writer. */
#define VERDICT_COLUMNS \
	"workload, metric, unit, mem_mib, cpus, direction, unit_compared, n_a, n_b, " \
	"mean_a, mean_b, std_a, std_b, median_a, median_b, ratio, ci_low, ci_high, p, " \
	"p_adjusted, alpha, delta, mde, verdict"

int store_verdicts_write(struct store *st, long long exp_id, const struct verdict_row *v,
			 size_t n)
{
	sqlite3_stmt *q;
	int ret = -1;

	if (store_prepare(st, &q, "INSERT OR REPLACE INTO verdicts(experiment_id, "
			  VERDICT_COLUMNS ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, "
			  "?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25)",
			  "cannot store verdicts"))
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct verdict_row *r = &v[i];
		const double nums[] = { r->mean_a, r->mean_b, r->std_a, r->std_b, r->median_a,
					r->median_b, r->ratio, r->ci_low, r->ci_high, r->p,
					r->p_adjusted, r->alpha, r->delta, r->mde };

		sqlite3_reset(q);
		sqlite3_bind_int64(q, 1, exp_id);
		sqlite3_bind_text(q, 2, r->workload, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 3, r->metric, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 4, r->unit, -1, SQLITE_STATIC);
		sqlite3_bind_int64(q, 5, r->mem_mib);
		sqlite3_bind_int64(q, 6, r->cpus);
		sqlite3_bind_text(q, 7, r->direction, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 8, r->unit_compared, -1, SQLITE_STATIC);
		sqlite3_bind_int64(q, 9, r->n_a);
		sqlite3_bind_int64(q, 10, r->n_b);
		for (int k = 0; k < 14; k++)
			store_bind_num(q, 11 + k, nums[k]);
		sqlite3_bind_text(q, 25, r->verdict, -1, SQLITE_STATIC);
		if (sqlite3_step(q) != SQLITE_DONE) {
			store_error(st, "cannot store verdicts");
			goto out;
		}
	}
	ret = 0;
out:
	sqlite3_finalize(q);
	return ret;
}

static void read_row(struct verdict_row *r, sqlite3_stmt *q)
{
	double *const nums[] = { &r->mean_a, &r->mean_b, &r->std_a, &r->std_b, &r->median_a,
				 &r->median_b, &r->ratio, &r->ci_low, &r->ci_high, &r->p,
				 &r->p_adjusted, &r->alpha, &r->delta, &r->mde };

	memset(r, 0, sizeof(*r));
	snprintf(r->workload, sizeof(r->workload), "%s", store_text(q, 0));
	snprintf(r->metric, sizeof(r->metric), "%s", store_text(q, 1));
	snprintf(r->unit, sizeof(r->unit), "%s", store_text(q, 2));
	r->mem_mib = sqlite3_column_int64(q, 3);
	r->cpus = sqlite3_column_int(q, 4);
	snprintf(r->direction, sizeof(r->direction), "%s", store_text(q, 5));
	snprintf(r->unit_compared, sizeof(r->unit_compared), "%s", store_text(q, 6));
	r->n_a = sqlite3_column_int64(q, 7);
	r->n_b = sqlite3_column_int64(q, 8);
	for (int k = 0; k < 14; k++)
		*nums[k] = store_num(q, 9 + k);
	snprintf(r->verdict, sizeof(r->verdict), "%s", store_text(q, 23));
}

void verdict_list_release(struct verdict_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static int verdict_row(sqlite3_stmt *q, void *data)
{
	struct verdict_list *out = data;

	if (out->nr == out->alloc) {
		out->alloc = out->alloc ? 2 * out->alloc : 16;
		out->v = xrealloc(out->v, out->alloc * sizeof(*out->v));
	}
	read_row(&out->v[out->nr++], q);
	return 0;
}

int store_verdicts_read(struct store *st, struct verdict_list *out, long long exp_id)
{
	return store_rows(st, "cannot read verdicts", "SELECT " VERDICT_COLUMNS " FROM verdicts "
			  "WHERE experiment_id = ?1 ORDER BY workload, metric, mem_mib, cpus",
			  STORE_ARGS(STORE_INT(exp_id)), verdict_row, out);
}

int store_verdict_get(struct store *st, struct verdict_row *out, int *found, long long exp_id,
		      const char *workload, const char *metric, long long mem, long long cpus)
{
	sqlite3_stmt *q;
	int ret = 0, rc;

	*found = 0;
	if (store_prepare(st, &q, "SELECT " VERDICT_COLUMNS " FROM verdicts WHERE "
			  "experiment_id = ?1 AND workload = ?2 AND metric = ?3 AND mem_mib = ?4 "
			  "AND cpus = ?5", "cannot read verdicts"))
		return -1;
	sqlite3_bind_int64(q, 1, exp_id);
	sqlite3_bind_text(q, 2, workload, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 3, metric, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 4, mem);
	sqlite3_bind_int64(q, 5, cpus);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		read_row(out, q);
		*found = 1;
	} else if (rc != SQLITE_DONE) {
		ret = store_error(st, "cannot read verdicts");
	}
	sqlite3_finalize(q);
	return ret;
}

int store_verdict_regressions(struct store *st, long long *n, long long exp_id)
{
	sqlite3_stmt *q;
	int ret = 0;

	if (store_prepare(st, &q, "SELECT count(*) FROM verdicts WHERE experiment_id = ?1 "
			  "AND verdict = 'REGRESSION'", "cannot read verdicts"))
		return -1;
	sqlite3_bind_int64(q, 1, exp_id);
	if (sqlite3_step(q) == SQLITE_ROW)
		*n = sqlite3_column_int64(q, 0);
	else
		ret = store_error(st, "cannot read verdicts");
	sqlite3_finalize(q);
	return ret;
}
