#ifndef AB_REPORT_H
#define AB_REPORT_H
/*
 * What an A/B stored, rendered: its verdicts as text (the seeds' tables),
 * CSV or JSON, and the event counts a bisection's culprit changed, each
 * appended to a strbuf the caller writes where it wants. The commands
 * choose the format and print it; the nightly's mail takes the text.
 */
#include "store.h"
#include "strbuf.h"

struct json_writer;

enum ab_format { AB_TEXT, AB_CSV, AB_JSON };

/* "text", "csv" or "json"; -1 for anything else (nothing printed). */
int ab_format_parse(enum ab_format *out, const char *name);

enum ab_report_flags {
	/* text: after the table, each metric's block (means, deviations, p, MDE) */
	AB_REPORT_VERBOSE = 1 << 0,
};

/*
 * Append an experiment's stored verdicts to out; -1 when it does not exist
 * (out may hold a part then, as a printed report would have). As
 * text: what the experiment is, then a table of one row per metric.
 */
int ab_report(struct strbuf *out, struct store *st, long long exp_id, enum ab_format fmt,
	      enum ab_report_flags flags);

/*
 * Append the event counts that differ between a bisection's culprit (hex id)
 * and its parent, as its confirmation measured them, a table per point:
 * nothing when none differ. -1 when they cannot be read.
 */
int ab_report_culprit_events(struct strbuf *out, struct store *st, long long bisection,
			     const char *culprit);

struct events_report;
/* The event counts of ev that differ, a table per point, the sides headed a and b. */
void ab_report_print_events(struct strbuf *out, const struct events_report *ev, const char *a,
			    const char *b);
/* "events": [...], the rows of ev, as the A/B's json has them, a member of jw's open object. */
void ab_report_json_events(struct json_writer *jw, const struct events_report *ev);

#endif
