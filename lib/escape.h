#ifndef ESCAPE_H
#define ESCAPE_H
/*
 * Text written for other programs to read: a JSON string (quoted, with
 * quotes, backslashes and control characters escaped) and a CSV field
 * (RFC 4180: quoted only when it holds a comma, a quote or a line break),
 * and HTML text or attribute values (the report's pages and plots).
 */
#include <stdio.h>

#include "strbuf.h"

void escape_json(FILE *f, const char *s);
void escape_csv(FILE *f, const char *s);
/*
 * Append word to sb as one word of a POSIX shell command line: bare when
 * it holds only characters no shell treats specially, else in single
 * quotes, where nothing is special but the quote itself, written '\''.
 */
void escape_shell(struct strbuf *sb, const char *word);
/*
 * Append argv[0..argc) to sb as escape_shell() words, one space apart: a
 * command line that a shell splits back into the same words.
 */
void escape_shell_words(struct strbuf *sb, int argc, char *const *argv);
/*
 * Append s (NULL: nothing) to sb with &, <, >, " and ' as character
 * references; control characters other than tab and newline become spaces.
 */
void escape_html(struct strbuf *sb, const char *s);

#endif
