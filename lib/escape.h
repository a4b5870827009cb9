#ifndef ESCAPE_H
#define ESCAPE_H
/*
 * Text written for other programs to read: a JSON string (quoted, with
 * quotes, backslashes and control characters escaped) and a CSV field
 * (RFC 4180: quoted only when it holds a comma, a quote or a line break),
 * HTML text or attribute values (the report's pages and plots), and one
 * printable line of foreign text for a message.
 */
#include <stdio.h>

#include "strbuf.h"

void escape_json(FILE *f, const char *s);
void escape_csv(FILE *f, const char *s);
/*
 * Append s (NULL: nothing) to sb with &, <, >, " and ' as character
 * references; control characters other than tab and newline become spaces.
 */
void escape_html(struct strbuf *sb, const char *s);
/*
 * Append s to sb as one line of printable ASCII, for a message on a
 * terminal: a backslash, control characters (newline included), DEL and
 * every byte past ASCII become \xNN, so that text from a file or a
 * database can neither move the cursor nor pass for another line.
 */
void escape_printable(struct strbuf *sb, const char *s);

#endif
