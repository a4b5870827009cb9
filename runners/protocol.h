#ifndef PROTOCOL_H
#define PROTOCOL_H
/*
 * The console protocol: how a workload reports to the lab.
 *
 * Results travel as text lines, on a serial console mixed with kernel
 * messages or on a pipe. Every line the lab reads starts with "@lab " and
 * ends, on a console, with " *" and the CRC-32 (IEEE, lower-case hex, eight
 * digits) of everything before the " *":
 *
 *   @lab hello <version> <program>
 *   @lab meta <key> <value, may contain spaces>
 *   @lab sample <workload> <metric> <iteration> <value> <unit> [warmup]
 *   @lab error <workload> <message, may contain spaces>
 *   @lab done <ok|error> <number of samples sent>
 *
 * Text before "@lab" on the same line (a printk that was cut into) is
 * ignored; a line whose checksum fails, or that does not parse, is
 * PROTOCOL_BAD: counted and reported by the reader, never used. On a pipe
 * (PROTOCOL_CHECKSUM_OPTIONAL) a line without a checksum is accepted, but a
 * wrong checksum is still rejected.
 *
 * This file is shared by the lab and by the static guest program: it
 * needs nothing but libc and allocates nothing.
 */
#include <stddef.h>

#define PROTOCOL_VERSION 1
#define PROTOCOL_MAX_LINE 2048

enum protocol_kind {
	PROTOCOL_NONE = 0,	/* not a protocol line: a kernel message */
	PROTOCOL_BAD,		/* a protocol line that failed its check */
	PROTOCOL_HELLO,
	PROTOCOL_META,
	PROTOCOL_SAMPLE,
	PROTOCOL_ERROR,
	PROTOCOL_DONE,
};

enum protocol_flags {
	PROTOCOL_CHECKSUM_OPTIONAL = 1 << 0,
};

enum sample_flags {
	SAMPLE_WARMUP = 1 << 0,	/* measured, stored, left out of verdicts */
};

struct protocol_msg {
	enum protocol_kind kind;
	int version;			/* hello */
	char program[32];		/* hello */
	char workload[32];		/* sample, error */
	char metric[64];		/* sample */
	char unit[16];			/* sample */
	char key[64];			/* meta */
	char text[1024];		/* meta value, error message, done status */
	long iteration;			/* sample */
	double value;			/* sample */
	unsigned flags;			/* sample: enum sample_flags */
	long count;			/* done: samples sent */
};

unsigned protocol_crc32(const void *data, size_t len);

/*
 * Classify and parse one line (without its newline; a trailing '\r' is
 * ignored). Fills *out and returns its kind.
 */
enum protocol_kind protocol_parse(struct protocol_msg *out, const char *line,
				  size_t len, unsigned flags);

/*
 * Format a line with its checksum and a trailing newline into buf.
 * Returns the length, or -1 when it does not fit. The body is formatted
 * printf-style after "@lab ".
 */
__attribute__((format(printf, 3, 4)))
int protocol_format(char *buf, size_t size, const char *fmt, ...);

#endif
