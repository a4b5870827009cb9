/* The index: recent experiments, nightlies, kernels measured more than once, recent runs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "escape.h"
#include "html.h"
#include "numbers.h"
#include "pages.h"
#include "stats.h"
#include "store-report.h"
#include "svg.h"
#include "textfmt.h"
#include "xalloc.h"

/*
 * The index's series over time: the median of each run of a kernel that
 * ran more than once, per metric. A series is one kernel on one command
 * line and machine size, so that a sweep or a changed boot option does not
 * show as a change of the kernel. Only the most recently measured series
 * and their latest runs are drawn, which keeps the index small and its
 * cost independent of the size of the database.
 */
#define SERIES_KERNELS	12	/* kernel, command line and size, most recent first */
#define SERIES_RUNS	40	/* latest runs per kernel */
#define SERIES_MAX	48	/* sparklines on the index */

struct series_kernel {
	long long id;
	int runs;			/* OK runs in the database */
	int commit;			/* label is a commit id */
	struct strbuf label, cmdline;	/* as stored, not escaped */
	long long mem, cpus;
};

struct series {
	struct metric_name name;
	size_t kernel;			/* index into series_kernel */
	long long latest_run;
	struct dvec t, y;
};

struct series_set {
	struct series_kernel k[SERIES_KERNELS];
	size_t nk;
	int cmdlines;			/* a kernel and size ran on several */
	struct series *s;
	size_t n, alloc;
};

static void series_set_release(struct series_set *set)
{
	for (size_t i = 0; i < set->nk; i++) {
		strbuf_release_all(&set->k[i].label, &set->k[i].cmdline);
	}
	for (size_t i = 0; i < set->n; i++) {
		metric_name_release(&set->s[i].name);
		dvec_release(&set->s[i].t);
		dvec_release(&set->s[i].y);
	}
	free(set->s);
}

static struct series *series_for(struct series_set *set, size_t kernel, const struct run_metric *m)
{
	struct series *sr;

	for (size_t i = 0; i < set->n; i++)
		if (set->s[i].kernel == kernel &&
		    metric_name_is(&set->s[i].name, m->name.workload, m->name.metric))
			return &set->s[i];
	ALLOC_GROW(set->s, set->n + 1, set->alloc);
	sr = &set->s[set->n++];
	memset(sr, 0, sizeof(*sr));
	metric_name_set(&sr->name, m->name.workload, m->name.metric, m->name.unit);
	sr->kernel = kernel;
	return sr;
}

static int series_cmp(const void *a, const void *b)
{
	const struct series *x = a, *y = b;
	int c = metric_name_cmp(&x->name, &y->name);

	return c ? c : (x->kernel > y->kernel) - (x->kernel < y->kernel);
}

struct series_runs {
	long long ids[SERIES_RUNS];
	double started[SERIES_RUNS];
	int n;
};

static int series_run(long long run_id, double started, void *data)
{
	struct series_runs *r = data;

	if (r->n == SERIES_RUNS)
		return 0;
	r->ids[r->n] = run_id;
	r->started[r->n++] = started;
	return 0;
}

/* The latest runs of set->k[i], oldest first, into its series. */
static int series_add_runs(struct site *s, struct series_set *set, size_t i)
{
	struct series_kernel *k = &set->k[i];
	struct store_series_kernel key = {
		.kernel_id = k->id,
		.cmdline = strbuf_str(&k->cmdline),
		.mem_mib = k->mem,
		.cpus = k->cpus,
	};
	struct series_runs r = { .n = 0 };
	int n;

	if (store_report_series_runs(s->st, &key, SERIES_RUNS, series_run, &r))
		return -1;
	n = r.n;
	while (n--) {
		struct run_metrics rm = { 0 };

		if (run_metrics_load(s, &rm, r.ids[n]))
			return -1;
		for (size_t j = 0; j < rm.n; j++) {
			struct stats_summary sum;
			struct series *sr;

			if (!rm.m[j].d.nr || stats_summarize(&sum, rm.m[j].d.v, rm.m[j].d.nr))
				continue;
			sr = series_for(set, i, &rm.m[j]);
			dvec_push(&sr->t, r.started[n]);
			dvec_push(&sr->y, sum.median);
			sr->latest_run = r.ids[n];
		}
		run_metrics_release(&rm);
	}
	return 0;
}

