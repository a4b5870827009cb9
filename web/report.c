/*
 * The site writer: claims the folder (sitedir.c), lists the pages, writes
 * them in up to SITE_THREADS threads (each with its own connection),
 * replaces a file only when its bytes change (site_put(), in pages.c),
 * and removes the files of its manifest that no page wrote: those of rows
 * that are gone. The pages themselves are in page-*.c.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "log.h"
#include "pages.h"
#include "regfile.h"
#include "report.h"
#include "store-report.h"

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
		th->site.dir = s->dir;
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
	struct sitedir dir;
	struct page_ids pages = { 0 };
	struct strbuf css = STRBUF_INIT, why = STRBUF_INIT;
	char *log_root = opt->log_dir ? realpath(opt->log_dir, NULL) : NULL;
	int ret = -1, claimed = 0, done = 0;

	memset(out, 0, sizeof(*out));
	s.log_root = log_root;
	s.dir = &dir;
	if (sitedir_open(&dir, opt->out_dir, st->path, opt->force))
		goto out;
	claimed = 1;
	if (regfile_read(&css, opt->css_path, 0, 0, "style sheet", &why)) {
		error("%s", why.buf);
		goto out;
	}
	if (site_put(&s, "style.css", strbuf_str(&css), css.len) || list_pages(&s, &pages) ||
	    page_index(&s) || write_pages_threaded(&s, &pages))
		goto out;
	done = 1;
out:
	/* the pages of gone rows go only after a whole report: a half one keeps what it had */
	if (claimed && !sitedir_finish(&dir, &out->removed, done) && done)
		ret = 0;
	sitedir_release(&dir);
	free(pages.id);
	free(pages.kind);
	free(log_root);
	strbuf_release_all(&css, &why);
	return ret;
}
