/* lib/json-writer: commas, keys, null for what is not there, both layouts; read back by lib/json. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "json-writer.h"
#include "strbuf.h"
#include "tap.h"

static void write_doc(struct json_writer *jw)
{
	json_object_begin(jw, NULL);
	json_int(jw, "experiment", 3);
	json_string(jw, "hash", NULL);
	json_string(jw, "name", "a \"b\"");
	json_number(jw, "ratio", 455.0676);
	json_number(jw, "p", NAN);
	json_bool(jw, "warmup", 0);
	json_array_begin(jw, "verdicts");
	json_object_begin(jw, NULL);
	json_null(jw, "warning");
	json_object_end(jw);
	json_object_begin(jw, NULL);
	json_number(jw, "ratio", 1.5);
	json_object_end(jw);
	json_array_end(jw);
	json_array_begin(jw, "events");
	json_array_end(jw);
	json_object_end(jw);
	json_writer_end(jw);
}

static char *written(enum json_writer_flags flags)
{
	struct json_writer jw;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	json_writer_init(&jw, f, flags);
	write_doc(&jw);
	fclose(f);
	return buf;
}

int main(void)
{
	struct strbuf sb = STRBUF_INIT;
	char *text = written(0), *compact = written(JSON_WRITER_COMPACT);
	struct json_writer jw;

	json_writer_init_sb(&jw, &sb, 0);
	write_doc(&jw);
	is_str(sb.buf, text, "to a strbuf: the same bytes as to a FILE");

	is_str(text, "{\"experiment\": 3, \"hash\": null, \"name\": \"a \\\"b\\\"\", "
	       "\"ratio\": 455.0676, \"p\": null, \"warmup\": false, \"verdicts\": [\n"
	       "  {\"warning\": null},\n  {\"ratio\": 1.5}\n], \"events\": []}\n",
	       "an array's elements a line each, null for a NULL string and a NaN");
	is_str(compact, "{\"experiment\":3,\"hash\":null,\"name\":\"a \\\"b\\\"\",\"ratio\":455.0676,"
	       "\"p\":null,\"warmup\":false,\"verdicts\":[{\"warning\":null},{\"ratio\":1.5}],"
	       "\"events\":[]}", "compact: no space, no newline");
	ok(json_get(text, "hash", &sb) == JSON_OTHER && !strcmp(sb.buf, "null"), "read back: null");
	ok(!json_get_string(text, "name", &sb) && !strcmp(sb.buf, "a \"b\""), "read back: a string");
	free(text);
	free(compact);
	strbuf_release(&sb);
	return done_testing();
}
