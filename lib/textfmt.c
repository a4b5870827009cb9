/* Numbers and lines for a terminal of 100 columns. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "array.h"
#include "strbuf.h"
#include "textfmt.h"

const char *textfmt_si_prefix(int e3)
{
	static const char *const prefix[] = { "p", "n", "µ", "m", "", "k", "M", "G", "T", "P", "E" };

	return e3 < -12 || e3 > 18 || e3 % 3 ? "" : prefix[e3 / 3 + 4];
}

void textfmt_value(char *buf, size_t size, double v)
{
	double a = fabs(v);
	const char *prefix = "";
	int decimals;

	if (!isfinite(v)) {
		snprintf(buf, size, "-");
		return;
	}
	/*
	 * Past the last prefix the digits would run on (1e308 is 309 of them,
	 * cut by the buffer into a wrong number): a bound that says so.
	 */
	if (a >= 999.95e18) {
		snprintf(buf, size, "%s", v < 0 ? "<-999E" : ">999E");
		return;
	}
	if (a != 0 && (a >= 1e6 || a < 1e-3)) {
		int e3 = 3 * (int)floor(log10(a) / 3);

		e3 = e3 > 18 ? 18 : e3 < -12 ? -12 : e3;
		v /= pow(10, e3);
		a /= pow(10, e3);
		prefix = textfmt_si_prefix(e3);
	}
	decimals = a >= 1000 ? 0 : a >= 100 ? 1 : a >= 10 ? 2 : a >= 1 || a == 0 ? 3 : 4;
	/* 99.996 shows as 100.0, not 100.00 */
	if (decimals && round(a * pow(10, decimals)) >= 1e4)
		decimals--;
	if (*prefix && decimals > 2)
		decimals = 2;
	if (a == 0)
		decimals = 0;
	snprintf(buf, size, "%.*f%s", decimals, v, prefix);
}

int textfmt_ci_decimals(double lo, double hi)
{
	double half = (hi - lo) / 2;
	int d;

	if (!isfinite(half) || !(half > 0))
		return 1;
	d = -(int)floor(log10(half) + 1e-9);	/* 0.0001 is stored as 9.99...e-5 */
	return d < 0 ? 0 : d > 6 ? 6 : d;
}

double textfmt_duration_unit(double ns, const char **unit)
{
	static const struct {
		double ns;
		const char *unit;
	} units[] = { { 1e9, "s" }, { 1e6, "ms" }, { 1e3, "us" } };

	for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
		if (fabs(ns) >= units[i].ns) {
			*unit = units[i].unit;
			return units[i].ns;
		}
	}
	*unit = "ns";
	return 1;
}

double textfmt_unit_scale(const char **shown, const char *unit, double ref)
{
	static const struct {
		const char *name;
		double ns;
	} times[] = { { "s", 1e9 }, { "ms", 1e6 }, { "µs", 1e3 }, { "us", 1e3 }, { "ns", 1 } };
	double per = 0, ns;

	*shown = unit;
	for (size_t i = 0; i < ARRAY_SIZE(times); i++)
		if (!strcmp(unit, times[i].name))
			per = times[i].ns;
	ns = fabs(ref) * per;
	if (!per || !isfinite(ns) || ns == 0)
		return 1;
	/* seconds stay seconds above 1000: the lab has no minutes */
	for (size_t i = 0; i < ARRAY_SIZE(times); i++) {
		if (!strcmp(times[i].name, "us"))
			continue;
		if (ns >= times[i].ns || !strcmp(times[i].name, "ns")) {
			*shown = times[i].name;
			return per / times[i].ns;
		}
	}
	return 1;
}

void textfmt_quantity(char *buf, size_t size, double v, const char *unit, double ref)
{
	const char *shown;
	double k = textfmt_unit_scale(&shown, unit, ref);
	char num[32];

	textfmt_value(num, sizeof(num), v * k);
	if (*shown)
		snprintf(buf, size, "%s %s", num, shown);
	else
		snprintf(buf, size, "%s", num);
}

