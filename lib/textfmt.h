#ifndef TEXTFMT_H
#define TEXTFMT_H
/*
 * Numbers and lines for a terminal of 100 columns: values in fixed digits
 * (an SI prefix only far from 1, never an exponent), a change B/A as a
 * percentage with the digits its confidence interval supports (or as a
 * multiple, 455× or 1/198×, beyond a doubling), widths counted in characters of UTF-8
 * rather than bytes, and long text wrapped at spaces. Pure: the caller
 * owns every buffer.
 */
#include <stddef.h>
#include <stdio.h>

#define TEXTFMT_COLUMNS 100

/*
 * v in about four significant digits: 100.1, 45702, 0.1234, and beyond
 * [0.001, 1e6) with an SI prefix: 4.24µ, 12.3M, up to 999.9E; ">999E"
 * (or "<-999E") beyond that, never a cut row of digits. "-" when not finite.
 * At most 8 bytes and the NUL.
 */
void textfmt_value(char *buf, size_t size, double v);
/*
 * The SI prefix of 10^e3 ("µ" for -6, "k" for 3, up to "E" for 18); "" for 0
 * or a power it has none for.
 */
const char *textfmt_si_prefix(int e3);

/* x, a multiple, in three significant digits and no exponent: 455, 12.3, 0.0214. */
void textfmt_multiple(char *buf, size_t size, double x);

/*
 * ns as a duration in about four digits and the unit that suits it, sign
 * before it: "812 ns", "61.43 ms", "+24.31 s"; from 10000 s on, seconds as
 * textfmt_value() writes them ("10800 s", "31.54M s").
 */
void textfmt_duration(char *buf, size_t size, double ns, const char *sign);
/* The unit textfmt_duration() writes ns in ("s", "ms", "us", "ns"), and ns in one of it. */
double textfmt_duration_unit(double ns, const char **unit);

/*
 * The unit to show values of unit in, scaled to the magnitude of ref: a time
 * unit ("s", "ms", "us", "µs", "ns") becomes the one that writes ref with
 * 1 to 999 before the point (0.000397 ms: "ns", 397), *shown that unit
 * ("µs" for microseconds); any other unit stays as it is. Returns the
 * factor that turns a value of unit into one of *shown (1 when it stays).
 * A row or a table takes one ref (its smallest value, say) so that what
 * it shows side by side is in one unit.
 */
double textfmt_unit_scale(const char **shown, const char *unit, double ref);
/*
 * v of unit as a person reads it: scaled as textfmt_unit_scale() does for
 * ref, in textfmt_value()'s digits, then the unit: "397.0 ns", "45.69 s",
 * "12.30k ops/s". The number alone into num, the unit into unit_buf, when
 * those are wanted apart.
 */
void textfmt_quantity(char *buf, size_t size, double v, const char *unit, double ref);

/*
 * How many decimals a percentage inside the interval [lo, hi] (in
 * percent) can be told with: down to the leading digit of the interval's
 * half-width, so [+1.9, +2.3] gives 1 (+2.1) and a half-width of 0.00005
 * gives 5; 0 for half-widths of 1 and more, at most 6; 1 when the
 * interval is not finite or empty.
 */
int textfmt_ci_decimals(double lo, double hi);

/*
 * The change of ratio B/A with its interval [lo, hi], one rule for every
 * output a person reads: a signed percentage while B is within a doubling
 * of A either way, "+2.1 % [+1.9, +2.3]", "-35 % [-40, -30]"; beyond, a
 * multiple, a slow-down and a speed-up alike: "455× [449×, 460×]",
 * "1/198× [1/199×, 1/197×]" (B is a 198th of A). Never an exponent, never a
 * percentage of five digits; a percentage that rounds to zero in its
 * digits has no sign: "0 % [-3, +3]", never "-0 %".
 */
void textfmt_change(char *buf, size_t size, double ratio, double lo, double hi);
/* The same without an interval, in one decimal of a percent: "+5.1 %", "455×", "1/198×". */
void textfmt_ratio(char *buf, size_t size, double ratio);

/* A p-value for a person: "0.012", "0.41", "< 0.001" (never an exponent); "-" when not finite. */
void textfmt_p(char *buf, size_t size, double p);
/* A percentage in two significant digits and no exponent: "4.3 %", "0.0043 %", "12 %". */
void textfmt_percent(char *buf, size_t size, double pct);

/* Columns s takes on a terminal: its UTF-8 characters (continuation bytes not counted). */
size_t textfmt_width(const char *s);

/*
 * s cut to width columns into buf, an ellipsis where it was cut: at its
 * end, or with keep_tail at its start ("…/bzImage").
 */
void textfmt_cut(char *buf, size_t size, const char *s, size_t width, int keep_tail);

struct strbuf;

/* Append s left-aligned in width columns (s as it is when wider). */
void textfmt_pad_sb(struct strbuf *sb, const char *s, size_t width);
/* The same, printed to f. */
void textfmt_pad(FILE *f, const char *s, size_t width);

/*
 * Append first then text, broken at spaces so that no line is wider than
 * TEXTFMT_COLUMNS; each further line starts with indent. A word wider
 * than a line (a path, a URL) is never cut: it is alone on its line,
 * whole, that line wider than the columns, so that it can be pasted.
 */
void textfmt_wrap_sb(struct strbuf *sb, const char *first, const char *indent,
		     const char *text);
/* The same, printed to f. */
void textfmt_wrap(FILE *f, const char *first, const char *indent, const char *text);

#endif
