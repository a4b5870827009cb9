/*
 * One line of a bench's table, its numbers written by lib/textfmt as lab
 * ab and the docs write them (not a bench: the bench scripts call it).
 *
 *   benchfmt CELL...
 *
 * The cells one space apart, each WIDTH:KIND:TEXT, WIDTH its columns
 * (negative: left-aligned, as printf's), counted in characters ("µs" is
 * two), KIND one of
 *   s        TEXT as it is
 *   q:UNIT   TEXT a value of UNIT, scaled to itself: "1.140 s" for 1140.2:ms
 *   p        TEXT a percentage: "35 %", "0.0019 %"
 * A number that is "-" or empty stays "-".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "textfmt.h"

static int cell(struct strbuf *line, const char *arg)
{
	char *end, shown[64], unit[32] = "";
	const char *kind, *text;
	long width = strtol(arg, &end, 10);
	size_t w, pad;

	if (end == arg || *end != ':' || !end[1] || end[2] != ':')
		return -1;
	kind = end + 1;
	text = kind + 2;
	if (*kind == 'q') {
		const char *colon = strchr(text, ':');

		if (!colon || (size_t)(colon - text) >= sizeof(unit))
			return -1;
		memcpy(unit, text, colon - text);
		unit[colon - text] = '\0';
		text = colon + 1;
	}
	if (*kind == 's' || !*text || !strcmp(text, "-")) {
		snprintf(shown, sizeof(shown), "%s", *text ? text : "-");
	} else {
		double v = strtod(text, &end);

		if (*end)
			return -1;
		if (*kind == 'q')
			textfmt_quantity(shown, sizeof(shown), v, unit, v);
		else if (*kind == 'p')
			textfmt_percent(shown, sizeof(shown), v);
		else
			return -1;
	}
	if (line->len)
		strbuf_addch(line, ' ');
	w = textfmt_width(shown);
	pad = (size_t)labs(width) > w ? (size_t)labs(width) - w : 0;
	for (size_t i = 0; width > 0 && i < pad; i++)
		strbuf_addch(line, ' ');
	strbuf_addstr(line, shown);
	for (size_t i = 0; width < 0 && i < pad; i++)
		strbuf_addch(line, ' ');
	return 0;
}

int main(int argc, char **argv)
{
	struct strbuf line = STRBUF_INIT;

	for (int i = 1; i < argc; i++) {
		if (cell(&line, argv[i])) {
			fprintf(stderr, "benchfmt: bad cell '%s' (WIDTH:s|q:UNIT|p:TEXT)\n", argv[i]);
			return 2;
		}
	}
	/* the last cell's padding is no use at the end of a line */
	while (line.len && line.buf[line.len - 1] == ' ')
		strbuf_setlen(&line, line.len - 1);
	puts(strbuf_str(&line));
	strbuf_release(&line);
	return 0;
}