void textfmt_duration(char *buf, size_t size, double ns, const char *sign)
{
	const char *unit;
	double per = textfmt_duration_unit(ns, &unit);

	if (per > 1 && fabs(ns) / per >= 1e4) {
		/* %.4g would say 1.08e+04 s for three hours */
		char num[32];

		textfmt_value(num, sizeof(num), fabs(ns) / per);
		snprintf(buf, size, "%s%s %s", sign, num, unit);
	} else if (per > 1)
		snprintf(buf, size, "%s%.4g %s", sign, fabs(ns) / per, unit);
	else
		snprintf(buf, size, "%s%.0f ns", sign, fabs(ns));
}

void textfmt_multiple(char *buf, size_t size, double x)
{
	double a = fabs(x);
	int decimals;

	if (!isfinite(x) || a == 0) {
		snprintf(buf, size, isfinite(x) ? "0" : "-");
		return;
	}
	if (a >= 1e5) {
		textfmt_value(buf, size, x);
		return;
	}
	decimals = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 2 - (int)floor(log10(a));
	if (decimals > 12)
		decimals = 12;
	snprintf(buf, size, "%.*f", decimals, x);
}

/* Beyond a doubling either way a change is a multiple: 455×, or 1/198× for a 198-fold drop. */
static int as_multiple(double ratio)
{
	return ratio >= 2 || ratio <= 0.5;
}

/* r as a multiple: "455×", "2.50×", or "1/198×" below 1. */
static void multiple(char *buf, size_t size, double r)
{
	char x[32];

	if (!isfinite(r) || r <= 0) {
		snprintf(buf, size, "%s", r == 0 ? "0×" : "-");
		return;
	}
	textfmt_multiple(x, sizeof(x), r >= 1 ? r : 1 / r);
	snprintf(buf, size, "%s%s×", r >= 1 ? "" : "1/", x);
}

/*
 * pct signed in d decimals: "+2.1", "-35"; a value that rounds to zero
 * has no sign ("0", "0.0"), so that -0.001 % and +0.001 % read the same
 * instead of "-0" beside "+0".
 */
static void signed_pct(char *buf, size_t size, int d, double pct)
{
	snprintf(buf, size, "%+.*f", d, pct);
	if (!strpbrk(buf, "123456789"))
		snprintf(buf, size, "%.*f", d, 0.0);
}

void textfmt_ratio(char *buf, size_t size, double ratio)
{
	char p[32];

	if (!isfinite(ratio) || ratio < 0) {
		snprintf(buf, size, "-");
	} else if (as_multiple(ratio)) {
		multiple(buf, size, ratio);
	} else {
		signed_pct(p, sizeof(p), 1, 100 * (ratio - 1));
		snprintf(buf, size, "%s %%", p);
	}
}

void textfmt_change(char *buf, size_t size, double ratio, double lo, double hi)
{
	char r[32], l[32], h[32];
	int d;

	if (!isfinite(ratio) || ratio < 0) {
		snprintf(buf, size, "-");
		return;
	}
	if (as_multiple(ratio)) {
		multiple(r, sizeof(r), ratio);
		multiple(l, sizeof(l), lo);
		multiple(h, sizeof(h), hi);
		if (isfinite(lo) && isfinite(hi))
			snprintf(buf, size, "%s [%s, %s]", r, l, h);
		else
			snprintf(buf, size, "%s", r);
		return;
	}
	d = textfmt_ci_decimals(100 * (lo - 1), 100 * (hi - 1));
	signed_pct(r, sizeof(r), d, 100 * (ratio - 1));
	if (isfinite(lo) && isfinite(hi)) {
		signed_pct(l, sizeof(l), d, 100 * (lo - 1));
		signed_pct(h, sizeof(h), d, 100 * (hi - 1));
		snprintf(buf, size, "%s %% [%s, %s]", r, l, h);
	} else {
		snprintf(buf, size, "%s %%", r);
	}
}

void textfmt_p(char *buf, size_t size, double p)
{
	if (!isfinite(p))
		snprintf(buf, size, "-");
	else if (p < 0.001)
		snprintf(buf, size, "< 0.001");
	else
		snprintf(buf, size, "%.*f", p < 0.1 ? 3 : 2, p);
}