static int series_kernel(const struct store_series_kernel *row, void *data)
{
	struct series_set *set = data;
	struct series_kernel *k;

	if (set->nk == SERIES_KERNELS)
		return 0;
	k = &set->k[set->nk++];
	strbuf_init(&k->label, 0);
	strbuf_init(&k->cmdline, 0);
	k->id = row->kernel_id;
	strbuf_addstr(&k->cmdline, row->cmdline);
	k->mem = row->mem_mib;
	k->cpus = row->cpus;
	k->runs = row->runs;
	k->commit = *row->git_commit != '\0';
	strbuf_addstr(&k->label, k->commit ? row->git_commit : *row->release ? row->release :
		      row->path);
	return 0;
}

static int series_load(struct site *s, struct series_set *set)
{
	if (store_report_series_kernels(s->st, SERIES_KERNELS, series_kernel, set))
		return -1;
	for (size_t i = 0; i < set->nk; i++) {
		for (size_t j = 0; j < i; j++)
			if (set->k[i].id == set->k[j].id && set->k[i].mem == set->k[j].mem &&
			    set->k[i].cpus == set->k[j].cpus)
				set->cmdlines = 1;
		if (series_add_runs(s, set, i))
			return -1;
	}
	if (set->n > 1)
		qsort(set->s, set->n, sizeof(*set->s), series_cmp);
	return 0;
}

static void add_kernel_label(struct site *s, struct strbuf *sb, const struct series_kernel *k)
{
	if (k->commit)
		add_kernel(s, sb, NULL, strbuf_str(&k->label));
	else
		escape_html(sb, strbuf_str(&k->label));
}

/* Per metric, a table of its series: a sparkline each, its latest value beside it. */
static int add_series(struct site *s, struct strbuf *sb)
{
	struct series_set set = { 0 };
	struct strbuf title = STRBUF_INIT;
	const struct series *prev = NULL;
	size_t shown = 0, hidden = 0;

	if (series_load(s, &set)) {
		series_set_release(&set);
		return -1;
	}
	strbuf_addstr(sb, "<section>\n<h2>Kernels measured more than once</h2>\n");
	if (set.nk)
		strbuf_addf(sb, "<p>The median of each run over time, per metric: the latest %d runs "
			    "of the %zu kernels measured most recently, each on one command line "
			    "and memory size; the latest value links to its run. Each line's scale, its "
			    "ends written at its right, holds at least %g %% either side of the "
			    "line's median (the change a verdict in wall time calls the same), so "
			    "that a smaller wobble stays small.</p>\n", SERIES_RUNS, set.nk,
			    100 * STATS_DELTA_WALL);
	else
		strbuf_addstr(sb, "<p>No kernel has run more than once.</p>\n");
	for (size_t i = 0; i < set.n; i++) {
		const struct series *sr = &set.s[i];
		const struct series_kernel *k = &set.k[sr->kernel];
		struct stats_summary sum;
		char lo[64], hi[64];

		if (sr->y.nr < 2)
			continue;
		if (shown == SERIES_MAX || stats_summarize(&sum, sr->y.v, sr->y.nr)) {
			hidden++;
			continue;
		}
		if (!prev || metric_name_cmp(&prev->name, &sr->name)) {
			if (prev)
				html_table_end(sb);
			strbuf_addstr(sb, "<h3>");
			html_metric_name(sb, &sr->name);
			strbuf_addstr(sb, "</h3>\n");
			html_table_begin(sb, set.cmdlines ?
				    "<th>Kernel</th><th>Memory MiB</th><th>CPUs</th><th>Command line</th>"
				    "<th>Runs</th><th>Run medians over time</th><th>Latest</th>" :
				    "<th>Kernel</th><th>Memory MiB</th><th>CPUs</th>"
				    "<th>Runs</th><th>Run medians over time</th><th>Latest</th>");
		}
		prev = sr;
		shown++;
		strbuf_addstr(sb, "<tr><td>");
		add_kernel_label(s, sb, k);
		strbuf_addf(sb, "</td><td class=\"num\">%lld</td><td class=\"num\">%lld</td>",
			    k->mem, k->cpus);
		if (set.cmdlines) {
			strbuf_addstr(sb, "<td class=\"wrap\"><code>");
			escape_html(sb, strbuf_str(&k->cmdline));
			strbuf_addstr(sb, "</code></td>");
		}
		strbuf_addf(sb, "<td class=\"num\">%zu of %d</td><td>", sr->y.nr, k->runs);
		strbuf_reset(&title);
		textfmt_quantity(lo, sizeof(lo), sum.min, sr->name.unit, sum.min);
		textfmt_quantity(hi, sizeof(hi), sum.max, sr->name.unit, sum.min);
		strbuf_addf(&title, "%s.%s of %s%.*s: medians of %zu runs, from %s to %s; scale at "
			    "least %g %% either side of their median", sr->name.workload,
			    sr->name.metric, k->commit ? "commit " : "",
			    k->commit ? 12 : (int)k->label.len, strbuf_str(&k->label), sr->y.nr, lo, hi,
			    100 * STATS_DELTA_WALL);
		svg_sparkline(sb, sr->t.v, sr->y.v, sr->y.nr, STATS_DELTA_WALL, title.buf);
		strbuf_addf(sb, "</td><td class=\"num\"><a href=\"r%lld.html\">", sr->latest_run);
		numbers_quantity(sb, sr->y.v[sr->y.nr - 1], sr->name.unit, sr->y.v[sr->y.nr - 1]);
		strbuf_addstr(sb, "</a></td></tr>\n");
	}
	if (prev)
		html_table_end(sb);
	if (hidden)
		strbuf_addf(sb, "<p>%zu more series not drawn.</p>\n", hidden);
	strbuf_addstr(sb, "</section>\n");
	strbuf_release(&title);
	series_set_release(&set);
	return 0;
}

