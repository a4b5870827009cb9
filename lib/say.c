#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "escape.h"
#include "meter.h"
#include "say.h"
#include "strvec.h"
#include "textfmt.h"

FILE *say_stream;

static FILE *out(void)
{
	return say_stream ? say_stream : stderr;
}

/* The indent of a line's further lines when say(), say_more() and say_to() wrap it. */
#define LINE_INDENT "    "

/*
 * Append text, each of its lines broken at spaces within TEXTFMT_COLUMNS,
 * further lines begun with indent; textfmt_wrap_sb() takes one line.
 */
static void add_wrapped(struct strbuf *sb, const char *text, const char *indent)
{
	struct strbuf line = STRBUF_INIT;
	const char *nl;

	do {
		nl = strchrnul(text, '\n');
		strbuf_reset(&line);
		strbuf_add(&line, text, nl - text);
		textfmt_wrap_sb(sb, "", indent, line.buf);
		text = nl + 1;
	} while (*nl);
	strbuf_release(&line);
}

/*
 * The one way out: the meter cleared (a line written over it would mix
 * with it), the text made safe for a terminal (a ref, a file name, a
 * guest's words are quoted in it; newline and tab kept), then printed,
 * wrapped under indent; with no indent, as it is (a command the voice
 * has already broken into lines the shell joins).
 */
static void put(FILE *f, const char *text, const char *indent)
{
	struct strbuf safe = STRBUF_INIT, lines = STRBUF_INIT;

	escape_term(&safe, text, ESCAPE_TERM_LINES);
	if (indent)
		add_wrapped(&lines, safe.buf, indent);
	else
		strbuf_addf(&lines, "%s\n", safe.buf);
	meter_clear_showing();
	strbuf_fwrite(&lines, f);
	fflush(f);
	strbuf_release(&safe);
	strbuf_release(&lines);
}

static void vsay(FILE *f, const char *indent, const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_vaddf(&sb, fmt, ap);
	put(f, sb.buf, indent);
	strbuf_release(&sb);
}

void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(out(), LINE_INDENT, fmt, ap);
	va_end(ap);
}

void say_more(const char *fmt, ...)
{
	va_list ap;

	if (meter_mode == METER_QUIET)
		return;
	va_start(ap, fmt);
	vsay(out(), LINE_INDENT, fmt, ap);
	va_end(ap);
}

void say_to(FILE *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(f, LINE_INDENT, fmt, ap);
	va_end(ap);
}

void say_wrap(const char *indent, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(out(), indent, fmt, ap);
	va_end(ap);
}

/* The indent of a command's continuation lines, and " \\" after a line's last word. */
#define CONT_INDENT 4
#define CONT_END 2
/* The widest word a continuation line holds whole; a wider one is split. */
#define WORD_ROOM (TEXTFMT_COLUMNS - CONT_INDENT - CONT_END)
/* The fewest columns of a split word's first piece worth starting a line's end with. */
#define PIECE_MIN 10

/*
 * A word a terminal would act on (a control byte, a C1 control, bytes not
 * UTF-8) cannot be single-quoted: put() shows its bytes as \xHH, which
 * inside '' the shell keeps as text. Such a word is said as bash's $'...',
 * where \xHH is the byte again; escape_shell() stays POSIX for the remote
 * shells it quotes for.
 */
static int needs_ansi(const char *word)
{
	return term_safe(word) != word;
}

/* One character of word (n bytes) as it is written inside '' or $''. */
static void add_unit(struct strbuf *sb, const char *c, size_t n, int ansi)
{
	char one[8];

	if (!ansi) {
		if (*c == '\'')
			strbuf_addstr(sb, "'\\''");
		else
			strbuf_add(sb, c, n);
		return;
	}
	if (*c == '\'' || *c == '\\') {
		strbuf_addch(sb, '\\');
		strbuf_addch(sb, *c);
		return;
	}
	snprintf(one, sizeof(one), "%.*s", (int)n, c);
	escape_term(sb, one, 0);
}

/* The bytes of word's next character: a UTF-8 character whole, any other byte alone. */
static size_t unit_len(const char *c)
{
	size_t n = 1;

	if ((unsigned char)*c >= 0xc0)
		while (n < 4 && (c[n] & 0xc0) == 0x80)
			n++;
	return n;
}

