#ifndef PAGES_H
#define PAGES_H
/*
 * The site's pages, for web/ alone: report.c lists them and writes each
 * through one of the page_*() functions below, each page's rows read in
 * one read transaction of the calling thread's store, and the page
 * handed to site_put(). Those return 0 (also when the row is gone: no
 * page) or -1 after a message.
 */
#include <pthread.h>

#include "dvec.h"
#include "events.h"
#include "report.h"
#include "sitedir.h"
#include "store.h"
#include "strbuf.h"

struct page_ids;

/* What the threads writing pages share. */
struct site_work {
	pthread_mutex_t lock;		/* next and failed */
	pthread_mutex_t files;		/* creating and renaming files in the site */
	const struct page_ids *pages;
	size_t next;			/* the next page to write */
	int failed;
};

/* One thread's view of the site. */
struct site {
	struct store *st;		/* this thread's */
	const struct report_options *opt;
	struct report_stats *stats;
	struct site_work *work;		/* NULL until pages are written in threads */
	const char *log_root;		/* opt->log_dir resolved; NULL: there is none */
	struct sitedir *dir;		/* the folder, shared by the threads */
};

/*
 * Replace out_dir/name with data unless it holds those bytes already;
 * either way the file is the site's (its manifest lists it). A file of
 * the manifest that no page puts is removed at the end.
 */
int site_put(struct site *s, const char *name, const char *data, size_t len);

int page_index(struct site *s);
int page_experiment(struct site *s, long long id);
int page_bisection(struct site *s, long long id);
int page_run(struct site *s, long long id);
int page_nightly(struct site *s, long long id);

/* What a row's callback writes to, and the site it is of. */
struct site_out {
	struct site *s;
	struct strbuf *sb;
};

/* The page being built, from the callback of the row it is about. */
struct page {
	struct site *s;
	struct strbuf sb;
	long long id;
	int found;			/* the row is there: the page is written */
};

/*
 * The page about one row, in one read transaction: fill() reads the row
 * (setting p->found) and writes the page's body into p->sb, 0 or -1;
 * when the row is there the page is ended and put as KIND ID.html
 * ("e12.html"). 0 (also when the row is gone) or -1.
 */
int page_put(struct page *p, char kind, int (*fill)(struct page *p));

/* A metric as pages group samples by: copies of its names, freed by metric_name_release(). */
struct metric_name {
	char *workload, *metric, *unit;
};
void metric_name_set(struct metric_name *m, const char *workload, const char *metric,
		     const char *unit);
int metric_name_is(const struct metric_name *m, const char *workload, const char *metric);
/* By workload, then metric: the order of the tables of a page. */
int metric_name_cmp(const struct metric_name *a, const struct metric_name *b);
void metric_name_release(struct metric_name *m);
/* "workload.metric", escaped. */
void html_metric_name(struct strbuf *sb, const struct metric_name *m);

/* One run's samples of one metric, warm-up counted apart. */
struct run_metric {
	struct metric_name name;
	struct dvec d;
	int warm;
};

struct run_metrics {
	struct run_metric *m;
	size_t n, alloc;
	struct run_metric *cur;		/* while loading: the last sample's */
};
/*
 * A run's samples per metric, the metrics in name order. They are read in
 * the order of the run's index and grouped here, which is cheaper than
 * having sqlite sort them for each of thousands of runs.
 */
int run_metrics_load(struct site *s, struct run_metrics *rm, long long run_id);
void run_metrics_release(struct run_metrics *rm);

/*
 * A commit id as html_commit() writes it (cut to 12, or whole when full),
 * a link to its page with its stored subject as the link's title when
 * report.commitUrl is set; a dash when commit is NULL or "".
 */
void add_commit(struct site *s, struct strbuf *sb, const char *commit, int full);
/*
 * A kernel built from a commit, as every page names one: "ref (short
 * id) subject", the id as add_commit() writes it. The ref is left out
 * when NULL, "" or a prefix of the id. The subject is the one stored
 * when the lab built the commit (the commits table); the site reads no
 * repository, so that it is the same wherever it is written, and a
 * commit the table lacks (built by a lab older than it) shows no subject.
 * No commit: the ref alone, or a dash.
 */
void add_kernel(struct site *s, struct strbuf *sb, const char *ref, const char *commit);
struct store_report_experiment_summary;
/*
 * What an experiment's row on the index, and its page's first line, lead
 * with: its worst metric (store-report.h says which), that metric's change
 * as textfmt_ratio() writes it, the verdict, and "+N other metrics"; for a
 * bisection its metric, G->B effect, outcome and culprit.
 */
void add_worst(struct site *s, struct strbuf *sb, const struct store_report_experiment_summary *e);
/* The same as a paragraph of class "headline", for the top of an experiment's page. */
int add_headline(struct site *s, struct strbuf *sb, long long exp_id);
/* A commit's subject as stored when it was measured (the repository may be gone), or a dash. */
void add_subject(struct site *s, struct strbuf *sb, const char *commit);
/* A fact of a page: which clock the numbers are in, never left to be guessed. */
int add_clock(struct strbuf *sb, struct store *st, long long exp_id, long long run_id);
/* The runs of an experiment, each linked to its page; a bisection's variants explained. */
int add_runs_table(struct site *s, struct strbuf *sb, long long exp_id, int bisect);
/*
 * The event counts whose median an iteration differs between ev's sides,
 * headed a and b (escaped by the caller), a section; none: nothing.
 */
void add_events(struct strbuf *sb, const struct events_report *ev, const char *a, const char *b);
/*
 * The explanations of an experiment (lab explain's profiled boots), a
 * section with a table and a chart of changes each; none: nothing.
 */
int add_explanations(struct strbuf *sb, struct store *st, long long exp_id);

#endif
