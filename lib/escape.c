#include <string.h>

#include "array.h"
#include "escape.h"
#include "strvec.h"

/* The FILE side of an escape: the strbuf one's text, written out. */
static void escape_to(FILE *f, void (*escape)(struct strbuf *, const char *), const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	escape(&sb, s);
	strbuf_fwrite(&sb, f);
	strbuf_release(&sb);
}

void escape_json_sb(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			strbuf_addf(sb, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			strbuf_addf(sb, "\\u%04x", c);
		else
			strbuf_addch(sb, c);
	}
	strbuf_addch(sb, '"');
}

void escape_json(FILE *f, const char *s)
{
	escape_to(f, escape_json_sb, s);
}

void escape_csv_sb(struct strbuf *sb, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		strbuf_addstr(sb, s);
		return;
	}
	strbuf_addch(sb, '"');
	for (; *s; s++) {
		if (*s == '"')
			strbuf_addch(sb, '"');
		strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '"');
}

void escape_csv(FILE *f, const char *s)
{
	escape_to(f, escape_csv_sb, s);
}

void escape_shell(struct strbuf *sb, const char *word)
{
	static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789_@%+=:,./-";

	if (*word && word[strspn(word, safe)] == '\0')
		strbuf_addstr(sb, word);
	else
		escape_shell_quoted(sb, word);
}

void escape_shell_quoted(struct strbuf *sb, const char *word)
{
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

int split_shell_words(struct strvec *out, const char *s)
{
	struct strbuf w = STRBUF_INIT;
	int in_word = 0, ret = 0;

	for (;; s++) {
		if (!*s || *s == ' ' || *s == '\t' || *s == '\n') {
			if (in_word)
				strvec_push(out, w.buf);
			strbuf_reset(&w);
			in_word = 0;
			if (!*s)
				break;
			continue;
		}
		in_word = 1;
		if (*s == '\\' && s[1]) {
			strbuf_addch(&w, *++s);
		} else if (*s == '\'') {
			const char *end = strchr(s + 1, '\'');
			if (!end)
				goto unclosed;
			strbuf_add(&w, s + 1, (size_t)(end - s - 1));
			s = end;
		} else if (*s == '"') {
			for (s++; *s && *s != '"'; s++) {
				if (*s == '\\' && s[1] && strchr("\\\"$`", s[1]))
					s++;
				strbuf_addch(&w, *s);
			}
			if (!*s)
				goto unclosed;
		} else {
			strbuf_addch(&w, *s);
		}
	}
	goto out;
unclosed:
	ret = -1;
out:
	strbuf_release(&w);
	return ret;
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

/*
 * The length of the valid UTF-8 sequence at s (1 to 4), or 0 when the
 * byte at s does not start one: a stray continuation byte, an overlong
 * form, a surrogate, a code point past U+10FFFF or a sequence cut short
 * (RFC 3629, section 4).
 */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];
	size_t n;
	unsigned char lo = 0x80, hi = 0xbf;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

static void add_hex(struct strbuf *sb, const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		strbuf_addf(sb, "\\x%02x", s[i]);
}

/* Bytes of s that escape_term() leaves alone, from the start. */
static size_t term_plain(const char *s, enum escape_term_flags flags)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (p[i]) {
		size_t n;

		if (p[i] < 0x20 || p[i] == 0x7f) {
			if (!(flags & ESCAPE_TERM_LINES) || (p[i] != '\n' && p[i] != '\t'))
				break;
			n = 1;
		} else {
			n = utf8_len(p + i);
			/* U+0080 to U+009F, the C1 controls: ESC [ and ESC ] of 8-bit terminals */
			if (!n || (n == 2 && p[i] == 0xc2 && p[i + 1] < 0xa0))
				break;
		}
		i += n;
	}
	return i;
}

void escape_term(struct strbuf *sb, const char *s, enum escape_term_flags flags)
{
	while (s && *s) {
		size_t n = term_plain(s, flags);
		const unsigned char *p;

		strbuf_add(sb, s, n);
		s += n;
		if (!*s)
			return;
		p = (const unsigned char *)s;
		/* a serial console ends its lines "\r\n" */
		if ((flags & ESCAPE_TERM_LINES) && p[0] == '\r' && p[1] == '\n') {
			s++;
			continue;
		}
		n = p[0] >= 0x80 ? utf8_len(p) : 0;
		/* a C1 control shows both its bytes; any other byte shows alone */
		add_hex(sb, p, n == 2 ? 2 : 1);
		s += n == 2 ? 2 : 1;
	}
}

const char *term_safe(const char *s)
{
	static _Thread_local struct strbuf ring[8];
	static _Thread_local unsigned next;
	struct strbuf *sb;

	if (!s || !s[term_plain(s, 0)])
		return s;
	sb = &ring[next++ % ARRAY_SIZE(ring)];
	strbuf_reset(sb);
	escape_term(sb, s, 0);
	return sb->buf;
}
