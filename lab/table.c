#include <stdlib.h>
#include <string.h>

#include "boot.h"
#include "log.h"
#include "stats.h"
#include "strbuf.h"
#include "table.h"

struct group {
	char workload[32], metric[64], unit[16];
	double *v;
	size_t nr, alloc;
	size_t warmups;
};

static void print_group(FILE *f, const struct group *g)
{
	struct stats_summary s;
	char name[100];

	snprintf(name, sizeof(name), "%s.%s", g->workload, g->metric);
	if (!g->nr) {
		fprintf(f, "%-36s %-4s %6d   (warm-up only: %zu)\n", name, g->unit, 0, g->warmups);
		return;
	}
	stats_summarize(&s, g->v, g->nr);
	fprintf(f, "%-36s %-4s %6zu %12.6g %12.6g %12.6g %12.6g %12.6g", name, g->unit, s.n,
		s.mean, s.median, s.n > 1 ? s.std : 0.0, s.min, s.max);
	if (g->warmups)
		fprintf(f, "  (+%zu warm-up)", g->warmups);
	fputc('\n', f);
}

/* "clock: wall time": what the numbers below are in, said once per table. */
static int print_clock(FILE *f, struct store *st, const char *ids)
{
	struct strbuf words = STRBUF_INIT;
	sqlite3_stmt *q = NULL;
	int rc, n = 0;

	if (sqlite3_prepare_v2(st->db, "SELECT DISTINCT clock FROM runs WHERE id IN "
			       "(SELECT value FROM json_each(?1)) ORDER BY id", -1, &q,
			       NULL) != SQLITE_OK)
		return store_error(st, "cannot read runs");
	sqlite3_bind_text(q, 1, ids, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		if (n++)
			strbuf_addstr(&words, " and ");
		clock_words(&words, store_text(q, 0));
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE) {
		strbuf_release(&words);
		return store_error(st, "cannot read runs");
	}
	if (n)
		fprintf(f, "clock: %s\n", words.buf);
	strbuf_release(&words);
	return 0;
}

int table_print_runs(FILE *f, struct store *st, const long long *run_ids, size_t nr)
{
	struct strbuf ids = STRBUF_INIT;
	struct group g;
	sqlite3_stmt *q = NULL;
	int ret = -1, rc, rows = 0;

	memset(&g, 0, sizeof(g));
	strbuf_addch(&ids, '[');
	for (size_t i = 0; i < nr; i++)
		strbuf_addf(&ids, "%s%lld", i ? "," : "", run_ids[i]);
	strbuf_addch(&ids, ']');
	if (print_clock(f, st, ids.buf))
		goto out;
	if (sqlite3_prepare_v2(st->db,
			       "SELECT workload, metric, unit, value, flags FROM samples "
			       "WHERE run_id IN (SELECT value FROM json_each(?1)) "
			       "ORDER BY workload, metric, unit", -1, &q, NULL) != SQLITE_OK) {
		store_error(st, "cannot read samples");
		goto out;
	}
	sqlite3_bind_text(q, 1, ids.buf, -1, SQLITE_STATIC);
	fprintf(f, "%-36s %-4s %6s %12s %12s %12s %12s %12s\n", "metric", "unit", "n", "mean",
		"median", "std", "min", "max");
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		const char *w = (const char *)sqlite3_column_text(q, 0);
		const char *m = (const char *)sqlite3_column_text(q, 1);
		const char *u = (const char *)sqlite3_column_text(q, 2);

		if (strcmp(g.workload, w) || strcmp(g.metric, m) || strcmp(g.unit, u)) {
			if (rows++)
				print_group(f, &g);
			snprintf(g.workload, sizeof(g.workload), "%s", w);
			snprintf(g.metric, sizeof(g.metric), "%s", m);
			snprintf(g.unit, sizeof(g.unit), "%s", u);
			g.nr = 0;
			g.warmups = 0;
		}
		if (sqlite3_column_int(q, 4) & 1) {
			g.warmups++;
			continue;
		}
		if (g.nr == g.alloc) {
			size_t n = g.alloc ? g.alloc * 2 : 64;
			double *v = realloc(g.v, n * sizeof(*v));
			if (!v) {
				error("out of memory");
				goto out;
			}
			g.v = v;
			g.alloc = n;
		}
		g.v[g.nr++] = sqlite3_column_double(q, 3);
	}
	if (rc != SQLITE_DONE) {
		store_error(st, "cannot read samples");
		goto out;
	}
	if (rows)
		print_group(f, &g);
	else
		fprintf(f, "(no samples)\n");
	ret = 0;
out:
	sqlite3_finalize(q);
	free(g.v);
	strbuf_release(&ids);
	return ret;
}
