/*
 * An A/B experiment's page: provenance, a section per verdict, the event
 * counts that differ, the sweep, the runs.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "textfmt.h"
#include "array.h"
#include "escape.h"
#include "events.h"
#include "html.h"
#include "log.h"
#include "numbers.h"
#include "pages.h"
#include "stats.h"
#include "store-report.h"
#include "store-verdict.h"
#include "svg.h"
#include "xalloc.h"

/*
 * The samples the verdicts count, of both sides, read in one pass
 * (store_experiment_ab_samples()) and split per verdict here: a query per
 * verdict and side would visit every sample of the experiment once for
 * each of them.
 */
struct exp_sample {
	const char *workload, *metric;	/* interned in exp_samples.names */
	long long mem, cpus;
	int side;			/* 0 A, 1 B */
	long long run, iter;
	double value;
};

struct exp_samples {
	struct exp_sample *v;
	size_t n, alloc;
	char **names;
	size_t nnames, names_alloc;
};

/* Few distinct names per experiment: a linear search is enough. */
static const char *intern(struct exp_samples *es, const char *name)
{
	for (size_t i = 0; i < es->nnames; i++)
		if (!strcmp(es->names[i], name))
			return es->names[i];
	ALLOC_GROW(es->names, es->nnames + 1, es->names_alloc);
	return es->names[es->nnames++] = xstrdup(name);
}

static void exp_samples_release(struct exp_samples *es)
{
	for (size_t i = 0; i < es->nnames; i++)
		free(es->names[i]);
	free(es->names);
	free(es->v);
	memset(es, 0, sizeof(*es));
}

static int exp_sample(const struct store_ab_sample *smp, void *data)
{
	struct exp_samples *es = data;
	struct exp_sample *e;

	ALLOC_GROW(es->v, es->n + 1, es->alloc);
	e = &es->v[es->n++];
	e->side = smp->side;
	e->workload = intern(es, smp->workload);
	e->metric = intern(es, smp->metric);
	e->mem = smp->mem_mib;
	e->cpus = smp->cpus;
	e->value = smp->value;
	e->run = smp->run_id;
	e->iter = smp->iteration;
	return 0;
}

/* One side's samples of a verdict, each with its run and iteration. */
struct side_samples {
	struct dvec x;
	long long *run, *iter;
	size_t alloc;
};

static void side_samples_release(struct side_samples *ss)
{
	dvec_release(&ss->x);
	free(ss->run);
	free(ss->iter);
}

/* The samples of one side of verdict v, in the order they were stored. */
static void exp_samples_side(struct side_samples *out, const struct exp_samples *es, int side,
			     const struct verdict_row *v)
{
	for (size_t i = 0; i < es->n; i++) {
		const struct exp_sample *e = &es->v[i];

		if (e->side == side && e->mem == v->mem_mib && e->cpus == v->cpus &&
		    !strcmp(e->metric, v->metric) && !strcmp(e->workload, v->workload)) {
			/* run and iter, a sample each: grown together, to one size */
			if (out->x.nr == out->alloc) {
				size_t alloc = out->alloc;

				ALLOC_GROW(out->run, out->x.nr + 1, out->alloc);
				ALLOC_GROW(out->iter, out->x.nr + 1, alloc);
			}
			out->run[out->x.nr] = e->run;
			out->iter[out->x.nr] = e->iter;
			dvec_push(&out->x, e->value);
		}
	}
}

/* A row of v's table: a and b in the unit its medians read best in. */
static void add_ab_row(struct strbuf *sb, const char *label, double a, double b,
		       const struct verdict_row *v)
{
	double ref = fmin(v->median_a, v->median_b);

	strbuf_addf(sb, "<tr><th scope=\"row\">%s</th>", label);
	html_cell_quantity(sb, a, v->unit, ref);
	html_cell_quantity(sb, b, v->unit, ref);
	strbuf_addstr(sb, "</tr>\n");
}

