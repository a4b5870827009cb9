/* Numbers as a person reads them on a page or in a plot (numbers.h). */
#include <math.h>
#include <stdio.h>

#include "escape.h"
#include "numbers.h"
#include "numfmt.h"
#include "textfmt.h"

void numbers_exact(struct strbuf *sb, double v, int digits)
{
	if (isfinite(v))
		numfmt_plain_sb(sb, v, digits);
	else
		strbuf_addstr(sb, "&#8211;");
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