/* word quoted for a shell, so that pasted into bash it is word again. */
static void add_word(struct strbuf *sb, const char *word)
{
	if (!needs_ansi(word)) {
		escape_shell(sb, word);
		return;
	}
	strbuf_addstr(sb, "$'");
	for (size_t n; *word; word += n) {
		n = unit_len(word);
		add_unit(sb, word, n, 1);
	}
	strbuf_addch(sb, '\'');
}

/*
 * Columns the value after option word takes (and its space), when a line
 * should keep the two together ("--workload zeroing"); 0 when word is no
 * option or next is one too, or next is wide enough to be split anyway.
 */
static size_t value_width(const char *word, const char *next)
{
	struct strbuf sb = STRBUF_INIT;
	size_t w;

	if (word[0] != '-' || next[0] == '-' || strchr(word, '='))
		return 0;
	add_word(&sb, next);
	w = textfmt_width(sb.buf);
	strbuf_release(&sb);
	return w > WORD_ROOM ? 0 : 1 + w;
}

/*
 * A word too wide for any line, quoted in pieces: each line but its last
 * closes the quote and ends in a backslash, the next begins at column 0
 * and reopens it ('abc'\<newline>'def'), so that the shell joins the
 * pieces back into one word. A quoted character ('\'', \xHH) and a UTF-8
 * character are never cut. Starts at column col; returns the column after.
 */
static size_t add_split_word(struct strbuf *sb, const char *word, size_t col)
{
	int ansi = needs_ansi(word);
	const char *open = ansi ? "$'" : "'";
	struct strbuf unit = STRBUF_INIT;

	strbuf_addstr(sb, open);
	col += strlen(open);
	for (size_t n, w; *word; word += n) {
		n = unit_len(word);
		strbuf_reset(&unit);
		add_unit(&unit, word, n, ansi);
		w = textfmt_width(unit.buf);
		/* room left for the closing quote and the backslash, or " \\" after the word */
		if (col + w + 1 + CONT_END > TEXTFMT_COLUMNS) {
			strbuf_addf(sb, "'\\\n%s", open);
			col = strlen(open);
		}
		strbuf_add(sb, unit.buf, unit.len);
		col += w;
	}
	strbuf_addch(sb, '\'');
	strbuf_release(&unit);
	return col + 1;
}

void say_add_command(struct strbuf *sb, const char *lead, const char *cmd)
{
	struct strvec words = STRVEC_INIT;
	struct strbuf w = STRBUF_INIT;
	size_t col = textfmt_width(lead);

	strbuf_addstr(sb, lead);
	/* a line the shell cannot split is shown as it was stored */
	if (split_shell_words(&words, cmd)) {
		strbuf_addf(sb, "%s\n", cmd);
		goto out;
	}
	for (size_t i = 0; i < words.nr; i++) {
		size_t ww, keep;

		strbuf_reset(&w);
		add_word(&w, words.v[i]);
		ww = textfmt_width(w.buf);
		keep = ww + (i + 1 < words.nr ? value_width(words.v[i], words.v[i + 1]) : 0);
		/* a word no line holds: split, its first piece on this line when it has room */
		if (ww > WORD_ROOM)
			keep = PIECE_MIN;
		/* room for " \" after it: the continuation stays within the columns */
		if (i && col + 1 + keep + CONT_END > TEXTFMT_COLUMNS) {
			strbuf_addstr(sb, " \\\n    ");
			col = CONT_INDENT;
		} else if (i) {
			strbuf_addch(sb, ' ');
			col++;
		}
		if (ww > WORD_ROOM) {
			col = add_split_word(sb, words.v[i], col);
			continue;
		}
		strbuf_addstr(sb, w.buf);
		col += ww;
	}
	strbuf_addch(sb, '\n');
out:
	strvec_release(&words);
	strbuf_release(&w);
}

void say_command(const char *lead, const char *cmd)
{
	struct strbuf sb = STRBUF_INIT;

	say_add_command(&sb, lead, cmd);
	strbuf_setlen(&sb, sb.len - 1);
	put(out(), sb.buf, NULL);
	strbuf_release(&sb);
}

void say_stopped(const char *command, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(out(), "  ", fmt, ap);
	va_end(ap);
	say_command("  ", command);
}

void say_interrupted(const char *command, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	say_stopped(command, "%s: interrupted, its finished boots kept; resume it with:", sb.buf);
	strbuf_release(&sb);
}
