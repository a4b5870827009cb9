/*
 * A nightly's page: its newest night, and per series its points over the
 * commits with each change marked, and the changes with their confirming
 * A/B, bisection and culprit.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "escape.h"
#include "html.h"
#include "pages.h"
#include "stats.h"
#include "store-report.h"
#include "strvec.h"
#include "svg.h"
#include "textfmt.h"
#include "xalloc.h"

/* A change as read, its text kept until the page is written. */
struct change {
	long long ab_experiment, bisection;
	char *series, *kind, *before, *after, *verdict, *culprit, *outcome;
	double ratio;
};

/* A change's texts, in the order of the row's */
#define CHANGE_TEXTS(c) { &(c)->series, &(c)->kind, &(c)->before, &(c)->after, &(c)->verdict, \
			  &(c)->culprit, &(c)->outcome }

/* The series being read: its points until the next series' first. */
struct series {
	struct strbuf key, workload, metric, unit, target, cmdline, clock;
	long long mem_mib;
	struct dvec y;
	struct strvec commits;
};

struct nightly_page {
	struct page p;
	struct strbuf name;
	struct change *c;
	size_t nc, alloc;
	struct series s;
	int nseries;
};

/* A series' texts, in the order of series_start()'s */
#define SERIES_TEXTS(s) { &(s)->key, &(s)->workload, &(s)->metric, &(s)->unit, &(s)->target, \
			  &(s)->cmdline, &(s)->clock }

static void series_init(struct series *s)
{
	struct strbuf *text[] = SERIES_TEXTS(s);

	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < ARRAY_SIZE(text); i++)
		strbuf_init(text[i], 0);
	strvec_init(&s->commits);
}

static void series_release(struct series *s)
{
	struct strbuf *text[] = SERIES_TEXTS(s);

	for (size_t i = 0; i < ARRAY_SIZE(text); i++)
		strbuf_release(text[i]);
	dvec_release(&s->y);
	strvec_release(&s->commits);
}

/* A new series, from the first point of it. */
static void series_start(struct series *s, const struct store_report_nightly_point *p)
{
	const char *from[] = { p->series, p->workload, p->metric, p->unit, p->target, p->cmdline,
			       p->clock };
	struct strbuf *text[] = SERIES_TEXTS(s);

	series_release(s);
	series_init(s);
	for (size_t i = 0; i < ARRAY_SIZE(text); i++)
		strbuf_addstr(text[i], from[i]);
	s->mem_mib = p->mem_mib;
}

static void nightly_page_release(struct nightly_page *np)
{
	for (size_t i = 0; i < np->nc; i++) {
		char **text[] = CHANGE_TEXTS(&np->c[i]);

		for (size_t j = 0; j < ARRAY_SIZE(text); j++)
			free(*text[j]);
	}
	free(np->c);
	series_release(&np->s);
	strbuf_release_all(&np->name, &np->p.sb);
}

static int nightly_header(const struct store_report_nightly *n, void *data)
{
	struct nightly_page *np = data;
	struct strbuf *sb = &np->p.sb, title = STRBUF_INIT;

	np->p.found = 1;
	strbuf_addstr(&np->name, n->name);
	strbuf_addf(&title, "Nightly %s", n->name);
	html_page_begin(sb, title.buf);
	strbuf_release(&title);
	strbuf_addf(sb, "<dl class=\"facts\">\n<dt>nights</dt><dd>%lld</dd>\n"
		    "<dt>last night</dt><dd>", n->nights);
	html_time(sb, n->last_started);
	strbuf_addch(sb, ' ');
	html_badge(sb, "s-", n->last_status);
	strbuf_addstr(sb, "</dd>\n<dt>head fetched</dt><dd>");
	add_kernel(np->p.s, sb, NULL, n->last_head);
	strbuf_addstr(sb, "</dd>\n<dt>summary</dt><dd class=\"wrap\">");
	html_text(sb, n->last_summary);
	strbuf_addf(sb, "</dd>\n<dt>series</dt><dd>%lld</dd>\n<dt>changes</dt><dd>%lld</dd>\n</dl>\n",
		    n->series, n->changes);
	return 0;
}

