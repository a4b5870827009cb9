/* What the pages share (pages.h): their writing, numbers, subjects, clocks, runs, samples. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "escape.h"
#include "events.h"
#include "html.h"
#include "log.h"
#include "numbers.h"
#include "pages.h"
#include "run.h"
#include "sample.h"
#include "store-experiment.h"
#include "store-report.h"
#include "textfmt.h"
#include "xalloc.h"

int site_put(struct site *s, const char *name, const char *data, size_t len)
{
	int ret;

	if (sitedir_unchanged(s->dir, name, data, len)) {
		s->stats->unchanged++;
		return 0;
	}
	/*
	 * The file system serializes creating files in one directory anyway;
	 * a thread waiting here sleeps, where waiting for the directory's lock
	 * in the kernel spins and takes a core from the threads building pages.
	 */
	if (s->work)
		pthread_mutex_lock(&s->work->files);
	ret = sitedir_write(s->dir, name, data, len);
	if (s->work)
		pthread_mutex_unlock(&s->work->files);
	if (!ret)
		s->stats->written++;
	return ret;
}

int page_put(struct page *p, char kind, int (*fill)(struct page *p))
{
	struct strbuf name = STRBUF_INIT;
	int ret;

	if (store_read_begin(p->s->st))
		return -1;
	ret = fill(p);
	store_read_end(p->s->st);
	if (ret || !p->found)
		return ret;
	html_page_end(&p->sb);
	strbuf_addf(&name, "%c%lld.html", kind, p->id);
	ret = site_put(p->s, name.buf, p->sb.buf, p->sb.len);
	strbuf_release(&name);
	return ret;
}

void add_commit(struct site *s, struct strbuf *sb, const char *commit, int full)
{
	const char *url = s->opt->commit_url;
	struct strbuf href = STRBUF_INIT, subject = STRBUF_INIT;
	int found = 0;

	if (!commit || !*commit) {
		strbuf_addstr(sb, "&#8211;");
		return;
	}
	if (url && *url) {
		for (const char *p = url; *p; p++) {
			if (p[0] == '%' && p[1] == 'H') {
				strbuf_addstr(&href, commit);
				p++;
			} else {
				strbuf_addch(&href, *p);
			}
		}
		strbuf_addstr(sb, "<a class=\"commit\" href=\"");
		escape_html(sb, href.buf);
		strbuf_addch(sb, '"');
		if (!store_commit_subject(s->st, &subject, &found, commit) && found) {
			strbuf_addstr(sb, " title=\"");
			escape_html(sb, strbuf_str(&subject));
			strbuf_addch(sb, '"');
		}
		strbuf_addch(sb, '>');
	}
	if (full) {
		strbuf_addstr(sb, "<code>");
		escape_html(sb, commit);
		strbuf_addstr(sb, "</code>");
	} else {
		html_commit(sb, commit);
	}
	if (url && *url)
		strbuf_addstr(sb, "</a>");
	strbuf_release_all(&href, &subject);
}

/* The commit's stored subject as a span, or nothing (0) when none is stored. */
static int subject_span(struct site *s, struct strbuf *sb, const char *commit)
{
	struct strbuf subject = STRBUF_INIT;
	int found = 0;

	if (commit && *commit && store_commit_subject(s->st, &subject, &found, commit))
		found = 0;
	if (found) {
		strbuf_addstr(sb, "<span class=\"subject\">");
		escape_html(sb, strbuf_str(&subject));
		strbuf_addstr(sb, "</span>");
	}
	strbuf_release(&subject);
	return found;
}

void add_subject(struct site *s, struct strbuf *sb, const char *commit)
{
	if (!subject_span(s, sb, commit))
		strbuf_addstr(sb, "&#8211;");
}

void add_kernel(struct site *s, struct strbuf *sb, const char *ref, const char *commit)
{
	size_t len;

	if (!commit || !*commit) {
		html_text(sb, ref);
		return;
	}
	/* a ref that is the commit's id, or a prefix of it, says nothing more */
	if (ref && *ref && strncmp(commit, ref, strlen(ref))) {
		strbuf_addstr(sb, "<span class=\"ref\">");
		escape_html(sb, ref);
		strbuf_addstr(sb, "</span> (");
		add_commit(s, sb, commit, 0);
		strbuf_addch(sb, ')');
	} else {
		add_commit(s, sb, commit, 0);
	}
	len = sb->len;
	strbuf_addch(sb, ' ');
	if (!subject_span(s, sb, commit))
		strbuf_setlen(sb, len);
}

