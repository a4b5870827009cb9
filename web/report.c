/*
 * The static HTML report: pages from the database, written only when their
 * bytes change. Plots are in svg.c; numbers for the box plots and run
 * summaries come from stats.c.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "atomicfile.h"
#include "escape.h"
#include "log.h"
#include "protocol.h"
#include "report.h"
#include "stats.h"
#include "store-experiment.h"
#include "store-report.h"
#include "store-verdict.h"
#include "svg.h"
#include "xalloc.h"

/* A console log's tail as shown on its run page. */
#define LOG_TAIL_BYTES 8192

struct page_ids;

/* What the threads writing pages share. */
struct site_work {
	pthread_mutex_t lock;		/* next and failed */
	pthread_mutex_t files;		/* creating and renaming files in the site */
	const struct page_ids *pages;
	size_t next;			/* the next page to write */
	int failed;
};

struct site {
	struct store *st;		/* this thread's */
	const struct report_options *opt;
	struct report_stats *stats;
	struct site_work *work;		/* NULL until pages are written in threads */
};

struct doubles {
	double *v;
	size_t n, alloc;
};

static void doubles_push(struct doubles *d, double x)
{
	if (d->n == d->alloc) {
		d->alloc = d->alloc ? 2 * d->alloc : 64;
		d->v = xrealloc(d->v, d->alloc * sizeof(*d->v));
	}
	d->v[d->n++] = x;
}

static void doubles_release(struct doubles *d)
{
	free(d->v);
	d->v = NULL;
	d->n = d->alloc = 0;
}

/* Text from the database, escaped; a dash when there is none. */
static void add_text(struct strbuf *sb, const char *text)
{
	if (!text || !*text)
		strbuf_addstr(sb, "&#8211;");
	else
		escape_html(sb, text);
}

static void add_num(struct strbuf *sb, double v)
{
	if (isfinite(v))
		strbuf_addf(sb, "%.6g", v);
	else
		strbuf_addstr(sb, "&#8211;");
}

/* A count that may not be recorded (< 0). */
static void add_count(struct strbuf *sb, long long v)
{
	if (v < 0)
		strbuf_addstr(sb, "&#8211;");
	else
		strbuf_addf(sb, "%lld", v);
}

static void add_time(struct strbuf *sb, double epoch)
{
	char when[32];
	time_t t = (time_t)epoch;
	struct tm tm;

	if (!isfinite(epoch)) {
		strbuf_addstr(sb, "&#8211;");
		return;
	}
	localtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	strbuf_addstr(sb, when);
}

/* A word as a class name: prefix, then its letters and digits in lower case. */
static void add_class(struct strbuf *sb, const char *prefix, const char *word)
{
	strbuf_addstr(sb, prefix);
	for (; word && *word; word++)
		if (isalnum((unsigned char)*word))
			strbuf_addch(sb, tolower((unsigned char)*word));
}

/* A verdict, outcome or status: the word itself, coloured by its class. */
static void add_badge(struct strbuf *sb, const char *prefix, const char *word)
{
	strbuf_addstr(sb, "<span class=\"badge ");
	add_class(sb, prefix, word);
	strbuf_addstr(sb, "\">");
	if (word && *word)
		escape_html(sb, word);
	else
		strbuf_addstr(sb, "&#8211;");
	strbuf_addstr(sb, "</span>");
}

static void add_short_commit(struct strbuf *sb, const char *hex)
{
	struct strbuf c = STRBUF_INIT;

	strbuf_add(&c, hex, strnlen(hex, 12));
	strbuf_addstr(sb, "<code>");
	escape_html(sb, c.buf ? c.buf : "");
	strbuf_addstr(sb, "</code>");
	strbuf_release(&c);
}

/* Subjects as stored when the commit was measured: the repository may be gone. */
static void add_subject(struct site *s, struct strbuf *sb, const char *commit)
{
	struct strbuf subject = STRBUF_INIT;
	int found = 0;

	if (commit && *commit && store_commit_subject(s->st, &subject, &found, commit))
		found = 0;
	if (found) {
		strbuf_addstr(sb, "<span class=\"subject\">");
		escape_html(sb, strbuf_str(&subject));
		strbuf_addstr(sb, "</span>");
	} else {
		strbuf_addstr(sb, "&#8211;");
	}
	strbuf_release(&subject);
}

