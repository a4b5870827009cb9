/* The A/B report: stored verdicts as text (the seeds' tables), CSV or JSON. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ab.h"
#include "ab-report.h"
#include "ab-table.h"
#include "escape.h"
#include "events.h"
#include "json-writer.h"
#include "log.h"
#include "numfmt.h"
#include "say.h"
#include "store-experiment.h"
#include "store-verdict.h"
#include "strbuf.h"
#include "textfmt.h"
#include "xalloc.h"

enum { C_WORKLOAD, C_METRIC, C_UNIT, C_MEM, C_CPUS, C_DIRECTION, C_COMPARED, C_NA, C_NB,
       C_MEAN_A, C_MEAN_B, C_STD_A, C_STD_B, C_MEDIAN_A, C_MEDIAN_B, C_RATIO, C_LO, C_HI,
       C_P, C_PADJ, C_ALPHA, C_DELTA, C_MDE, C_VERDICT, C_COUNT };
static const char *const column_names[C_COUNT] = {
	"workload", "metric", "unit", "mem_mib", "cpus", "direction", "unit_compared", "n_a",
	"n_b", "mean_a", "mean_b", "std_a", "std_b", "median_a", "median_b", "ratio", "ci_low",
	"ci_high", "p", "p_adjusted", "alpha", "delta", "mde", "verdict",
};

/* Column i of a verdict: its text, or NULL and its number (NaN: none). */
static const char *column(const struct verdict_row *v, int i, double *num)
{
	const char *const text[C_COUNT] = {
		[C_WORKLOAD] = v->workload, [C_METRIC] = v->metric, [C_UNIT] = v->unit,
		[C_DIRECTION] = v->direction, [C_COMPARED] = v->unit_compared,
		[C_VERDICT] = v->verdict,
	};
	const double nums[C_COUNT] = {
		[C_MEM] = (double)v->mem_mib, [C_CPUS] = v->cpus, [C_NA] = (double)v->n_a,
		[C_NB] = (double)v->n_b, [C_MEAN_A] = v->mean_a, [C_MEAN_B] = v->mean_b,
		[C_STD_A] = v->std_a, [C_STD_B] = v->std_b, [C_MEDIAN_A] = v->median_a,
		[C_MEDIAN_B] = v->median_b, [C_RATIO] = v->ratio, [C_LO] = v->ci_low,
		[C_HI] = v->ci_high, [C_P] = v->p, [C_PADJ] = v->p_adjusted,
		[C_ALPHA] = v->alpha, [C_DELTA] = v->delta, [C_MDE] = v->mde,
	};

	*num = nums[i];
	return text[i];
}

/* One line of a detailed block: label, then A's and B's value in the block's unit. */
static void print_side_values(struct strbuf *out, const char *label, double a, double b,
			      double k, const char *unit)
{
	char va[32], vb[32];

	textfmt_value(va, sizeof(va), a * k);
	textfmt_value(vb, sizeof(vb), b * k);
	strbuf_addf(out, "  %-22s %13s ", label, va);
	textfmt_pad_sb(out, unit, 3);
	strbuf_addf(out, " %13s %s\n", vb, unit);
}