/*
 * What a row leads with: the worst metric (store-report.h says which),
 * its change as every page writes one, its verdict, and how many other
 * metrics there are; for a bisection its metric, the G->B effect, the
 * outcome and the culprit.
 */
void add_worst(struct site *s, struct strbuf *sb, const struct store_report_experiment_summary *e)
{
	int bisect = !strcmp(e->kind, "bisect");
	char change[48];

	if (!*e->metric && !*e->verdict) {
		strbuf_addstr(sb, "&#8211;");
		return;
	}
	if (*e->metric) {
		strbuf_addstr(sb, "<strong class=\"metric\">");
		escape_html(sb, e->workload);
		strbuf_addch(sb, '.');
		escape_html(sb, e->metric);
		strbuf_addstr(sb, "</strong> ");
		if (!bisect && e->points > 1) {
			strbuf_addstr(sb, "at ");
			run_size_words(sb, e->mem_mib, (int)e->cpus, 0, 0);
			strbuf_addch(sb, ' ');
		}
	}
	if (isfinite(e->ratio) && e->ratio > 0) {
		textfmt_ratio(change, sizeof(change), e->ratio);
		strbuf_addstr(sb, "<span class=\"change\">");
		escape_html(sb, change);
		strbuf_addstr(sb, "</span> ");
	}
	html_badge(sb, "v-", e->verdict);
	if (!bisect && e->metrics > 1)
		strbuf_addf(sb, "<br/><span class=\"more\">+%lld other metric%s</span>",
			    e->metrics - 1, e->metrics > 2 ? "s" : "");
	if (bisect && *e->culprit) {
		strbuf_addstr(sb, "<br/>culprit ");
		add_kernel(s, sb, NULL, e->culprit);
	}
}

void metric_name_set(struct metric_name *m, const char *workload, const char *metric,
		     const char *unit)
{
	m->workload = xstrdup(workload);
	m->metric = xstrdup(metric);
	m->unit = xstrdup(unit);
}

int metric_name_is(const struct metric_name *m, const char *workload, const char *metric)
{
	return !strcmp(m->metric, metric) && !strcmp(m->workload, workload);
}

int metric_name_cmp(const struct metric_name *a, const struct metric_name *b)
{
	int c = strcmp(a->workload, b->workload);

	return c ? c : strcmp(a->metric, b->metric);
}

void metric_name_release(struct metric_name *m)
{
	free(m->workload);
	free(m->metric);
	free(m->unit);
}

void html_metric_name(struct strbuf *sb, const struct metric_name *m)
{
	escape_html(sb, m->workload);
	strbuf_addch(sb, '.');
	escape_html(sb, m->metric);
}

void run_metrics_release(struct run_metrics *rm)
{
	for (size_t i = 0; i < rm->n; i++) {
		metric_name_release(&rm->m[i].name);
		dvec_release(&rm->m[i].d);
	}
	free(rm->m);
	memset(rm, 0, sizeof(*rm));
}

static int run_metric_cmp(const void *a, const void *b)
{
	return metric_name_cmp(&((const struct run_metric *)a)->name,
			       &((const struct run_metric *)b)->name);
}

/* Samples come grouped by metric, mostly: the last one's is looked at first. */
static int run_metric_sample(const struct sample *smp, void *data)
{
	struct run_metrics *rm = data;
	struct run_metric *cur = rm->cur;

	if (!cur || !metric_name_is(&cur->name, smp->workload, smp->metric)) {
		cur = NULL;
		for (size_t i = 0; i < rm->n && !cur; i++)
			if (metric_name_is(&rm->m[i].name, smp->workload, smp->metric))
				cur = &rm->m[i];
	}
	if (!cur) {
		ALLOC_GROW(rm->m, rm->n + 1, rm->alloc);
		cur = &rm->m[rm->n++];
		memset(cur, 0, sizeof(*cur));
		metric_name_set(&cur->name, smp->workload, smp->metric, smp->unit);
	}
	if (smp->flags & SAMPLE_WARMUP)
		cur->warm++;
	else
		dvec_push(&cur->d, smp->value);
	rm->cur = cur;
	return 0;
}

