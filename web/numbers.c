/* Numbers as a person reads them on a page or in a plot (numbers.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "escape.h"
#include "numbers.h"
#include "textfmt.h"

void numbers_exact(struct strbuf *sb, double v, int digits)
{
	char buf[64];
	int e;

	if (!isfinite(v)) {
		strbuf_addstr(sb, "&#8211;");
		return;
	}
	snprintf(buf, sizeof(buf), "%.*g", digits, v);
	if (!strchr(buf, 'e')) {
		strbuf_addstr(sb, buf);
		return;
	}
	/* the same digits without an exponent: 0.00000454973, 12345678 */
	e = (int)floor(log10(fabs(v)));
	if (e >= 0) {
		strbuf_addf(sb, "%.0f", v);
		return;
	}
	/* as %g would: no trailing zeros */
	snprintf(buf, sizeof(buf), "%.*f", digits - 1 - e < 30 ? digits - 1 - e : 30, v);
	for (size_t n = strlen(buf); n > 1 && (buf[n - 1] == '0' || buf[n - 1] == '.'); n--) {
		int dot = buf[n - 1] == '.';

		buf[n - 1] = '\0';
		if (dot)
			break;
	}
	strbuf_addstr(sb, buf);
}

void numbers_quantity(struct strbuf *sb, double v, const char *unit, double ref)
{
	char buf[64];

	if (!isfinite(v)) {
		strbuf_addstr(sb, "&#8211;");
		return;
	}
	textfmt_quantity(buf, sizeof(buf), v, unit, ref);
	escape_html(sb, buf);
}

void numbers_change(struct strbuf *sb, double ratio, double lo, double hi)
{
	char buf[96];

	if (!isfinite(ratio) || ratio < 0) {
		strbuf_addstr(sb, "&#8211;");
		return;
	}
	textfmt_change(buf, sizeof(buf), ratio, lo, hi);
	escape_html(sb, buf);
}