static void page_begin(struct strbuf *sb, const char *title)
{
	strbuf_addstr(sb, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
		      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n<title>");
	escape_html(sb, title);
	strbuf_addstr(sb, " &#8211; lab</title>\n<link rel=\"stylesheet\" href=\"style.css\"/>\n"
		      "</head>\n<body>\n<header><nav><a href=\"index.html\">lab results</a></nav></header>\n"
		      "<main>\n<h1>");
	escape_html(sb, title);
	strbuf_addstr(sb, "</h1>\n");
}

static void page_end(struct strbuf *sb)
{
	strbuf_addstr(sb, "</main>\n</body>\n</html>\n");
}

/* Tables scroll sideways inside their wrapper on a narrow screen. */
static void table_begin(struct strbuf *sb, const char *head)
{
	strbuf_addf(sb, "<div class=\"scroll\"><table>\n<thead><tr>%s</tr></thead>\n<tbody>\n", head);
}

static void table_end(struct strbuf *sb)
{
	strbuf_addstr(sb, "</tbody></table></div>\n");
}

/* Replace out_dir/name with data unless it holds those bytes already. */
static int site_put(struct site *s, const char *name, const char *data, size_t len)
{
	struct strbuf path = STRBUF_INIT, old = STRBUF_INIT;
	struct stat st;
	int ret = 0;

	strbuf_addf(&path, "%s/%s", s->opt->out_dir, name);
	if (!stat(path.buf, &st) && S_ISREG(st.st_mode) && (size_t)st.st_size == len &&
	    !strbuf_read_file(&old, path.buf, 0) && old.len == len &&
	    (!len || !memcmp(old.buf, data, len))) {
		s->stats->unchanged++;
		goto out;
	}
	/*
	 * The file system serializes creating files in one directory anyway;
	 * a thread waiting here sleeps, where waiting for the directory's lock
	 * in the kernel spins and takes a core from the threads building pages.
	 */
	if (s->work)
		pthread_mutex_lock(&s->work->files);
	ret = atomic_write_buf(path.buf, 0644, 0, NULL, data, len);
	if (s->work)
		pthread_mutex_unlock(&s->work->files);
	if (!ret)
		s->stats->written++;
out:
	strbuf_release(&old);
	strbuf_release(&path);
	return ret;
}

static int ensure_dir(const char *path)
{
	if (mkdir(path, 0755) && errno != EEXIST)
		return error("cannot create directory '%s': %s", path, strerror(errno));
	return 0;
}

/* One run's samples of one metric, warm-up counted apart. */
struct run_metric {
	char *workload, *metric, *unit;
	struct doubles d;
	int warm;
};

struct run_metrics {
	struct run_metric *m;
	size_t n, alloc;
	struct run_metric *cur;		/* while loading: the last sample's */
};

static void run_metrics_release(struct run_metrics *rm)
{
	for (size_t i = 0; i < rm->n; i++) {
		free(rm->m[i].workload);
		free(rm->m[i].metric);
		free(rm->m[i].unit);
		doubles_release(&rm->m[i].d);
	}
	free(rm->m);
	memset(rm, 0, sizeof(*rm));
}

static int run_metric_cmp(const void *a, const void *b)
{
	const struct run_metric *x = a, *y = b;
	int c = strcmp(x->workload, y->workload);

	return c ? c : strcmp(x->metric, y->metric);
}

/*
 * A run's samples per metric, the metrics in name order. They are read in
 * the order of the run's index and grouped here, which is cheaper than
 * having sqlite sort them for each of thousands of runs.
 */
static int run_metric_sample(const struct sample *smp, void *data)
{
	struct run_metrics *rm = data;
	struct run_metric *cur = rm->cur;

	if (!cur || strcmp(cur->metric, smp->metric) || strcmp(cur->workload, smp->workload)) {
		cur = NULL;
		for (size_t i = 0; i < rm->n && !cur; i++)
			if (!strcmp(rm->m[i].metric, smp->metric) &&
			    !strcmp(rm->m[i].workload, smp->workload))
				cur = &rm->m[i];
	}
	if (!cur) {
		if (rm->n == rm->alloc) {
			rm->alloc = rm->alloc ? 2 * rm->alloc : 8;
			rm->m = xrealloc(rm->m, rm->alloc * sizeof(*rm->m));
		}
		cur = &rm->m[rm->n++];
		memset(cur, 0, sizeof(*cur));
		cur->workload = xstrdup(smp->workload);
		cur->metric = xstrdup(smp->metric);
		cur->unit = xstrdup(smp->unit);
	}
	if (smp->flags & SAMPLE_WARMUP)
		cur->warm++;
	else
		doubles_push(&cur->d, smp->value);
	rm->cur = cur;
	return 0;
}

static int run_metrics_load(struct site *s, struct run_metrics *rm, long long run_id)
{
	if (store_run_samples(s->st, run_id, run_metric_sample, rm))
		return -1;
	rm->cur = NULL;
	if (rm->n > 1)
		qsort(rm->m, rm->n, sizeof(*rm->m), run_metric_cmp);
	return 0;
}

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
	char *workload, *metric, *unit;
	size_t kernel;			/* index into series_kernel */
	long long latest_run;
	struct doubles t, y;
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
		strbuf_release(&set->k[i].label);
		strbuf_release(&set->k[i].cmdline);
	}
	for (size_t i = 0; i < set->n; i++) {
		free(set->s[i].workload);
		free(set->s[i].metric);
		free(set->s[i].unit);
		doubles_release(&set->s[i].t);
		doubles_release(&set->s[i].y);
	}
	free(set->s);
}

static struct series *series_for(struct series_set *set, size_t kernel, const struct run_metric *m)
{
	struct series *sr;

	for (size_t i = 0; i < set->n; i++)
		if (set->s[i].kernel == kernel && !strcmp(set->s[i].metric, m->metric) &&
		    !strcmp(set->s[i].workload, m->workload))
			return &set->s[i];
	if (set->n == set->alloc) {
		set->alloc = set->alloc ? 2 * set->alloc : 16;
		set->s = xrealloc(set->s, set->alloc * sizeof(*set->s));
	}
	sr = &set->s[set->n++];
	memset(sr, 0, sizeof(*sr));
	sr->workload = xstrdup(m->workload);
	sr->metric = xstrdup(m->metric);
	sr->unit = xstrdup(m->unit);
	sr->kernel = kernel;
	return sr;
}

static int series_cmp(const void *a, const void *b)
{
	const struct series *x = a, *y = b;
	int c = strcmp(x->workload, y->workload);

	if (!c)
		c = strcmp(x->metric, y->metric);
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

			if (!rm.m[j].d.n || stats_summarize(&sum, rm.m[j].d.v, rm.m[j].d.n))
				continue;
			sr = series_for(set, i, &rm.m[j]);
			doubles_push(&sr->t, r.started[n]);
			doubles_push(&sr->y, sum.median);
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

static void add_kernel_label(struct strbuf *sb, const struct series_kernel *k)
{
	if (k->commit)
		add_short_commit(sb, strbuf_str(&k->label));
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
			    "and memory size; the latest value links to its run.</p>\n", SERIES_RUNS,
			    set.nk);
	else
		strbuf_addstr(sb, "<p>No kernel has run more than once.</p>\n");
	for (size_t i = 0; i < set.n; i++) {
		const struct series *sr = &set.s[i];
		const struct series_kernel *k = &set.k[sr->kernel];
		struct stats_summary sum;

		if (sr->y.n < 2)
			continue;
		if (shown == SERIES_MAX || stats_summarize(&sum, sr->y.v, sr->y.n)) {
			hidden++;
			continue;
		}
		if (!prev || strcmp(prev->workload, sr->workload) || strcmp(prev->metric, sr->metric)) {
			if (prev)
				table_end(sb);
			strbuf_addstr(sb, "<h3>");
			escape_html(sb, sr->workload);
			strbuf_addch(sb, '.');
			escape_html(sb, sr->metric);
			strbuf_addstr(sb, "</h3>\n");
			table_begin(sb, set.cmdlines ?
				    "<th>Kernel</th><th>Memory MiB</th><th>CPUs</th><th>Command line</th>"
				    "<th>Runs</th><th>Run medians over time</th><th>Latest</th>" :
				    "<th>Kernel</th><th>Memory MiB</th><th>CPUs</th>"
				    "<th>Runs</th><th>Run medians over time</th><th>Latest</th>");
		}
		prev = sr;
		shown++;
		strbuf_addstr(sb, "<tr><td>");
		add_kernel_label(sb, k);
		strbuf_addf(sb, "</td><td class=\"num\">%lld</td><td class=\"num\">%lld</td>",
			    k->mem, k->cpus);
		if (set.cmdlines) {
			strbuf_addstr(sb, "<td class=\"wrap\"><code>");
			escape_html(sb, strbuf_str(&k->cmdline));
			strbuf_addstr(sb, "</code></td>");
		}
		strbuf_addf(sb, "<td class=\"num\">%zu of %d</td><td>", sr->y.n, k->runs);
		strbuf_reset(&title);
		strbuf_addf(&title, "%s.%s of %s%.*s: medians of %zu runs, from %.6g to %.6g ",
			    sr->workload, sr->metric, k->commit ? "commit " : "",
			    k->commit ? 12 : (int)k->label.len, strbuf_str(&k->label), sr->y.n, sum.min,
			    sum.max);
		strbuf_addstr(&title, sr->unit);
		svg_sparkline(sb, sr->t.v, sr->y.v, sr->y.n, title.buf);
		strbuf_addf(sb, "</td><td class=\"num\"><a href=\"r%lld.html\">", sr->latest_run);
		add_num(sb, sr->y.v[sr->y.n - 1]);
		strbuf_addstr(sb, "</a> ");
		escape_html(sb, sr->unit);
		strbuf_addstr(sb, "</td></tr>\n");
	}
	if (prev)
		table_end(sb);
	if (hidden)
		strbuf_addf(sb, "<p>%zu more series not drawn.</p>\n", hidden);
	strbuf_addstr(sb, "</section>\n");
	strbuf_release(&title);
	series_set_release(&set);
	return 0;
}

