#include <stdlib.h>
#include <string.h>

#include "boot.h"
#include "escape.h"
#include "log.h"
#include "stats.h"
#include "store-experiment.h"
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
		fprintf(f, "%-36s %-4s %6d   (warm-up only: %zu)\n", term_safe(name),
			term_safe(g->unit), 0, g->warmups);
		return;
	}
	stats_summarize(&s, g->v, g->nr);
	fprintf(f, "%-36s %-4s %6zu %12.6g %12.6g %12.6g %12.6g %12.6g", term_safe(name),
		term_safe(g->unit), s.n, s.mean, s.median, s.n > 1 ? s.std : 0.0, s.min, s.max);
	if (g->warmups)
		fprintf(f, "  (+%zu warm-up)", g->warmups);
	fputc('\n', f);
}

/* "clock: wall time": what the numbers below are in, said once per table. */
static int print_clock(FILE *f, struct store *st, const long long *run_ids, size_t nr)
{
	struct strvec clocks = STRVEC_INIT;
	struct strbuf words = STRBUF_INIT;

	if (store_runs_clocks(st, &clocks, run_ids, nr)) {
		strvec_release(&clocks);
		return -1;
	}
	for (size_t i = 0; i < clocks.nr; i++) {
		if (i)
			strbuf_addstr(&words, " and ");
		clock_words(&words, clocks.v[i]);
	}
	if (clocks.nr)
		fprintf(f, "clock: %s\n", words.buf);
	strvec_release(&clocks);
	strbuf_release(&words);
	return 0;
}

struct table {
	FILE *f;
	struct group g;
	int rows;
};

static int add_sample(const struct sample *s, void *data)
{
	struct table *t = data;
	struct group *g = &t->g;

	if (strcmp(g->workload, s->workload) || strcmp(g->metric, s->metric) ||
	    strcmp(g->unit, s->unit)) {
		if (t->rows++)
			print_group(t->f, g);
		snprintf(g->workload, sizeof(g->workload), "%s", s->workload);
		snprintf(g->metric, sizeof(g->metric), "%s", s->metric);
		snprintf(g->unit, sizeof(g->unit), "%s", s->unit);
		g->nr = 0;
		g->warmups = 0;
	}
	if (s->flags & SAMPLE_WARMUP) {
		g->warmups++;
		return 0;
	}
	if (g->nr == g->alloc) {
		size_t n = g->alloc ? g->alloc * 2 : 64;
		double *v = realloc(g->v, n * sizeof(*v));
		if (!v)
			return error("out of memory");
		g->v = v;
		g->alloc = n;
	}
	g->v[g->nr++] = s->value;
	return 0;
}

int table_print_runs(FILE *f, struct store *st, const long long *run_ids, size_t nr)
{
	struct table t;
	int ret = -1;

	memset(&t, 0, sizeof(t));
	t.f = f;
	if (print_clock(f, st, run_ids, nr))
		goto out;
	fprintf(f, "%-36s %-4s %6s %12s %12s %12s %12s %12s\n", "metric", "unit", "n", "mean",
		"median", "std", "min", "max");
	if (store_runs_samples(st, run_ids, nr, add_sample, &t))
		goto out;
	if (t.rows)
		print_group(f, &t.g);
	else
		fprintf(f, "(no samples)\n");
	ret = 0;
out:
	free(t.g.v);
	return ret;
}