static int index_experiment(const struct store_report_experiment_summary *e, void *data)
{
	struct site_out *out = data;
	struct strbuf *sb = out->sb;
	int bisect = !strcmp(e->kind, "bisect");

	strbuf_addf(sb, "<tr><td><a href=\"%c%lld.html\">E%lld</a></td><td class=\"wrap lead\">",
		    bisect ? 'b' : 'e', e->id, e->id);
	add_worst(out->s, sb, e);
	strbuf_addstr(sb, "</td>");
	html_cell_text(sb, NULL, e->kind);
	html_cell_badge(sb, "s-", e->status);
	html_cell_time(sb, e->created);
	strbuf_addstr(sb, "<td class=\"wrap\">");
	if (bisect && *e->good) {
		strbuf_addstr(sb, "good ");
		add_kernel(out->s, sb, e->good_ref, e->good);
		strbuf_addstr(sb, "<br/>bad ");
		add_kernel(out->s, sb, e->bad_ref, e->bad);
	} else {
		html_text(sb, e->workloads);
	}
	strbuf_addstr(sb, "</td></tr>\n");
	return 0;
}

/*
 * What needs a look first: the regressions A/Bs found (nightly
 * confirmations among them) and the culprits of bisections; then every
 * experiment, newest first.
 */
static int add_experiments(struct site *s, struct strbuf *sb, int regressions)
{
	struct site_out out = { s, sb };
	size_t start = sb->len;

	strbuf_addstr(sb, regressions ? "<section class=\"attention\">\n<h2>Regressions and culprits</h2>\n"
				       : "<section>\n<h2>Recent experiments</h2>\n");
	html_table_begin(sb, "<th>Experiment</th><th title=\"the worst metric: a regression's "
		    "largest change, else an improvement's, else the largest change\">Worst "
		    "change</th><th>Kind</th><th>Status</th><th>Started</th><th>Workloads, or the "
		    "ends</th>");
	if (regressions) {
		size_t before = sb->len;

		if (store_report_experiments(s->st, 10, 1, index_experiment, &out))
			return -1;
		/* none: no section */
		if (sb->len == before) {
			strbuf_setlen(sb, start);
			return 0;
		}
	} else if (store_report_experiments(s->st, s->opt->recent, 0, index_experiment, &out)) {
		return -1;
	}
	html_section_end(sb);
	return 0;
}

/* A run's kernel: its commit, else the image's file name with its path as the title. */
static void add_run_kernel(struct site *s, struct strbuf *sb, const char *kernel,
			   const char *ref)
{
	const char *base = strrchr(kernel, '/');

	if (strlen(kernel) == 40 && strspn(kernel, "0123456789abcdef") == 40) {
		add_kernel(s, sb, ref, kernel);
	} else if (base && base[1]) {
		strbuf_addstr(sb, "<span title=\"");
		escape_html(sb, kernel);
		strbuf_addstr(sb, "\">");
		escape_html(sb, base + 1);
		strbuf_addstr(sb, "</span>");
	} else {
		html_text(sb, kernel);
	}
}