static int index_experiment(const struct store_report_experiment_summary *e, void *data)
{
	struct strbuf *sb = data;
	int bisect = !strcmp(e->kind, "bisect");

	strbuf_addf(sb, "<tr><td><a href=\"%c%lld.html\">E%lld</a></td><td>", bisect ? 'b' : 'e',
		    e->id, e->id);
	add_text(sb, e->kind);
	strbuf_addstr(sb, "</td><td>");
	add_badge(sb, "s-", e->status);
	strbuf_addstr(sb, "</td><td>");
	add_text(sb, e->workloads);
	strbuf_addstr(sb, "</td><td>");
	add_time(sb, e->created);
	strbuf_addstr(sb, "</td><td>");
	add_badge(sb, "v-", e->verdict);
	strbuf_addstr(sb, "</td><td>");
	add_text(sb, e->detail);
	if (bisect && *e->culprit) {
		strbuf_addstr(sb, ", culprit ");
		add_short_commit(sb, e->culprit);
	}
	strbuf_addstr(sb, "</td></tr>\n");
	return 0;
}

static int index_run(const struct store_report_run_summary *r, void *data)
{
	struct strbuf *sb = data;

	strbuf_addf(sb, "<tr><td><a href=\"r%lld.html\">%lld</a></td><td>", r->id, r->id);
	add_time(sb, r->started);
	strbuf_addstr(sb, "</td><td>");
	add_badge(sb, "s-", r->status);
	strbuf_addstr(sb, "</td><td>");
	add_text(sb, r->runner);
	strbuf_addstr(sb, "</td><td>");
	add_text(sb, r->workloads);
	strbuf_addstr(sb, "</td><td>");
	if (r->experiment_kind)
		strbuf_addf(sb, "<a href=\"%c%lld.html\">E%lld</a>",
			    !strcmp(r->experiment_kind, "bisect") ? 'b' : 'e', r->experiment_id,
			    r->experiment_id);
	else
		strbuf_addstr(sb, "&#8211;");
	strbuf_addstr(sb, "</td><td>");
	add_text(sb, r->variant);
	strbuf_addstr(sb, "</td><td class=\"wrap\">");
	add_text(sb, r->kernel);
	strbuf_addstr(sb, "</td><td class=\"wrap\">");
	add_text(sb, r->error);
	strbuf_addstr(sb, "</td></tr>\n");
	return 0;
}

/* The index: recent experiments and runs. */
static int write_index(struct site *s)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = -1;

	if (store_read_begin(s->st))
		return -1;
	page_begin(&sb, "Experiments and runs");
	strbuf_addstr(&sb, "<section>\n<h2>Recent experiments</h2>\n");
	table_begin(&sb, "<th>Experiment</th><th>Kind</th><th>Status</th><th>Workloads</th>"
		    "<th>Started</th><th>Verdict</th><th>Detail</th>");
	if (store_report_experiments(s->st, s->opt->recent, index_experiment, &sb))
		goto out;
	table_end(&sb);
	strbuf_addstr(&sb, "</section>\n");
	if (add_series(s, &sb))
		goto out;
	strbuf_addstr(&sb, "<section>\n<h2>Recent runs</h2>\n");
	table_begin(&sb, "<th>Run</th><th>Started</th><th>Status</th><th>Runner</th><th>Workloads</th>"
		    "<th>Experiment</th><th>Variant</th><th>Kernel</th><th>Error</th>");
	if (store_report_runs(s->st, s->opt->recent, index_run, &sb))
		goto out;
	table_end(&sb);
	strbuf_addstr(&sb, "</section>\n");
	page_end(&sb);
	ret = 0;
out:
	store_read_end(s->st);
	if (!ret)
		ret = site_put(s, "index.html", sb.buf, sb.len);
	strbuf_release(&sb);
	return ret;
}

static int runs_table_row(const struct store_report_experiment_run *r, void *data)
{
	struct strbuf *sb = data;

	strbuf_addf(sb, "<tr><td><a href=\"r%lld.html\">%lld</a></td><td>", r->id, r->id);
	add_text(sb, r->variant);
	strbuf_addstr(sb, "</td><td>");
	add_badge(sb, "s-", r->status);
	strbuf_addstr(sb, "</td><td>");
	add_time(sb, r->started);
	strbuf_addstr(sb, "</td><td>");
	add_count(sb, r->mem_mib);
	strbuf_addstr(sb, "</td><td>");
	add_count(sb, r->cpus);
	strbuf_addstr(sb, "</td><td class=\"wrap\">");
	add_text(sb, r->error);
	strbuf_addstr(sb, "</td></tr>\n");
	return 0;
}

/* The runs of an experiment, each linked to its page. */
static int add_runs_table(struct site *s, struct strbuf *sb, long long exp_id)
{
	strbuf_addstr(sb, "<section>\n<h2>Runs</h2>\n");
	table_begin(sb, "<th>Run</th><th>Variant</th><th>Status</th><th>Started</th>"
		    "<th>Memory MiB</th><th>CPUs</th><th>Error</th>");
	if (store_report_experiment_runs(s->st, exp_id, runs_table_row, sb))
		return -1;
	table_end(sb);
	strbuf_addstr(sb, "</section>\n");
	return 0;
}

/*
 * The samples of an experiment's OK runs, warm-up left out, read in one
 * query and split per verdict here: a query per verdict and side would
 * visit every sample of the experiment once for each of them.
 */
struct exp_sample {
	const char *workload, *metric;	/* interned in exp_samples.names */
	long long mem, cpus;
	int side;			/* 0 A, 1 B */
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
	if (es->nnames == es->names_alloc) {
		es->names_alloc = es->names_alloc ? 2 * es->names_alloc : 8;
		es->names = xrealloc(es->names, es->names_alloc * sizeof(*es->names));
	}
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

