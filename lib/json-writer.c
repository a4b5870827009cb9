/* JSON written as it goes, with null for what is not there. */
#include <math.h>
#include <stdio.h>

#include "escape.h"
#include "json-writer.h"

void json_writer_init(struct json_writer *jw, FILE *f, enum json_writer_flags flags)
{
	jw->f = f;
	jw->flags = flags;
	jw->depth = 0;
	jw->members[0] = 0;
	jw->array[0] = 1;	/* the top takes a value without a key, as an array does */
}

/* The comma, the new line of an array's element and the key before a value. */
static void member(struct json_writer *jw, const char *key)
{
	int compact = jw->flags & JSON_WRITER_COMPACT;
	int own_line = jw->depth && jw->array[jw->depth] && !compact;

	if (jw->members[jw->depth]++)
		fputs(compact || own_line ? "," : ", ", jw->f);
	if (own_line)
		fprintf(jw->f, "\n%*s", 2 * (jw->depth - 1), "");
	if (key && !jw->array[jw->depth]) {
		escape_json(jw->f, key);
		fputs(compact ? ":" : ": ", jw->f);
	}
}

static void open_value(struct json_writer *jw, const char *key, int array)
{
	member(jw, key);
	fputc(array ? '[' : '{', jw->f);
	/* deeper than a report needs: kept flat rather than overrun */
	if (jw->depth + 1 < JSON_WRITER_DEPTH)
		jw->depth++;
	jw->members[jw->depth] = 0;
	jw->array[jw->depth] = (unsigned char)array;
}

static void close_value(struct json_writer *jw, int array)
{
	if (array && jw->members[jw->depth] && !(jw->flags & JSON_WRITER_COMPACT))
		fprintf(jw->f, "\n%*s", jw->depth > 1 ? 2 * (jw->depth - 2) : 0, "");
	fputc(array ? ']' : '}', jw->f);
	if (jw->depth)
		jw->depth--;
}

void json_object_begin(struct json_writer *jw, const char *key)
{
	open_value(jw, key, 0);
}

void json_object_end(struct json_writer *jw)
{
	close_value(jw, 0);
}

void json_array_begin(struct json_writer *jw, const char *key)
{
	open_value(jw, key, 1);
}

void json_array_end(struct json_writer *jw)
{
	close_value(jw, 1);
}

void json_string(struct json_writer *jw, const char *key, const char *s)
{
	member(jw, key);
	if (s)
		escape_json(jw->f, s);
	else
		fputs("null", jw->f);
}

void json_number(struct json_writer *jw, const char *key, double v)
{
	member(jw, key);
	if (isfinite(v))
		fprintf(jw->f, "%.15g", v);
	else
		fputs("null", jw->f);
}

void json_int(struct json_writer *jw, const char *key, long long v)
{
	member(jw, key);
	fprintf(jw->f, "%lld", v);
}

void json_bool(struct json_writer *jw, const char *key, int v)
{
	member(jw, key);
	fputs(v ? "true" : "false", jw->f);
}

void json_null(struct json_writer *jw, const char *key)
{
	member(jw, key);
	fputs("null", jw->f);
}

void json_writer_end(struct json_writer *jw)
{
	if (!(jw->flags & JSON_WRITER_COMPACT))
		fputc('\n', jw->f);
}
