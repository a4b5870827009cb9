/* The verdicts table (store-verdict.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "store-verdict.h"
#include "store-private.h"

/* Every column of a verdict but its experiment, in the order of the row's reader and writer. */
#define VERDICT_COLUMNS \
	"workload, metric, unit, mem_mib, cpus, direction, unit_compared, n_a, n_b, " \
	"mean_a, mean_b, std_a, std_b, median_a, median_b, ratio, ci_low, ci_high, p, " \
	"p_adjusted, alpha, delta, mde, verdict"

int store_verdicts_write(struct store *st, long long exp_id, const struct verdict_row *v,
			 size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct verdict_row *r = &v[i];

		if (store_rows(st, "cannot store verdicts", "INSERT OR REPLACE INTO "
			       "verdicts(experiment_id, " VERDICT_COLUMNS ") VALUES (?1, ?2, ?3, ?4, "
			       "?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, "
			       "?20, ?21, ?22, ?23, ?24, ?25)",
			       STORE_ARGS(STORE_INT(exp_id), STORE_TEXT(r->workload),
					  STORE_TEXT(r->metric), STORE_TEXT(r->unit),
					  STORE_INT(r->mem_mib), STORE_INT(r->cpus),
					  STORE_TEXT(r->direction), STORE_TEXT(r->unit_compared),
					  STORE_INT(r->n_a), STORE_INT(r->n_b), STORE_NUM(r->mean_a),
					  STORE_NUM(r->mean_b), STORE_NUM(r->std_a), STORE_NUM(r->std_b),
					  STORE_NUM(r->median_a), STORE_NUM(r->median_b),
					  STORE_NUM(r->ratio), STORE_NUM(r->ci_low), STORE_NUM(r->ci_high),
					  STORE_NUM(r->p), STORE_NUM(r->p_adjusted), STORE_NUM(r->alpha),
					  STORE_NUM(r->delta), STORE_NUM(r->mde), STORE_TEXT(r->verdict)),
			       NULL, NULL))
			return -1;
	}
	return 0;
}

static int read_row(sqlite3_stmt *q, void *data)
{
	struct verdict_row *r = data;
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
	return 0;
}

void verdict_list_release(struct verdict_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static int verdict_row(sqlite3_stmt *q, void *data)
{
	struct verdict_list *out = data;

	ALLOC_GROW(out->v, out->nr + 1, out->alloc);
	return read_row(q, &out->v[out->nr++]);
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
	return store_rows_found(st, found, "cannot read verdicts", "SELECT " VERDICT_COLUMNS
				" FROM verdicts WHERE experiment_id = ?1 AND workload = ?2 AND "
				"metric = ?3 AND mem_mib = ?4 AND cpus = ?5",
				STORE_ARGS(STORE_INT(exp_id), STORE_TEXT(workload),
					   STORE_TEXT(metric), STORE_INT(mem), STORE_INT(cpus)),
				read_row, out);
}

int store_verdict_regressions(struct store *st, long long *n, long long exp_id)
{
	return store_rows(st, "cannot read verdicts", "SELECT count(*) FROM verdicts WHERE "
			  "experiment_id = ?1 AND verdict = 'REGRESSION'",
			  STORE_ARGS(STORE_INT(exp_id)), store_row_int, n);
}