	if (es->n == es->alloc) {
		es->alloc = es->alloc ? 2 * es->alloc : 256;
		es->v = xrealloc(es->v, es->alloc * sizeof(*es->v));
	}
	e = &es->v[es->n++];
	e->side = smp->side;
	e->workload = intern(es, smp->workload);
	e->metric = intern(es, smp->metric);
	e->mem = smp->mem_mib;
	e->cpus = smp->cpus;
	e->value = smp->value;
	return 0;
}

/* The samples of one side of verdict v, in the order they were stored. */
static void exp_samples_side(struct doubles *out, const struct exp_samples *es, int side,
			     const struct verdict_row *v)
{
	for (size_t i = 0; i < es->n; i++) {
		const struct exp_sample *e = &es->v[i];

		if (e->side == side && e->mem == v->mem_mib && e->cpus == v->cpus &&
		    !strcmp(e->metric, v->metric) && !strcmp(e->workload, v->workload))
			doubles_push(out, e->value);
	}
}

static void add_ab_row(struct strbuf *sb, const char *label, double a, double b)
{
	strbuf_addf(sb, "<tr><th scope=\"row\">%s</th><td class=\"num\">", label);
	add_num(sb, a);
	strbuf_addstr(sb, "</td><td class=\"num\">");
	add_num(sb, b);
	strbuf_addstr(sb, "</td></tr>\n");
}

static int add_verdict(struct strbuf *sb, long long exp_id, const struct exp_samples *es,
		       const struct verdict_row *v)
{
	struct doubles a = { 0 }, b = { 0 };
	struct strbuf title = STRBUF_INIT;
	int ret = -1;

	strbuf_addf(&title, "%s.%s, %lldM, %d cpu(s)", v->workload, v->metric, v->mem_mib, v->cpus);
	strbuf_addstr(sb, "<section class=\"metric\">\n<h3>");
	escape_html(sb, title.buf);
	strbuf_addstr(sb, " ");
	add_badge(sb, "v-", v->verdict);
	strbuf_addstr(sb, "</h3>\n<p>");
	add_text(sb, v->unit);
	strbuf_addstr(sb, ", ");
	add_text(sb, v->direction);
	strbuf_addstr(sb, " is better; compared: ");
	add_text(sb, v->unit_compared);
	strbuf_addstr(sb, "</p>\n");
	table_begin(sb, "<th></th><th>A</th><th>B</th>");
	strbuf_addf(sb, "<tr><th scope=\"row\">Number of iterations</th><td class=\"num\">%d</td>"
		    "<td class=\"num\">%d</td></tr>\n", (int)v->n_a, (int)v->n_b);
	add_ab_row(sb, "Mean", v->mean_a, v->mean_b);
	add_ab_row(sb, "std deviation", v->std_a, v->std_b);
	add_ab_row(sb, "median", v->median_a, v->median_b);
	table_end(sb);
	strbuf_addstr(sb, "<dl class=\"facts\">\n<dt>B/A ratio</dt><dd class=\"ratio\">");
	if (isfinite(v->ratio)) {
		char ci[32];

		stats_ci_label(ci, sizeof(ci), v->alpha);
		strbuf_addf(sb, "%.4f (%+.2f %%), %s [%.4f, %.4f]", v->ratio, 100 * (v->ratio - 1), ci,
			    v->ci_low, v->ci_high);
	} else {
		strbuf_addstr(sb, "not compared: a side has values that are not all positive");
	}
	strbuf_addstr(sb, "</dd>\n<dt>p</dt><dd>");
	add_num(sb, v->p);
	strbuf_addstr(sb, "</dd>\n<dt>adjusted p</dt><dd>");
	add_num(sb, v->p_adjusted);
	strbuf_addstr(sb, "</dd>\n<dt>MDE</dt><dd>");
	if (isfinite(v->mde))
		strbuf_addf(sb, "%.2f %%", 100 * v->mde);
	else
		strbuf_addstr(sb, "&#8211;");
	strbuf_addf(sb, "</dd>\n<dt>verdict</dt><dd class=\"verdict\">");
	add_badge(sb, "v-", v->verdict);
	strbuf_addf(sb, " (alpha %.3g, delta %.3g %%)</dd>\n</dl>\n", v->alpha, 100 * v->delta);
	exp_samples_side(&a, es, 0, v);
	exp_samples_side(&b, es, 1, v);
	{
		struct svg_series series[2] = {
			{ "A", "side-a", a.v, a.n },
			{ "B", "side-b", b.v, b.n },
		};
		strbuf_addstr(&title, ": samples of A and B");
		if (svg_distributions(sb, series, 2, v->unit, title.buf)) {
			error("cannot summarize the samples of E%lld %s.%s", exp_id, v->workload,
			      v->metric);
			goto out;
		}
	}
	strbuf_addstr(sb, "</section>\n");
	ret = 0;
out:
	doubles_release(&a);
	doubles_release(&b);
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
		for (size_t i = 0; i < l->nr; i++) {
			const struct verdict_row *v = &l->v[i];
			double a = v->median_a, b = v->median_b;

			if (!same_sweep(v, keys[k]))
				continue;
			strbuf_addf(&head, "<th>%lldM</th>", v->mem_mib);
			strbuf_addstr(&rows[0], "<td class=\"num\">");
			add_num(&rows[0], a);
			strbuf_addstr(&rows[0], "</td>");
			strbuf_addstr(&rows[1], "<td class=\"num\">");
			add_num(&rows[1], b);
			if (isfinite(a) && isfinite(b) && a != 0)
				strbuf_addf(&rows[1], " (%+.1f %%)", 100 * (b / a - 1));
			strbuf_addstr(&rows[1], " ");
			add_badge(&rows[1], "v-", v->verdict);
			strbuf_addstr(&rows[1], "</td>");
		}
		strbuf_addstr(sb, "<h3>");
		escape_html(sb, keys[k]->workload);
		strbuf_addch(sb, '.');
		escape_html(sb, keys[k]->metric);
		strbuf_addstr(sb, ", median ");
		escape_html(sb, keys[k]->unit);
		strbuf_addf(sb, ", %d cpu(s)</h3>\n", keys[k]->cpus);
		table_begin(sb, head.buf);
		strbuf_addf(sb, "%s</tr>\n%s</tr>\n", rows[0].buf, rows[1].buf);
		table_end(sb);
	}
	strbuf_addstr(sb, "</section>\n");
	free(keys);
	strbuf_release(&rows[0]);
	strbuf_release(&rows[1]);
	strbuf_release(&head);
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
	struct strbuf *sb = data;

	strbuf_addstr(sb, "<tr><th scope=\"row\">");
	add_text(sb, v->name);
	strbuf_addstr(sb, "</th><td>");
	add_text(sb, v->git_ref);
	strbuf_addstr(sb, "</td><td>");
	if (*v->commit)
		add_short_commit(sb, v->commit);
	else
		strbuf_addstr(sb, "&#8211;");
	strbuf_addstr(sb, "</td><td class=\"wrap\">");
	if (!v->path)
		strbuf_addstr(sb, "(this host)");
	else
		add_text(sb, v->path);
	strbuf_addstr(sb, "</td><td>");
	if (*v->hash)
		add_short_commit(sb, v->hash);
	else
		strbuf_addstr(sb, "&#8211;");
	strbuf_addstr(sb, "</td><td>");
	add_text(sb, v->release);
	strbuf_addstr(sb, "</td><td><code>");
	add_text(sb, v->cmdline);
	strbuf_addstr(sb, "</code></td><td>");
	for (size_t i = 0; i < v->nruns; i++)
		strbuf_addf(sb, "%s<a href=\"r%lld.html\">%lld</a>", i ? " " : "", v->runs[i],
			    v->runs[i]);
	strbuf_addstr(sb, "</td></tr>\n");
	return 0;
}

