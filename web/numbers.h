#ifndef NUMBERS_H
#define NUMBERS_H
/*
 * Numbers for the report's pages and plots, appended to sb, escaped: what
 * a person reads goes through lib/textfmt.h, as the text output of lab ab
 * and lab show does; a title's exact value is all its digits, never an
 * exponent. A value that is not finite is a dash.
 */
#include "strbuf.h"

/*
 * v in digits significant digits (0: all it takes to read back as v) and
 * never an exponent: 0.00000454973, 12345678 (numfmt_plain_sb()).
 */
void numbers_exact(struct strbuf *sb, double v, int digits);
/* v of unit scaled to the magnitude of ref, with the unit it is then in: "397.3 ns". */
void numbers_quantity(struct strbuf *sb, double v, const char *unit, double ref);
/*
 * A change B/A as a percentage or a multiple ("+4.5 % [+4.4, +4.6]",
 * "1/512×"), with its interval [lo, hi] when both are finite.
 */
void numbers_change(struct strbuf *sb, double ratio, double lo, double hi);

#endif
