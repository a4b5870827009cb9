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
#include "report.h"
#include "stats.h"
#include "store.h"
#include "svg.h"
#include "xalloc.h"

/* A console log's tail as shown on its run page. */
#define LOG_TAIL_BYTES 8192

/*
 * Statements are prepared once per site, not once per page: with ten
 * thousand pages, compiling their SQL cost more than running it.
 */
#define SITE_STATEMENTS 32

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
	sqlite3 *db;
	const struct report_options *opt;
	struct report_stats *stats;
	struct site_work *work;		/* NULL until pages are written in threads */
	struct {
		const char *sql;	/* a literal: its address is the key */
		sqlite3_stmt *q;
	} stmt[SITE_STATEMENTS];
	size_t nstmt;
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

static int sql_error(struct site *s, const char *what)
{
	return error("%s in '%s': %s", what, s->opt->db_path ? s->opt->db_path : "database",
		     sqlite3_errmsg(s->db));
}

/* A statement for sql, ready to bind; stmt_done() hands it back. */
static int prepare(struct site *s, sqlite3_stmt **q, const char *sql)
{
	size_t i;

	*q = NULL;
	for (i = 0; i < s->nstmt; i++)
		if (s->stmt[i].sql == sql) {
			*q = s->stmt[i].q;
			return 0;
		}
	if (s->nstmt == SITE_STATEMENTS)
		return error("the report has more than %d statements", SITE_STATEMENTS);
	if (sqlite3_prepare_v2(s->db, sql, -1, q, NULL) != SQLITE_OK)
		return sql_error(s, "cannot read the database");
	s->stmt[s->nstmt].sql = sql;
	s->stmt[s->nstmt++].q = *q;
	return 0;
}

/* Reset, so that it holds no read lock and no bindings until its next use. */
static void stmt_done(sqlite3_stmt *q)
{
	if (q) {
		sqlite3_reset(q);
		sqlite3_clear_bindings(q);
	}
}

static void site_release(struct site *s)
{
	for (size_t i = 0; i < s->nstmt; i++)
		sqlite3_finalize(s->stmt[i].q);
	s->nstmt = 0;
}

/* Text from the database, escaped; a dash when there is none. */
static void add_text(struct strbuf *sb, sqlite3_stmt *q, int i)
{
	if (sqlite3_column_type(q, i) == SQLITE_NULL || !*store_text(q, i))
		strbuf_addstr(sb, "&#8211;");
	else
		escape_html(sb, store_text(q, i));
}