static int add_provenance(struct site *s, struct strbuf *sb, long long exp_id)
{
	strbuf_addstr(sb, "<section>\n<h2>Provenance</h2>\n");
	table_begin(sb, "<th>Variant</th><th>Git ref</th><th>Commit</th><th>Kernel image</th>"
		    "<th>Image hash</th><th>Release</th><th>Command line</th><th>Runs</th>");
	if (store_report_variants(s->st, exp_id, provenance_row, sb))
		return -1;
	table_end(sb);
	strbuf_addstr(sb, "</section>\n");
	return 0;
}

/* A fact of a page: which clock the numbers are in, never left to be guessed. */
static int add_clock(struct strbuf *sb, struct store *st, long long exp_id, long long run_id)
{
	struct strbuf words = STRBUF_INIT, clock = STRBUF_INIT;
	int ret;

	if (run_id) {
		ret = store_run_clock(st, &clock, run_id);
		clock_words(&words, clock.buf);
	} else {
		ret = store_experiment_clock_words(st, &words, exp_id);
	}
	if (!ret) {
		strbuf_addstr(sb, "<dt>clock</dt><dd class=\"clock\">");
		escape_html(sb, words.buf);
		strbuf_addstr(sb, "</dd>\n");
	}
	strbuf_release(&words);
	strbuf_release(&clock);
	return ret;
}

/* The page being built, from the callback of the row it is about. */
struct page {
	struct site *s;
	struct strbuf sb;
	long long id;
	int found;			/* the row is there: the page is written */
};

static int experiment_header(const struct store_report_experiment *e, void *data)
{
	struct page *p = data;
	struct strbuf *sb = &p->sb, title = STRBUF_INIT;
	int ret;

	p->found = 1;
	strbuf_addf(&title, "Experiment E%lld", p->id);
	page_begin(sb, title.buf);
	strbuf_release(&title);
	strbuf_addstr(sb, "<dl class=\"facts\">\n<dt>status</dt><dd>");
	add_badge(sb, "s-", e->status);
	strbuf_addstr(sb, "</dd>\n<dt>workloads</dt><dd>");
	add_text(sb, e->workloads);
	strbuf_addstr(sb, "</dd>\n<dt>started</dt><dd>");
	add_time(sb, e->created);
	strbuf_addstr(sb, "</dd>\n<dt>finished</dt><dd>");
	add_time(sb, e->finished);
	strbuf_addstr(sb, "</dd>\n<dt>command</dt><dd><code>");
	add_text(sb, e->command);
	strbuf_addstr(sb, "</code></dd>\n");
	ret = add_clock(sb, p->s->st, p->id, 0);
	strbuf_addstr(sb, "</dl>\n");
	return ret;
}

static int write_experiment(struct site *s, long long id)
{
	struct page p = { .s = s, .sb = STRBUF_INIT, .id = id };
	struct strbuf name = STRBUF_INIT;
	struct exp_samples es = { 0 };
	struct verdict_list verdicts = { 0 };
	int ret = -1;

	if (store_read_begin(s->st))
		return -1;
	if (store_report_experiment(s->st, id, experiment_header, &p))
		goto out;
	if (!p.found) {
		ret = 0;
		goto out;
	}
	if (add_provenance(s, &p.sb, id) ||
	    store_experiment_ab_samples(s->st, id, exp_sample, &es) ||
	    store_verdicts_read(s->st, &verdicts, id))
		goto out;
	strbuf_addstr(&p.sb, "<section>\n<h2>Verdicts</h2>\n");
	for (size_t i = 0; i < verdicts.nr; i++)
		if (add_verdict(&p.sb, id, &es, &verdicts.v[i]))
			goto out;
	if (!verdicts.nr)
		strbuf_addstr(&p.sb, "<p>No verdicts: the experiment has not finished.</p>\n");
	strbuf_addstr(&p.sb, "</section>\n");
	if (sweep_points(&verdicts) > 1)
		add_sweep(&p.sb, &verdicts);
	if (add_runs_table(s, &p.sb, id))
		goto out;
	page_end(&p.sb);
	strbuf_addf(&name, "e%lld.html", id);
	ret = 1;
out:
	store_read_end(s->st);
	if (ret == 1)
		ret = site_put(s, name.buf, p.sb.buf, p.sb.len);
	exp_samples_release(&es);
	verdict_list_release(&verdicts);
	strbuf_release(&p.sb);
	strbuf_release(&name);
	return ret;
}

struct bisection_page {
	struct page p;
	struct strbuf culprit;
	double effect;
	struct svg_step *steps;
	char **labels;
	size_t nsteps, alloc;
};

