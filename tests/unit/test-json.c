/*
 * lib/json: one key of a JSON object, as LAVA's REST API answers and its
 * log lines are: strings unescaped, other values as their text, nested
 * and quoted look-alikes never taken for the key.
 */
#include <string.h>

#include "json.h"
#include "strbuf.h"
#include "tap.h"

int main(void)
{
	struct strbuf sb = STRBUF_INIT;
	const char *job = "{\"id\": 12, \"description\": \"lab boot\", \"state\": \"Finished\", "
			  "\"health\": \"Incomplete\", \"actual_device\": null, "
			  "\"tags\": [1, {\"state\": \"not this\"}], \"failure_comment\": "
			  "\"deploy \\\"tmpfs\\\" failed: \\u00e9\\ud83d\\udc27\\n\"}";

	ok(json_get(job, "id", &sb) == JSON_OTHER && !strcmp(sb.buf, "12"), "a number: its text");
	ok(json_get(job, "state", &sb) == JSON_STRING && !strcmp(sb.buf, "Finished"),
	   "a string after a nested object's look-alike key: the object's own");
	ok(json_get(job, "actual_device", &sb) == JSON_OTHER && !strcmp(sb.buf, "null"),
	   "null: its text");
	ok(json_get(job, "tags", &sb) == JSON_OTHER &&
	   !strcmp(sb.buf, "[1, {\"state\": \"not this\"}]"), "an array: its JSON text");
	ok(!json_get_string(job, "failure_comment", &sb) &&
	   !strcmp(sb.buf, "deploy \"tmpfs\" failed: \xc3\xa9\xf0\x9f\x90\xa7\n"),
	   "escapes: quotes, \\u00e9 and a surrogate pair as UTF-8, \\n");
	ok(json_get(job, "nosuch", &sb) == JSON_NONE && sb.len == 0, "no such key: none, empty");
	ok(json_get_string(job, "id", &sb) == -1 && sb.len == 0, "a number is not a string");
	ok(json_get("{\"a\": \"x\\\", \\\"state\\\": \\\"y\", \"state\": \"z\"}", "state", &sb) ==
	   JSON_STRING && !strcmp(sb.buf, "z"), "a key inside a string is not a key");

	/* an empty string (a blank console line) is a C string, as is what a miss leaves */
	{
		struct strbuf fresh = STRBUF_INIT;

		ok(!json_get_string("{\"msg\": \"\"}", "msg", &fresh) && fresh.buf && !*fresh.buf,
		   "an empty string: \"\", not NULL");
		strbuf_release(&fresh);
		ok(json_get(NULL, "msg", &fresh) == JSON_NONE && fresh.buf && !*fresh.buf,
		   "no document: none, out a C string");
		strbuf_release(&fresh);
	}

	/* a LAVA log line, less its "- " */
	ok(!json_get_string("{\"dt\": \"2023-01-01T00:00:00.1\", \"lvl\": \"target\", "
			    "\"msg\": \"[    0.000000] Linux version 6.1\"}", "msg", &sb) &&
	   !strcmp(sb.buf, "[    0.000000] Linux version 6.1"), "a log line's message");

	/* an array's elements */
	ok(!json_array_item("[{\"health\": \"Good\"}, 2 , \"x,]\"]", 0, &sb) &&
	   !strcmp(sb.buf, "{\"health\": \"Good\"}"), "an array's first element: an object");
	ok(!json_array_item("[{\"health\": \"Good\"}, 2 , \"x,]\"]", 2, &sb) &&
	   !strcmp(sb.buf, "\"x,]\""), "its third: a string holding , and ]");
	ok(json_array_item("[1, 2]", 2, &sb) == -1 && sb.len == 0, "past its end: none");
	ok(json_array_item("[]", 0, &sb) == -1, "an empty array has none");
	ok(json_array_item("{\"a\": 1}", 0, &sb) == -1, "an object is no array");

	/* not an object, malformed, truncated */
	ok(json_get("[1, 2]", "a", &sb) == JSON_NONE, "an array is no object");
	ok(json_get("", "a", &sb) == JSON_NONE, "nothing");
	ok(json_get("{\"a\" 1}", "a", &sb) == JSON_NONE, "no colon");
	ok(json_get("{\"b\": [1, 2, \"a\": 3}", "a", &sb) == JSON_NONE,
	   "a bad value before the key: none");
	ok(json_get("{\"a\": \"unterminated", "a", &sb) == JSON_NONE && sb.len == 0,
	   "an unterminated string: none, empty");
	ok(json_get(" \n{ } ", "a", &sb) == JSON_NONE, "an empty object");

	strbuf_release(&sb);
	return done_testing();
}
