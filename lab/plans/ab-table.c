/*
 * The A/B verdicts as a terminal table, one row per metric, in the way of
 * perf diff and LKP's comparisons (base ±%stddev, %change, new ±%stddev).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ab-table.h"
#include "events.h"
#include "escape.h"
#include "stats.h"
#include "textfmt.h"
#include "xalloc.h"

enum { COL_METRIC, COL_UNIT, COL_A, COL_B, COL_CHANGE, COL_VERDICT, NR_COLS };

struct cells {
	char c[NR_COLS][96];
};

/*
 * "100.1 ±3.2%": the median, times k (its unit scaled for the row), with
 * the standard deviation relative to the mean.
 */
static void side_cell(char *buf, size_t size, double median, double mean, double std, long long n,
		      double k)
{
	char v[32];
	double rel = 100 * std / fabs(mean);

	textfmt_value(v, sizeof(v), median * k);
	if (n < 2 || !isfinite(rel))
		snprintf(buf, size, "%s", v);
	else if (rel >= 10)
		snprintf(buf, size, "%s ±%.0f%%", v, rel);
	else if (rel >= 0.1)
		snprintf(buf, size, "%s ±%.1f%%", v, rel);
	else
		snprintf(buf, size, "%s ±<0.1%%", v);
}

double ab_table_row_ref(const struct verdict_row *v)
{
	double a = fabs(v->median_a), b = fabs(v->median_b);

	if (!isfinite(a) || a == 0)
		return b;
	return isfinite(b) && b > 0 && b < a ? b : a;
}

static const char *compared_words(const char *unit_compared)
{
	return strcmp(unit_compared, "boot-medians") ? unit_compared : "boot medians";
}

/* What the rows of one point share, said once above them. */
static void print_point_header(struct strbuf *out, const struct verdict_row *const *r, size_t n,
			       int mixed_dir, const struct events_report *ev)
{
	struct strbuf host = STRBUF_INIT;
	long long lo = r[0]->n_a, hi = r[0]->n_a;
	int same_n = 1, same_unit = 1;

	for (size_t i = 0; i < n; i++) {
		if (r[i]->n_a != r[0]->n_a || r[i]->n_b != r[0]->n_b)
			same_n = 0;
		if (strcmp(r[i]->unit_compared, r[0]->unit_compared))
			same_unit = 0;
		lo = r[i]->n_a < lo ? r[i]->n_a : lo;
		lo = r[i]->n_b < lo ? r[i]->n_b : lo;
		hi = r[i]->n_a > hi ? r[i]->n_a : hi;
		hi = r[i]->n_b > hi ? r[i]->n_b : hi;
	}
	events_point_words(&host, ev, r[0]->mem_mib, r[0]->cpus);
	strbuf_addf(out, "\n%s: ", host.buf);
	strbuf_release(&host);
	strbuf_addf(out, "%s compared, ",
		    same_unit ? compared_words(r[0]->unit_compared) : "samples or boot medians");
	if (same_n)
		strbuf_addf(out, "n %lld A, %lld B", r[0]->n_a, r[0]->n_b);
	else
		strbuf_addf(out, "n %lld to %lld a side", lo, hi);
	if (mixed_dir)
		strbuf_addstr(out, "; lower is better, ↑ higher\n");
	else
		strbuf_addf(out, "; %s is better\n", r[0]->direction);
}

