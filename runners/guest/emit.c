#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "emit.h"

static long samples_sent;
static int errors_sent;
static char nonce[PROTOCOL_NONCE_LEN + 1];

/* Room the reader has for a meta value or an error message. */
#define TEXT_MAX (sizeof(((struct protocol_msg *)0)->text) - 1)

static void write_line(const char *buf, int len)
{
	static int tty = -1;

	if (tty < 0)
		tty = isatty(1);
	while (len > 0) {
		ssize_t n = write(1, buf, (size_t)len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		buf += n;
		len -= (int)n;
	}
	/*
	 * On a serial console, wait until the line is out: the UART then
	 * raises no interrupts during the next timed region, and a printk
	 * can only cut into the line being sent, not into a queue of them.
	 */
	if (tty)
		tcdrain(1);
}

/*
 * Make text fit one protocol field: printable ASCII only, cut to max
 * bytes; with no_spaces, a single word.
 */
static void clean(char *dst, size_t size, const char *src, size_t max,
		  int no_spaces)
{
	size_t n = 0;

	if (max > size - 1)
		max = size - 1;
	for (; *src && n < max; src++) {
		unsigned char c = (unsigned char)*src;
		if (c < 0x20 || c > 0x7e)
			c = no_spaces ? '_' : ' ';
		else if (c == ' ' && no_spaces)
			c = '_';
		dst[n++] = (char)c;
	}
	while (n && dst[n - 1] == ' ')
		n--;
	if (!n)
		dst[n++] = '-';
	dst[n] = '\0';
}

__attribute__((format(printf, 1, 2)))
static void send_line(const char *fmt, ...)
{
	char body[PROTOCOL_MAX_LINE], line[PROTOCOL_MAX_LINE];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(body, sizeof(body), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	/* Fields are capped below the line size; this only guards the cap. */
	n = protocol_format(line, sizeof(line), nonce, "%s", body);
	if (n > 0)
		write_line(line, n);
}

void emit_set_nonce(const char *s)
{
	if (protocol_nonce_valid(s))
		memcpy(nonce, s, sizeof(nonce));
}

void emit_hello(void)
{
	send_line("hello %d guest", PROTOCOL_VERSION);
}

/* "<kind> <word> <text>": word cleaned to one token, text to one line. */
static void send_text(const char *kind, const char *word, size_t word_max, const char *fmt,
		      va_list ap)
{
	char w[64], raw[TEXT_MAX + 1], text[TEXT_MAX + 1];

	if (vsnprintf(raw, sizeof(raw), fmt, ap) < 0)
		raw[0] = '\0';
	clean(w, sizeof(w), word, word_max, 1);
	clean(text, sizeof(text), raw, TEXT_MAX, 0);
	send_line("%s %s %s", kind, w, text);
}

void emit_meta(const char *key, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	send_text("meta", key, 63, fmt, ap);
	va_end(ap);
}

void emit_sample(const char *workload, const char *metric, long iteration,
		 double value, const char *unit, unsigned flags)
{
	char w[32], m[64], u[16];

	if (!isfinite(value)) {
		emit_error(workload, "%s %ld: value is not a finite number", metric,
			   iteration);
		return;
	}
	clean(w, sizeof(w), workload, sizeof(w) - 1, 1);
	clean(m, sizeof(m), metric, sizeof(m) - 1, 1);
	clean(u, sizeof(u), unit, sizeof(u) - 1, 1);
	send_line("sample %s %s %ld %.9g %s%s", w, m, iteration, value, u,
	     (flags & SAMPLE_WARMUP) ? " warmup" : "");
	samples_sent++;
}

void emit_profile(const char *workload, const char *function, unsigned long long calls,
		  double ns)
{
	char w[32], f[64];

	clean(w, sizeof(w), workload, sizeof(w) - 1, 1);
	clean(f, sizeof(f), function, sizeof(f) - 1, 1);
	send_line("profile %s %s %llu %.0f", w, f, calls, isfinite(ns) && ns > 0 ? ns : 0.0);
}

int emit_error(const char *workload, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	send_text("error", workload, 31, fmt, ap);
	va_end(ap);
	errors_sent++;
	return -1;
}

void emit_done(void)
{
	send_line("done %s %ld", errors_sent ? "error" : "ok", samples_sent);
}

long emit_sample_count(void)
{
	return samples_sent;
}

int emit_error_count(void)
{
	return errors_sent;
}