/* A p-value as every output writes one: never an exponent. */
static void add_p(struct strbuf *sb, double p)
{
	char buf[32];

	if (!isfinite(p)) {
		strbuf_addstr(sb, "&#8211;");
		return;
	}
	textfmt_p(buf, sizeof(buf), p);
	escape_html(sb, buf);
}

/* An emulated verdict the page faults contradict says so under its facts. */
static void add_warning(struct strbuf *sb, const struct events_report *ev,
			const struct verdict_row *v)
{
	const struct event_row *e = events_disagree(ev, v);
	struct strbuf words = STRBUF_INIT;

	if (!e)
		return;
	events_disagree_words(&words, v, e);
	strbuf_addstr(sb, "<p class=\"warning\">warning: ");
	escape_html(sb, words.buf);
	strbuf_addstr(sb, "</p>\n");
	strbuf_release(&words);
}

/* The samples of A and B of v as two distributions; 0, or -1 after the message. */
static int add_distributions(struct strbuf *sb, long long exp_id, const struct exp_samples *es,
			     const struct verdict_row *v, const char *title)
{
	static const char *const label[2] = { "A", "B" }, *const css[2] = { "side-a", "side-b" };
	struct side_samples side[2];
	struct svg_series series[2];
	int ret = 0;

	memset(side, 0, sizeof(side));
	for (int k = 0; k < 2; k++) {
		exp_samples_side(&side[k], es, k, v);
		series[k] = (struct svg_series){ .label = label[k], .css_class = css[k],
						 .x = side[k].x.v, .run = side[k].run,
						 .iter = side[k].iter, .n = side[k].x.nr };
	}
	if (svg_distributions(sb, series, 2, v->unit, v->delta, title))
		ret = error("cannot summarize the samples of E%lld %s.%s", exp_id, v->workload,
			    v->metric);
	for (int k = 0; k < 2; k++)
		side_samples_release(&side[k]);
	return ret;
}

static int add_verdict(struct strbuf *sb, long long exp_id, const struct exp_samples *es,
		       const struct events_report *ev, const struct verdict_row *v)
{
	struct strbuf title = STRBUF_INIT;
	int ret;

	strbuf_addf(&title, "%s.%s, ", v->workload, v->metric);
	events_point_words(&title, ev, v->mem_mib, v->cpus);
	strbuf_addstr(sb, "<section class=\"metric\">\n<h3>");
	escape_html(sb, title.buf);
	strbuf_addstr(sb, " ");
	html_badge(sb, "v-", v->verdict);
	strbuf_addstr(sb, "</h3>\n<p>");
	html_text(sb, v->unit);
	strbuf_addstr(sb, ", ");
	html_text(sb, v->direction);
	strbuf_addstr(sb, " is better; compared: ");
	html_text(sb, v->unit_compared);
	strbuf_addstr(sb, "</p>\n");
	html_table_begin(sb, "<th></th><th>A</th><th>B</th>");
	strbuf_addf(sb, "<tr><th scope=\"row\">Number of iterations</th><td class=\"num\">%d</td>"
		    "<td class=\"num\">%d</td></tr>\n", (int)v->n_a, (int)v->n_b);
	add_ab_row(sb, "Mean", v->mean_a, v->mean_b, v);
	add_ab_row(sb, "std deviation", v->std_a, v->std_b, v);
	add_ab_row(sb, "median", v->median_a, v->median_b, v);
	html_table_end(sb);
	strbuf_addstr(sb, "<dl class=\"facts\">\n<dt>B/A ratio</dt><dd class=\"ratio\">");
	if (isfinite(v->ratio)) {
		char ci[32], change[96];

		stats_ci_label(ci, sizeof(ci), v->alpha);
		textfmt_change(change, sizeof(change), v->ratio, v->ci_low, v->ci_high);
		strbuf_addf(sb, "%s (%s)", change, ci);
	} else {
		strbuf_addstr(sb, "not compared: a side has values that are not all positive");
	}
	strbuf_addstr(sb, "</dd>\n<dt>p</dt><dd>");
	add_p(sb, v->p);
	strbuf_addstr(sb, "</dd>\n<dt>adjusted p</dt><dd>");
	add_p(sb, v->p_adjusted);
	strbuf_addstr(sb, "</dd>\n<dt>MDE</dt><dd>");
	if (isfinite(v->mde)) {
		char pct[32];

		textfmt_percent(pct, sizeof(pct), 100 * v->mde);
		escape_html(sb, pct);
	} else
		strbuf_addstr(sb, "&#8211;");
	strbuf_addf(sb, "</dd>\n<dt>verdict</dt><dd class=\"verdict\">");
	html_badge(sb, "v-", v->verdict);
	strbuf_addf(sb, " (alpha %.3g, delta %.3g %%)</dd>\n</dl>\n", v->alpha, 100 * v->delta);
	add_warning(sb, ev, v);
	if (isfinite(v->ratio)) {
		char ci[32];
		size_t len = title.len;

		stats_ci_label(ci, sizeof(ci), v->alpha);
		strbuf_addstr(&title, ": B/A with its CI against the band of delta");
		svg_ratio(sb, v->ratio, v->ci_low, v->ci_high, v->delta, ci, title.buf);
		strbuf_setlen(&title, len);
	}
	strbuf_addstr(&title, ": samples of A and B");
	ret = add_distributions(sb, exp_id, es, v, title.buf);
	if (!ret)
		strbuf_addstr(sb, "</section>\n");
	strbuf_release(&title);
	return ret;
}

