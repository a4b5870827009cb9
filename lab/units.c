#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "units.h"
#include "xalloc.h"


void units_side_release(struct unit_side *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->m[i].v);
		free(s->m[i].len);
	}
	free(s->m);
	memset(s, 0, sizeof(*s));
}

int units_side_load(struct unit_side *s, struct store *st, long long exp_id,
		    long long variant_id, long mem, long cpus, const char *metric)
{
	sqlite3_stmt *q = NULL;
	struct unit_metric *cur = NULL;
	long long last_run = -1;
	int rc, ret = -1;

	memset(s, 0, sizeof(*s));
	if (sqlite3_prepare_v2(st->db,
			       "SELECT s.workload, s.metric, s.unit, s.run_id, s.value FROM samples s "
			       "JOIN runs r ON r.id = s.run_id WHERE r.experiment_id = ?1 AND "
			       "r.variant_id = ?2 AND (?3 < 0 OR r.mem_mib = ?3) AND "
			       "(?4 < 0 OR r.cpus = ?4) AND (?5 IS NULL OR s.metric = ?5) AND "
			       "r.status = 'OK' AND (s.flags & 1) = 0 "
			       "ORDER BY s.workload, s.metric, s.unit, s.run_id", -1, &q, NULL) != SQLITE_OK)
		return store_error(st, "cannot read samples");
	sqlite3_bind_int64(q, 1, exp_id);
	sqlite3_bind_int64(q, 2, variant_id);
	sqlite3_bind_int64(q, 3, mem);
	sqlite3_bind_int64(q, 4, cpus);
	if (metric)
		sqlite3_bind_text(q, 5, metric, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		const char *w = (const char *)sqlite3_column_text(q, 0);
		const char *m = (const char *)sqlite3_column_text(q, 1);
		const char *u = (const char *)sqlite3_column_text(q, 2);
		long long run = sqlite3_column_int64(q, 3);

		if (!cur || strcmp(cur->workload, w) || strcmp(cur->metric, m) ||
		    strcmp(cur->unit, u)) {
			if (s->n == s->alloc) {
				s->alloc = s->alloc ? 2 * s->alloc : 16;
				s->m = xrealloc(s->m, s->alloc * sizeof(*s->m));
			}
			cur = &s->m[s->n++];
			memset(cur, 0, sizeof(*cur));
			snprintf(cur->workload, sizeof(cur->workload), "%s", w);
			snprintf(cur->metric, sizeof(cur->metric), "%s", m);
			snprintf(cur->unit, sizeof(cur->unit), "%s", u);
			last_run = -1;
		}
		if (run != last_run) {
			if (cur->nboots == cur->boots_alloc) {
				cur->boots_alloc = cur->boots_alloc ? 2 * cur->boots_alloc : 16;
				cur->len = xrealloc(cur->len, cur->boots_alloc * sizeof(*cur->len));
			}
			cur->len[cur->nboots++] = 0;
			last_run = run;
		}
		if (cur->n == cur->alloc) {
			cur->alloc = cur->alloc ? 2 * cur->alloc : 64;
			cur->v = xrealloc(cur->v, cur->alloc * sizeof(*cur->v));
		}
		cur->v[cur->n++] = sqlite3_column_double(q, 4);
		cur->len[cur->nboots - 1]++;
	}
	if (rc != SQLITE_DONE)
		store_error(st, "cannot read samples");
	else
		ret = 0;
	sqlite3_finalize(q);
	return ret;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The units to compare for one side: samples, or per-boot medians. */
double *units_values(const struct unit_metric *m, int per_boot, size_t *n)
{
	double *out;
	size_t off = 0;

	if (!per_boot) {
		out = xrealloc(NULL, m->n * sizeof(*out));
		memcpy(out, m->v, m->n * sizeof(*out));
		*n = m->n;
		return out;
	}
	out = xrealloc(NULL, m->nboots * sizeof(*out));
	for (size_t b = 0; b < m->nboots; b++) {
		double *g = xrealloc(NULL, m->len[b] * sizeof(*g));
		memcpy(g, m->v + off, m->len[b] * sizeof(*g));
		qsort(g, m->len[b], sizeof(*g), cmp_double);
		out[b] = stats_quantile(g, m->len[b], 0.5);
		off += m->len[b];
		free(g);
	}
	*n = m->nboots;
	return out;
}

int units_boot_effect(const struct unit_metric *m)
{
	struct stats_boot_units u;
	const double **groups = xrealloc(NULL, m->nboots * sizeof(*groups));
	size_t off = 0;
	int per_boot = 0;

	for (size_t b = 0; b < m->nboots; b++) {
		groups[b] = m->v + off;
		off += m->len[b];
	}
	if (!stats_boot_units(&u, groups, m->len, m->nboots)) {
		per_boot = u.per_boot;
		stats_boot_units_release(&u);
	}
	free(groups);
	return per_boot;
}

int units_all_positive(const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!(v[i] > 0))
			return 0;
	return 1;
}

