#ifndef PROTOCOL_H
#define PROTOCOL_H
/*
 * The console protocol: how a workload reports to the lab.
 *
 * Results travel as text lines, on a serial console mixed with kernel
 * messages or on a pipe. Every line the lab reads starts with "@lab ",
 * then the boot's nonce, and ends, on a console, with " *" and the CRC-32
 * (IEEE, lower-case hex, eight digits) of everything before the " *":
 *
 *   @lab <nonce> hello <version> <program>
 *   @lab <nonce> meta <key> <value, may contain spaces>
 *   @lab <nonce> sample <workload> <metric> <iteration> <value> <unit> [warmup]
 *   @lab <nonce> profile <workload> <function> <calls> <nanoseconds>
 *   @lab <nonce> error <workload> <message, may contain spaces>
 *   @lab <nonce> done <ok|error> <number of samples sent>
 *
 * e.g. "@lab 9f86d081884c7d65 sample zeroing touch 3 1843.5 us *bfebf1a6".
 *
 * The nonce binds a line to one boot: the lab draws PROTOCOL_NONCE_LEN
 * random lower-case hex digits per boot and passes them as lab.nonce=
 * (on the kernel command line, or on the program's); the guest puts them
 * in every line, under the checksum. A kernel that echoes its command
 * line, or anything else that prints text chosen before the boot, cannot
 * produce a line that passes. A guest started by hand without lab.nonce
 * leaves the word out.
 *
 * Text before "@lab" on the same line (a printk that was cut into) is
 * ignored; a line whose checksum fails, whose nonce is missing or wrong,
 * or that does not parse, is PROTOCOL_BAD, with the reason in why: the
 * reader drops it, counted, and never uses it.
 *
 * On a pipe (the local runner) no kernel writes into the stream, so a
 * line without a checksum (PROTOCOL_CHECKSUM_OPTIONAL) or without a nonce
 * (PROTOCOL_NONCE_OPTIONAL) is accepted: a script may print plain
 * "@lab sample ..." lines as in version 1. A wrong checksum or a wrong
 * nonce is rejected there too, and a program that put the nonce in its
 * hello must put it in every later line (the reader clears
 * PROTOCOL_NONCE_OPTIONAL).
 *
 * Version 2 added the nonce; a reader accepts hellos of versions
 * PROTOCOL_MIN_VERSION to PROTOCOL_VERSION and fails a run that says
 * anything else.
 *
 * A profile line is what the kernel's function profiler counted for one
 * function over one workload (the guest's profile.h): never a sample, and
 * not in the done line's count.
 *
 * This file is shared by the lab and by the static guest program: it
 * needs nothing but libc (and results/sample.h, for the flags a sample
 * line carries) and allocates nothing.
 */
#include <stddef.h>

#include "sample.h"

#define PROTOCOL_VERSION 2
#define PROTOCOL_MIN_VERSION 1
#define PROTOCOL_NONCE_LEN 16
#define PROTOCOL_MAX_LINE 2048

enum protocol_kind {
	PROTOCOL_NONE = 0,	/* not a protocol line: a kernel message */
	PROTOCOL_BAD,		/* a protocol line that failed its check */
	PROTOCOL_HELLO,
	PROTOCOL_META,
	PROTOCOL_SAMPLE,
	PROTOCOL_ERROR,
	PROTOCOL_DONE,
	PROTOCOL_PROFILE,
};

enum protocol_flags {
	PROTOCOL_CHECKSUM_OPTIONAL = 1 << 0,	/* a line may lack its checksum */
	PROTOCOL_NONCE_OPTIONAL = 1 << 1,	/* a line may lack the nonce */
};

/*
 * A sample whose metric starts with PROTOCOL_EVENT_PREFIX is an event
 * count, in unit PROTOCOL_EVENT_UNIT: what the kernel counted around one
 * iteration (page faults, THP allocations, context switches; the guest's
 * events.h). The lab stores it beside the times and never gives it a
 * verdict (results/events.h); a user's program may not name a metric so
 * (userwork.h).
 */
#define PROTOCOL_EVENT_PREFIX "ev."
#define PROTOCOL_EVENT_UNIT "events"

/*
 * What a sample's value may be; protocol_parse() refuses any other as a
 * PROTOCOL_BAD line, its reason given. A time (unit ns, us, ms or s) is
 * from 0 to PROTOCOL_MAX_SECONDS: no iteration of a boot takes a day, and
 * a bigger number is a program gone wrong, not a measurement. An event
 * count (an ev. metric) is a whole number from 0 to PROTOCOL_MAX_COUNT,
 * where doubles still hold every integer. Any other value (ops/s, pages, a
 * user's unit) is within PROTOCOL_MAX_COUNT either way, so that sums and
 * squares of thousands of them stay finite.
 */
#define PROTOCOL_MAX_SECONDS 86400.0
#define PROTOCOL_MAX_COUNT 9007199254740992.0	/* 2^53 */

/*
 * 0 when value may be sent as a sample of metric in unit; else -1 and the
 * reason in why ("time 1e+308 us is beyond a day").
 */
int protocol_check_value(char *why, size_t size, const char *metric, const char *unit,
			 double value);

struct protocol_msg {
	enum protocol_kind kind;
	char why[96];			/* bad: what was wrong with the line */
	char nonce[PROTOCOL_NONCE_LEN + 1];	/* as the line carried it; "" if none */
	int version;			/* hello */
	char program[32];		/* hello */
	char workload[32];		/* sample, error */
	char metric[64];		/* sample; profile: the function */
	char unit[16];			/* sample */
	char key[64];			/* meta */
	char text[1024];		/* meta value, error message, done status */
	long iteration;			/* sample */
	double value;			/* sample; profile: nanoseconds */
	unsigned flags;			/* sample: enum sample_flags */
	long count;			/* done: samples sent; profile: calls */
};

unsigned protocol_crc32(const void *data, size_t len);

/* 1 when s is a nonce as the lab draws them. */
int protocol_nonce_valid(const char *s);

/*
 * Classify and parse one line (without its newline; a trailing '\r' is
 * ignored). nonce is the one the line must carry, NULL to accept any.
 * Fills *out and returns its kind.
 */
enum protocol_kind protocol_parse(struct protocol_msg *out, const char *line,
				  size_t len, const char *nonce, unsigned flags);

/*
 * Format a line with its nonce (none when NULL or ""), its checksum and a
 * trailing newline into buf. Returns the length, or -1 when it does not
 * fit. The body is formatted printf-style after "@lab <nonce> ".
 */
__attribute__((format(printf, 4, 5)))
int protocol_format(char *buf, size_t size, const char *nonce, const char *fmt, ...);

#endif