static void print_point(struct strbuf *out, const struct verdict_row *const *r, size_t n,
			const struct events_report *ev)
{
	struct cells *rows = xreallocarray(NULL, n + 1, sizeof(*rows));
	size_t width[NR_COLS] = { 0 }, others = 0, sep = 2, mw;
	char ci[32];
	int mixed_dir = 0, same_alpha = 1;

	for (size_t i = 0; i < n; i++) {
		if (strcmp(r[i]->direction, r[0]->direction))
			mixed_dir = 1;
		if (r[i]->alpha != r[0]->alpha)
			same_alpha = 0;
	}
	stats_ci_label(ci, sizeof(ci), r[0]->alpha);
	snprintf(rows[0].c[COL_METRIC], sizeof(rows[0].c[0]), "metric");
	snprintf(rows[0].c[COL_UNIT], sizeof(rows[0].c[0]), "unit");
	snprintf(rows[0].c[COL_A], sizeof(rows[0].c[0]), "A");
	snprintf(rows[0].c[COL_B], sizeof(rows[0].c[0]), "B");
	snprintf(rows[0].c[COL_CHANGE], sizeof(rows[0].c[0]), "B/A, %s", same_alpha ? ci : "CI");
	snprintf(rows[0].c[COL_VERDICT], sizeof(rows[0].c[0]), "verdict");
	for (size_t i = 0; i < n; i++) {
		const struct verdict_row *v = r[i];
		struct cells *c = &rows[i + 1];
		int up = mixed_dir && !strcmp(v->direction, "higher");
		const char *unit;
		double k = textfmt_unit_scale(&unit, v->unit, ab_table_row_ref(v));

		snprintf(c->c[COL_METRIC], sizeof(c->c[0]), "%s.%s", term_safe(v->workload),
			 term_safe(v->metric));
		snprintf(c->c[COL_UNIT], sizeof(c->c[0]), "%s%s", term_safe(unit), up ? "↑" : "");
		side_cell(c->c[COL_A], sizeof(c->c[0]), v->median_a, v->mean_a, v->std_a, v->n_a, k);
		side_cell(c->c[COL_B], sizeof(c->c[0]), v->median_b, v->mean_b, v->std_b, v->n_b, k);
		textfmt_change(c->c[COL_CHANGE], sizeof(c->c[0]), v->ratio, v->ci_low, v->ci_high);
		snprintf(c->c[COL_VERDICT], sizeof(c->c[0]), "%s", v->verdict);
	}
	for (size_t i = 0; i <= n; i++)
		for (int k = COL_UNIT; k < NR_COLS; k++) {
			size_t w = textfmt_width(rows[i].c[k]);

			if (w > width[k])
				width[k] = w;
		}
	for (int k = COL_UNIT; k < NR_COLS; k++)
		others += width[k];
	if (others + NR_COLS * sep + 8 > TEXTFMT_COLUMNS)
		sep = 1;
	mw = others + (NR_COLS - 1) * sep < TEXTFMT_COLUMNS ?
	     TEXTFMT_COLUMNS - others - (NR_COLS - 1) * sep : 1;
	/* the widest name that fits; a wider one has a line of its own */
	for (size_t i = 0; i <= n; i++) {
		size_t w = textfmt_width(rows[i].c[COL_METRIC]);

		if (w > width[COL_METRIC] && w <= mw)
			width[COL_METRIC] = w;
	}

	print_point_header(out, r, n, mixed_dir, ev);
	for (size_t i = 0; i <= n; i++) {
		if (textfmt_width(rows[i].c[COL_METRIC]) > width[COL_METRIC]) {
			strbuf_addf(out, "%s\n", rows[i].c[COL_METRIC]);
			rows[i].c[COL_METRIC][0] = '\0';
		}
		for (int k = 0; k < NR_COLS; k++) {
			if (k == NR_COLS - 1) {
				strbuf_addf(out, "%s\n", rows[i].c[k]);
				break;
			}
			textfmt_pad_sb(out, rows[i].c[k], width[k]);
			strbuf_addf(out, "%*s", (int)sep, "");
		}
	}
	free(rows);
}

/* A count as it is, exactly: 25600, or 25600.5 for the median of an even number. */
/* A count; a median between two, or a quotient of counts (IPC), to a few digits. */
static void count_cell(char *buf, size_t size, double v)
{
	if (v == floor(v))
		snprintf(buf, size, "%.15g", v);
	else
		snprintf(buf, size, "%.*f", fabs(v) < 100 ? 2 : 1, v);
}

static void event_ratio_cell(char *buf, size_t size, double a, double b)
{
	double r = b / a;

	if (!(a > 0) || !isfinite(r)) {
		snprintf(buf, size, "-");
	} else {
		textfmt_ratio(buf, size, r);
	}
}

