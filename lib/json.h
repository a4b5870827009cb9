#ifndef JSON_H
#define JSON_H
/*
 * Reading JSON answers (a REST API's): the value of one key of an object,
 * found by walking the text once, each value skipped by its syntax, so a
 * key inside a nested value or a string is never taken for one of the
 * object's own. Strings come unescaped (\uXXXX as UTF-8, a surrogate pair
 * as one character); any other value as its JSON text (a number, true,
 * false, null, an array or an object). Writing JSON is escape.h's.
 */
#include "strbuf.h"

enum json_kind {
	JSON_NONE,		/* no such key, or doc is not an object */
	JSON_STRING,
	JSON_OTHER,		/* a number, true, false, null, an array, an object */
};

/*
 * The value of key in the object that doc is (leading and trailing space
 * allowed), into *out (reset first; out->buf is a C string, "" at least).
 * JSON_NONE when doc is no object (NULL is none), is malformed before the
 * key, or has no such key; out is then empty.
 */
enum json_kind json_get(const char *doc, const char *key, struct strbuf *out);

/* json_get() of a key whose value must be a string: 0, or -1 (out empty). */
int json_get_string(const char *doc, const char *key, struct strbuf *out);

/*
 * Element i (from 0) of the array that doc is, as its JSON text, into
 * *out: 0, or -1 when doc is no array, is malformed before it, or is
 * shorter.
 */
int json_array_item(const char *doc, size_t i, struct strbuf *out);

#endif