static int bisection_header(const struct store_report_bisection *b, void *data)
{
	struct bisection_page *bp = data;
	struct strbuf *sb = &bp->p.sb, title = STRBUF_INIT;
	struct site *s = bp->p.s;

	bp->p.found = 1;
	strbuf_addf(&title, "Bisection E%lld", bp->p.id);
	page_begin(sb, title.buf);
	strbuf_release(&title);
	strbuf_addstr(sb, "<dl class=\"facts\">\n<dt>status</dt><dd>");
	add_badge(sb, "s-", b->status);
	strbuf_addstr(sb, "</dd>\n<dt>outcome</dt><dd>");
	add_badge(sb, "v-", b->outcome);
	strbuf_addstr(sb, "</dd>\n<dt>started</dt><dd>");
	add_time(sb, b->created);
	strbuf_addstr(sb, "</dd>\n<dt>workload.metric</dt><dd>");
	add_text(sb, b->workload);
	strbuf_addch(sb, '.');
	add_text(sb, b->metric);
	strbuf_addf(sb, " (units: %s)</dd>\n<dt>good (G)</dt><dd>",
		    b->per_boot < 0 ? "&#8211;" : b->per_boot ? "per-boot medians" : "samples");
	add_short_commit(sb, b->good);
	strbuf_addch(sb, ' ');
	add_subject(s, sb, b->good);
	strbuf_addstr(sb, "</dd>\n<dt>bad (B)</dt><dd>");
	add_short_commit(sb, b->bad);
	strbuf_addch(sb, ' ');
	add_subject(s, sb, b->bad);
	strbuf_addstr(sb, "</dd>\n<dt>G&#8594;B effect</dt><dd class=\"effect\">");
	bp->effect = b->effect;
	if (isfinite(b->effect)) {
		char ci[32] = "CI, level not recorded";

		if (isfinite(b->effect_alpha))
			stats_ci_label(ci, sizeof(ci), b->effect_alpha);
		strbuf_addf(sb, "%.4f (%+.2f %%), %s [%.4f, %.4f]", b->effect, 100 * (b->effect - 1),
			    ci, b->effect_lo, b->effect_hi);
	}
	else
		strbuf_addstr(sb, "&#8211;");
	strbuf_addstr(sb, "</dd>\n<dt>culprit</dt><dd class=\"culprit\">");
	strbuf_addstr(&bp->culprit, b->culprit);
	if (bp->culprit.len) {
		strbuf_addstr(sb, "<code>");
		escape_html(sb, bp->culprit.buf);
		strbuf_addstr(sb, "</code> ");
		add_subject(s, sb, bp->culprit.buf);
	} else {
		strbuf_addstr(sb, "&#8211;");
	}
	strbuf_addstr(sb, "</dd>\n");
	if (add_clock(sb, s->st, bp->p.id, 0))
		return -1;
	strbuf_addstr(sb, "</dl>\n");
	return 0;
}

static int bisection_step(const struct bisect_step_row *row, void *data)
{
	struct bisection_page *bp = data;
	struct strbuf *sb = &bp->p.sb;
	struct svg_step *st;

	if (bp->nsteps == bp->alloc) {
		size_t na = bp->alloc ? 2 * bp->alloc : 16;

		bp->steps = xrealloc(bp->steps, na * sizeof(*bp->steps));
		bp->labels = xrealloc(bp->labels, na * sizeof(*bp->labels));
		bp->alloc = na;
	}
	bp->labels[bp->nsteps] = xstrdup(row->commit);
	if (strlen(row->commit) > 12)
		bp->labels[bp->nsteps][12] = '\0';
	st = &bp->steps[bp->nsteps++];
	st->ratio = row->ratio;
	st->lo = row->ci_low;
	st->hi = row->ci_high;
	st->label = bp->labels[bp->nsteps - 1];
	st->mark = *row->mark == 'B' ? "BAD" : *row->mark == 'G' ? "GOOD" : "SKIP";
	st->culprit = bp->culprit.len && !strcmp(row->commit, bp->culprit.buf);
	strbuf_addf(sb, "<tr%s><td class=\"num\">%zu</td><td>", st->culprit ?
		    " class=\"is-culprit\"" : "", bp->nsteps);
	add_short_commit(sb, row->commit);
	if (st->culprit)
		strbuf_addstr(sb, " (culprit)");
	strbuf_addstr(sb, "</td><td class=\"wrap\">");
	add_subject(bp->p.s, sb, row->commit);
	strbuf_addstr(sb, "</td><td class=\"num\">");
	add_count(sb, row->n);
	strbuf_addstr(sb, "</td><td class=\"num\">");
	if (isfinite(st->ratio))
		strbuf_addf(sb, "%.4f [%.4f, %.4f]", st->ratio, st->lo, st->hi);
	else
		strbuf_addstr(sb, "&#8211;");
	strbuf_addstr(sb, "</td><td>");
	add_badge(sb, "m-", row->mark);
	strbuf_addstr(sb, "</td></tr>\n");
	return 0;
}

static int write_bisection(struct site *s, long long id)
{
	struct bisection_page bp = { .p = { .s = s, .sb = STRBUF_INIT, .id = id },
				     .culprit = STRBUF_INIT };
	struct strbuf *sb = &bp.p.sb, name = STRBUF_INIT;
	int ret = -1;

	if (store_read_begin(s->st))
		return -1;
	if (store_report_bisection(s->st, id, bisection_header, &bp))
		goto out;
	if (!bp.p.found) {
		ret = 0;
		goto out;
	}
	strbuf_addstr(sb, "<section>\n<h2>Steps</h2>\n");
	table_begin(sb, "<th>Step</th><th>Commit</th><th>Subject</th><th>n</th>"
		    "<th>Ratio M/G [99% CI]</th><th>Mark</th>");
	if (store_report_bisect_steps(s->st, id, bisection_step, &bp))
		goto out;
	table_end(sb);
	if (bp.nsteps)
		svg_bisect_steps(sb, bp.steps, bp.nsteps, bp.effect,
				 "ratio M/G of each step in order, the culprit ringed");
	strbuf_addstr(sb, "</section>\n");
	if (add_runs_table(s, sb, id))
		goto out;
	page_end(sb);
	strbuf_addf(&name, "b%lld.html", id);
	ret = 1;
out:
	store_read_end(s->st);
	if (ret == 1)
		ret = site_put(s, name.buf, sb->buf, sb->len);
	for (size_t i = 0; i < bp.nsteps; i++)
		free(bp.labels[i]);
	free(bp.labels);
	free(bp.steps);
	strbuf_release(sb);
	strbuf_release(&name);
	strbuf_release(&bp.culprit);
	return ret;
}

/* Per metric: n, warm-up count, mean, sd, quartiles, min, max of one run's samples. */
static int add_run_samples(struct site *s, struct strbuf *sb, long long id)
{
	struct run_metrics rm = { 0 };

	if (run_metrics_load(s, &rm, id))
		return -1;
	strbuf_addstr(sb, "<section>\n<h2>Samples</h2>\n");
	table_begin(sb, "<th>Metric</th><th>Unit</th><th>n</th><th>warm-up</th><th>Mean</th>"
		    "<th>std deviation</th><th>min</th><th>q1</th><th>median</th><th>q3</th><th>max</th>");
	for (size_t i = 0; i < rm.n; i++) {
		const struct run_metric *m = &rm.m[i];
		struct stats_summary sum;

		strbuf_addstr(sb, "<tr><th scope=\"row\">");
		escape_html(sb, m->workload);
		strbuf_addch(sb, '.');
		escape_html(sb, m->metric);
		strbuf_addstr(sb, "</th><td>");
		escape_html(sb, m->unit);
		strbuf_addf(sb, "</td><td class=\"num\">%zu</td><td class=\"num\">%d</td>", m->d.n,
			    m->warm);
		if (m->d.n && !stats_summarize(&sum, m->d.v, m->d.n)) {
			double v[7] = { sum.mean, sum.std, sum.min, sum.q1, sum.median, sum.q3, sum.max };

			for (int j = 0; j < 7; j++) {
				strbuf_addstr(sb, "<td class=\"num\">");
				add_num(sb, v[j]);
				strbuf_addstr(sb, "</td>");
			}
		} else {
			strbuf_addstr(sb, "<td colspan=\"7\">&#8211;</td>");
		}
		strbuf_addstr(sb, "</tr>\n");
	}
	table_end(sb);
	strbuf_addstr(sb, "</section>\n");
	run_metrics_release(&rm);
	return 0;
}