void textfmt_percent(char *buf, size_t size, double pct)
{
	double a = fabs(pct);
	int d = 0;

	if (!isfinite(pct)) {
		snprintf(buf, size, "-");
		return;
	}
	if (a > 0 && a < 10)
		d = 1 - (int)floor(log10(a));
	snprintf(buf, size, "%.*f %%", d > 6 ? 6 : d, pct);
}

size_t textfmt_width(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

void textfmt_pad_sb(struct strbuf *sb, const char *s, size_t width)
{
	size_t w = textfmt_width(s);

	strbuf_addstr(sb, s);
	for (; w < width; w++)
		strbuf_addch(sb, ' ');
}

/* What a strbuf variant appended, printed to f. */
static void put_release(FILE *f, struct strbuf *sb)
{
	strbuf_fwrite(sb, f);
	strbuf_release(sb);
}

void textfmt_pad(FILE *f, const char *s, size_t width)
{
	struct strbuf sb = STRBUF_INIT;

	textfmt_pad_sb(&sb, s, width);
	put_release(f, &sb);
}

/* Bytes of s that fit in cols columns, not splitting a character. */
static size_t bytes_in(const char *s, size_t len, size_t cols)
{
	size_t i = 0, w = 0;

	while (i < len) {
		size_t j = i + 1;

		while (j < len && ((unsigned char)s[j] & 0xc0) == 0x80)
			j++;
		if (w + 1 > cols)
			break;
		w++;
		i = j;
	}
	return i;
}

void textfmt_cut(char *buf, size_t size, const char *s, size_t width, int keep_tail)
{
	size_t len = strlen(s), w = textfmt_width(s), skip;

	if (w <= width || width < 2) {
		snprintf(buf, size, "%s", s);
		return;
	}
	if (!keep_tail) {
		snprintf(buf, size, "%.*s…", (int)bytes_in(s, len, width - 1), s);
		return;
	}
	/* skip the characters beyond width - 1 from the start */
	skip = bytes_in(s, len, w - (width - 1));
	snprintf(buf, size, "…%s", s + skip);
}

/*
 * Bytes of text (len) its line takes when fit bytes fit in the line: up to
 * the last space that fits, no space at its end, a line's leading spaces
 * not counted as one. A word wider than the line (a path, a URL) is taken
 * whole, the line then wider than the columns: cut in two, it could not
 * be pasted.
 */
static size_t line_end(const char *text, size_t len, size_t fit)
{
	size_t start = strspn(text, " "), sp = fit;

	if (fit >= len)
		return len;
	while (sp > start && text[sp] != ' ')
		sp--;
	/* a run of spaces (a table's columns) left off the line's end */
	while (sp > start && text[sp - 1] == ' ')
		sp--;
	if (sp > start)
		return sp;
	return start + strcspn(text + start, " ");
}

void textfmt_wrap_sb(struct strbuf *sb, const char *first, const char *indent,
		     const char *text)
{
	const char *lead = first;
	size_t indent_w = textfmt_width(indent);

	if (indent_w > TEXTFMT_COLUMNS / 2)
		indent_w = TEXTFMT_COLUMNS / 2;
	do {
		size_t w = lead == first ? textfmt_width(first) : indent_w;
		size_t room = w + 10 < TEXTFMT_COLUMNS ? TEXTFMT_COLUMNS - w : 10;
		size_t len = strlen(text);
		size_t take = line_end(text, len, bytes_in(text, len, room));

		strbuf_addstr(sb, lead);
		strbuf_add(sb, text, take);
		strbuf_addch(sb, '\n');
		text += take;
		while (*text == ' ')
			text++;
		lead = indent;
	} while (*text);
}

void textfmt_wrap(FILE *f, const char *first, const char *indent, const char *text)
{
	struct strbuf sb = STRBUF_INIT;

	textfmt_wrap_sb(&sb, first, indent, text);
	put_release(f, &sb);
}