void ab_table_print_events(struct strbuf *out, const struct events_report *ev, long long mem,
			   int cpus, const char *a, const char *b)
{
	enum { E_NAME, E_A, E_B, E_RATIO, NR_E };
	struct cells *rows = xreallocarray(NULL, ev->nr + 1, sizeof(*rows));
	size_t n = 1, width[NR_E] = { 0 };

	snprintf(rows[0].c[E_NAME], sizeof(rows[0].c[0]), "event");
	snprintf(rows[0].c[E_A], sizeof(rows[0].c[0]), "%s", a);
	snprintf(rows[0].c[E_B], sizeof(rows[0].c[0]), "%s", b);
	snprintf(rows[0].c[E_RATIO], sizeof(rows[0].c[0]), "%s/%s", b, a);
	for (size_t i = 0; i < ev->nr; i++) {
		const struct event_row *e = &ev->v[i];
		struct cells *c = &rows[n];

		if (e->mem_mib != mem || e->cpus != cpus)
			continue;
		snprintf(c->c[E_NAME], sizeof(c->c[0]), "%s.%s", term_safe(e->workload),
			 term_safe(e->metric));
		count_cell(c->c[E_A], sizeof(c->c[0]), e->median_a);
		count_cell(c->c[E_B], sizeof(c->c[0]), e->median_b);
		event_ratio_cell(c->c[E_RATIO], sizeof(c->c[0]), e->median_a, e->median_b);
		n++;
	}
	if (n == 1) {
		free(rows);
		return;
	}
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < NR_E; k++)
			if (textfmt_width(rows[i].c[k]) > width[k])
				width[k] = textfmt_width(rows[i].c[k]);
	strbuf_addstr(out, "\nevents, median an iteration (counted, never judged)\n");
	for (size_t i = 0; i < n; i++) {
		textfmt_pad_sb(out, rows[i].c[E_NAME], width[E_NAME]);
		strbuf_addf(out, "  %*s  %*s  %s\n", (int)width[E_A], rows[i].c[E_A],
			    (int)width[E_B], rows[i].c[E_B], rows[i].c[E_RATIO]);
	}
	free(rows);
}

/* Under a point's table: what it measured, and the verdicts real hardware may not share. */
static void print_point_notes(struct strbuf *out, const struct verdict_row *const *r, size_t n,
			      const struct events_report *ev)
{
	struct strbuf sb = STRBUF_INIT;

	measured_words(&sb, events_measured_at(ev, r[0]->mem_mib, r[0]->cpus));
	if (ev->npoints > 1) {
		size_t len = sb.len;

		strbuf_addstr(&sb, " (");
		if (events_host_words(&sb, ev, r[0]->mem_mib, r[0]->cpus))
			strbuf_addch(&sb, ')');
		else
			strbuf_setlen(&sb, len);
	}
	strbuf_addf(out, "measured: %s\n", sb.buf);
	if (events_no_counters(ev, r[0]->mem_mib, r[0]->cpus))
		strbuf_addf(out, "%s\n", events_no_counters(ev, r[0]->mem_mib, r[0]->cpus));
	for (size_t i = 0; i < n; i++) {
		const struct event_row *e = events_disagree(ev, r[i]);

		if (!e)
			continue;
		strbuf_reset(&sb);
		events_disagree_words(&sb, r[i], e);
		textfmt_wrap_sb(out, "warning: ", "  ", term_safe(sb.buf));
	}
	strbuf_release(&sb);
	ab_table_print_events(out, ev, r[0]->mem_mib, r[0]->cpus, "A", "B");
}

static int point_order(const void *a, const void *b)
{
	const struct verdict_row *x = *(const struct verdict_row *const *)a;
	const struct verdict_row *y = *(const struct verdict_row *const *)b;

	if (x->mem_mib != y->mem_mib)
		return x->mem_mib < y->mem_mib ? -1 : 1;
	if (x->cpus != y->cpus)
		return x->cpus < y->cpus ? -1 : 1;
	/* stable within a point: the stored order, by workload and metric */
	return x < y ? -1 : x > y;
}

void ab_table_print(struct strbuf *out, const struct verdict_list *l,
		    const struct events_report *ev)
{
	const struct verdict_row **r = xreallocarray(NULL, l->nr + 1, sizeof(*r));

	for (size_t i = 0; i < l->nr; i++)
		r[i] = &l->v[i];
	qsort(r, l->nr, sizeof(*r), point_order);
	for (size_t i = 0, j; i < l->nr; i = j) {
		for (j = i + 1; j < l->nr; j++)
			if (r[j]->mem_mib != r[i]->mem_mib || r[j]->cpus != r[i]->cpus)
				break;
		print_point(out, r + i, j - i, ev);
		if (ev)
			print_point_notes(out, r + i, j - i, ev);
	}
	free(r);
}

/* The sweep's tables, one per workload, metric, unit and CPU count, in that order. */
static int sweep_order(const void *a, const void *b)
{
	const struct verdict_row *x = *(const struct verdict_row *const *)a;
	const struct verdict_row *y = *(const struct verdict_row *const *)b;
	int c = strcmp(x->workload, y->workload);

	if (!c)
		c = strcmp(x->metric, y->metric);
	if (!c)
		c = (x->cpus > y->cpus) - (x->cpus < y->cpus);
	return c ? c : strcmp(x->unit, y->unit);
}