/* Sweep tables are per workload, metric and CPU count, in that order. */
static int sweep_key_cmp(const void *x, const void *y)
{
	const struct verdict_row *a = *(const struct verdict_row *const *)x;
	const struct verdict_row *b = *(const struct verdict_row *const *)y;
	int c = strcmp(a->workload, b->workload);

	if (!c)
		c = strcmp(a->metric, b->metric);
	return c ? c : (a->cpus > b->cpus) - (a->cpus < b->cpus);
}

static int same_sweep(const struct verdict_row *a, const struct verdict_row *b)
{
	return a->cpus == b->cpus && !strcmp(a->metric, b->metric) &&
	       !strcmp(a->workload, b->workload);
}

/*
 * Seed 004's layout: a row per variant, a column per memory size, % against
 * A. The verdicts come by workload, metric, memory size and CPU count, so
 * those of one table are in memory order.
 */
static void add_sweep(struct strbuf *sb, const struct verdict_list *l)
{
	struct strbuf rows[2] = { STRBUF_INIT, STRBUF_INIT }, head = STRBUF_INIT;
	const struct verdict_row **keys = xcalloc(l->nr ? l->nr : 1, sizeof(*keys));
	size_t nkeys = 0;

	for (size_t i = 0; i < l->nr; i++) {
		size_t k = 0;

		while (k < nkeys && !same_sweep(keys[k], &l->v[i]))
			k++;
		if (k == nkeys)
			keys[nkeys++] = &l->v[i];
	}
	if (nkeys > 1)
		qsort(keys, nkeys, sizeof(*keys), sweep_key_cmp);
	strbuf_addstr(sb, "<section>\n<h2>Memory sweep</h2>\n");
	for (size_t k = 0; k < nkeys; k++) {
		strbuf_reset(&head);
		strbuf_reset(&rows[0]);
		strbuf_reset(&rows[1]);
		strbuf_addstr(&head, "<th>Variant</th>");
		strbuf_addstr(&rows[0], "<tr><th scope=\"row\">A</th>");
		strbuf_addstr(&rows[1], "<tr><th scope=\"row\">B</th>");
		double ref = INFINITY;

		/* one unit for the whole table, that of its smallest median */
		for (size_t i = 0; i < l->nr; i++)
			if (same_sweep(&l->v[i], keys[k]))
				ref = fmin(ref, fmin(l->v[i].median_a, l->v[i].median_b));
		for (size_t i = 0; i < l->nr; i++) {
			const struct verdict_row *v = &l->v[i];
			double a = v->median_a, b = v->median_b;

			if (!same_sweep(v, keys[k]))
				continue;
			strbuf_addf(&head, "<th>%lldM</th>", v->mem_mib);
			strbuf_addstr(&rows[0], "<td class=\"num\">");
			numbers_quantity(&rows[0], a, v->unit, ref);
			strbuf_addstr(&rows[0], "</td>");
			strbuf_addstr(&rows[1], "<td class=\"num\">");
			numbers_quantity(&rows[1], b, v->unit, ref);
			if (isfinite(a) && isfinite(b) && a > 0) {
				strbuf_addstr(&rows[1], " (");
				numbers_change(&rows[1], b / a, NAN, NAN);
				strbuf_addch(&rows[1], ')');
			}
			strbuf_addstr(&rows[1], " ");
			html_badge(&rows[1], "v-", v->verdict);
			strbuf_addstr(&rows[1], "</td>");
		}
		strbuf_addstr(sb, "<h3>");
		escape_html(sb, keys[k]->workload);
		strbuf_addch(sb, '.');
		escape_html(sb, keys[k]->metric);
		strbuf_addf(sb, ", median, %d cpu%s</h3>\n", keys[k]->cpus, keys[k]->cpus == 1 ? "" : "s");
		html_table_begin(sb, head.buf);
		strbuf_addf(sb, "%s</tr>\n%s</tr>\n", rows[0].buf, rows[1].buf);
		html_table_end(sb);
	}
	strbuf_addstr(sb, "</section>\n");
	free(keys);
	strbuf_release_all(&rows[0], &rows[1], &head);
}