static void print_metric_text(struct strbuf *out, const struct verdict_row *v,
			      const char *clock, const struct events_report *ev)
{
	const char *unit;
	double k = textfmt_unit_scale(&unit, v->unit, ab_table_row_ref(v));
	struct strbuf sb = STRBUF_INIT, size = STRBUF_INIT;
	char ci[32];

	unit = term_safe(unit);
	events_point_words(&size, ev, v->mem_mib, v->cpus);
	strbuf_addf(&sb, "%s.%s (%s, %s is better; %s; compared: %s; %s)",
		    term_safe(v->workload), term_safe(v->metric), unit, v->direction, size.buf,
		    v->unit_compared, clock);
	strbuf_release(&size);
	strbuf_addch(out, '\n');
	textfmt_wrap_sb(out, "", "  ", sb.buf);
	strbuf_addf(out, "  %-22s %13s %-3s %13s\n", "", "A", "", "B");
	strbuf_addf(out, "  %-22s %13d %-3s %13d\n", "Number of iterations:", (int)v->n_a, "",
		    (int)v->n_b);
	print_side_values(out, "Mean:", v->mean_a, v->mean_b, k, unit);
	print_side_values(out, "std deviation:", v->std_a, v->std_b, k, unit);
	print_side_values(out, "median:", v->median_a, v->median_b, k, unit);
	stats_ci_label(ci, sizeof(ci), v->alpha);
	if (isfinite(v->ratio)) {
		char change[96], p[16], padj[16], mde[32];

		textfmt_change(change, sizeof(change), v->ratio, v->ci_low, v->ci_high);
		textfmt_p(p, sizeof(p), v->p);
		textfmt_p(padj, sizeof(padj), v->p_adjusted);
		textfmt_percent(mde, sizeof(mde), 100 * v->mde);
		strbuf_reset(&sb);
		strbuf_addf(&sb, "B/A %s (%s), p %s (adjusted %s), MDE %s", change, ci, p, padj,
			    mde);
		textfmt_wrap_sb(out, "  ", "    ", sb.buf);
	} else {
		strbuf_addstr(out, "  not compared: a side has values that are not all positive\n");
	}
	strbuf_addf(out, "  verdict: %s (alpha %.3g, delta %.3g %%)\n", v->verdict, v->alpha,
		    100 * v->delta);
	strbuf_release(&sb);
}

/*
 * The stored workloads ("zeroing,[rate higher=ops] exec:/b/work.sh --ops")
 * as a person reads them: one after the other, a section's name first and
 * its settings after its command ("rate: exec:/b/work.sh --ops (higher=ops)").
 */
static void workloads_words(struct strbuf *out, const char *stored)
{
	const char *p = stored;

	while (*p) {
		const char *end = p, *close = NULL;
		int quoted = 0, depth = 0;

		for (; *end && (quoted || depth || *end != ','); end++) {
			if (*end == '\'')
				quoted = !quoted;
			else if (!quoted && *end == '[')
				depth++;
			else if (!quoted && *end == ']' && depth && !--depth && !close)
				close = end;
		}
		if (out->len)
			strbuf_addstr(out, ", ");
		if (*p == '[' && close) {
			const char *sp = memchr(p, ' ', (size_t)(close - p));
			const char *cmd = close + 1;

			while (*cmd == ' ')
				cmd++;
			strbuf_add(out, p + 1, (size_t)((sp ? sp : close) - p - 1));
			strbuf_addstr(out, ": ");
			strbuf_add(out, cmd, (size_t)(end - cmd));
			if (sp) {
				strbuf_addstr(out, " (");
				strbuf_add(out, sp + 1, (size_t)(close - sp - 1));
				strbuf_addch(out, ')');
			}
		} else {
			strbuf_add(out, p, (size_t)(end - p));
		}
		p = *end ? end + 1 : end;
	}
}

struct header {
	struct strbuf *out;
	struct json_writer *jw;	/* NULL: text */
	long long exp_id;
	const char *clock;
	int points;
};