static int index_run(const struct store_report_run_summary *r, void *data)
{
	struct site_out *out = data;
	struct strbuf *sb = out->sb;

	strbuf_addf(sb, "<tr><td><a href=\"r%lld.html\">%lld</a></td>", r->id, r->id);
	html_cell_time(sb, r->started);
	html_cell_badge(sb, "s-", r->status);
	html_cell_text(sb, NULL, r->runner);
	html_cell_text(sb, NULL, r->workloads);
	strbuf_addstr(sb, "<td>");
	if (r->experiment_kind)
		strbuf_addf(sb, "<a href=\"%c%lld.html\">E%lld</a>",
			    !strcmp(r->experiment_kind, "bisect") ? 'b' : 'e', r->experiment_id,
			    r->experiment_id);
	else
		strbuf_addstr(sb, "&#8211;");
	strbuf_addstr(sb, "</td><td>");
	html_variant(sb, r->variant, r->experiment_kind &&
		     !strcmp(r->experiment_kind, "bisect"));
	strbuf_addstr(sb, "</td><td class=\"wrap-s\">");
	add_run_kernel(out->s, sb, r->kernel, r->git_ref);
	strbuf_addstr(sb, "</td>");
	html_cell_text(sb, "wrap", r->error);
	strbuf_addstr(sb, "</tr>\n");
	return 0;
}

static int index_nightly(const struct store_report_nightly *n, void *data)
{
	struct strbuf *sb = data;

	strbuf_addf(sb, "<tr><td><a href=\"n%lld.html\">", n->id);
	escape_html(sb, n->name);
	strbuf_addf(sb, "</a></td><td class=\"num\">%lld</td>", n->nights);
	html_cell_time(sb, n->last_started);
	html_cell_badge(sb, "s-", n->last_status);
	strbuf_addf(sb, "<td class=\"num\">%lld</td><td class=\"num\">%lld</td>"
		    "<td class=\"wrap-s lead\">", n->series, n->changes);
	if (*n->worst_kind) {
		strbuf_addstr(sb, "<strong class=\"metric\">");
		html_text(sb, n->worst_metric);
		strbuf_addstr(sb, "</strong> ");
		if (isfinite(n->worst_ratio) && n->worst_ratio > 0) {
			char change[48];

			textfmt_ratio(change, sizeof(change), n->worst_ratio);
			strbuf_addstr(sb, "<span class=\"change\">");
			escape_html(sb, change);
			strbuf_addstr(sb, "</span> ");
		}
		html_badge(sb, "v-", *n->worst_verdict ? n->worst_verdict : n->worst_kind);
	} else {
		strbuf_addstr(sb, "&#8211;");
	}
	strbuf_addstr(sb, "</td></tr>\n");
	return 0;
}

/* The nightlies, each linked to its page; nothing when there is none. */
static int add_nightlies(struct site *s, struct strbuf *sb)
{
	struct strbuf rows = STRBUF_INIT;
	int ret = store_report_nightlies(s->st, index_nightly, &rows);

	if (!ret && rows.len) {
		html_section_table(sb, "Nightlies", "<th>Nightly</th><th>Nights</th>"
				   "<th>Newest night</th><th>Status</th><th>Series</th><th>Changes</th>"
				   "<th>Worst change</th>");
		strbuf_addstr(sb, rows.buf);
		html_section_end(sb);
	}
	strbuf_release(&rows);
	return ret;
}

/* The index: recent experiments, nightlies and runs. */
int page_index(struct site *s)
{
	struct strbuf sb = STRBUF_INIT;
	struct site_out runs = { s, &sb };
	int ret = -1;

	if (store_read_begin(s->st))
		return -1;
	html_page_begin(&sb, "Experiments and runs");
	if (add_experiments(s, &sb, 1) || add_experiments(s, &sb, 0))
		goto out;
	if (add_nightlies(s, &sb) || add_series(s, &sb))
		goto out;
	html_section_table(&sb, "Recent runs", "<th>Run</th><th>Started</th><th>Status</th>"
			   "<th>Runner</th><th>Workloads</th><th>Experiment</th><th>Variant</th>"
			   "<th>Kernel</th><th>Error</th>");
	if (store_report_runs(s->st, s->opt->recent, index_run, &runs))
		goto out;
	html_table_end(&sb);
	html_variants_legend(&sb);
	strbuf_addstr(&sb, "</section>\n");
	html_page_end(&sb);
	ret = 0;
out:
	store_read_end(s->st);
	if (!ret)
		ret = site_put(s, "index.html", sb.buf, sb.len);
	strbuf_release(&sb);
	return ret;
}
