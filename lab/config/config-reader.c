/* The reader of lab.conf and of recipes (config.h): git-config syntax, strictly. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "config.h"
#include "log.h"
#include "regfile.h"
#include "strbuf.h"
#include "xalloc.h"

/*
 * The reader: the part of git-config syntax the lab's files use, with the
 * line of every problem. git would take "[rnu]" for a section of some
 * other tool, a quote left open for a quote closed at the end of the line,
 * and libgit2 stops reading a value at a NUL byte: here each is an error.
 */
struct seen_key {
	char *name;		/* as config_entry's name */
	int line;
};

struct reader {
	const char *buf, *path, *kind;
	size_t len, pos;
	int line;
	const char *const *sections, *const *repeatable;
	struct strbuf section;	/* "run" or "qemu.x86_64": lower case but the subsection */
	int section_line;
	struct seen_key *seen;	/* the keys read so far, but the repeatable ones */
	size_t nseen, seen_alloc;
};

/* "<what> in <kind> <path> line <n><more>" */
static int reader_error(const struct reader *rd, const char *more, const char *what, ...)
	__attribute__((format(printf, 3, 4)));

static int reader_error(const struct reader *rd, const char *more, const char *what, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, what);
	strbuf_vaddf(&sb, what, ap);
	va_end(ap);
	error("%s in %s %s line %d%s", sb.buf, rd->kind, rd->path, rd->line, more);
	strbuf_release(&sb);
	return -1;
}

