/* JSON written as it goes, with null for what is not there. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "escape.h"
#include "json-writer.h"
#include "numfmt.h"
#include "strbuf.h"

void json_writer_init(struct json_writer *jw, FILE *f, enum json_writer_flags flags)
{
	jw->f = f;
	jw->sb = NULL;
	jw->flags = flags;
	jw->depth = 0;
	jw->members[0] = 0;
	jw->array[0] = 1;	/* the top takes a value without a key, as an array does */
}

void json_writer_init_sb(struct json_writer *jw, struct strbuf *sb,
			 enum json_writer_flags flags)
{
	json_writer_init(jw, NULL, flags);
	jw->sb = sb;
}

/* Every byte of the JSON goes out here, to the strbuf or the FILE. */
__attribute__((format(printf, 2, 3)))
static void put(struct json_writer *jw, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (jw->sb)
		strbuf_vaddf(jw->sb, fmt, ap);
	else
		vfprintf(jw->f, fmt, ap);
	va_end(ap);
}

static void put_string(struct json_writer *jw, const char *s)
{
	if (jw->sb)
		escape_json_sb(jw->sb, s);
	else
		escape_json(jw->f, s);
}

/* The comma, the new line of an array's element and the key before a value. */
static void member(struct json_writer *jw, const char *key)
{
	int compact = jw->flags & JSON_WRITER_COMPACT;
	int own_line = jw->depth && jw->array[jw->depth] && !compact;

	if (jw->members[jw->depth]++)
		put(jw, "%s", compact || own_line ? "," : ", ");
	if (own_line)
		put(jw, "\n%*s", 2 * (jw->depth - 1), "");
	if (key && !jw->array[jw->depth]) {
		put_string(jw, key);
		put(jw, "%s", compact ? ":" : ": ");
	}
}

static void open_value(struct json_writer *jw, const char *key, int array)
{
	member(jw, key);
	put(jw, "%c", array ? '[' : '{');
	/* deeper than a report needs: kept flat rather than overrun */
	if (jw->depth + 1 < JSON_WRITER_DEPTH)
		jw->depth++;
	jw->members[jw->depth] = 0;
	jw->array[jw->depth] = (unsigned char)array;
}

static void close_value(struct json_writer *jw, int array)
{
	if (array && jw->members[jw->depth] && !(jw->flags & JSON_WRITER_COMPACT))
		put(jw, "\n%*s", jw->depth > 1 ? 2 * (jw->depth - 2) : 0, "");
	put(jw, "%c", array ? ']' : '}');
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
		put_string(jw, s);
	else
		put(jw, "null");
}

void json_number(struct json_writer *jw, const char *key, double v)
{
	member(jw, key);
	if (isfinite(v)) {
		char buf[NUMFMT_EXACT_SIZE];

		numfmt_exact(buf, sizeof(buf), v);
		put(jw, "%s", buf);
	} else
		put(jw, "null");
}

void json_int(struct json_writer *jw, const char *key, long long v)
{
	member(jw, key);
	put(jw, "%lld", v);
}

void json_bool(struct json_writer *jw, const char *key, int v)
{
	member(jw, key);
	put(jw, "%s", v ? "true" : "false");
}

void json_null(struct json_writer *jw, const char *key)
{
	member(jw, key);
	put(jw, "null");
}

void json_writer_end(struct json_writer *jw)
{
	if (!(jw->flags & JSON_WRITER_COMPACT))
		put(jw, "\n");
}