static void add_num(struct strbuf *sb, double v)
{
	if (isfinite(v))
		strbuf_addf(sb, "%.6g", v);
	else
		strbuf_addstr(sb, "&#8211;");
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
	char *subject = NULL;

	if (commit && *commit && store_commit_subject(s->db, &subject, commit))
		subject = NULL;
	if (subject) {
		strbuf_addstr(sb, "<span class=\"subject\">");
		escape_html(sb, subject);
		strbuf_addstr(sb, "</span>");
	} else {
		strbuf_addstr(sb, "&#8211;");
	}
	free(subject);
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

static int read_begin(struct site *s)
{
	if (sqlite3_exec(s->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return sql_error(s, "cannot start a read transaction");
	return 0;
}

static void read_end(struct site *s)
{
	sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
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
static int run_metrics_load(struct site *s, struct run_metrics *rm, long long run_id)
{
	struct run_metric *cur = NULL;
	sqlite3_stmt *q = NULL;
	int rc;

	if (prepare(s, &q, "SELECT workload, metric, unit, value, flags FROM samples "
		    "WHERE run_id = ?1 ORDER BY id"))
		return -1;
	sqlite3_bind_int64(q, 1, run_id);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		const char *workload = store_text(q, 0), *metric = store_text(q, 1);

		if (!cur || strcmp(cur->metric, metric) || strcmp(cur->workload, workload)) {
			cur = NULL;
			for (size_t i = 0; i < rm->n && !cur; i++)
				if (!strcmp(rm->m[i].metric, metric) && !strcmp(rm->m[i].workload, workload))
					cur = &rm->m[i];
		}
		if (!cur) {
			if (rm->n == rm->alloc) {
				rm->alloc = rm->alloc ? 2 * rm->alloc : 8;
				rm->m = xrealloc(rm->m, rm->alloc * sizeof(*rm->m));
			}
			cur = &rm->m[rm->n++];
			memset(cur, 0, sizeof(*cur));
			cur->workload = xstrdup(workload);
			cur->metric = xstrdup(metric);
			cur->unit = xstrdup(store_text(q, 2));
		}
		if (sqlite3_column_int(q, 4) & 1)
			cur->warm++;
		else
			doubles_push(&cur->d, sqlite3_column_double(q, 3));
	}
	stmt_done(q);
	if (rc != SQLITE_DONE)
		return sql_error(s, "cannot read samples");
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

/* The latest runs of set->k[i], oldest first, into its series. */
static int series_add_runs(struct site *s, struct series_set *set, size_t i)
{
	struct series_kernel *k = &set->k[i];
	long long ids[SERIES_RUNS];
	double started[SERIES_RUNS];
	sqlite3_stmt *q = NULL;
	int n = 0, rc = SQLITE_DONE;

	if (prepare(s, &q, "SELECT id, started FROM runs WHERE kernel_id = ?1 AND cmdline = ?2 AND "
		    "COALESCE(mem_mib, 0) = ?3 AND COALESCE(cpus, 0) = ?4 AND status = 'OK' "
		    "ORDER BY started DESC, id DESC LIMIT ?5"))
		return -1;
	sqlite3_bind_int64(q, 1, k->id);
	sqlite3_bind_text(q, 2, strbuf_str(&k->cmdline), (int)k->cmdline.len, SQLITE_STATIC);
	sqlite3_bind_int64(q, 3, k->mem);
	sqlite3_bind_int64(q, 4, k->cpus);
	sqlite3_bind_int(q, 5, SERIES_RUNS);
	while (n < SERIES_RUNS && (rc = sqlite3_step(q)) == SQLITE_ROW) {
		ids[n] = sqlite3_column_int64(q, 0);
		started[n++] = sqlite3_column_double(q, 1);
	}
	stmt_done(q);
	if (n < SERIES_RUNS && rc != SQLITE_DONE)
		return sql_error(s, "cannot read runs");
	while (n--) {
		struct run_metrics rm = { 0 };

		if (run_metrics_load(s, &rm, ids[n]))
			return -1;
		for (size_t j = 0; j < rm.n; j++) {
			struct stats_summary sum;
			struct series *sr;

			if (!rm.m[j].d.n || stats_summarize(&sum, rm.m[j].d.v, rm.m[j].d.n))
				continue;
			sr = series_for(set, i, &rm.m[j]);
			doubles_push(&sr->t, started[n]);
			doubles_push(&sr->y, sum.median);
			sr->latest_run = ids[n];
		}
		run_metrics_release(&rm);
	}
	return 0;
}

static int series_load(struct site *s, struct series_set *set)
{
	sqlite3_stmt *q = NULL;
	int rc = SQLITE_DONE;

	if (prepare(s, &q, "SELECT r.kernel_id, r.cmdline, COALESCE(r.mem_mib, 0), "
		    "COALESCE(r.cpus, 0), count(*), k.git_commit, k.release, k.path "
		    "FROM runs r JOIN kernels k ON k.id = r.kernel_id WHERE r.status = 'OK' "
		    "GROUP BY r.kernel_id, r.cmdline, COALESCE(r.mem_mib, 0), COALESCE(r.cpus, 0) "
		    "HAVING count(*) > 1 ORDER BY max(r.started) DESC, max(r.id) DESC LIMIT ?1"))
		return -1;
	sqlite3_bind_int(q, 1, SERIES_KERNELS);
	while (set->nk < SERIES_KERNELS && (rc = sqlite3_step(q)) == SQLITE_ROW) {
		struct series_kernel *k = &set->k[set->nk++];

		strbuf_init(&k->label, 0);
		strbuf_init(&k->cmdline, 0);
		k->id = sqlite3_column_int64(q, 0);
		strbuf_addstr(&k->cmdline, store_text(q, 1));
		k->mem = sqlite3_column_int64(q, 2);
		k->cpus = sqlite3_column_int64(q, 3);
		k->runs = sqlite3_column_int(q, 4);
		k->commit = *store_text(q, 5) != '\0';
		strbuf_addstr(&k->label, store_text(q, k->commit ? 5 : *store_text(q, 6) ? 6 : 7));
	}
	stmt_done(q);
	if (set->nk < SERIES_KERNELS && rc != SQLITE_DONE)
		return sql_error(s, "cannot read runs");
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

/* The index: recent experiments and runs. */
static int write_index(struct site *s)
{
	struct strbuf sb = STRBUF_INIT;
	sqlite3_stmt *q = NULL;
	int ret = -1, rc;

	if (read_begin(s))
		return -1;
	page_begin(&sb, "Experiments and runs");
	if (prepare(s, &q, "SELECT e.id, e.kind, e.status, e.workloads, e.created, "
		    "CASE e.kind WHEN 'bisect' THEN (SELECT outcome FROM bisections WHERE "
		    "experiment_id = e.id) ELSE (SELECT verdict FROM verdicts WHERE experiment_id = e.id "
		    "ORDER BY CASE verdict WHEN 'REGRESSION' THEN 0 WHEN 'IMPROVEMENT' THEN 1 "
		    "WHEN 'INCONCLUSIVE' THEN 2 WHEN 'SMALL' THEN 3 ELSE 4 END LIMIT 1) END, "
		    "CASE e.kind WHEN 'bisect' THEN (SELECT COALESCE(metric, '') FROM bisections "
		    "WHERE experiment_id = e.id) ELSE (SELECT count(*) || ' metric(s)' FROM verdicts "
		    "WHERE experiment_id = e.id) END, "
		    "(SELECT culprit FROM bisections WHERE experiment_id = e.id) "
		    "FROM experiments e ORDER BY e.id DESC LIMIT ?1"))
		goto out;
	sqlite3_bind_int(q, 1, s->opt->recent);
	strbuf_addstr(&sb, "<section>\n<h2>Recent experiments</h2>\n");
	table_begin(&sb, "<th>Experiment</th><th>Kind</th><th>Status</th><th>Workloads</th>"
		    "<th>Started</th><th>Verdict</th><th>Detail</th>");
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		long long id = sqlite3_column_int64(q, 0);
		int bisect = !strcmp(store_text(q, 1), "bisect");

		strbuf_addf(&sb, "<tr><td><a href=\"%c%lld.html\">E%lld</a></td><td>", bisect ? 'b' : 'e',
			    id, id);
		add_text(&sb, q, 1);
		strbuf_addstr(&sb, "</td><td>");
		add_badge(&sb, "s-", store_text(q, 2));
		strbuf_addstr(&sb, "</td><td>");
		add_text(&sb, q, 3);
		strbuf_addstr(&sb, "</td><td>");
		add_time(&sb, store_num(q, 4));
		strbuf_addstr(&sb, "</td><td>");
		add_badge(&sb, "v-", store_text(q, 5));
		strbuf_addstr(&sb, "</td><td>");
		add_text(&sb, q, 6);
		if (bisect && *store_text(q, 7)) {
			strbuf_addstr(&sb, ", culprit ");
			add_short_commit(&sb, store_text(q, 7));
		}
		strbuf_addstr(&sb, "</td></tr>\n");
	}
	table_end(&sb);
	strbuf_addstr(&sb, "</section>\n");
	if (rc != SQLITE_DONE) {
		sql_error(s, "cannot read experiments");
		goto out;
	}
	stmt_done(q);
	if (add_series(s, &sb))
		goto out;
	if (prepare(s, &q, "SELECT r.id, r.started, r.status, r.runner, r.workloads, "
		    "r.experiment_id, e.kind, v.name, COALESCE(k.git_commit, k.path), r.error "
		    "FROM runs r LEFT JOIN experiments e ON e.id = r.experiment_id "
		    "LEFT JOIN variants v ON v.id = r.variant_id LEFT JOIN kernels k ON k.id = r.kernel_id "
		    "ORDER BY r.id DESC LIMIT ?1"))
		goto out;
	sqlite3_bind_int(q, 1, s->opt->recent);
	strbuf_addstr(&sb, "<section>\n<h2>Recent runs</h2>\n");
	table_begin(&sb, "<th>Run</th><th>Started</th><th>Status</th><th>Runner</th><th>Workloads</th>"
		    "<th>Experiment</th><th>Variant</th><th>Kernel</th><th>Error</th>");
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		long long id = sqlite3_column_int64(q, 0);

		strbuf_addf(&sb, "<tr><td><a href=\"r%lld.html\">%lld</a></td><td>", id, id);
		add_time(&sb, store_num(q, 1));
		strbuf_addstr(&sb, "</td><td>");
		add_badge(&sb, "s-", store_text(q, 2));
		strbuf_addstr(&sb, "</td><td>");
		add_text(&sb, q, 3);
		strbuf_addstr(&sb, "</td><td>");
		add_text(&sb, q, 4);
		strbuf_addstr(&sb, "</td><td>");
		if (sqlite3_column_type(q, 5) != SQLITE_NULL && sqlite3_column_type(q, 6) != SQLITE_NULL)
			strbuf_addf(&sb, "<a href=\"%c%lld.html\">E%lld</a>",
				    !strcmp(store_text(q, 6), "bisect") ? 'b' : 'e',
				    sqlite3_column_int64(q, 5), sqlite3_column_int64(q, 5));
		else
			strbuf_addstr(&sb, "&#8211;");
		strbuf_addstr(&sb, "</td><td>");
		add_text(&sb, q, 7);
		strbuf_addstr(&sb, "</td><td class=\"wrap\">");
		add_text(&sb, q, 8);
		strbuf_addstr(&sb, "</td><td class=\"wrap\">");
		add_text(&sb, q, 9);
		strbuf_addstr(&sb, "</td></tr>\n");
	}
	table_end(&sb);
	strbuf_addstr(&sb, "</section>\n");
	if (rc != SQLITE_DONE) {
		sql_error(s, "cannot read runs");
		goto out;
	}
	page_end(&sb);
	ret = 0;
out:
	stmt_done(q);
	read_end(s);
	if (!ret)
		ret = site_put(s, "index.html", sb.buf, sb.len);
	strbuf_release(&sb);
	return ret;
}

/* The runs of an experiment, each linked to its page. */
static int add_runs_table(struct site *s, struct strbuf *sb, long long exp_id)
{
	sqlite3_stmt *q = NULL;
	int rc;

	if (prepare(s, &q, "SELECT r.id, v.name, r.status, r.started, r.mem_mib, r.cpus, r.error "
		    "FROM runs r LEFT JOIN variants v ON v.id = r.variant_id "
		    "WHERE r.experiment_id = ?1 ORDER BY r.id"))
		return -1;
	sqlite3_bind_int64(q, 1, exp_id);
	strbuf_addstr(sb, "<section>\n<h2>Runs</h2>\n");
	table_begin(sb, "<th>Run</th><th>Variant</th><th>Status</th><th>Started</th>"
		    "<th>Memory MiB</th><th>CPUs</th><th>Error</th>");
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		long long id = sqlite3_column_int64(q, 0);

		strbuf_addf(sb, "<tr><td><a href=\"r%lld.html\">%lld</a></td><td>", id, id);
		add_text(sb, q, 1);
		strbuf_addstr(sb, "</td><td>");
		add_badge(sb, "s-", store_text(q, 2));
		strbuf_addstr(sb, "</td><td>");
		add_time(sb, store_num(q, 3));
		strbuf_addstr(sb, "</td><td>");
		add_text(sb, q, 4);
		strbuf_addstr(sb, "</td><td>");
		add_text(sb, q, 5);
		strbuf_addstr(sb, "</td><td class=\"wrap\">");
		add_text(sb, q, 6);
		strbuf_addstr(sb, "</td></tr>\n");
	}
	table_end(sb);
	strbuf_addstr(sb, "</section>\n");
	stmt_done(q);
	return rc == SQLITE_DONE ? 0 : sql_error(s, "cannot read runs");
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

static int exp_samples_load(struct site *s, struct exp_samples *es, long long exp_id)
{
	sqlite3_stmt *q = NULL;
	int rc;

	/*
	 * CROSS JOIN keeps runs the outer loop, so samples are found by run and
	 * not by metric (which visits every experiment's), and come in index
	 * order with no sort.
	 */
	if (prepare(s, &q, "SELECT v.name, s.workload, s.metric, COALESCE(r.mem_mib, 0), "
		    "COALESCE(r.cpus, 0), s.value FROM runs r CROSS JOIN samples s ON s.run_id = r.id "
		    "JOIN variants v ON v.id = r.variant_id WHERE r.experiment_id = ?1 AND "
		    "r.status = 'OK' AND (s.flags & 1) = 0 AND v.name IN ('A', 'B') ORDER BY r.id, s.id"))
		return -1;
	sqlite3_bind_int64(q, 1, exp_id);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		struct exp_sample *e;

		if (es->n == es->alloc) {
			es->alloc = es->alloc ? 2 * es->alloc : 256;
			es->v = xrealloc(es->v, es->alloc * sizeof(*es->v));
		}
		e = &es->v[es->n++];
		e->side = store_text(q, 0)[0] == 'B';
		e->workload = intern(es, store_text(q, 1));
		e->metric = intern(es, store_text(q, 2));
		e->mem = sqlite3_column_int64(q, 3);
		e->cpus = sqlite3_column_int64(q, 4);
		e->value = sqlite3_column_double(q, 5);
	}
	stmt_done(q);
	return rc == SQLITE_DONE ? 0 : sql_error(s, "cannot read samples");
}

/* The samples of one side of the verdict in v, in the order they were stored. */
static void exp_samples_side(struct doubles *out, const struct exp_samples *es, int side,
			     sqlite3_stmt *v)
{
	const char *workload = store_text(v, 0), *metric = store_text(v, 1);
	long long mem = sqlite3_column_int64(v, 3), cpus = sqlite3_column_int64(v, 4);

	for (size_t i = 0; i < es->n; i++) {
		const struct exp_sample *e = &es->v[i];

		if (e->side == side && e->mem == mem && e->cpus == cpus &&
		    !strcmp(e->metric, metric) && !strcmp(e->workload, workload))
			doubles_push(out, e->value);
	}
}

#define VERDICT_COLUMNS \
	"workload, metric, unit, mem_mib, cpus, direction, unit_compared, n_a, n_b, " \
	"mean_a, mean_b, std_a, std_b, median_a, median_b, ratio, ci_low, ci_high, p, " \
	"p_adjusted, alpha, delta, mde, verdict"
enum { C_WORKLOAD, C_METRIC, C_UNIT, C_MEM, C_CPUS, C_DIRECTION, C_COMPARED, C_NA, C_NB,
       C_MEAN_A, C_MEAN_B, C_STD_A, C_STD_B, C_MEDIAN_A, C_MEDIAN_B, C_RATIO, C_LO, C_HI,
       C_P, C_PADJ, C_ALPHA, C_DELTA, C_MDE, C_VERDICT };

static void add_ab_row(struct strbuf *sb, const char *label, sqlite3_stmt *q, int a, int b)
{
	strbuf_addf(sb, "<tr><th scope=\"row\">%s</th><td class=\"num\">", label);
	add_num(sb, store_num(q, a));
	strbuf_addstr(sb, "</td><td class=\"num\">");
	add_num(sb, store_num(q, b));
	strbuf_addstr(sb, "</td></tr>\n");
}

static int add_verdict(struct strbuf *sb, long long exp_id, const struct exp_samples *es,
		       sqlite3_stmt *q)
{
	struct doubles a = { 0 }, b = { 0 };
	struct strbuf title = STRBUF_INIT;
	double ratio = store_num(q, C_RATIO);
	int ret = -1;

	strbuf_addf(&title, "%s.%s, %lldM, %d cpu(s)", store_text(q, C_WORKLOAD), store_text(q, C_METRIC),
		    sqlite3_column_int64(q, C_MEM), sqlite3_column_int(q, C_CPUS));
	strbuf_addstr(sb, "<section class=\"metric\">\n<h3>");
	escape_html(sb, title.buf);
	strbuf_addstr(sb, " ");
	add_badge(sb, "v-", store_text(q, C_VERDICT));
	strbuf_addstr(sb, "</h3>\n<p>");
	add_text(sb, q, C_UNIT);
	strbuf_addstr(sb, ", ");
	add_text(sb, q, C_DIRECTION);
	strbuf_addstr(sb, " is better; compared: ");
	add_text(sb, q, C_COMPARED);
	strbuf_addstr(sb, "</p>\n");
	table_begin(sb, "<th></th><th>A</th><th>B</th>");
	strbuf_addf(sb, "<tr><th scope=\"row\">Number of iterations</th><td class=\"num\">%d</td>"
		    "<td class=\"num\">%d</td></tr>\n", sqlite3_column_int(q, C_NA),
		    sqlite3_column_int(q, C_NB));
	add_ab_row(sb, "Mean", q, C_MEAN_A, C_MEAN_B);
	add_ab_row(sb, "std deviation", q, C_STD_A, C_STD_B);
	add_ab_row(sb, "median", q, C_MEDIAN_A, C_MEDIAN_B);
	table_end(sb);
	strbuf_addstr(sb, "<dl class=\"facts\">\n<dt>B/A ratio</dt><dd class=\"ratio\">");
	if (isfinite(ratio)) {
		char ci[32];

		stats_ci_label(ci, sizeof(ci), store_num(q, C_ALPHA));
		strbuf_addf(sb, "%.4f (%+.2f %%), %s [%.4f, %.4f]", ratio, 100 * (ratio - 1), ci,
			    store_num(q, C_LO), store_num(q, C_HI));
	} else {
		strbuf_addstr(sb, "not compared: a side has values that are not all positive");
	}
	strbuf_addstr(sb, "</dd>\n<dt>p</dt><dd>");
	add_num(sb, store_num(q, C_P));
	strbuf_addstr(sb, "</dd>\n<dt>adjusted p</dt><dd>");
	add_num(sb, store_num(q, C_PADJ));
	strbuf_addstr(sb, "</dd>\n<dt>MDE</dt><dd>");
	if (isfinite(store_num(q, C_MDE)))
		strbuf_addf(sb, "%.2f %%", 100 * store_num(q, C_MDE));
	else
		strbuf_addstr(sb, "&#8211;");
	strbuf_addf(sb, "</dd>\n<dt>verdict</dt><dd class=\"verdict\">");
	add_badge(sb, "v-", store_text(q, C_VERDICT));
	strbuf_addf(sb, " (alpha %.3g, delta %.3g %%)</dd>\n</dl>\n", store_num(q, C_ALPHA),
		    100 * store_num(q, C_DELTA));
	exp_samples_side(&a, es, 0, q);
	exp_samples_side(&b, es, 1, q);
	{
		struct svg_series series[2] = {
			{ "A", "side-a", a.v, a.n },
			{ "B", "side-b", b.v, b.n },
		};
		strbuf_addstr(&title, ": samples of A and B");
		if (svg_distributions(sb, series, 2, store_text(q, C_UNIT), title.buf)) {
			error("cannot summarize the samples of E%lld %s.%s", exp_id, store_text(q, C_WORKLOAD),
			      store_text(q, C_METRIC));
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

/* Seed 004's layout: a row per variant, a column per memory size, % against A. */
static int add_sweep(struct site *s, struct strbuf *sb, long long exp_id)
{
	sqlite3_stmt *m = NULL, *q = NULL;
	struct strbuf rows[2] = { STRBUF_INIT, STRBUF_INIT }, head = STRBUF_INIT;
	int ret = -1, rc;

	if (prepare(s, &m, "SELECT DISTINCT workload, metric, unit, cpus FROM verdicts "
		    "WHERE experiment_id = ?1 ORDER BY workload, metric, cpus") ||
	    prepare(s, &q, "SELECT mem_mib, median_a, median_b, verdict FROM verdicts "
		    "WHERE experiment_id = ?1 AND workload = ?2 AND metric = ?3 AND cpus = ?4 "
		    "ORDER BY mem_mib"))
		goto out;
	sqlite3_bind_int64(m, 1, exp_id);
	strbuf_addstr(sb, "<section>\n<h2>Memory sweep</h2>\n");
	while ((rc = sqlite3_step(m)) == SQLITE_ROW) {
		strbuf_reset(&head);
		strbuf_reset(&rows[0]);
		strbuf_reset(&rows[1]);
		strbuf_addstr(&head, "<th>Variant</th>");
		strbuf_addstr(&rows[0], "<tr><th scope=\"row\">A</th>");
		strbuf_addstr(&rows[1], "<tr><th scope=\"row\">B</th>");
		sqlite3_bind_int64(q, 1, exp_id);
		sqlite3_bind_text(q, 2, store_text(m, 0), -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(q, 3, store_text(m, 1), -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(q, 4, sqlite3_column_int64(m, 3));
		while (sqlite3_step(q) == SQLITE_ROW) {
			double a = store_num(q, 1), b = store_num(q, 2);

			strbuf_addf(&head, "<th>%lldM</th>", sqlite3_column_int64(q, 0));
			strbuf_addstr(&rows[0], "<td class=\"num\">");
			add_num(&rows[0], a);
			strbuf_addstr(&rows[0], "</td>");
			strbuf_addstr(&rows[1], "<td class=\"num\">");
			add_num(&rows[1], b);
			if (isfinite(a) && isfinite(b) && a != 0)
				strbuf_addf(&rows[1], " (%+.1f %%)", 100 * (b / a - 1));
			strbuf_addstr(&rows[1], " ");
			add_badge(&rows[1], "v-", store_text(q, 3));
			strbuf_addstr(&rows[1], "</td>");
		}
		sqlite3_reset(q);
		strbuf_addstr(sb, "<h3>");
		escape_html(sb, store_text(m, 0));
		strbuf_addch(sb, '.');
		escape_html(sb, store_text(m, 1));
		strbuf_addstr(sb, ", median ");
		escape_html(sb, store_text(m, 2));
		strbuf_addf(sb, ", %d cpu(s)</h3>\n", sqlite3_column_int(m, 3));
		table_begin(sb, head.buf);
		strbuf_addf(sb, "%s</tr>\n%s</tr>\n", rows[0].buf, rows[1].buf);
		table_end(sb);
	}
	strbuf_addstr(sb, "</section>\n");
	ret = rc == SQLITE_DONE ? 0 : sql_error(s, "cannot read verdicts");
out:
	stmt_done(m);
	stmt_done(q);
	strbuf_release(&rows[0]);
	strbuf_release(&rows[1]);
	strbuf_release(&head);
	return ret;
}

static int add_provenance(struct site *s, struct strbuf *sb, long long exp_id)
{
	sqlite3_stmt *q = NULL, *r = NULL;
	int ret = -1, rc;

	if (prepare(s, &q, "SELECT v.id, v.name, v.git_ref, k.git_commit, k.path, k.hash, "
		    "k.release, v.cmdline FROM variants v LEFT JOIN kernels k ON k.id = v.kernel_id "
		    "WHERE v.experiment_id = ?1 ORDER BY v.name") ||
	    prepare(s, &r, "SELECT id FROM runs WHERE experiment_id = ?2 AND variant_id = ?1 "
		    "ORDER BY id"))
		goto out;
	sqlite3_bind_int64(q, 1, exp_id);
	strbuf_addstr(sb, "<section>\n<h2>Provenance</h2>\n");
	table_begin(sb, "<th>Variant</th><th>Git ref</th><th>Commit</th><th>Kernel image</th>"
		    "<th>Image hash</th><th>Release</th><th>Command line</th><th>Runs</th>");
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		strbuf_addstr(sb, "<tr><th scope=\"row\">");
		add_text(sb, q, 1);
		strbuf_addstr(sb, "</th><td>");
		add_text(sb, q, 2);
		strbuf_addstr(sb, "</td><td>");
		if (*store_text(q, 3))
			add_short_commit(sb, store_text(q, 3));
		else
			strbuf_addstr(sb, "&#8211;");
		strbuf_addstr(sb, "</td><td class=\"wrap\">");
		if (sqlite3_column_type(q, 4) == SQLITE_NULL)
			strbuf_addstr(sb, "(this host)");
		else
			add_text(sb, q, 4);
		strbuf_addstr(sb, "</td><td>");
		if (*store_text(q, 5))
			add_short_commit(sb, store_text(q, 5));
		else
			strbuf_addstr(sb, "&#8211;");
		strbuf_addstr(sb, "</td><td>");
		add_text(sb, q, 6);
		strbuf_addstr(sb, "</td><td><code>");
		add_text(sb, q, 7);
		strbuf_addstr(sb, "</code></td><td>");
		sqlite3_bind_int64(r, 1, sqlite3_column_int64(q, 0));
		sqlite3_bind_int64(r, 2, exp_id);
		for (int first = 1; sqlite3_step(r) == SQLITE_ROW; first = 0)
			strbuf_addf(sb, "%s<a href=\"r%lld.html\">%lld</a>", first ? "" : " ",
				    sqlite3_column_int64(r, 0), sqlite3_column_int64(r, 0));
		sqlite3_reset(r);
		strbuf_addstr(sb, "</td></tr>\n");
	}
	table_end(sb);
	strbuf_addstr(sb, "</section>\n");
	ret = rc == SQLITE_DONE ? 0 : sql_error(s, "cannot read variants");
out:
	stmt_done(q);
	stmt_done(r);
	return ret;
}

/* A fact of a page: which clock the numbers are in, never left to be guessed. */
static int add_clock(struct strbuf *sb, sqlite3 *db, long long exp_id, long long run_id)
{
	struct strbuf words = STRBUF_INIT, clock = STRBUF_INIT;
	int ret;

	if (run_id) {
		ret = store_run_clock(db, &clock, run_id);
		clock_words(&words, clock.buf);
	} else {
		ret = clock_words_experiment(&words, db, exp_id);
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

/*
 * The row a page is about, from sql with its id as ?1: 1 when it is there,
 * 0 when it is gone (the page is not written), -1 after an error.
 */
static int page_row(struct site *s, sqlite3_stmt **q, const char *sql, long long id,
		    const char *what)
{
	int rc;

	if (prepare(s, q, sql))
		return -1;
	sqlite3_bind_int64(*q, 1, id);
	rc = sqlite3_step(*q);
	if (rc == SQLITE_ROW)
		return 1;
	return rc == SQLITE_DONE ? 0 : sql_error(s, what);
}

static const char experiment_row_sql[] =
	"SELECT status, command, workloads, created, finished, "
	"(SELECT count(DISTINCT mem_mib) FROM verdicts WHERE experiment_id = e.id) "
	"FROM experiments e WHERE id = ?1";

static int write_experiment(struct site *s, long long id)
{
	struct strbuf sb = STRBUF_INIT, name = STRBUF_INIT;
	struct exp_samples es = { 0 };
	sqlite3_stmt *q = NULL;
	int ret = -1, rc, points = 0, rows = 0;

	if (read_begin(s))
		return -1;
	if ((rc = page_row(s, &q, experiment_row_sql, id, "cannot read experiment")) <= 0) {
		ret = rc;
		goto out;
	}
	strbuf_addf(&name, "Experiment E%lld", id);
	page_begin(&sb, name.buf);
	strbuf_addstr(&sb, "<dl class=\"facts\">\n<dt>status</dt><dd>");
	add_badge(&sb, "s-", store_text(q, 0));
	strbuf_addstr(&sb, "</dd>\n<dt>workloads</dt><dd>");
	add_text(&sb, q, 2);
	strbuf_addstr(&sb, "</dd>\n<dt>started</dt><dd>");
	add_time(&sb, store_num(q, 3));
	strbuf_addstr(&sb, "</dd>\n<dt>finished</dt><dd>");
	add_time(&sb, store_num(q, 4));
	strbuf_addstr(&sb, "</dd>\n<dt>command</dt><dd><code>");
	add_text(&sb, q, 1);
	strbuf_addstr(&sb, "</code></dd>\n");
	if (add_clock(&sb, s->db, id, 0))
		goto out;
	strbuf_addstr(&sb, "</dl>\n");
	points = sqlite3_column_int(q, 5);
	stmt_done(q);
	q = NULL;
	if (add_provenance(s, &sb, id) || exp_samples_load(s, &es, id))
		goto out;
	if (prepare(s, &q, "SELECT " VERDICT_COLUMNS " FROM verdicts WHERE experiment_id = ?1 "
		    "ORDER BY workload, metric, mem_mib, cpus"))
		goto out;
	sqlite3_bind_int64(q, 1, id);
	strbuf_addstr(&sb, "<section>\n<h2>Verdicts</h2>\n");
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		if (add_verdict(&sb, id, &es, q))
			goto out;
		rows++;
	}
	if (rc != SQLITE_DONE) {
		sql_error(s, "cannot read verdicts");
		goto out;
	}
	if (!rows)
		strbuf_addstr(&sb, "<p>No verdicts: the experiment has not finished.</p>\n");
	strbuf_addstr(&sb, "</section>\n");
	if (points > 1 && add_sweep(s, &sb, id))
		goto out;
	if (add_runs_table(s, &sb, id))
		goto out;
	page_end(&sb);
	strbuf_reset(&name);
	strbuf_addf(&name, "e%lld.html", id);
	ret = 1;
out:
	stmt_done(q);
	read_end(s);
	if (ret == 1)
		ret = site_put(s, name.buf, sb.buf, sb.len);
	exp_samples_release(&es);
	strbuf_release(&sb);
	strbuf_release(&name);
	return ret;
}

static const char bisection_row_sql[] =
	"SELECT e.status, e.created, e.finished, b.good, b.bad, b.workload, "
	"b.metric, b.per_boot, b.effect, b.effect_lo, b.effect_hi, b.culprit, b.outcome, "
	"b.effect_alpha FROM experiments e LEFT JOIN bisections b ON b.experiment_id = e.id "
	"WHERE e.id = ?1";

static int write_bisection(struct site *s, long long id)
{
	struct strbuf sb = STRBUF_INIT, name = STRBUF_INIT, culprit = STRBUF_INIT;
	struct svg_step *steps = NULL;
	char **labels = NULL;
	size_t nsteps = 0, alloc = 0;
	sqlite3_stmt *q = NULL;
	double effect;
	int ret = -1, rc;

	if (read_begin(s))
		return -1;
	if ((rc = page_row(s, &q, bisection_row_sql, id, "cannot read bisection")) <= 0) {
		ret = rc;
		goto out;
	}
	strbuf_addf(&name, "Bisection E%lld", id);
	page_begin(&sb, name.buf);
	strbuf_addstr(&sb, "<dl class=\"facts\">\n<dt>status</dt><dd>");
	add_badge(&sb, "s-", store_text(q, 0));
	strbuf_addstr(&sb, "</dd>\n<dt>outcome</dt><dd>");
	add_badge(&sb, "v-", store_text(q, 12));
	strbuf_addstr(&sb, "</dd>\n<dt>started</dt><dd>");
	add_time(&sb, store_num(q, 1));
	strbuf_addstr(&sb, "</dd>\n<dt>workload.metric</dt><dd>");
	add_text(&sb, q, 5);
	strbuf_addch(&sb, '.');
	add_text(&sb, q, 6);
	strbuf_addf(&sb, " (units: %s)</dd>\n<dt>good (G)</dt><dd>",
		    sqlite3_column_type(q, 7) == SQLITE_NULL ? "&#8211;" :
		    sqlite3_column_int(q, 7) ? "per-boot medians" : "samples");
	add_short_commit(&sb, store_text(q, 3));
	strbuf_addch(&sb, ' ');
	add_subject(s, &sb, store_text(q, 3));
	strbuf_addstr(&sb, "</dd>\n<dt>bad (B)</dt><dd>");
	add_short_commit(&sb, store_text(q, 4));
	strbuf_addch(&sb, ' ');
	add_subject(s, &sb, store_text(q, 4));
	strbuf_addstr(&sb, "</dd>\n<dt>G&#8594;B effect</dt><dd class=\"effect\">");
	effect = store_num(q, 8);
	if (isfinite(effect)) {
		char ci[32] = "CI, level not recorded";

		if (isfinite(store_num(q, 13)))
			stats_ci_label(ci, sizeof(ci), store_num(q, 13));
		strbuf_addf(&sb, "%.4f (%+.2f %%), %s [%.4f, %.4f]", effect, 100 * (effect - 1), ci,
			    store_num(q, 9), store_num(q, 10));
	}
	else
		strbuf_addstr(&sb, "&#8211;");
	strbuf_addstr(&sb, "</dd>\n<dt>culprit</dt><dd class=\"culprit\">");
	strbuf_addstr(&culprit, store_text(q, 11));
	if (culprit.len) {
		strbuf_addstr(&sb, "<code>");
		escape_html(&sb, culprit.buf);
		strbuf_addstr(&sb, "</code> ");
		add_subject(s, &sb, culprit.buf);
	} else {
		strbuf_addstr(&sb, "&#8211;");
	}
	strbuf_addstr(&sb, "</dd>\n");
	if (add_clock(&sb, s->db, id, 0))
		goto out;
	strbuf_addstr(&sb, "</dl>\n");
	stmt_done(q);
	q = NULL;

	if (prepare(s, &q, "SELECT seq, git_commit, mark, n, ratio, ci_low, ci_high FROM bisect_steps "
		    "WHERE experiment_id = ?1 ORDER BY seq"))
		goto out;
	sqlite3_bind_int64(q, 1, id);
	strbuf_addstr(&sb, "<section>\n<h2>Steps</h2>\n");
	table_begin(&sb, "<th>Step</th><th>Commit</th><th>Subject</th><th>n</th>"
		    "<th>Ratio M/G [99% CI]</th><th>Mark</th>");
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		struct svg_step *st;
		const char *commit = store_text(q, 1);

		if (nsteps == alloc) {
			size_t na = alloc ? 2 * alloc : 16;
			struct svg_step *ns = realloc(steps, na * sizeof(*ns));
			char **nl = ns ? realloc(labels, na * sizeof(*nl)) : NULL;

			if (ns)
				steps = ns;
			if (nl)
				labels = nl;
			if (!ns || !nl) {
				error("out of memory");
				goto out;
			}
			alloc = na;
		}
		labels[nsteps] = strndup(commit, 12);
		if (!labels[nsteps]) {
			error("out of memory");
			goto out;
		}
		st = &steps[nsteps++];
		st->ratio = store_num(q, 4);
		st->lo = store_num(q, 5);
		st->hi = store_num(q, 6);
		st->label = labels[nsteps - 1];
		st->mark = *store_text(q, 2) == 'B' ? "BAD" : *store_text(q, 2) == 'G' ? "GOOD" : "SKIP";
		st->culprit = culprit.len && !strcmp(commit, culprit.buf);
		strbuf_addf(&sb, "<tr%s><td class=\"num\">%zu</td><td>", st->culprit ?
			    " class=\"is-culprit\"" : "", nsteps);
		add_short_commit(&sb, commit);
		if (st->culprit)
			strbuf_addstr(&sb, " (culprit)");
		strbuf_addstr(&sb, "</td><td class=\"wrap\">");
		add_subject(s, &sb, commit);
		strbuf_addstr(&sb, "</td><td class=\"num\">");
		add_text(&sb, q, 3);
		strbuf_addstr(&sb, "</td><td class=\"num\">");
		if (isfinite(st->ratio))
			strbuf_addf(&sb, "%.4f [%.4f, %.4f]", st->ratio, st->lo, st->hi);
		else
			strbuf_addstr(&sb, "&#8211;");
		strbuf_addstr(&sb, "</td><td>");
		add_badge(&sb, "m-", store_text(q, 2));
		strbuf_addstr(&sb, "</td></tr>\n");
	}
	table_end(&sb);
	if (rc != SQLITE_DONE) {
		sql_error(s, "cannot read bisection steps");
		goto out;
	}
	if (nsteps)
		svg_bisect_steps(&sb, steps, nsteps, effect,
				 "ratio M/G of each step in order, the culprit ringed");
	strbuf_addstr(&sb, "</section>\n");
	if (add_runs_table(s, &sb, id))
		goto out;
	page_end(&sb);
	strbuf_reset(&name);
	strbuf_addf(&name, "b%lld.html", id);
	ret = 1;
out:
	stmt_done(q);
	read_end(s);
	if (ret == 1)
		ret = site_put(s, name.buf, sb.buf, sb.len);
	for (size_t i = 0; i < nsteps; i++)
		free(labels[i]);
	free(labels);
	free(steps);
	strbuf_release(&sb);
	strbuf_release(&name);
	strbuf_release(&culprit);
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

static const char run_row_sql[] =
	"SELECT r.status, r.error, r.runner, r.workloads, r.params, r.cmdline, "
	"r.mem_mib, r.cpus, r.accel, r.host, r.host_cpu, r.qemu_version, r.wall_s, "
	"r.to_hello_s, r.bad_lines, k.path, k.hash, k.arch, k.release, k.git_commit, "
	"r.started, r.ended, r.console_log, r.console_tail, r.experiment_id, e.kind, v.name "
	"FROM runs r LEFT JOIN kernels k ON k.id = r.kernel_id "
	"LEFT JOIN experiments e ON e.id = r.experiment_id "
	"LEFT JOIN variants v ON v.id = r.variant_id WHERE r.id = ?1";

static int write_run(struct site *s, long long id)
{
	static const char *const labels[] = {
		"status", "error", "runner", "workloads", "params", "command line", "memory MiB",
		"cpus", "accel", "host", "host cpu", "qemu", "wall s", "to hello s", "bad lines",
		"kernel image", "kernel hash", "arch", "kernel release", "kernel commit",
	};
	struct strbuf sb = STRBUF_INIT, name = STRBUF_INIT, log = STRBUF_INIT, tail = STRBUF_INIT;
	struct strbuf log_name = STRBUF_INIT;
	sqlite3_stmt *q = NULL;
	long long exp_id = 0;
	int ret = -1, rc, have_log = 0, bisect = 0;

	if (read_begin(s))
		return -1;
	if ((rc = page_row(s, &q, run_row_sql, id, "cannot read run")) <= 0) {
		ret = rc;
		goto out;
	}
	strbuf_addf(&name, "Run %lld", id);
	page_begin(&sb, name.buf);
	strbuf_addstr(&sb, "<dl class=\"facts\">\n<dt>started</dt><dd>");
	add_time(&sb, store_num(q, 20));
	strbuf_addstr(&sb, "</dd>\n<dt>ended</dt><dd>");
	add_time(&sb, store_num(q, 21));
	strbuf_addstr(&sb, "</dd>\n<dt>experiment</dt><dd>");
	if (sqlite3_column_type(q, 24) != SQLITE_NULL && sqlite3_column_type(q, 25) != SQLITE_NULL) {
		exp_id = sqlite3_column_int64(q, 24);
		bisect = !strcmp(store_text(q, 25), "bisect");
		strbuf_addf(&sb, "<a href=\"%c%lld.html\">E%lld</a>, variant ", bisect ? 'b' : 'e',
			    exp_id, exp_id);
		add_text(&sb, q, 26);
	} else {
		strbuf_addstr(&sb, "&#8211;");
	}
	strbuf_addstr(&sb, "</dd>\n");
	if (add_clock(&sb, s->db, 0, id))
		goto out;
	strbuf_addstr(&sb, "</dl>\n<section>\n<h2>Run</h2>\n");
	table_begin(&sb, "<th>Field</th><th>Value</th>");
	for (int i = 0; i < (int)(sizeof(labels) / sizeof(labels[0])); i++) {
		strbuf_addf(&sb, "<tr><th scope=\"row\">%s</th><td class=\"wrap\">", labels[i]);
		if (i == 0)
			add_badge(&sb, "s-", store_text(q, 0));
		else
			add_text(&sb, q, i);
		strbuf_addstr(&sb, "</td></tr>\n");
	}
	table_end(&sb);
	strbuf_addstr(&sb, "</section>\n");
	/* The log file is outside the database; its copy follows the stored path. */
	if (*store_text(q, 22) && !strbuf_read_file(&log, store_text(q, 22), 0))
		have_log = 1;
	else
		strbuf_addstr(&tail, store_text(q, 23));
	stmt_done(q);
	q = NULL;

	if (prepare(s, &q, "SELECT key, value FROM run_meta WHERE run_id = ?1 ORDER BY key"))
		goto out;
	sqlite3_bind_int64(q, 1, id);
	strbuf_addstr(&sb, "<section>\n<h2>Metadata</h2>\n");
	table_begin(&sb, "<th>Key</th><th>Value</th>");
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		strbuf_addstr(&sb, "<tr><th scope=\"row\">");
		add_text(&sb, q, 0);
		strbuf_addstr(&sb, "</th><td class=\"wrap\">");
		add_text(&sb, q, 1);
		strbuf_addstr(&sb, "</td></tr>\n");
	}
	table_end(&sb);
	strbuf_addstr(&sb, "</section>\n");
	if (rc != SQLITE_DONE) {
		sql_error(s, "cannot read run metadata");
		goto out;
	}
	if (add_run_samples(s, &sb, id))
		goto out;
	strbuf_addstr(&sb, "<section>\n<h2>Console</h2>\n");
	if (have_log) {
		strbuf_addf(&log_name, "logs/r%lld.txt", id);
		strbuf_addf(&sb, "<p><a href=\"%s\">The whole console log</a> (%zu bytes); its end:</p>\n",
			    log_name.buf, log.len);
		strbuf_addstr(&sb, "<pre class=\"console\">");
		escape_html(&sb, log_tail(&log));
		strbuf_addstr(&sb, "</pre>\n");
	} else if (tail.len) {
		strbuf_addstr(&sb, "<p>The console log is gone; its stored tail:</p>\n<pre class=\"console\">");
		escape_html(&sb, tail.buf);
		strbuf_addstr(&sb, "</pre>\n");
	} else {
		strbuf_addstr(&sb, "<p>No console log.</p>\n");
	}
	strbuf_addstr(&sb, "</section>\n");
	page_end(&sb);
	strbuf_reset(&name);
	strbuf_addf(&name, "r%lld.html", id);
	ret = 1;
out:
	stmt_done(q);
	read_end(s);
	if (ret == 1) {
		ret = site_put(s, name.buf, sb.buf, sb.len);
		if (!ret && have_log)
			ret = site_put(s, log_name.buf, log.buf, log.len);
	}
	strbuf_release(&sb);
	strbuf_release(&name);
	strbuf_release(&log);
	strbuf_release(&tail);
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

static int list_pages(struct site *s, struct page_ids *p)
{
	sqlite3_stmt *q = NULL;
	int ret = -1, rc;

	if (read_begin(s))
		return -1;
	if (prepare(s, &q, "SELECT id, CASE kind WHEN 'bisect' THEN 'b' ELSE 'e' END FROM experiments "
		    "UNION ALL SELECT id, 'r' FROM runs ORDER BY 2, 1"))
		goto out;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW)
		if (page_ids_push(p, sqlite3_column_int64(q, 0), store_text(q, 1)[0]))
			goto out;
	ret = rc == SQLITE_DONE ? 0 : sql_error(s, "cannot read experiments and runs");
out:
	stmt_done(q);
	read_end(s);
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
	struct site site;
	struct report_stats stats;
};

static int write_pages_threaded(struct site *s, const struct page_ids *pages)
{
	struct site_thread t[SITE_THREADS - 1];
	struct site_work w = { .pages = pages };
	const char *path = sqlite3_db_filename(s->db, "main");
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n = 0;
	int ret = pthread_mutex_init(&w.lock, NULL);

	if (!ret && (ret = pthread_mutex_init(&w.files, NULL)))
		pthread_mutex_destroy(&w.lock);
	if (ret)
		return error("cannot create a mutex: %s", strerror(ret));
	s->work = &w;
	/* a database with no file of its own (in memory) is read by this thread alone */
	for (long i = 1; path && *path && i < cpus && i < SITE_THREADS && (size_t)i < pages->n; i++) {
		struct site_thread *th = &t[n];
		sqlite3 *db = NULL;

		memset(th, 0, sizeof(*th));
		if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) !=
		    SQLITE_OK) {
			sqlite3_close(db);
			break;
		}
		sqlite3_busy_timeout(db, 10000);
		th->site.db = db;
		th->site.opt = s->opt;
		th->site.stats = &th->stats;
		th->site.work = &w;
		if (pthread_create(&th->id, NULL, write_pages, &th->site)) {
			sqlite3_close(db);
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
		site_release(&t[i].site);
		sqlite3_close(t[i].site.db);
	}
	s->work = NULL;
	pthread_mutex_destroy(&w.lock);
	pthread_mutex_destroy(&w.files);
	return ret;
}

int report_write_site(struct report_stats *out, sqlite3 *db, const struct report_options *opt)
{
	struct site s = { .db = db, .opt = opt, .stats = out };
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
	site_release(&s);
	free(pages.id);
	free(pages.kind);
	strbuf_release(&path);
	strbuf_release(&css);
	return ret;
}