static int print_experiment(const struct store_experiment *e, void *data)
{
	struct header *h = data;
	struct strbuf *out = h->out;

	h->points = e->points;
	if (h->jw) {
		json_int(h->jw, "experiment", h->exp_id);
		json_string(h->jw, "status", e->status);
		json_string(h->jw, "workloads", e->workloads);
		json_string(h->jw, "command", e->command);
		json_int(h->jw, "boots_ok", e->boots_ok);
		json_int(h->jw, "boots_failed", e->boots_failed);
		json_string(h->jw, "clock", h->clock);
		json_array_begin(h->jw, "variants");
	} else {
		struct strbuf sb = STRBUF_INIT;

		workloads_words(&sb, e->workloads);
		strbuf_addf(out, "experiment E%lld (%s): %d boots OK, %d failed\n", h->exp_id,
			    e->status, e->boots_ok, e->boots_failed);
		textfmt_wrap_sb(out, "  workloads: ", "    ", term_safe(sb.buf));
		strbuf_reset(&sb);
		say_add_command(&sb, "  command: ", term_safe(e->command));
		strbuf_addstr(out, sb.buf);
		strbuf_release(&sb);
		strbuf_addf(out, "  clock: %s\n", h->clock);
	}
	return 0;
}

static int print_variant(const struct store_variant *v, void *data)
{
	struct header *h = data;
	struct strbuf *out = h->out;

	if (!h->jw) {
		struct strbuf line = STRBUF_INIT;

		strbuf_addf(&line, "  %s: ", term_safe(v->name));
		strbuf_addf(&line, "%s ", term_safe(v->kernel));
		strbuf_addf(&line, "(%s) ", *v->hash ? term_safe(v->hash) : "-");
		strbuf_addf(&line, "cmdline '%s'", term_safe(v->cmdline));
		textfmt_wrap_sb(out, "", "      ", line.buf);
		strbuf_release(&line);
		return 0;
	}
	json_object_begin(h->jw, NULL);
	json_string(h->jw, "name", v->name);
	/* the host itself: no kernel image, and so no hash */
	json_string(h->jw, "kernel", v->kernel_id ? v->kernel : NULL);
	json_string(h->jw, "hash", *v->hash ? v->hash : NULL);
	json_string(h->jw, "cmdline", v->cmdline);
	json_object_end(h->jw);
	return 0;
}

/*
 * What the experiment is: as text, the lines above the verdicts; as JSON,
 * the object's fields before "verdicts" (the object is left open).
 */
static int print_header(struct strbuf *out, struct json_writer *jw, struct store *st,
			long long exp_id, int *points, const char *clock)
{
	struct header h = { out, jw, exp_id, clock, 0 };

	if (store_experiment_read(st, exp_id, print_experiment, &h))
		return -1;
	*points = h.points;
	if (store_experiment_variants(st, exp_id, NULL, print_variant, &h))
		return -1;
	if (jw)
		json_array_end(jw);
	return 0;
}

int ab_format_parse(enum ab_format *out, const char *name)
{
	static const char *const names[] = { "text", "csv", "json" };

	for (int i = 0; i < 3; i++)
		if (!strcmp(name, names[i])) {
			*out = (enum ab_format)i;
			return 0;
		}
	return -1;
}

/* A verdict's JSON after its columns: what it measured, and the warning it carries or null. */
static void json_measured(struct json_writer *jw, const struct verdict_row *v,
			  const struct events_report *ev)
{
	const struct event_row *e = events_disagree(ev, v);
	struct strbuf sb = STRBUF_INIT;

	measured_words(&sb, events_measured_at(ev, v->mem_mib, v->cpus));
	json_string(jw, "measured", sb.buf);
	strbuf_reset(&sb);
	if (e)
		events_disagree_words(&sb, v, e);
	json_string(jw, "warning", e ? sb.buf : NULL);
	strbuf_release(&sb);
}

void ab_report_json_events(struct json_writer *jw, const struct events_report *ev)
{
	json_array_begin(jw, "events");
	for (size_t i = 0; i < ev->nr; i++) {
		const struct event_row *e = &ev->v[i];

		json_object_begin(jw, NULL);
		json_string(jw, "workload", e->workload);
		json_string(jw, "metric", e->metric);
		json_int(jw, "mem_mib", e->mem_mib);
		json_int(jw, "cpus", e->cpus);
		json_int(jw, "n_a", (long long)e->n_a);
		json_int(jw, "n_b", (long long)e->n_b);
		json_number(jw, "median_a", e->median_a);
		json_number(jw, "median_b", e->median_b);
		json_number(jw, "ratio", e->median_a > 0 ? e->median_b / e->median_a : NAN);
		json_object_end(jw);
	}
	json_array_end(jw);
}

