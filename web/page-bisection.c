/* A bisection's page: good, bad, the effect and culprit, every step plotted, the runs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "textfmt.h"
#include "array.h"
#include "escape.h"
#include "html.h"
#include "pages.h"
#include "stats.h"
#include "store-report.h"
#include "svg.h"
#include "xalloc.h"

struct bisection_page {
	struct page p;
	struct strbuf culprit;
	double effect;
	struct svg_step *steps;
	char **labels;
	size_t nsteps, steps_alloc, labels_alloc;
};

static int bisection_header(const struct store_report_bisection *b, void *data)
{
	struct bisection_page *bp = data;
	struct strbuf *sb = &bp->p.sb, title = STRBUF_INIT;
	struct site *s = bp->p.s;

	bp->p.found = 1;
	strbuf_addf(&title, "Bisection E%lld", bp->p.id);
	html_page_begin(sb, title.buf);
	strbuf_release(&title);
	if (add_headline(s, sb, bp->p.id))
		return -1;
	strbuf_addstr(sb, "<dl class=\"facts\">\n");
	html_fact_badge(sb, "status", "s-", b->status);
	html_fact_badge(sb, "outcome", "v-", b->outcome);
	html_fact_time(sb, "started", b->created);
	strbuf_addstr(sb, "<dt>workload.metric</dt><dd>");
	html_text(sb, b->workload);
	strbuf_addch(sb, '.');
	html_text(sb, b->metric);
	strbuf_addf(sb, " (units: %s)</dd>\n<dt>good (G)</dt><dd>",
		    b->per_boot < 0 ? "&#8211;" : b->per_boot ? "per-boot medians" : "samples");
	add_kernel(s, sb, b->good_ref, b->good);
	strbuf_addstr(sb, "</dd>\n<dt>bad (B)</dt><dd>");
	add_kernel(s, sb, b->bad_ref, b->bad);
	strbuf_addstr(sb, "</dd>\n<dt>G&#8594;B effect</dt><dd class=\"effect\">");
	bp->effect = b->effect;
	if (isfinite(b->effect)) {
		char ci[32] = "CI, level not recorded";

		if (isfinite(b->effect_alpha))
			stats_ci_label(ci, sizeof(ci), b->effect_alpha);
		char change[96];

		textfmt_change(change, sizeof(change), b->effect, b->effect_lo, b->effect_hi);
		strbuf_addf(sb, "%s (%s)", change, ci);
	}
	else
		strbuf_addstr(sb, "&#8211;");
	strbuf_addstr(sb, "</dd>\n<dt>culprit</dt><dd class=\"culprit\">");
	strbuf_addstr(&bp->culprit, b->culprit);
	if (bp->culprit.len) {
		add_commit(s, sb, bp->culprit.buf, 1);
		strbuf_addch(sb, ' ');
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

	ALLOC_GROW(bp->steps, bp->nsteps + 1, bp->steps_alloc);
	ALLOC_GROW(bp->labels, bp->nsteps + 1, bp->labels_alloc);
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
	add_commit(bp->p.s, sb, row->commit, 0);
	if (st->culprit)
		strbuf_addstr(sb, " (culprit)");
	strbuf_addstr(sb, "</td><td class=\"wrap\">");
	add_subject(bp->p.s, sb, row->commit);
	strbuf_addstr(sb, "</td>");
	html_cell_count(sb, "num", row->n);
	strbuf_addstr(sb, "<td class=\"num\">");
	if (isfinite(st->ratio) && st->ratio > 0) {
		char change[96];

		textfmt_change(change, sizeof(change), st->ratio, st->lo, st->hi);
		escape_html(sb, change);
	} else
		strbuf_addstr(sb, "&#8211;");
	strbuf_addstr(sb, "</td>");
	html_cell_badge(sb, "m-", row->mark);
	strbuf_addstr(sb, "</tr>\n");
	return 0;
}

static int bisection_fill(struct page *p)
{
	struct bisection_page *bp = (struct bisection_page *)p;
	struct strbuf *sb = &p->sb;
	struct site *s = p->s;
	long long id = p->id;

	if (store_report_bisection(s->st, id, bisection_header, bp))
		return -1;
	if (!p->found)
		return 0;
	html_section_table(sb, "Steps", "<th>Step</th><th>Commit</th><th>Subject</th><th>n</th>"
			   "<th>Change M/G [99% CI]</th><th>Mark</th>");
	if (store_report_bisect_steps(s->st, id, bisection_step, bp))
		return -1;
	html_table_end(sb);
	if (bp->nsteps)
		svg_bisect_steps(sb, bp->steps, bp->nsteps, bp->effect,
				 "ratio M/G of each step in order, the culprit ringed");
	strbuf_addstr(sb, "</section>\n");
	if (bp->culprit.len) {
		struct events_report ev;

		if (events_report_load_culprit(&ev, s->st, id, bp->culprit.buf))
			return -1;
		add_events(sb, &ev, "culprit^", "culprit");
		events_report_release(&ev);
	}
	return add_explanations(sb, s->st, id) || add_runs_table(s, sb, id, 1) ? -1 : 0;
}

int page_bisection(struct site *s, long long id)
{
	struct bisection_page bp = { .p = { .s = s, .sb = STRBUF_INIT, .id = id },
				     .culprit = STRBUF_INIT };
	int ret = page_put(&bp.p, 'b', bisection_fill);

	for (size_t i = 0; i < bp.nsteps; i++)
		free(bp.labels[i]);
	free(bp.labels);
	free(bp.steps);
	strbuf_release_all(&bp.p.sb, &bp.culprit);
	return ret;
}
