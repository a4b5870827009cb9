#include <string.h>

#include "escape.h"

void escape_json(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void escape_csv(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void escape_html(struct strbuf *sb, const char *s)
{
	while (s && *s) {
		const char *run = s;

		/* plain text is copied a run at a time: most of a page is plain text */
		while ((unsigned char)*s >= 0x20 && !strchr("&<>\"'", *s))
			s++;
		strbuf_add(sb, run, (size_t)(s - run));
		switch (*s) {
		case '\0': return;
		case '&': strbuf_addstr(sb, "&amp;"); break;
		case '<': strbuf_addstr(sb, "&lt;"); break;
		case '>': strbuf_addstr(sb, "&gt;"); break;
		case '"': strbuf_addstr(sb, "&quot;"); break;
		case '\'': strbuf_addstr(sb, "&#39;"); break;
		default:
			/* control characters other than tab and newline are not valid HTML */
			strbuf_addch(sb, *s == '\n' || *s == '\t' ? *s : ' ');
		}
		s++;
	}
}

void escape_printable(struct strbuf *sb, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c >= 0x7f || c == '\\')
			strbuf_addf(sb, "\\x%02x", c);
		else
			strbuf_addch(sb, (char)c);
	}
}