int run_metrics_load(struct site *s, struct run_metrics *rm, long long run_id)
{
	if (store_run_samples(s->st, run_id, run_metric_sample, rm))
		return -1;
	rm->cur = NULL;
	if (rm->n > 1)
		qsort(rm->m, rm->n, sizeof(*rm->m), run_metric_cmp);
	return 0;
}

int add_clock(struct strbuf *sb, struct store *st, long long exp_id, long long run_id)
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
	strbuf_release_all(&words, &clock);
	return ret;
}

struct runs_table {
	struct strbuf *sb;
	int bisect;
};

static int runs_table_row(const struct store_report_experiment_run *r, void *data)
{
	struct runs_table *t = data;
	struct strbuf *sb = t->sb;

	strbuf_addf(sb, "<tr><td><a href=\"r%lld.html\">%lld</a></td><td>", r->id, r->id);
	html_variant(sb, r->variant, t->bisect);
	strbuf_addstr(sb, "</td>");
	html_cell_badge(sb, "s-", r->status);
	html_cell_time(sb, r->started);
	html_cell_count(sb, NULL, r->mem_mib);
	html_cell_count(sb, NULL, r->cpus);
	html_cell_text(sb, "wrap", r->error);
	strbuf_addstr(sb, "</tr>\n");
	return 0;
}

int add_runs_table(struct site *s, struct strbuf *sb, long long exp_id, int bisect)
{
	struct runs_table t = { sb, bisect };

	html_section_table(sb, "Runs", "<th>Run</th><th>Variant</th><th>Status</th><th>Started</th>"
			   "<th>Memory MiB</th><th>CPUs</th><th>Error</th>");
	if (store_report_experiment_runs(s->st, exp_id, runs_table_row, &t))
		return -1;
	html_table_end(sb);
	if (bisect)
		html_variants_legend(sb);
	strbuf_addstr(sb, "</section>\n");
	return 0;
}

void add_events(struct strbuf *sb, const struct events_report *ev, const char *a, const char *b)
{
	if (!ev->nr)
		return;
	struct strbuf head = STRBUF_INIT, point = STRBUF_INIT;

	strbuf_addf(sb, "<section>\n<h2>Events</h2>\n<p>What the kernel counted, median an "
		    "iteration, where %s and %s differ: counted, never judged.</p>\n", a, b);
	strbuf_addf(&head, "<th>Event</th><th>Point</th><th>%s</th><th>%s</th><th>%s/%s</th>", a,
		    b, b, a);
	html_table_begin(sb, head.buf);
	strbuf_release(&head);
	for (size_t i = 0; i < ev->nr; i++) {
		const struct event_row *e = &ev->v[i];

		strbuf_addstr(sb, "<tr><td>");
		escape_html(sb, e->workload);
		strbuf_addch(sb, '.');
		escape_html(sb, e->metric);
		strbuf_addstr(sb, "</td><td>");
		strbuf_reset(&point);
		events_point_words(&point, ev, e->mem_mib, e->cpus);
		escape_html(sb, point.buf);
		/* counts, exactly, as lab ab writes them */
		strbuf_addf(sb, "</td><td class=\"num\">%.15g</td><td class=\"num\">%.15g</td>"
			    "<td class=\"num\">", e->median_a, e->median_b);
		numbers_change(sb, e->median_a > 0 ? e->median_b / e->median_a : NAN, NAN, NAN);
		strbuf_addstr(sb, "</td></tr>\n");
	}
	html_table_end(sb);
	strbuf_addstr(sb, "</section>\n");
	strbuf_release(&point);
}

static int headline(const struct store_report_experiment_summary *e, void *data)
{
	struct site_out *out = data;

	if (!*e->verdict && !*e->metric)
		return 0;
	strbuf_addstr(out->sb, "<p class=\"headline\">");
	add_worst(out->s, out->sb, e);
	strbuf_addstr(out->sb, "</p>\n");
	return 0;
}

int add_headline(struct site *s, struct strbuf *sb, long long exp_id)
{
	struct site_out out = { s, sb };

	return store_report_experiment_summary(s->st, exp_id, headline, &out);
}
