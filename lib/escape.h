#ifndef ESCAPE_H
#define ESCAPE_H
/*
 * Text written for other programs to read: a JSON string (quoted, with
 * quotes, backslashes and control characters escaped) and a CSV field
 * (RFC 4180: quoted only when it holds a comma, a quote or a line break).
 */
#include <stdio.h>

void escape_json(FILE *f, const char *s);
void escape_csv(FILE *f, const char *s);

#endif