#define SWEEP_CELL 20
#define SWEEP_LABEL 10
/* memory sizes side by side within 100 columns; more go on to the next block */
#define SWEEP_PER_LINE ((TEXTFMT_COLUMNS - 2 - SWEEP_LABEL) / (SWEEP_CELL + 1))

/* B's cell: its median (times k) and the change against A, "45702 455×" or "105.2 +5.1 %". */
static void sweep_b_cell(char *buf, size_t size, double a, double b, double k)
{
	char v[32], x[32];
	double r = b / a;

	textfmt_value(v, sizeof(v), b * k);
	textfmt_ratio(x, sizeof(x), r);
	if (!isfinite(r) || r < 0)
		snprintf(buf, size, "%s", v);
	else
		snprintf(buf, size, "%s %s", v, x);
}

static void print_sweep_block(struct strbuf *out, const struct verdict_row *const *cols, size_t n,
			      double k)
{
	static const char *const label[3] = { "A", "B", "verdict" };

	strbuf_addf(out, "  %-*s", SWEEP_LABEL, "");
	for (size_t i = 0; i < n; i++) {
		char head[32];

		snprintf(head, sizeof(head), "%lldM", cols[i]->mem_mib);
		strbuf_addf(out, " %*s", SWEEP_CELL, head);
	}
	strbuf_addch(out, '\n');
	for (int row = 0; row < 3; row++) {
		strbuf_addf(out, "  %-*s", SWEEP_LABEL, label[row]);
		for (size_t i = 0; i < n; i++) {
			const struct verdict_row *v = cols[i];
			char cell[96];

			if (row == 0)
				textfmt_value(cell, sizeof(cell), v->median_a * k);
			else if (row == 1)
				sweep_b_cell(cell, sizeof(cell), v->median_a, v->median_b, k);
			else
				snprintf(cell, sizeof(cell), "%s", v->verdict);
			strbuf_addf(out, " %*s%s", (int)(SWEEP_CELL > textfmt_width(cell) ?
				SWEEP_CELL - textfmt_width(cell) : 0), "", cell);
		}
		strbuf_addch(out, '\n');
	}
}

/* Seed 004's layout: a row per variant, a column per memory size, % against A. */
void ab_table_print_sweep(struct strbuf *out, const struct verdict_list *l, const char *clock)
{
	const struct verdict_row **tables = xreallocarray(NULL, l->nr + 1, sizeof(*tables));
	const struct verdict_row **cols = xreallocarray(NULL, l->nr + 1, sizeof(*cols));
	size_t nt = 0;

	for (size_t i = 0; i < l->nr; i++)
		tables[i] = &l->v[i];
	qsort(tables, l->nr, sizeof(*tables), sweep_order);
	for (size_t i = 0; i < l->nr; i++)
		if (!nt || sweep_order(&tables[nt - 1], &tables[i]))
			tables[nt++] = tables[i];
	for (size_t t = 0; t < nt; t++) {
		const struct verdict_row *m = tables[t];
		char head[512];
		size_t nc = 0;
		const char *unit;
		double ref = NAN, k;

		/* the list is by memory size within a metric */
		for (size_t i = 0; i < l->nr; i++) {
			const struct verdict_row *v = &l->v[i];

			if (!strcmp(v->workload, m->workload) && !strcmp(v->metric, m->metric) &&
			    v->cpus == m->cpus && !strcmp(v->unit, m->unit))
				cols[nc++] = v;
		}
		for (size_t i = 0; i < nc; i++) {
			double r = ab_table_row_ref(cols[i]);

			if (!(r >= ref) && r > 0)
				ref = r;
		}
		k = textfmt_unit_scale(&unit, m->unit, ref);
		snprintf(head, sizeof(head),
			 "%s.%s, median %s, %d cpu%s, %s: a row per variant, a column per memory size",
			 term_safe(m->workload), term_safe(m->metric), term_safe(unit), m->cpus,
			 m->cpus == 1 ? "" : "s", clock);
		strbuf_addch(out, '\n');
		textfmt_wrap_sb(out, "", "  ", head);
		for (size_t i = 0; i < nc; i += SWEEP_PER_LINE)
			print_sweep_block(out, cols + i,
					  nc - i < SWEEP_PER_LINE ? nc - i : SWEEP_PER_LINE, k);
	}
	free(cols);
	free(tables);
}
