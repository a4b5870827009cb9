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

void escape_shell(struct strbuf *sb, const char *word)
{
	static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789_@%+=:,./-";

	if (*word && word[strspn(word, safe)] == '\0') {
		strbuf_addstr(sb, word);
		return;
	}
	strbuf_addch(sb, '\'');
	for (; *word; word++) {
		if (*word == '\'')
			strbuf_addstr(sb, "'\\''");
		else
			strbuf_addch(sb, *word);
	}
	strbuf_addch(sb, '\'');
}

void escape_shell_words(struct strbuf *sb, int argc, char *const *argv)
{
	for (int i = 0; i < argc; i++) {
		if (i)
			strbuf_addch(sb, ' ');
		escape_shell(sb, argv[i]);
	}
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
