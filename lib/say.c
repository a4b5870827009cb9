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

/*
 * The one way out: the meter cleared (a line written over it would mix
 * with it), the text made safe for a terminal (a ref, a file name, a
 * guest's words are quoted in it; newline and tab kept), then printed.
 */
static void put(FILE *f, const char *text, const char *indent)
{
	struct strbuf safe = STRBUF_INIT;

	escape_term(&safe, text, ESCAPE_TERM_LINES);
	meter_clear_showing();
	if (indent)
		textfmt_wrap(f, "", indent, safe.buf);
	else
		fprintf(f, "%s\n", safe.buf);
	fflush(f);
	strbuf_release(&safe);
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
	vsay(out(), NULL, fmt, ap);
	va_end(ap);
}

void say_more(const char *fmt, ...)
{
	va_list ap;

	if (meter_mode == METER_QUIET)
		return;
	va_start(ap, fmt);
	vsay(out(), NULL, fmt, ap);
	va_end(ap);
}

void say_to(FILE *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(f, NULL, fmt, ap);
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
	escape_shell(&sb, next);
	w = textfmt_width(sb.buf);
	strbuf_release(&sb);
	return w > WORD_ROOM ? 0 : 1 + w;
}

/*
 * A word too wide for any line, single-quoted in pieces: each line but its
 * last closes the quote and ends in a backslash, the next begins at column
 * 0 and reopens it ('abc'\<newline>'def'), so that the shell joins the
 * pieces back into one word. A quote in the word ('\'') and a UTF-8
 * character are never cut. Starts at column col; returns the column after.
 */
static size_t add_split_word(struct strbuf *sb, const char *word, size_t col)
{
	strbuf_addch(sb, '\'');
	col++;
	while (*word) {
		size_t n = 1, w = 1;

		if (*word == '\'')
			w = 4;
		else
			while ((word[n] & 0xc0) == 0x80)
				n++;
		/* room left for the closing quote and the backslash, or " \\" after the word */
		if (col + w + 1 + CONT_END > TEXTFMT_COLUMNS) {
			strbuf_addstr(sb, "'\\\n'");
			col = 1;
		}
		if (*word == '\'')
			strbuf_addstr(sb, "'\\''");
		else
			strbuf_add(sb, word, n);
		col += w;
		word += n;
	}
	strbuf_addch(sb, '\'');
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
		escape_shell(&w, words.v[i]);
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

void say_interrupted(const char *command, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	strbuf_addstr(&sb, ": interrupted, its finished boots kept; resume it with:");
	put(out(), sb.buf, NULL);
	say_command("  ", command);
	strbuf_release(&sb);
}
