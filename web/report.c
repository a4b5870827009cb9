/*
 * The site writer: lists the pages, writes them in up to SITE_THREADS
 * threads (each with its own connection), replaces a file only when its
 * bytes change (site_put(), in pages.c), and removes the pages of rows
 * that are gone. The pages themselves are in page-*.c.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "log.h"
#include "pages.h"
#include "report.h"
#include "store-report.h"

static int ensure_dir(const char *path)
{
	if (mkdir(path, 0755) && errno != EEXIST)
		return error("cannot create directory '%s': %s", path, strerror(errno));
	return 0;
}

/* The ids to write pages for, read in one go so each page reads its own rows later. */
struct page_ids {
	long long *id;
	char *kind;		/* 'e', 'b', 'n' or 'r' */
	size_t n, id_alloc, kind_alloc;
};

static int page_ids_push(struct page_ids *p, long long id, char kind)
{
	ALLOC_GROW(p->id, p->n + 1, p->id_alloc);
	ALLOC_GROW(p->kind, p->n + 1, p->kind_alloc);
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
		r = w->pages->kind[i] == 'e' ? page_experiment(s, w->pages->id[i]) :
		    w->pages->kind[i] == 'b' ? page_bisection(s, w->pages->id[i]) :
		    w->pages->kind[i] == 'n' ? page_nightly(s, w->pages->id[i]) :
		    page_run(s, w->pages->id[i]);
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
		th->site.log_root = s->log_root;
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
		s->stats->removed += t[i].stats.removed;
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
	char *log_root = opt->log_dir ? realpath(opt->log_dir, NULL) : NULL;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	s.log_root = log_root;
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
	    page_index(&s) || write_pages_threaded(&s, &pages))
		goto out;
	if (prune_dir(&s, &pages, NULL, "ebnr", ".html") || prune_dir(&s, &pages, "logs", "r", ".txt"))
		goto out;
	ret = 0;
out:
	free(pages.id);
	free(pages.kind);
	free(log_root);
	strbuf_release(&path);
	strbuf_release(&css);
	return ret;
}