/* The row into c, its texts copies that last until the page is written. */
static void change_copy(struct change *c, const struct store_report_nightly_change *row)
{
	const char *from[] = { row->series, row->kind, row->before, row->after, row->verdict,
			       row->culprit, row->outcome };
	char **text[] = CHANGE_TEXTS(c);

	c->ab_experiment = row->ab_experiment;
	c->bisection = row->bisection;
	c->ratio = row->ratio;
	for (size_t i = 0; i < ARRAY_SIZE(text); i++)
		*text[i] = xstrdup(from[i]);
}

static int nightly_change(const struct store_report_nightly_change *row, void *data)
{
	struct nightly_page *np = data;

	ALLOC_GROW(np->c, np->nc + 1, np->alloc);
	change_copy(&np->c[np->nc++], row);
	return 0;
}

static size_t commit_index(const struct series *s, const char *commit)
{
	for (size_t i = 0; i < s->commits.nr; i++)
		if (!strcmp(s->commits.v[i], commit))
			return i;
	return (size_t)-1;
}

/* A badge's class, as html_badge() writes it: prefix, then the word's letters in lower case. */
static void badge_class(struct strbuf *sb, const char *prefix, const char *word)
{
	strbuf_addstr(sb, prefix);
	for (; *word; word++)
		if (isalnum((unsigned char)*word))
			strbuf_addch(sb, (char)tolower((unsigned char)*word));
}

static void add_change_row(struct site *s, struct strbuf *sb, const struct change *c)
{
	strbuf_addstr(sb, "<tr>");
	html_cell_text(sb, NULL, c->kind);
	strbuf_addstr(sb, "<td class=\"wrap\">");
	add_kernel(s, sb, NULL, c->before);
	strbuf_addstr(sb, "</td><td class=\"wrap\">");
	add_kernel(s, sb, NULL, c->after);
	strbuf_addstr(sb, "</td><td class=\"num\">");
	if (isfinite(c->ratio) && c->ratio > 0) {
		char change[48];

		textfmt_ratio(change, sizeof(change), c->ratio);
		escape_html(sb, change);
	} else {
		strbuf_addstr(sb, "&#8211;");
	}
	strbuf_addstr(sb, "</td>");
	html_cell_badge(sb, "v-", c->verdict);
	strbuf_addstr(sb, "<td>");
	if (c->ab_experiment)
		strbuf_addf(sb, "<a href=\"e%lld.html\">E%lld</a>", c->ab_experiment, c->ab_experiment);
	else
		strbuf_addstr(sb, "&#8211;");
	strbuf_addstr(sb, "</td><td>");
	if (c->bisection) {
		strbuf_addf(sb, "<a href=\"b%lld.html\">E%lld</a> ", c->bisection, c->bisection);
		html_badge(sb, "v-", c->outcome);
	} else {
		strbuf_addstr(sb, "&#8211;");
	}
	strbuf_addstr(sb, "</td><td class=\"wrap\">");
	if (*c->culprit) {
		add_kernel(s, sb, NULL, c->culprit);
	} else {
		strbuf_addstr(sb, "&#8211;");
	}
	strbuf_addstr(sb, "</td></tr>\n");
}

