/*
 * The console line parser on arbitrary bytes. Random bytes rarely carry a
 * good CRC, so each input is also parsed with its own checksum appended,
 * which takes it past the check into the body parser. The line is copied
 * into a buffer of exactly its length: the parser takes a length, not a
 * NUL, and must not read past it.
 *
 * The call to protocol_parse() is in parse() alone, so that a change of its
 * signature is a change here only.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void parse(const char *line, size_t len, unsigned flags)
{
	struct protocol_msg msg;
	enum protocol_kind kind = protocol_parse(&msg, line, len, NULL, flags);

	if (kind != msg.kind || kind > PROTOCOL_DONE)
		abort();
	/* a line bound to a boot: the nonce check must not change what is safe */
	kind = protocol_parse(&msg, line, len, "0123456789abcdef", flags);
	if (kind != msg.kind || kind > PROTOCOL_DONE)
		abort();
	/* every field the lab copies out must be a terminated string */
	if (strnlen(msg.program, sizeof(msg.program)) == sizeof(msg.program) ||
	    strnlen(msg.workload, sizeof(msg.workload)) == sizeof(msg.workload) ||
	    strnlen(msg.metric, sizeof(msg.metric)) == sizeof(msg.metric) ||
	    strnlen(msg.unit, sizeof(msg.unit)) == sizeof(msg.unit) ||
	    strnlen(msg.key, sizeof(msg.key)) == sizeof(msg.key) ||
	    strnlen(msg.text, sizeof(msg.text)) == sizeof(msg.text))
		abort();
}

static void parse_copy(const uint8_t *data, size_t size, unsigned flags)
{
	char *line = malloc(size ? size : 1);

	if (!line)
		abort();
	memcpy(line, data, size);
	parse(line, size, flags);
	free(line);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char sum[16];
	uint8_t *signed_line;
	size_t n;

	parse_copy(data, size, 0);
	parse_copy(data, size, PROTOCOL_CHECKSUM_OPTIONAL);

	n = (size_t)snprintf(sum, sizeof(sum), " *%08x", protocol_crc32(data, size));
	signed_line = malloc(size + n);
	if (!signed_line)
		abort();
	memcpy(signed_line, data, size);
	memcpy(signed_line + size, sum, n);
	parse_copy(signed_line, size + n, 0);
	free(signed_line);
	return 0;
}
