/* Where the time went: the explanations of an experiment, a table and a chart each. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "array.h"
#include "html.h"
#include "pages.h"
#include "profile-diff.h"
#include "svg.h"
#include "textfmt.h"

/* Functions a page shows of each explanation. */
#define PAGE_EXPLAIN_TOP 10

static void add_duration(struct strbuf *sb, double ns, int have, int sign)
{
	char buf[40];

	if (!have) {
		strbuf_addstr(sb, "&#8211;");
		return;
	}
	textfmt_duration(buf, sizeof(buf), ns, !sign ? "" : ns < 0 ? "-" : "+");
	html_text(sb, buf);
}

static void add_calls(struct strbuf *sb, long long calls, int have)
{
	if (have)
		html_count(sb, calls);
	else
		strbuf_addstr(sb, "&#8211;");
}

/*
 * What a function's count counts: the PMU's samples of an event ("samples of
 * cycles", from "sampled cycles (PMU), ..."), or ftrace's exact calls.
 */
static void count_name(char *buf, size_t size, const struct profile_diff *d)
{
	const char *event;

	if (!d->sampled) {
		snprintf(buf, size, "calls");
		return;
	}
	event = d->by.buf + strlen("sampled ");
	snprintf(buf, size, "samples of %.*s", (int)strcspn(event, " ,"), event);
}

/* The unit, and its ns, that writes the largest change in a few digits. */
static double chart_unit(const struct profile_diff *d, size_t n, const char **unit)
{
	double most = 0;

	for (size_t i = 0; i < n; i++)
		most = fmax(most, fabs(d->fn[i].change));
	return textfmt_duration_unit(most, unit);
}

/* The chart of the rows shown but those that only wait, whose time would dwarf the rest. */
static void add_chart(struct strbuf *sb, const struct profile_diff *d, size_t n)
{
	struct svg_bar bars[PAGE_EXPLAIN_TOP];
	char text[PAGE_EXPLAIN_TOP][40], title[PAGE_EXPLAIN_TOP][160];
	const char *unit;
	double per;
	size_t nb = 0, shown = n;
	struct strbuf left = STRBUF_INIT;

	while (n && !d->fn[n - 1].tier)
		n--;
	if (n < shown) {
		/* the plot says what it leaves out, and how much that is */
		strbuf_addstr(&left, "<p class=\"note\">Not drawn, as they only wait (their bars would "
			      "dwarf the rest): ");
		for (size_t i = n; i < shown; i++) {
			char change[40];

			textfmt_duration(change, sizeof(change), d->fn[i].change,
					 d->fn[i].change < 0 ? "-" : "+");
			if (i > n)
				strbuf_addstr(&left, ", ");
			html_text(&left, d->fn[i].name);
			strbuf_addf(&left, " (%s)", change);
		}
		strbuf_addstr(&left, ".</p>\n");
	}
	if (!n)
		goto out;
	per = chart_unit(d, n, &unit);
	for (size_t i = 0; i < n; i++, nb++) {
		const struct profile_change *f = &d->fn[i];
		double change = f->change;
		char side[2][48];

		for (int s = 0; s < 2; s++) {
			char t[32];
			textfmt_duration(t, sizeof(t), f->ns[s], "");
			if (f->have[s])
				snprintf(side[s], sizeof(side[s]), "%s in %lld %s", t, f->calls[s],
					 d->sampled ? "samples" : "calls");
			else
				snprintf(side[s], sizeof(side[s]), "not %s",
					 d->sampled ? "sampled" : "called");
		}
		textfmt_duration(text[i], sizeof(text[i]), change, change < 0 ? "-" : "+");
		snprintf(title[i], sizeof(title[i]), "%s: A %s, B %s", f->name, side[0], side[1]);
		bars[i] = (struct svg_bar){ .label = f->name, .value = change / per,
					    .text = text[i], .title = title[i] };
	}
	svg_changes(sb, bars, nb, unit, "the change in time of the functions above, B minus A, "
		    "in the profiled boots; those that only wait left out");
out:
	strbuf_add(sb, left.buf ? left.buf : "", left.len);
	strbuf_release(&left);
}

