/* Numbers written for reading back (numfmt.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numfmt.h"

/* The fewest significant digits from 15 on in which v reads back as itself; 17 always does. */
static int exact_digits(double v)
{
	char buf[NUMFMT_EXACT_SIZE];

	for (int d = 15; d < 17; d++) {
		snprintf(buf, sizeof(buf), "%.*g", d, v);
		if (strtod(buf, NULL) == v)
			return d;
	}
	return 17;
}

void numfmt_exact(char *buf, size_t size, double v)
{
	snprintf(buf, size, "%.*g", isfinite(v) ? exact_digits(v) : 1, v);
}

void numfmt_exact_sb(struct strbuf *sb, double v)
{
	char buf[NUMFMT_EXACT_SIZE];

	if (!isfinite(v))
		return;
	numfmt_exact(buf, sizeof(buf), v);
	strbuf_addstr(sb, buf);
}

void numfmt_plain_sb(struct strbuf *sb, double v, int digits)
{
	char buf[NUMFMT_EXACT_SIZE + 8], d[NUMFMT_EXACT_SIZE];
	const char *p;
	size_t n = 0;
	int e;

	if (digits <= 0)
		digits = exact_digits(v);
	if (digits > 17)
		digits = 17;
	/* the digits and the power of ten of their first: "-4.54973e-06" */
	snprintf(buf, sizeof(buf), "%.*e", digits - 1, v);
	for (p = buf; *p && *p != 'e'; p++)
		if (*p >= '0' && *p <= '9')
			d[n++] = *p;
	e = atoi(p + 1);
	/* as %g: no trailing zeros */
	while (n > 1 && d[n - 1] == '0')
		n--;
	if (e >= (int)n - 1) {
		/* no digit after the point: the whole part, all of it */
		strbuf_addf(sb, "%.0f", v);
		return;
	}
	if (buf[0] == '-')
		strbuf_addch(sb, '-');
	if (e < 0) {
		strbuf_addstr(sb, "0.");
		for (int z = -1; z > e; z--)
			strbuf_addch(sb, '0');
		strbuf_add(sb, d, n);
	} else {
		strbuf_add(sb, d, e + 1);
		strbuf_addch(sb, '.');
		strbuf_add(sb, d + e + 1, n - e - 1);
	}
}