/* The last bytes of a log, from a line start when there is one. */
static const char *log_tail(const struct strbuf *log)
{
	const char *t;

	if (log->len <= LOG_TAIL_BYTES)
		return strbuf_str(log);
	t = log->buf + log->len - LOG_TAIL_BYTES;
	if (strchr(t, '\n'))
		t = strchr(t, '\n') + 1;
	return t;
}

struct run_page {
	struct page p;
	struct strbuf log, tail;
	int have_log;
};

static int run_header(const struct store_report_run *r, void *data)
{
	static const char *const labels[RR_NR_FIELDS] = {
		"status", "error", "runner", "workloads", "params", "command line", "memory MiB",
		"cpus", "accel", "host", "host cpu", "qemu", "wall s", "to hello s", "bad lines",
		"kernel image", "kernel hash", "arch", "kernel release", "kernel commit",
	};
	struct run_page *rp = data;
	struct strbuf *sb = &rp->p.sb, title = STRBUF_INIT;

	rp->p.found = 1;
	strbuf_addf(&title, "Run %lld", rp->p.id);
	page_begin(sb, title.buf);
	strbuf_release(&title);
	strbuf_addstr(sb, "<dl class=\"facts\">\n<dt>started</dt><dd>");
	add_time(sb, r->started);
	strbuf_addstr(sb, "</dd>\n<dt>ended</dt><dd>");
	add_time(sb, r->ended);
	strbuf_addstr(sb, "</dd>\n<dt>experiment</dt><dd>");
	if (r->experiment_kind) {
		strbuf_addf(sb, "<a href=\"%c%lld.html\">E%lld</a>, variant ",
			    !strcmp(r->experiment_kind, "bisect") ? 'b' : 'e', r->experiment_id,
			    r->experiment_id);
		add_text(sb, r->variant);
	} else {
		strbuf_addstr(sb, "&#8211;");
	}
	strbuf_addstr(sb, "</dd>\n");
	if (add_clock(sb, rp->p.s->st, 0, rp->p.id))
		return -1;
	strbuf_addstr(sb, "</dl>\n<section>\n<h2>Run</h2>\n");
	table_begin(sb, "<th>Field</th><th>Value</th>");
	for (int i = 0; i < RR_NR_FIELDS; i++) {
		strbuf_addf(sb, "<tr><th scope=\"row\">%s</th><td class=\"wrap\">", labels[i]);
		if (i == RR_STATUS)
			add_badge(sb, "s-", r->text[i] ? r->text[i] : "");
		else
			add_text(sb, r->text[i]);
		strbuf_addstr(sb, "</td></tr>\n");
	}
	table_end(sb);
	strbuf_addstr(sb, "</section>\n");
	/* The log file is outside the database; its copy follows the stored path. */
	if (*r->console_log && !strbuf_read_file(&rp->log, r->console_log, 0))
		rp->have_log = 1;
	else
		strbuf_addstr(&rp->tail, r->console_tail);
	return 0;
}

static int run_meta(const char *key, const char *value, void *data)
{
	struct strbuf *sb = data;

	strbuf_addstr(sb, "<tr><th scope=\"row\">");
	add_text(sb, key);
	strbuf_addstr(sb, "</th><td class=\"wrap\">");
	add_text(sb, value);
	strbuf_addstr(sb, "</td></tr>\n");
	return 0;
}

static int write_run(struct site *s, long long id)
{
	struct run_page rp = { .p = { .s = s, .sb = STRBUF_INIT, .id = id }, .log = STRBUF_INIT,
			       .tail = STRBUF_INIT };
	struct strbuf *sb = &rp.p.sb, name = STRBUF_INIT, log_name = STRBUF_INIT;
	int ret = -1;

	if (store_read_begin(s->st))
		return -1;
	if (store_report_run(s->st, id, run_header, &rp))
		goto out;
	if (!rp.p.found) {
		ret = 0;
		goto out;
	}
	strbuf_addstr(sb, "<section>\n<h2>Metadata</h2>\n");
	table_begin(sb, "<th>Key</th><th>Value</th>");
	if (store_run_meta(s->st, id, run_meta, sb))
		goto out;
	table_end(sb);
	strbuf_addstr(sb, "</section>\n");
	if (add_run_samples(s, sb, id))
		goto out;
	strbuf_addstr(sb, "<section>\n<h2>Console</h2>\n");
	if (rp.have_log) {
		strbuf_addf(&log_name, "logs/r%lld.txt", id);
		strbuf_addf(sb, "<p><a href=\"%s\">The whole console log</a> (%zu bytes); its end:</p>\n",
			    log_name.buf, rp.log.len);
		strbuf_addstr(sb, "<pre class=\"console\">");
		escape_html(sb, log_tail(&rp.log));
		strbuf_addstr(sb, "</pre>\n");
	} else if (rp.tail.len) {
		strbuf_addstr(sb, "<p>The console log is gone; its stored tail:</p>\n<pre class=\"console\">");
		escape_html(sb, rp.tail.buf);
		strbuf_addstr(sb, "</pre>\n");
	} else {
		strbuf_addstr(sb, "<p>No console log.</p>\n");
	}
	strbuf_addstr(sb, "</section>\n");
	page_end(sb);
	strbuf_addf(&name, "r%lld.html", id);
	ret = 1;
out:
	store_read_end(s->st);
	if (ret == 1) {
		ret = site_put(s, name.buf, sb->buf, sb->len);
		if (!ret && rp.have_log)
			ret = site_put(s, log_name.buf, rp.log.buf, rp.log.len);
	}
	strbuf_release(sb);
	strbuf_release(&name);
	strbuf_release(&rp.log);
	strbuf_release(&rp.tail);
	strbuf_release(&log_name);
	return ret;
}

/* The ids to write pages for, read in one go so each page reads its own rows later. */
struct page_ids {
	long long *id;
	char *kind;		/* 'e', 'b' or 'r' */
	size_t n, alloc;
};

static int page_ids_push(struct page_ids *p, long long id, char kind)
{
	if (p->n == p->alloc) {
		size_t alloc = p->alloc ? 2 * p->alloc : 64;
		long long *ni = realloc(p->id, alloc * sizeof(*ni));
		char *nk = ni ? realloc(p->kind, alloc) : NULL;

		if (ni)
			p->id = ni;
		if (nk)
			p->kind = nk;
		if (!ni || !nk)
			return error("out of memory");
		p->alloc = alloc;
	}
	p->id[p->n] = id;
	p->kind[p->n++] = kind;
	return 0;
}