/* How many memory sizes an experiment's verdicts are at. */
static int sweep_points(const struct verdict_list *l)
{
	int points = 0;

	for (size_t i = 0; i < l->nr; i++) {
		size_t j = 0;

		while (j < i && l->v[j].mem_mib != l->v[i].mem_mib)
			j++;
		points += j == i;
	}
	return points;
}

static int provenance_row(const struct store_report_variant *v, void *data)
{
	struct site_out *out = data;
	struct strbuf *sb = out->sb;

	strbuf_addstr(sb, "<tr><th scope=\"row\">");
	html_text(sb, v->name);
	strbuf_addstr(sb, "</th><td class=\"wrap\">");
	add_kernel(out->s, sb, v->git_ref, v->commit);
	strbuf_addstr(sb, "</td><td class=\"wrap\">");
	if (!v->path)
		strbuf_addstr(sb, "(this host)");
	else
		html_text(sb, v->path);
	strbuf_addstr(sb, "</td><td>");
	html_hash(sb, v->hash);
	strbuf_addstr(sb, "</td>");
	html_cell_text(sb, NULL, v->release);
	strbuf_addstr(sb, "<td class=\"wrap-s\"><code>");
	html_text(sb, v->cmdline);
	strbuf_addstr(sb, "</code></td><td class=\"wrap-s\">");
	for (size_t i = 0; i < v->nruns; i++)
		strbuf_addf(sb, "%s<a href=\"r%lld.html\">%lld</a>", i ? " " : "", v->runs[i],
			    v->runs[i]);
	strbuf_addstr(sb, "</td></tr>\n");
	return 0;
}

static int add_provenance(struct site *s, struct strbuf *sb, long long exp_id)
{
	struct site_out out = { s, sb };

	html_section_table(sb, "Provenance", "<th>Variant</th><th>Kernel: ref (commit) subject</th>"
			   "<th>Kernel image</th><th>Image hash</th><th>Release</th>"
			   "<th>Command line</th><th>Runs</th>");
	if (store_report_variants(s->st, exp_id, provenance_row, &out))
		return -1;
	html_section_end(sb);
	return 0;
}