void ab_report_print_events(struct strbuf *out, const struct events_report *ev, const char *a,
			    const char *b)
{
	for (size_t i = 0; i < ev->nr; i++)
		if (!i || ev->v[i].mem_mib != ev->v[i - 1].mem_mib ||
		    ev->v[i].cpus != ev->v[i - 1].cpus)
			ab_table_print_events(out, ev, ev->v[i].mem_mib, ev->v[i].cpus, a, b);
}

int ab_report_culprit_events(struct strbuf *out, struct store *st, long long bisection,
			     const char *culprit)
{
	struct events_report ev;

	if (events_report_load_culprit(&ev, st, bisection, culprit))
		return -1;
	ab_report_print_events(out, &ev, "culprit^", "culprit");
	events_report_release(&ev);
	return 0;
}

int ab_report(struct strbuf *out, struct store *st, long long exp_id, enum ab_format fmt,
	      enum ab_report_flags flags)
{
	struct strbuf clock = STRBUF_INIT;
	struct verdict_list l = { 0 };
	struct events_report ev = { 0 };
	struct json_writer json, *jw = fmt == AB_JSON ? &json : NULL;
	int ret = -1, points = 0;

	if (jw) {
		json_writer_init_sb(jw, out, 0);
		json_object_begin(jw, NULL);
	}
	if (store_experiment_clock_words(st, &clock, exp_id))
		goto out;
	if (fmt != AB_CSV && events_report_load(&ev, st, exp_id))
		goto out;
	if (fmt != AB_CSV && print_header(out, jw, st, exp_id, &points, clock.buf))
		goto out;
	if (store_verdicts_read(st, &l, exp_id))
		goto out;
	if (fmt == AB_CSV) {
		strbuf_addstr(out, "experiment");
		for (int i = 0; i < C_COUNT; i++)
			strbuf_addf(out, ",%s", column_names[i]);
		strbuf_addch(out, '\n');
	} else if (jw) {
		json_array_begin(jw, "verdicts");
	} else {
		ab_table_print(out, &l, &ev);
	}
	for (size_t r = 0; r < l.nr; r++) {
		const struct verdict_row *v = &l.v[r];
		const char *text;
		double num;

		if (fmt == AB_TEXT) {
			if (flags & AB_REPORT_VERBOSE)
				print_metric_text(out, v, clock.buf, &ev);
		} else if (fmt == AB_CSV) {
			strbuf_addf(out, "%lld", exp_id);
			for (int i = 0; i < C_COUNT; i++) {
				strbuf_addch(out, ',');
				text = column(v, i, &num);
				if (text)
					escape_csv_sb(out, text);
				else
					numfmt_exact_sb(out, num);
			}
			strbuf_addch(out, '\n');
		} else {
			json_object_begin(jw, NULL);
			for (int i = 0; i < C_COUNT; i++) {
				text = column(v, i, &num);
				if (text)
					json_string(jw, column_names[i], text);
				else
					json_number(jw, column_names[i], num);
			}
			json_measured(jw, v, &ev);
			json_object_end(jw);
		}
	}
	if (jw) {
		json_array_end(jw);
		ab_report_json_events(jw, &ev);
		json_object_end(jw);
		json_writer_end(jw);
	}
	if (fmt == AB_TEXT && !l.nr)
		strbuf_addstr(out, "\n(no verdicts: the experiment has not finished)\n");
	if (fmt == AB_TEXT && points > 1)
		ab_table_print_sweep(out, &l, clock.buf);
	ret = 0;
out:
	events_report_release(&ev);
	verdict_list_release(&l);
	strbuf_release(&clock);
	return ret;
}