/* Length of the UTF-8 sequence at s (at most n bytes), 0 when it is not one. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t need, i;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		need = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		need = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		need = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n < need)
		return 0;
	for (i = 1; i < need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates and beyond U+10FFFF */
	if ((need == 3 && cp < 0x800) || (need == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return need;
}

/* Text only: UTF-8 without control characters but tab and line ends. */
static int check_text(struct reader *rd)
{
	const unsigned char *s = (const unsigned char *)rd->buf;
	size_t i = 0, n;

	rd->line = 1;
	while (i < rd->len) {
		if (s[i] == '\n') {
			rd->line++;
			i++;
			continue;
		}
		if (s[i] == '\r' && i + 1 < rd->len && s[i + 1] == '\n') {
			i++;
			continue;
		}
		n = utf8_len(s + i, rd->len - i);
		if (!n || (n == 1 && ((s[i] < 0x20 && s[i] != '\t') || s[i] == 0x7f)))
			return reader_error(rd, ": expected UTF-8 text", "binary byte 0x%02x", s[i]);
		i += n;
	}
	rd->line = 1;
	return 0;
}

static int peek(const struct reader *rd)
{
	return rd->pos < rd->len ? (unsigned char)rd->buf[rd->pos] : -1;
}

static int at_eol(const struct reader *rd)
{
	int c = peek(rd);
	return c < 0 || c == '\n' ||
	       (c == '\r' && rd->pos + 1 < rd->len && rd->buf[rd->pos + 1] == '\n');
}

static void skip_blanks(struct reader *rd)
{
	while (peek(rd) == ' ' || peek(rd) == '\t')
		rd->pos++;
}

/* Past the end of this line and its line end. */
static void next_line(struct reader *rd)
{
	while (!at_eol(rd))
		rd->pos++;
	if (peek(rd) == '\r')
		rd->pos++;
	if (peek(rd) == '\n') {
		rd->pos++;
		rd->line++;
	}
}

static int is_name_char(int c)
{
	return c >= 0 && c < 0x80 && (isalnum(c) || c == '-');
}

/* " (known: a, b, c)" */
static void append_known(struct strbuf *sb, const char *const *names)
{
	strbuf_addstr(sb, " (known: ");
	for (size_t i = 0; names[i]; i++)
		strbuf_addf(sb, "%s%s", i ? ", " : "", names[i]);
	strbuf_addch(sb, ')');
}

static int known_section(const struct reader *rd, const char *name)
{
	for (size_t i = 0; rd->sections[i]; i++)
		if (!strcmp(rd->sections[i], name))
			return 1;
	return 0;
}

/* "[name]", "[name \"subsection\"]" or the older "[name.subsection]". */
static int read_section(struct reader *rd, config_fn *fn, void *data)
{
	struct strbuf name = STRBUF_INIT, known = STRBUF_INIT;
	size_t dot;
	int ret = -1, c;

	rd->pos++;
	while (is_name_char(c = peek(rd)) || c == '.') {
		strbuf_addch(&name, tolower(c));
		rd->pos++;
	}
	dot = strcspn(strbuf_str(&name), ".");
	if (!name.len || !dot) {
		reader_error(rd, ": a section name is letters, digits and '-'", "bad section header");
		goto out;
	}
	strbuf_reset(&rd->section);
	strbuf_add(&rd->section, name.buf, name.len);
	if (c == ' ' || c == '\t') {
		skip_blanks(rd);
		if (peek(rd) != '"' || dot < name.len) {
			reader_error(rd, ": a subsection is quoted", "bad section header '[%s'", name.buf);
			goto out;
		}
		rd->pos++;
		strbuf_addch(&rd->section, '.');
		while ((c = peek(rd)) != '"') {
			if (at_eol(rd)) {
				reader_error(rd, "", "unterminated quote in section header '[%s'", name.buf);
				goto out;
			}
			if (c == '\\' && rd->pos + 1 < rd->len && rd->buf[rd->pos + 1] != '\n')
				c = (unsigned char)rd->buf[++rd->pos];
			strbuf_addch(&rd->section, c);
			rd->pos++;
		}
		rd->pos++;
	}
	if (peek(rd) != ']') {
		reader_error(rd, "", "missing ']' after section header '[%s'", name.buf);
		goto out;
	}
	rd->pos++;
	name.buf[dot] = '\0';
	if (!known_section(rd, name.buf)) {
		append_known(&known, rd->sections);
		reader_error(rd, known.buf, "unknown section '%s'", name.buf);
		goto out;
	}
	rd->section_line = rd->line;
	{
		struct config_entry e = { strbuf_str(&rd->section), NULL, rd->kind, rd->path,
					  rd->line, rd->line };
		if (fn(&e, data) < 0)
			goto out;
	}
	ret = 0;
out:
	strbuf_release_all(&name, &known);
	return ret;
}

/*
 * A value up to the end of its line (or of its continuation lines): blanks
 * around it dropped, "..." keeping them, \" \\ \n \t \b undone, and a
 * comment outside quotes ending it.
 */
static int read_value(struct reader *rd, struct strbuf *out)
{
	size_t blanks = 0;
	int quoted = 0, c;

	skip_blanks(rd);
	for (;;) {
		if (at_eol(rd)) {
			if (quoted)
				return reader_error(rd, "", "unterminated quote");
			return 0;
		}
		c = peek(rd);
		rd->pos++;
		if (!quoted && (c == ' ' || c == '\t')) {
			blanks++;
			continue;
		}
		if (!quoted && (c == '#' || c == ';')) {
			rd->pos--;
			while (!at_eol(rd))
				rd->pos++;
			return 0;
		}
		for (; blanks; blanks--)
			strbuf_addch(out, ' ');
		if (c == '"') {
			quoted = !quoted;
			continue;
		}
		if (c != '\\') {
			strbuf_addch(out, c);
			continue;
		}
		c = peek(rd);
		if (c == '\r' && at_eol(rd))
			c = (unsigned char)rd->buf[++rd->pos];
		rd->pos++;
		switch (c) {
		case '\n': rd->line++; break;
		case 'n': strbuf_addch(out, '\n'); break;
		case 't': strbuf_addch(out, '\t'); break;
		case 'b': strbuf_addch(out, '\b'); break;
		case '"': case '\\': strbuf_addch(out, c); break;
		case -1: return reader_error(rd, "", "'\\' at the end of the file");
		default:
			return reader_error(rd, " (known: \\\" \\\\ \\n \\t \\b)",
					    "unknown escape '\\%c'", c);
		}
	}
}

/* A key must end at a blank, '=', a comment or the end of the line. */
static int key_ends(struct reader *rd)
{
	int c = peek(rd);

	if (!at_eol(rd) && c != ' ' && c != '\t' && c != '=' && c != '#' && c != ';')
		return 0;
	skip_blanks(rd);
	c = peek(rd);
	return at_eol(rd) || c == '=' || c == '#' || c == ';';
}

/* "section.key" against the repeatable "section.key" pairs; a subsection between is any. */
static int is_repeatable(const struct reader *rd, const char *name)
{
	size_t section = strcspn(name, ".");
	const char *key = strrchr(name, '.') + 1;

	for (size_t i = 0; rd->repeatable && rd->repeatable[i]; i++) {
		const char *r = rd->repeatable[i];
		if (!strncmp(r, name, section) && r[section] == '.' && !strcmp(r + section + 1, key))
			return 1;
	}
	return 0;
}

/*
 * A key set twice in one section (its headers anywhere in the file, as in
 * git) is refused unless the caller lists it as repeatable: the last value
 * winning, as in git, would hide the first without a word.
 */
static int check_repeated(struct reader *rd, const char *name)
{
	struct strbuf where = STRBUF_INIT, more = STRBUF_INIT;
	size_t section = strcspn(name, "."), i;
	const char *key = strrchr(name, '.') + 1;

	if (is_repeatable(rd, name))
		return 0;
	for (i = 0; i < rd->nseen && strcmp(rd->seen[i].name, name); i++)
		;
	if (i == rd->nseen) {
		ALLOC_GROW(rd->seen, rd->nseen + 1, rd->seen_alloc);
		rd->seen[rd->nseen].name = xstrdup(name);
		rd->seen[rd->nseen++].line = rd->line;
		return 0;
	}
	strbuf_addf(&where, "[%.*s", (int)section, name);
	if (name + section + 1 < key)
		strbuf_addf(&where, " \"%.*s\"", (int)(key - 1 - (name + section + 1)),
			    name + section + 1);
	strbuf_addch(&where, ']');
	strbuf_addf(&more, " (first at line %d", rd->seen[i].line);
	for (size_t r = 0, n = 0; rd->repeatable && rd->repeatable[r]; r++)
		if (!strncmp(rd->repeatable[r], name, section) && rd->repeatable[r][section] == '.')
			strbuf_addf(&more, "%s%s", n++ ? ", " : "; keys that may repeat: ",
				    rd->repeatable[r] + section + 1);
	strbuf_addch(&more, ')');
	reader_error(rd, more.buf, "key '%s' of %s given twice", key, where.buf);
	strbuf_release_all(&where, &more);
	return -1;
}

static int read_entry_line(struct reader *rd, config_fn *fn, void *data)
{
	struct strbuf name = STRBUF_INIT, value = STRBUF_INIT;
	struct config_entry e = { NULL, NULL, rd->kind, rd->path, rd->line, rd->section_line };
	size_t start = rd->pos, key;
	int ret = -1;

	strbuf_addf(&name, "%s.", strbuf_str(&rd->section));
	key = name.len;
	while (is_name_char(peek(rd)))
		strbuf_addch(&name, tolower(rd->buf[rd->pos++]));
	if (!isalpha((unsigned char)name.buf[key]) || !key_ends(rd)) {
		while (!at_eol(rd) && peek(rd) != '=')
			rd->pos++;
		strbuf_reset(&name);
		strbuf_add(&name, rd->buf + start, rd->pos - start);
		strbuf_trim(&name);
		reader_error(rd, ": a key is a letter, then letters, digits and '-'",
			     "bad key '%s'", name.buf);
		goto out;
	}
	if (!rd->section.len) {
		reader_error(rd, "", "key '%s' outside any section", name.buf + 1);
		goto out;
	}
	/* here, where rd->line is still the key's */
	if (check_repeated(rd, name.buf) < 0)
		goto out;
	if (peek(rd) == '=') {
		rd->pos++;
		if (read_value(rd, &value) < 0)
			goto out;
	}
	e.name = name.buf;
	e.value = strbuf_str(&value);
	ret = fn(&e, data) < 0 ? -1 : 0;
out:
	strbuf_release_all(&name, &value);
	return ret;
}

int config_parse(const char *buf, size_t len, const char *path, const char *kind,
		 const char *const *sections, const char *const *repeatable, config_fn *fn,
		 void *data)
{
	struct reader rd = { buf, path, kind, len, 0, 1, sections, repeatable, STRBUF_INIT, 0,
			     NULL, 0, 0 };
	int ret = -1, c;

	if (check_text(&rd) < 0)
		goto out;
	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
		rd.pos = 3;
	while (rd.pos < rd.len) {
		skip_blanks(&rd);
		c = peek(&rd);
		if (c == '[') {
			if (read_section(&rd, fn, data) < 0)
				goto out;
			/* git takes a key after the header on the same line */
			continue;
		}
		if (!at_eol(&rd) && c != '#' && c != ';' && read_entry_line(&rd, fn, data) < 0)
			goto out;
		next_line(&rd);
	}
	ret = 0;
out:
	strbuf_release(&rd.section);
	for (size_t i = 0; i < rd.nseen; i++)
		free(rd.seen[i].name);
	free(rd.seen);
	return ret;
}

/* A config or recipe file is a few hundred bytes; this is far beyond. */
#define CONFIG_MAX_BYTES ((size_t)1 << 20)

int config_file_foreach(const char *path, const char *kind, const char *const *sections,
			const char *const *repeatable, config_fn *fn, void *data)
{
	struct strbuf sb = STRBUF_INIT, why = STRBUF_INIT;
	int ret;

	if (regfile_read(&sb, path, CONFIG_MAX_BYTES + 1, 0, kind, &why) < 0)
		ret = error("%s", why.buf);
	else if (sb.len > CONFIG_MAX_BYTES)
		ret = error("cannot read %s '%s': bigger than 1 MiB", kind, path);
	else
		ret = config_parse(strbuf_str(&sb), sb.len, path, kind, sections, repeatable, fn,
				   data);
	strbuf_release_all(&sb, &why);
	return ret;
}

