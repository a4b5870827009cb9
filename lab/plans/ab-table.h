#ifndef AB_TABLE_H
#define AB_TABLE_H
/*
 * An experiment's verdicts as text for a terminal of 100 columns: a table
 * per sweep point, one row per metric (A and B as median ±relative
 * standard deviation, the change B/A with its confidence interval, the
 * verdict), with what was compared said once above it; and, for a sweep,
 * a table per metric with a column per memory size. Under each point's
 * table, from ev (NULL: nothing): what its runs measured, a warning for
 * each emulated verdict its page faults contradict, and the event counts
 * that differ between A and B. Appends the text to the caller's strbuf, and
 * prints nothing itself.
 */
#include "events.h"
#include "store-verdict.h"
#include "strbuf.h"

/*
 * The value a verdict's row scales its unit to (textfmt_unit_scale()): the
 * smaller median of its two sides, so that neither shows below 1.
 */
double ab_table_row_ref(const struct verdict_row *v);
void ab_table_print(struct strbuf *out, const struct verdict_list *l,
		    const struct events_report *ev);
void ab_table_print_sweep(struct strbuf *out, const struct verdict_list *l, const char *clock);
/*
 * The event counts of one point that differ between ev's two sides, a row
 * each, the sides' columns headed a and b: nothing when none differ.
 */
void ab_table_print_events(struct strbuf *out, const struct events_report *ev, long long mem,
			   int cpus, const char *a, const char *b);

#endif
