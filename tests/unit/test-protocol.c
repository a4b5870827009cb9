#include <string.h>

#include "protocol.h"
#include "tap.h"

#define NONCE "0123456789abcdef"

/* Lines as the guest writes them when the lab gave it NONCE. */
static enum protocol_kind parse(struct protocol_msg *m, const char *line, unsigned flags)
{
	return protocol_parse(m, line, strlen(line), NONCE, flags);
}

/* body, formatted with NONCE, is a bad line for the reason why */
static void refused(const char *body, const char *why)
{
	struct protocol_msg m;
	char line[PROTOCOL_MAX_LINE];

	protocol_format(line, sizeof(line), NONCE, "%s", body);
	is_int(parse(&m, line, 0), PROTOCOL_BAD, body);
	is_str(m.why, why, why);
}

static void taken(const char *body)
{
	struct protocol_msg m;
	char line[PROTOCOL_MAX_LINE];

	protocol_format(line, sizeof(line), NONCE, "%s", body);
	is_int(parse(&m, line, 0), PROTOCOL_SAMPLE, body);
}

int main(void)
{
	struct protocol_msg m;
	char line[PROTOCOL_MAX_LINE], cut[PROTOCOL_MAX_LINE * 2];
	int n;

	/* CRC-32 check value of the IEEE polynomial */
	is_int(protocol_crc32("123456789", 9), 0xcbf43926u, "crc32 check value");

	n = protocol_format(line, sizeof(line), NONCE, "sample zeroing touch %d %.3f us warmup", 0, 185.25);
	ok(n > 0 && line[n - 1] == '\n', "format ends with a newline");
	is_int(parse(&m, line, 0), PROTOCOL_SAMPLE, "formatted sample parses");
	is_str(m.workload, "zeroing", "workload");
	is_str(m.metric, "touch", "metric");
	is_int(m.iteration, 0, "iteration");
	is_double(m.value, 185.25, 1e-12, "value");
	is_str(m.unit, "us", "unit");
	is_int(m.flags, SAMPLE_WARMUP, "warmup flag");

	/* kernel output before the marker on the same line is ignored */
	n = protocol_format(line, sizeof(line), NONCE, "meta kernel.cmdline console=ttyS0 lab.iters=3");
	memcpy(cut, "[    3.141592] ", 15);
	memcpy(cut + 15, line, (size_t)n + 1);
	is_int(parse(&m, cut, 0), PROTOCOL_META, "meta after a printk prefix");
	is_str(m.key, "kernel.cmdline", "meta key");
	is_str(m.text, "console=ttyS0 lab.iters=3", "meta value keeps its spaces");

	protocol_format(line, sizeof(line), NONCE, "hello %d guest", PROTOCOL_VERSION);
	is_int(parse(&m, line, 0), PROTOCOL_HELLO, "hello");
	is_int(m.version, PROTOCOL_VERSION, "hello version");
	protocol_format(line, sizeof(line), NONCE, "done ok 42");
	is_int(parse(&m, line, 0), PROTOCOL_DONE, "done");
	is_int(m.count, 42, "done count");
	is_str(m.text, "ok", "done status");
	protocol_format(line, sizeof(line), NONCE, "error demote no 1 GiB page could be allocated");
	is_int(parse(&m, line, 0), PROTOCOL_ERROR, "error");
	is_str(m.text, "no 1 GiB page could be allocated", "error message");

	/* \r\n line ends from a serial console */
	n = protocol_format(line, sizeof(line), NONCE, "done error 0");
	line[n - 1] = '\r';
	is_int(parse(&m, line, 0), PROTOCOL_DONE, "carriage return is ignored");

	/* a printk that cut into the middle of a line breaks its checksum */
	n = protocol_format(line, sizeof(line), NONCE, "sample zeroing touch 5 190.5 us");
	snprintf(cut, sizeof(cut), "%.20s[    4.2] random: crng init done%s", line, line + 20);
	is_int(parse(&m, cut, 0), PROTOCOL_BAD, "a cut-in line fails its checksum");
	line[n - 1] = '\0';
	line[30] ^= 1;
	is_int(parse(&m, line, 0), PROTOCOL_BAD, "one flipped bit fails");
	is_str(m.why, "bad checksum", "flipped bit: the reason");
	is_int(parse(&m, line, PROTOCOL_CHECKSUM_OPTIONAL), PROTOCOL_BAD,
	       "a wrong checksum fails even where checksums are optional");

	/* without a checksum: bad on a console, fine on a pipe */
	is_int(parse(&m, "@lab " NONCE " sample boot to_init 0 1.5 s", 0), PROTOCOL_BAD,
	       "missing checksum on a console");
	is_str(m.why, "no checksum", "missing checksum: the reason");
	is_int(parse(&m, "@lab " NONCE " sample boot to_init 0 1.5 s", PROTOCOL_CHECKSUM_OPTIONAL),
	       PROTOCOL_SAMPLE, "missing checksum on a pipe");
	is_double(m.value, 1.5, 0, "pipe sample value");
	is_str(m.nonce, NONCE, "the line's nonce");

	/* the nonce: another boot's, or none, is refused */
	protocol_format(line, sizeof(line), "fedcba9876543210", "sample zeroing touch 77 1.5 us");
	is_int(parse(&m, line, 0), PROTOCOL_BAD, "another boot's nonce");
	is_str(m.why, "wrong nonce fedcba9876543210", "wrong nonce: the reason");
	is_int(parse(&m, line, PROTOCOL_CHECKSUM_OPTIONAL | PROTOCOL_NONCE_OPTIONAL), PROTOCOL_BAD,
	       "another boot's nonce on a pipe");
	protocol_format(line, sizeof(line), NULL, "sample zeroing touch 77 1.5 us");
	is_str(line, "@lab sample zeroing touch 77 1.5 us *84b84268\n",
	       "a line without nonce, as a kernel would echo it");
	is_int(parse(&m, line, 0), PROTOCOL_BAD, "no nonce on a console");
	is_str(m.why, "no nonce", "no nonce: the reason");
	is_int(parse(&m, line, PROTOCOL_CHECKSUM_OPTIONAL), PROTOCOL_BAD,
	       "no nonce on a pipe after a hello that had one");
	is_int(parse(&m, line, PROTOCOL_CHECKSUM_OPTIONAL | PROTOCOL_NONCE_OPTIONAL),
	       PROTOCOL_SAMPLE, "no nonce on a pipe, as in version 1");
	is_int(parse(&m, "@lab sample zeroing touch 1 2 us", PROTOCOL_CHECKSUM_OPTIONAL |
		     PROTOCOL_NONCE_OPTIONAL), PROTOCOL_SAMPLE, "a plain line on a pipe");
	is_int(protocol_parse(&m, line, strlen(line), NULL, 0), PROTOCOL_SAMPLE,
	       "no nonce expected, none checked");
	snprintf(cut, sizeof(cut), "[    0.000000] Kernel command line: console=ttyS0 %.*s lab.nonce=%s",
		 (int)strlen(line) - 1, line, NONCE);
	is_int(parse(&m, cut, 0), PROTOCOL_BAD, "an echoed command line is not a sample");
	ok(protocol_nonce_valid(NONCE), "a nonce as the lab draws them");
	ok(!protocol_nonce_valid("0123456789ABCDEF"), "upper-case hex is not a nonce");
	ok(!protocol_nonce_valid("0123456789abcde"), "15 digits are not a nonce");
	ok(!protocol_nonce_valid("0123456789abcdef0"), "17 digits are not a nonce");

	/* malformed bodies with good checksums */
	protocol_format(line, sizeof(line), NONCE, "sample zeroing touch x 1.0 us");
	is_int(parse(&m, line, 0), PROTOCOL_BAD, "non-numeric iteration");
	is_str(m.why, "bad number 'x' for iteration", "non-numeric iteration: the reason");
	protocol_format(line, sizeof(line), NONCE, "sample zeroing touch 1 1.0x us");
	is_int(parse(&m, line, 0), PROTOCOL_BAD, "non-numeric value");
	is_str(m.why, "bad number '1.0x' for value", "non-numeric value: the reason");
	protocol_format(line, sizeof(line), NONCE, "sample zeroing touch 1 1.0");
	is_int(parse(&m, line, 0), PROTOCOL_BAD, "missing unit");
	is_str(m.why, "no unit", "missing unit: the reason");
	protocol_format(line, sizeof(line), NONCE, "sample zeroing touch 1 1.0 us hot");
	is_int(parse(&m, line, 0), PROTOCOL_BAD, "unknown flag");
	is_str(m.why, "unknown flag 'hot'", "unknown flag: the reason");
	protocol_format(line, sizeof(line), NONCE, "frobnicate now");
	is_int(parse(&m, line, 0), PROTOCOL_BAD, "unknown kind");
	is_str(m.why, "unknown kind 'frobnicate'", "unknown kind: the reason");
	protocol_format(line, sizeof(line), NONCE, "done maybe 3");
	is_int(parse(&m, line, 0), PROTOCOL_BAD, "unknown done status");
	is_str(m.why, "bad done status 'maybe'", "unknown done status: the reason");

	/* values out of their bounds: a time from 0 to a day, a count whole and within 2^53 */
	refused("sample exec t 1 1e308 us", "time 1e+308 us is beyond a day");
	refused("sample zeroing touch 1 -0.5 us", "time -0.5 us is negative");
	refused("sample boot to_init 0 86400.5 s", "time 86400.5 s is beyond a day");
	refused("sample boot to_init 0 8.64e13001 ns", "bad number '8.64e13001' for value");
	refused("sample zeroing ev.pgfault 0 -5 events",
		"event count -5 is not a whole number from 0 to 2^53");
	refused("sample zeroing ev.pgfault 0 1.5 events",
		"event count 1.5 is not a whole number from 0 to 2^53");
	refused("sample zeroing ev.pgfault 0 1e300 events",
		"event count 1e+300 is not a whole number from 0 to 2^53");
	refused("sample zeroing ev.pgfault 0 9007199254740994 events",
		"event count 9.0072e+15 is not a whole number from 0 to 2^53");
	refused("sample exec rate 0 1e16 ops/s", "value 1e+16 ops/s is beyond 2^53");
	refused("sample exec delta 0 -1e300 pages", "value -1e+300 pages is beyond 2^53");
	refused("profile zeroing clear_page 3 1e300", "time 1e+300 ns is beyond a day");
	taken("sample boot to_init 0 86400 s");
	taken("sample boot to_init 0 8.64e13 ns");
	taken("sample zeroing touch 0 0 us");
	taken("sample exec delta 0 -12.5 pages");
	taken("sample zeroing ev.pgfault 0 9007199254740992 events");
	taken("sample zeroing ev.pgfault 0 0 events");
	taken("sample exec rate 0 9e15 ops/s");

	is_int(parse(&m, "[    0.000000] Linux version 6.1.0", 0), PROTOCOL_NONE,
	       "kernel message is not a protocol line");
	is_int(parse(&m, "", 0), PROTOCOL_NONE, "empty line");
	is_int(parse(&m, "@lab", 0), PROTOCOL_NONE, "bare marker");
	is_int(parse(&m, "@lab \x01\x02 *00000000", 0), PROTOCOL_BAD, "binary garbage");

	/* a printk between our text and our newline leaves a good line behind */
	n = protocol_format(line, sizeof(line), NONCE, "sample demote demote_page_wall 0 12.5 ms");
	line[n - 1] = '\0';
	snprintf(cut, sizeof(cut), "%s[    5.1] hugetlb: demoted", line);
	is_int(parse(&m, cut, 0), PROTOCOL_SAMPLE, "kernel text after the checksum is ignored");
	is_double(m.value, 12.5, 0, "value of a line with kernel text after it");
	is_int(parse(&m, "@lab *24c7eff7", 0), PROTOCOL_BAD, "checksum of the bare marker");
	is_int(parse(&m, "@lab " NONCE " sample w m 0 1.0 ms *00000000", PROTOCOL_CHECKSUM_OPTIONAL),
	       PROTOCOL_BAD, "a wrong checksum on a pipe");
	protocol_format(line, sizeof(line), NONCE, "sample zeroing touch 1 nan us");
	is_int(parse(&m, line, 0), PROTOCOL_BAD, "non-finite value");
	protocol_format(line, sizeof(line), NONCE, "sample zeroing touch 1 inf us");
	is_int(parse(&m, line, 0), PROTOCOL_BAD, "infinite value");

	/* a function's profile: calls and nanoseconds, never a sample */
	protocol_format(line, sizeof(line), NONCE, "profile demote synchronize_rcu 2052 24313860123");
	is_int(parse(&m, line, 0), PROTOCOL_PROFILE, "a profile line");
	is_str(m.workload, "demote", "its workload");
	is_str(m.metric, "synchronize_rcu", "its function");
	is_int(m.count, 2052, "its calls");
	is_double(m.value, 24313860123.0, 0, "its nanoseconds");
	protocol_format(line, sizeof(line), NONCE, "profile demote f -1 10");
	is_int(parse(&m, line, 0), PROTOCOL_BAD, "negative calls");
	protocol_format(line, sizeof(line), NONCE, "profile demote f 1 10 more");
	is_int(parse(&m, line, 0), PROTOCOL_BAD, "a word after the time");

	n = protocol_format(line, 40, NONCE, "meta long %0100d", 1);
	is_int(n, -1, "format refuses a line that does not fit");
	return done_testing();
}
