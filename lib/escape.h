#ifndef ESCAPE_H
#define ESCAPE_H
/*
 * Text written for other programs to read: a JSON string (quoted, with
 * quotes, backslashes and control characters escaped) and a CSV field
 * (RFC 4180: quoted only when it holds a comma, a quote or a line break),
 * and HTML text or attribute values (the report's pages and plots);
 * and text from outside the lab (commit subjects, command lines, guest
 * console, config values, input quoted in messages) made safe to print
 * on a terminal.
 */
#include <stdio.h>

#include "strbuf.h"

void escape_json(FILE *f, const char *s);
/* The same string appended to sb. */
void escape_json_sb(struct strbuf *sb, const char *s);
void escape_csv(FILE *f, const char *s);
/* The same field appended to sb. */
void escape_csv_sb(struct strbuf *sb, const char *s);
/*
 * Append word to sb as one word of a POSIX shell command line: bare when
 * it holds only characters no shell treats specially, else in single
 * quotes, where nothing is special but the quote itself, written '\''.
 */
void escape_shell(struct strbuf *sb, const char *word);
/* The same, quoted whether it needs it or not: 'word', each ' as '\''. */
void escape_shell_quoted(struct strbuf *sb, const char *word);
/*
 * Append argv[0..argc) to sb as escape_shell() words, one space apart: a
 * command line that a shell splits back into the same words.
 */
void escape_shell_words(struct strbuf *sb, int argc, char *const *argv);
/*
 * Split a command line as a POSIX shell would, quoting only (single and
 * double quotes, backslashes; no expansions): the words of
 * escape_shell_words() back. Pushed onto out; -1 for an unclosed quote.
 */
struct strvec;
int split_shell_words(struct strvec *out, const char *s);
/*
 * Append s (NULL: nothing) to sb with &, <, >, " and ' as character
 * references; control characters other than tab and newline become spaces.
 */
void escape_html(struct strbuf *sb, const char *s);

enum escape_term_flags {
	/* keep newline and tab, "\r\n" as a newline: a message, a console log */
	ESCAPE_TERM_LINES = 1 << 0,
};
/*
 * Append s (NULL: nothing) to sb with every byte a terminal could act on
 * shown as \xHH: C0 controls and DEL, both bytes of a C1 control (U+0080
 * to U+009F, "\xc2\x9b"), and each byte that is not part of valid UTF-8.
 * Printable ASCII and other valid UTF-8 are copied as they are,
 * backslashes too.
 */
void escape_term(struct strbuf *sb, const char *s, enum escape_term_flags flags);
/*
 * s made safe for a terminal as by escape_term() without flags, for a
 * printf argument: s itself when nothing needs escaping, else a buffer
 * owned here and valid until eight more calls in the same thread.
 */
const char *term_safe(const char *s);

#endif
