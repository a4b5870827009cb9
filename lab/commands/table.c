#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dvec.h"
#include "escape.h"
#include "sample.h"
#include "stats.h"
#include "store-experiment.h"
#include "strbuf.h"
#include "table.h"
#include "textfmt.h"

struct group {
	char workload[32], metric[64], unit[16];
	struct dvec v;
	size_t warmups;
};

/*
 * Columns within 100: the name (on a line of its own when wider than
 * NAME_W), unit, n, median, the standard deviation relative to the mean,
 * min and max, in fixed digits.
 */
#define NAME_W 30
#define ROW_FMT "%-*s %-5s %6s %10s %7s %10s %10s"

static void print_group(FILE *f, const struct group *g)
{
	struct stats_summary s;
	char name[100], n[24], median[32], spread[16], min[32], max[32], unit[32];
	const char *shown, *scaled;
	double k;

	snprintf(name, sizeof(name), "%s.%s", g->workload, g->metric);
	shown = term_safe(name);
	if (textfmt_width(shown) > NAME_W) {
		fprintf(f, "%s\n", shown);
		shown = "";
	}
	if (!g->v.nr) {
		fprintf(f, "%-*s %-5s %6d   (warm-up only: %zu)\n", NAME_W, shown,
			term_safe(g->unit), 0, g->warmups);
		return;
	}
	stats_summarize(&s, g->v.v, g->v.nr);
	/* the row in the unit its smallest value reads best in: 397.0 ns, not 397.0µ ms */
	k = textfmt_unit_scale(&scaled, g->unit, s.min > 0 ? s.min : s.median);
	snprintf(unit, sizeof(unit), "%s", term_safe(scaled));
	snprintf(n, sizeof(n), "%zu", s.n);
	textfmt_value(median, sizeof(median), s.median * k);
	textfmt_value(min, sizeof(min), s.min * k);
	textfmt_value(max, sizeof(max), s.max * k);
	if (s.n > 1 && s.mean != 0 && isfinite(s.std / s.mean))
		snprintf(spread, sizeof(spread), "±%.*f%%",
			 100 * s.std / fabs(s.mean) >= 10 ? 0 : 1, 100 * s.std / fabs(s.mean));
	else
		snprintf(spread, sizeof(spread), "-");
	/* "±" and "µ" are two bytes: printf pads bytes, the terminal shows characters */
	fprintf(f, "%-*s ", NAME_W, shown);
	textfmt_pad(f, unit, 5);
	fprintf(f, " %6s %*s %*s %*s %*s", n, 10 + (int)(strlen(median) - textfmt_width(median)),
		median, 7 + (int)(strlen(spread) - textfmt_width(spread)), spread,
		10 + (int)(strlen(min) - textfmt_width(min)), min,
		10 + (int)(strlen(max) - textfmt_width(max)), max);
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
	const char *title;	/* printed with the header above the first row; NULL: none */
};

static int add_sample(const struct sample *s, void *data)
{
	struct table *t = data;
	struct group *g = &t->g;

	if (!t->rows && t->title)
		fprintf(t->f, "%s\n" ROW_FMT "\n", t->title, NAME_W, "metric", "unit", "n", "median",
			"spread", "min", "max");
	if (strcmp(g->workload, s->workload) || strcmp(g->metric, s->metric) ||
	    strcmp(g->unit, s->unit)) {
		if (t->rows++)
			print_group(t->f, g);
		snprintf(g->workload, sizeof(g->workload), "%s", s->workload);
		snprintf(g->metric, sizeof(g->metric), "%s", s->metric);
		snprintf(g->unit, sizeof(g->unit), "%s", s->unit);
		g->v.nr = 0;
		g->warmups = 0;
	}
	if (s->flags & SAMPLE_WARMUP) {
		g->warmups++;
		return 0;
	}
	dvec_push(&g->v, s->value);
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
	fprintf(f, ROW_FMT "\n", NAME_W, "metric", "unit", "n", "median", "spread", "min", "max");
	if (store_runs_samples(st, run_ids, nr, add_sample, &t))
		goto out;
	if (t.rows)
		print_group(f, &t.g);
	else
		fprintf(f, "(no samples)\n");
	ret = 0;
out:
	dvec_release(&t.g.v);
	return ret;
}

int table_print_run_events(FILE *f, struct store *st, long long run_id, const char *title)
{
	struct table t = { .f = f, .title = title };
	int ret = store_run_events(st, run_id, add_sample, &t);

	if (!ret && t.rows)
		print_group(f, &t.g);
	dvec_release(&t.g.v);
	return ret;
}