/* How the boots were profiled and what that means for the table's counts and times. */
static void add_how(struct strbuf *sb, const struct profile_diff *d)
{
	int repeated = profile_diff_repeated(d);

	strbuf_addstr(sb, d->sampled ? "<p>Boots sampled by the PMU (" :
		      d->graph.len ? "<p>Boots with the kernel's function_graph tracer on (" :
		      "<p>Boots with the kernel's function profiler on (");
	for (int s = 0; s < 2; s++) {
		strbuf_addf(sb, "%s: run%s", s ? "; B" : "A", d->nruns[s] > 1 ? "s" : "");
		for (size_t i = 0; i < d->nruns[s]; i++)
			strbuf_addf(sb, "%s <a href=\"r%lld.html\">%lld</a>", i ? "," : "",
				    d->runs[s][i], d->runs[s][i]);
	}
	strbuf_addstr(sb, "), clock ");
	html_text(sb, d->clock.buf);
	if (d->sampled) {
		strbuf_addstr(sb, ": ");
		html_text(sb, d->by.buf);
		strbuf_addstr(sb, ". A function's samples are those taken while the CPU was in it; "
			      "its time is its own (callees not in it), its samples times the period");
	} else if (d->graph.len) {
		strbuf_addstr(sb, ": the kernel has no function profiler, ");
		html_text(sb, d->graph.buf);
		strbuf_addstr(sb, " (a function's time includes its callees)");
	}
	if (repeated)
		strbuf_addf(sb, ". <strong>Noisy</strong>: wall time, %zu and %zu boots, their "
			    "medians, each change with its 95%% interval (Hodges-Lehmann)%s",
			    d->nruns[0], d->nruns[1],
			    d->sampled ? "" : d->graph.len ? "; times include the tracer's cost" :
			    "; times include the profiler's cost");
	else if (d->graph.len)
		strbuf_addstr(sb, ". Calls are exact unless the tracer lost events, times include "
			      "its cost");
	else if (!d->sampled)
		strbuf_addstr(sb, ": calls are exact, times include the profiler's cost");
	strbuf_addf(sb, ". The verdict and its effect come from the boots without %s.</p>\n",
		    d->sampled ? "sampling" : "it");
}

static void add_explanation(struct strbuf *sb, const struct profile_diff *d)
{
	size_t n = d->nr < PAGE_EXPLAIN_TOP ? d->nr : PAGE_EXPLAIN_TOP;
	int repeated = profile_diff_repeated(d);
	struct strbuf head = STRBUF_INIT;
	char count[64];

	strbuf_addf(sb, "<h3>X%lld: ", d->e.id);
	html_text(sb, d->e.workload);
	strbuf_addch(sb, '.');
	html_text(sb, d->e.metric);
	strbuf_addstr(sb, ", A ");
	html_text(sb, d->label[0].buf);
	strbuf_addstr(sb, " against B ");
	html_text(sb, d->label[1].buf);
	strbuf_addstr(sb, "</h3>\n");
	add_how(sb, d);
	count_name(count, sizeof(count), d);
	count[0] = (char)toupper((unsigned char)count[0]);
	strbuf_addstr(&head, "<th>Function</th>");
	for (int s = 0; s < 2; s++) {
		strbuf_addstr(&head, "<th>");
		html_text(&head, count);
		strbuf_addstr(&head, s ? " B</th>" : " A</th>");
	}
	strbuf_addf(&head, "<th>Time A</th><th>Time B</th><th>Change</th>%s<th>Share</th><th></th>",
		    repeated ? "<th>95% CI</th>" : "");
	html_table_begin(sb, head.buf);
	strbuf_release(&head);
	for (size_t i = 0; i < n; i++) {
		const struct profile_change *f = &d->fn[i];
		double share = profile_change_share(d, f);

		strbuf_addstr(sb, "<tr><td>");
		html_text(sb, f->name);
		for (int s = 0; s < 2; s++) {
			strbuf_addstr(sb, "</td><td class=\"num\">");
			add_calls(sb, f->calls[s], f->have[s]);
		}
		for (int s = 0; s < 2; s++) {
			strbuf_addstr(sb, "</td><td class=\"num\">");
			add_duration(sb, f->ns[s], f->have[s], 0);
		}
		strbuf_addstr(sb, "</td><td class=\"num\">");
		add_duration(sb, f->change, 1, 1);
		if (repeated) {
			strbuf_addstr(sb, "</td><td class=\"num\">");
			if (isfinite(f->lo)) {
				add_duration(sb, f->lo, 1, 1);
				strbuf_addstr(sb, ", ");
				add_duration(sb, f->hi, 1, 1);
			} else {
				strbuf_addstr(sb, "&#8211;");
			}
		}
		strbuf_addstr(sb, "</td><td class=\"num\">");
		if (isfinite(share))
			strbuf_addf(sb, "%.1f %%", 100 * share);
		else
			strbuf_addstr(sb, "&#8211;");
		strbuf_addf(sb, "</td><td>%s</td></tr>\n", profile_change_mark(f));
	}
	html_table_end(sb);
	if (d->nr > n)
		strbuf_addf(sb, "<p class=\"note\">%zu more function(s), of smaller changes, are "
			    "shown neither in the table nor in the chart.</p>\n",
			    d->nr - n);
	if (n)
		add_chart(sb, d, n);
}

struct explanations {
	struct strbuf *sb;
	struct store *st;
	int n;
};

static int explanation_section(const struct store_explanation *e, void *data)
{
	struct explanations *x = data;
	struct profile_diff d;
	int ret = -1;

	if (!x->n++)
		strbuf_addstr(x->sb, "<section>\n<h2>Where the time went</h2>\n");
	if (!profile_diff_load(&d, x->st, e->id)) {
		add_explanation(x->sb, &d);
		ret = 0;
	}
	profile_diff_release(&d);
	return ret;
}

int add_explanations(struct strbuf *sb, struct store *st, long long exp_id)
{
	struct explanations x = { sb, st, 0 };

	if (store_explanations(st, exp_id, explanation_section, &x))
		return -1;
	if (x.n)
		strbuf_addstr(sb, "</section>\n");
	return 0;
}