/* The page and the experiment's events, which its header and its verdicts show. */
struct exp_page {
	struct page p;
	struct events_report ev;
};

static int experiment_header(const struct store_report_experiment *e, void *data)
{
	struct exp_page *ep = data;
	struct page *p = &ep->p;
	struct strbuf *sb = &p->sb, title = STRBUF_INIT;
	int ret;

	p->found = 1;
	strbuf_addf(&title, "Experiment E%lld", p->id);
	html_page_begin(sb, title.buf);
	strbuf_release(&title);
	if (add_headline(p->s, sb, p->id))
		return -1;
	strbuf_addstr(sb, "<dl class=\"facts\">\n");
	html_fact_badge(sb, "status", "s-", e->status);
	html_fact_text(sb, "workloads", e->workloads);
	html_fact_time(sb, "started", e->created);
	html_fact_time(sb, "finished", e->finished);
	strbuf_addstr(sb, "<dt>command</dt><dd><code>");
	html_text(sb, e->command);
	strbuf_addstr(sb, "</code></dd>\n");
	ret = add_clock(sb, p->s->st, p->id, 0);
	strbuf_addstr(sb, "<dt>measured</dt><dd class=\"measured\">");
	measured_words(&title, events_measured_all(&ep->ev));
	escape_html(sb, title.buf);
	strbuf_release(&title);
	strbuf_addstr(sb, "</dd>\n");
	for (size_t i = 0; i < ep->ev.npoints; i++) {
		const struct measured_point *m = &ep->ev.points[i];
		const char *none = events_no_counters(&ep->ev, m->mem_mib, m->cpus);

		if (none) {
			strbuf_addstr(sb, "<dt>counters</dt><dd class=\"measured\">");
			escape_html(sb, none);
			strbuf_addstr(sb, "</dd>\n");
			break;
		}
	}
	strbuf_addstr(sb, "</dl>\n");
	return ret;
}

/* What the experiment's page reads besides its header. */
struct exp_fill {
	struct exp_page ep;
	struct exp_samples es;
	struct verdict_list verdicts;
};

static int experiment_fill(struct page *p)
{
	struct exp_fill *f = (struct exp_fill *)p;
	struct site *s = p->s;
	long long id = p->id;

	if (events_report_load(&f->ep.ev, s->st, id) ||
	    store_report_experiment(s->st, id, experiment_header, &f->ep))
		return -1;
	if (!p->found)
		return 0;
	if (add_provenance(s, &p->sb, id) ||
	    store_experiment_ab_samples(s->st, id, exp_sample, &f->es) ||
	    store_verdicts_read(s->st, &f->verdicts, id))
		return -1;
	strbuf_addstr(&p->sb, "<section>\n<h2>Verdicts</h2>\n");
	for (size_t i = 0; i < f->verdicts.nr; i++)
		if (add_verdict(&p->sb, id, &f->es, &f->ep.ev, &f->verdicts.v[i]))
			return -1;
	if (!f->verdicts.nr)
		strbuf_addstr(&p->sb, "<p>No verdicts: the experiment has not finished.</p>\n");
	strbuf_addstr(&p->sb, "</section>\n");
	add_events(&p->sb, &f->ep.ev, "A", "B");
	if (sweep_points(&f->verdicts) > 1)
		add_sweep(&p->sb, &f->verdicts);
	return add_explanations(&p->sb, s->st, id) || add_runs_table(s, &p->sb, id, 0) ? -1 : 0;
}

int page_experiment(struct site *s, long long id)
{
	struct exp_fill f = { .ep = { .p = { .s = s, .sb = STRBUF_INIT, .id = id } } };
	int ret = page_put(&f.ep.p, 'e', experiment_fill);

	exp_samples_release(&f.es);
	verdict_list_release(&f.verdicts);
	events_report_release(&f.ep.ev);
	strbuf_release(&f.ep.p.sb);
	return ret;
}
