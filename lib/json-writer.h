#ifndef JSON_WRITER_H
#define JSON_WRITER_H
/*
 * JSON written as it goes, to a FILE or a strbuf the caller owns: objects and arrays
 * opened and closed in order, the writer putting the commas, and a value
 * that is not there written as null (a NULL string, a number that is not
 * finite), never as a placeholder such as "-". Numbers are exact, as
 * numfmt_exact() writes them: read back, each is the double written.
 *
 * Every call takes the member's key inside an object and NULL inside an
 * array or at the top. As text for a person to read too, each element of
 * an array starts a line of its own; compact (JSON_WRITER_COMPACT) leaves
 * out every space and newline, for a body sent on (a webhook).
 */
#include <stdio.h>

#define JSON_WRITER_DEPTH 16

enum json_writer_flags {
	JSON_WRITER_COMPACT = 1 << 0,
};

struct strbuf;

struct json_writer {
	FILE *f;
	struct strbuf *sb;	/* appended to instead of f when set */
	enum json_writer_flags flags;
	int depth;
	/* at each depth: whether a member was written, whether it is an array */
	unsigned char members[JSON_WRITER_DEPTH], array[JSON_WRITER_DEPTH];
};

void json_writer_init(struct json_writer *jw, FILE *f, enum json_writer_flags flags);
/* The same JSON appended to sb. */
void json_writer_init_sb(struct json_writer *jw, struct strbuf *sb,
			 enum json_writer_flags flags);

void json_object_begin(struct json_writer *jw, const char *key);
void json_object_end(struct json_writer *jw);
void json_array_begin(struct json_writer *jw, const char *key);
/* An array's close: on a line of its own when it had elements. */
void json_array_end(struct json_writer *jw);

/* s, or null for NULL. */
void json_string(struct json_writer *jw, const char *key, const char *s);
/* v exactly (numfmt_exact()), or null when it is not finite. */
void json_number(struct json_writer *jw, const char *key, double v);
void json_int(struct json_writer *jw, const char *key, long long v);
void json_bool(struct json_writer *jw, const char *key, int v);
void json_null(struct json_writer *jw, const char *key);

/* At the end of the top value: its newline (none when compact). */
void json_writer_end(struct json_writer *jw);

#endif