/* The series read so far: its heading, its plot with the changes marked, their table. */
static void add_series(struct nightly_page *np)
{
	struct series *s = &np->s;
	struct strbuf *sb = &np->p.sb, title = STRBUF_INIT, classes = STRBUF_INIT;
	struct svg_change *marks = xcalloc(np->nc + 1, sizeof(*marks));
	char **labels = xcalloc(s->commits.nr + 1, sizeof(*labels));
	size_t nmarks = 0, nrows = 0, *at = xcalloc(np->nc + 1, sizeof(*at));
	double band;

	np->nseries++;
	for (size_t i = 0; i < s->commits.nr; i++) {
		labels[i] = xstrdup(s->commits.v[i]);
		if (strlen(labels[i]) > 12)
			labels[i][12] = '\0';
	}
	/* the class names are kept apart first: marks point into classes' buffer */
	for (size_t i = 0; i < np->nc; i++) {
		const struct change *c = &np->c[i];
		size_t b, a;

		if (strcmp(c->series, s->key.buf))
			continue;
		nrows++;
		b = commit_index(s, c->before);
		a = commit_index(s, c->after);
		if (b == (size_t)-1 || a == (size_t)-1)
			continue;
		marks[nmarks].before = b;
		marks[nmarks].after = a;
		marks[nmarks].label = *c->verdict ? c->verdict : c->kind;
		at[nmarks++] = classes.len;
		badge_class(&classes, "v-", *c->verdict ? c->verdict : "unconfirmed");
		strbuf_addch(&classes, '\0');
	}
	for (size_t i = 0; i < nmarks; i++)
		marks[i].css_class = classes.buf + at[i];

	strbuf_addstr(sb, "<section class=\"series\">\n<h2>");
	escape_html(sb, s->workload.buf);
	strbuf_addch(sb, '.');
	escape_html(sb, s->metric.buf);
	strbuf_addstr(sb, "</h2>\n<p>");
	escape_html(sb, s->target.buf);
	strbuf_addf(sb, ", %lld MiB, ", s->mem_mib);
	escape_html(sb, s->clock.buf);
	if (s->cmdline.len) {
		strbuf_addstr(sb, " clock, command line <code>");
		escape_html(sb, s->cmdline.buf);
		strbuf_addstr(sb, "</code>");
	} else {
		strbuf_addstr(sb, " clock, no command line");
	}
	band = strncmp(s->clock.buf, "icount", 6) ? STATS_DELTA_WALL : STATS_DELTA_VIRTUAL;
	strbuf_addf(sb, ": %zu commit(s), each point the median of its boots' medians; the scale "
		    "holds at least &#177;%.3g %% around their median, the change a verdict in this "
		    "clock calls the same.</p>\n", s->y.nr, 100 * band);
	strbuf_addf(&title, "%s.%s over %zu commits, %zu change(s) marked", s->workload.buf,
		    s->metric.buf, s->y.nr, nmarks);
	svg_nightly_series(sb, s->y.v, (const char *const *)labels, s->y.nr, marks, nmarks,
			   s->unit.buf, band, title.buf);
	if (nrows) {
		html_table_begin(sb, "<th>Kind</th><th>Before</th><th>After</th><th>Change</th>"
			    "<th>Verdict</th><th>A/B</th><th>Bisection</th><th>Culprit</th>");
		for (size_t i = 0; i < np->nc; i++)
			if (!strcmp(np->c[i].series, s->key.buf))
				add_change_row(np->p.s, sb, &np->c[i]);
		html_table_end(sb);
	} else {
		strbuf_addstr(sb, "<p>No change found.</p>\n");
	}
	strbuf_addstr(sb, "</section>\n");
	for (size_t i = 0; i < s->commits.nr; i++)
		free(labels[i]);
	free(labels);
	free(marks);
	free(at);
	strbuf_release_all(&classes, &title);
}

static int nightly_point(const struct store_report_nightly_point *p, void *data)
{
	struct nightly_page *np = data;
	struct series *s = &np->s;

	if (strcmp(s->key.buf ? s->key.buf : "", p->series) || !s->y.nr) {
		if (s->y.nr)
			add_series(np);
		series_start(s, p);
	}
	dvec_push(&s->y, p->value);
	strvec_push(&s->commits, p->commit);
	return 0;
}

static int nightly_fill(struct page *p)
{
	struct nightly_page *np = (struct nightly_page *)p;

	if (store_report_nightly(p->s->st, p->id, nightly_header, np))
		return -1;
	if (!p->found)
		return 0;
	if (store_report_nightly_changes(p->s->st, np->name.buf, nightly_change, np) ||
	    store_report_nightly_points(p->s->st, np->name.buf, nightly_point, np))
		return -1;
	if (np->s.y.nr)
		add_series(np);
	if (!np->nseries)
		strbuf_addstr(&p->sb, "<p>No commit measured yet.</p>\n");
	return 0;
}

int page_nightly(struct site *s, long long id)
{
	struct nightly_page np = { .p = { .s = s, .sb = STRBUF_INIT, .id = id },
				   .name = STRBUF_INIT };
	int ret;

	series_init(&np.s);
	ret = page_put(&np.p, 'n', nightly_fill);
	nightly_page_release(&np);
	return ret;
}