static int page_id(char kind, long long id, void *data)
{
	return page_ids_push(data, id, kind);
}

static int list_pages(struct site *s, struct page_ids *p)
{
	int ret;

	if (store_read_begin(s->st))
		return -1;
	ret = store_report_pages(s->st, page_id, p);
	store_read_end(s->st);
	return ret;
}

/* A file name the report writes: <kind><id><suffix>, the id as the report prints it. */
static int page_name(char *kind, long long *id, const char *name, const char *kinds,
		     const char *suffix)
{
	const char *p = name + 1;
	long long v = 0;

	if (!*name || !strchr(kinds, *name) || *p < '1' || *p > '9')
		return 0;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (LLONG_MAX - 9) / 10)
			return 0;
		v = 10 * v + (*p - '0');
	}
	if (strcmp(p, suffix))
		return 0;
	*kind = *name;
	*id = v;
	return 1;
}

/* pages is in list_pages()'s order: by kind, then id. */
static int page_listed(const struct page_ids *pages, char kind, long long id)
{
	size_t lo = 0, hi = pages->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pages->kind[mid] < kind || (pages->kind[mid] == kind && pages->id[mid] < id))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < pages->n && pages->kind[lo] == kind && pages->id[lo] == id;
}

/*
 * Remove from dir the pages of rows that are gone from the database. Only
 * names the report itself writes are candidates, and only plain files:
 * whatever else the user keeps in the site is left alone.
 */
static int prune_dir(struct site *s, const struct page_ids *pages, const char *sub,
		     const char *kinds, const char *suffix)
{
	struct strbuf dir = STRBUF_INIT, path = STRBUF_INIT;
	struct dirent *de;
	struct stat st;
	DIR *d;
	int ret = 0;

	strbuf_addstr(&dir, s->opt->out_dir);
	if (sub)
		strbuf_addf(&dir, "/%s", sub);
	d = opendir(dir.buf);
	if (!d) {
		ret = error("cannot read directory '%s': %s", dir.buf, strerror(errno));
		goto out;
	}
	while ((de = readdir(d))) {
		long long id;
		char kind;

		if (!page_name(&kind, &id, de->d_name, kinds, suffix) || page_listed(pages, kind, id))
			continue;
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", dir.buf, de->d_name);
		if (lstat(path.buf, &st) || !S_ISREG(st.st_mode))
			continue;
		if (unlink(path.buf) && errno != ENOENT) {
			ret = error("cannot remove '%s': %s", path.buf, strerror(errno));
			break;
		}
		s->stats->removed++;
	}
	closedir(d);
out:
	strbuf_release(&dir);
	strbuf_release(&path);
	return ret;
}

/* Pages from work->pages until none is left or a thread failed. */
static void *write_pages(void *data)
{
	struct site *s = data;
	struct site_work *w = s->work;
	intptr_t ret = 0;

	for (;;) {
		size_t i;
		int r;

		pthread_mutex_lock(&w->lock);
		i = w->next++;
		r = w->failed || i >= w->pages->n;
		pthread_mutex_unlock(&w->lock);
		if (r)
			break;
		r = w->pages->kind[i] == 'e' ? write_experiment(s, w->pages->id[i]) :
		    w->pages->kind[i] == 'b' ? write_bisection(s, w->pages->id[i]) :
		    write_run(s, w->pages->id[i]);
		if (r) {
			pthread_mutex_lock(&w->lock);
			w->failed = 1;
			pthread_mutex_unlock(&w->lock);
			ret = -1;
			break;
		}
	}
	return (void *)ret;
}

/*
 * Pages are written by up to SITE_THREADS threads, each with its own
 * read-only connection: building a page is mostly reading its rows and
 * formatting numbers, which two cores do in about half the time. Each page
 * is still one read transaction of one connection.
 */
#define SITE_THREADS 4

struct site_thread {
	pthread_t id;
	struct store st;
	struct site site;
	struct report_stats stats;
};

static int write_pages_threaded(struct site *s, const struct page_ids *pages)
{
	struct site_thread t[SITE_THREADS - 1];
	struct site_work w = { .pages = pages };
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n = 0;
	int ret = pthread_mutex_init(&w.lock, NULL);

	if (!ret && (ret = pthread_mutex_init(&w.files, NULL)))
		pthread_mutex_destroy(&w.lock);
	if (ret)
		return error("cannot create a mutex: %s", strerror(ret));
	s->work = &w;
	/* a database with no file of its own (in memory) is read by this thread alone */
	for (long i = 1; i < cpus && i < SITE_THREADS && (size_t)i < pages->n; i++) {
		struct site_thread *th = &t[n];

		memset(th, 0, sizeof(*th));
		if (store_open_again(&th->st, s->st))
			break;
		th->site.st = &th->st;
		th->site.opt = s->opt;
		th->site.stats = &th->stats;
		th->site.work = &w;
		if (pthread_create(&th->id, NULL, write_pages, &th->site)) {
			store_close(&th->st);
			break;
		}
		n++;
	}
	if (write_pages(s))
		ret = -1;
	for (size_t i = 0; i < n; i++) {
		void *r = NULL;

		pthread_join(t[i].id, &r);
		if (r)
			ret = -1;
		s->stats->written += t[i].stats.written;
		s->stats->unchanged += t[i].stats.unchanged;
		store_close(&t[i].st);
	}
	s->work = NULL;
	pthread_mutex_destroy(&w.lock);
	pthread_mutex_destroy(&w.files);
	return ret;
}

int report_write_site(struct report_stats *out, struct store *st, const struct report_options *opt)
{
	struct site s = { .st = st, .opt = opt, .stats = out };
	struct page_ids pages = { 0 };
	struct strbuf path = STRBUF_INIT, css = STRBUF_INIT;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (ensure_dir(opt->out_dir))
		goto out;
	strbuf_addf(&path, "%s/logs", opt->out_dir);
	if (ensure_dir(path.buf))
		goto out;
	if (strbuf_read_file(&css, opt->css_path, 0)) {
		error("cannot read '%s': %s", opt->css_path, strerror(errno));
		goto out;
	}
	if (site_put(&s, "style.css", strbuf_str(&css), css.len) || list_pages(&s, &pages) ||
	    write_index(&s) || write_pages_threaded(&s, &pages))
		goto out;
	if (prune_dir(&s, &pages, NULL, "ebr", ".html") || prune_dir(&s, &pages, "logs", "r", ".txt"))
		goto out;
	ret = 0;
out:
	free(pages.id);
	free(pages.kind);
	strbuf_release(&path);
	strbuf_release(&css);
	return ret;
}
