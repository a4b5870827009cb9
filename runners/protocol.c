#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"

unsigned protocol_crc32(const void *data, size_t len)
{
	const unsigned char *p = data;
	unsigned crc = 0xffffffffu;

	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
	}
	return ~crc;
}

/*
 * " *xxxxxxxx\n" and a NUL, in as many steps for every value: printf's
 * %08x takes fewer for a smaller number. Each boot's nonce gives other
 * checksums, and in virtual time a guest's lines must cost the same
 * instructions in every boot, or a boot of several vCPUs does its work at
 * other moments and its samples differ from the next boot's.
 */
static void put_crc(char *out, unsigned crc)
{
	static const char hex[] = "0123456789abcdef";

	out[0] = ' ';
	out[1] = '*';
	for (int i = 0; i < 8; i++)
		out[2 + i] = hex[(crc >> (28 - 4 * i)) & 0xf];
	out[10] = '\n';
	out[11] = '\0';
}

int protocol_format(char *buf, size_t size, const char *nonce, const char *fmt, ...)
{
	va_list ap;
	int n, m;

	n = snprintf(buf, size, "@lab %s%s", nonce ? nonce : "", nonce && *nonce ? " " : "");
	if (n < 0 || (size_t)n >= size)
		return -1;
	va_start(ap, fmt);
	m = vsnprintf(buf + n, size - (size_t)n, fmt, ap);
	va_end(ap);
	if (m < 0 || (size_t)(n + m) >= size)
		return -1;
	n += m;
	if ((size_t)n + sizeof(" *12345678\n") > size)
		return -1;
	put_crc(buf + n, protocol_crc32(buf, (size_t)n));
	return n + (int)sizeof(" *12345678\n") - 1;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* A table, not hexval()'s comparisons: as many steps for every nonce (put_crc()). */
int protocol_nonce_valid(const char *s)
{
	static const unsigned char is_hex[256] = {
		['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1,
		['7'] = 1, ['8'] = 1, ['9'] = 1, ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1,
		['e'] = 1, ['f'] = 1,
	};
	size_t n = 0;

	for (; s[n]; n++)
		if (n >= PROTOCOL_NONCE_LEN || !is_hex[(unsigned char)s[n]])
			return 0;
	return n == PROTOCOL_NONCE_LEN;
}

__attribute__((format(printf, 2, 3)))
static enum protocol_kind bad(struct protocol_msg *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m->why, sizeof(m->why), fmt, ap);
	va_end(ap);
	return m->kind = PROTOCOL_BAD;
}

/* The next space-delimited word: its start in *w, its length returned. */
static size_t next_word(const char **w, const char **s)
{
	const char *p = *s;
	size_t n;

	while (*p == ' ')
		p++;
	n = strcspn(p, " ");
	*w = p;
	*s = p + n;
	return n;
}

/* Copy the next word into dst; name says which field in the reason. */
static int take_word(struct protocol_msg *m, char *dst, size_t size, const char **s,
		     const char *name)
{
	const char *w;
	size_t n = next_word(&w, s);

	if (!n) {
		bad(m, "no %s", name);
		return -1;
	}
	if (n >= size) {
		bad(m, "%s longer than %zu characters", name, size - 1);
		return -1;
	}
	memcpy(dst, w, n);
	dst[n] = '\0';
	return 0;
}

static int take_rest(struct protocol_msg *m, char *dst, size_t size, const char *s,
		     const char *name)
{
	size_t n;
	while (*s == ' ')
		s++;
	n = strlen(s);
	if (n >= size) {
		bad(m, "%s longer than %zu characters", name, size - 1);
		return -1;
	}
	memcpy(dst, s, n + 1);
	return 0;
}

/* A word into word, then the rest of the line into m->text: meta's key and value. */
static int take_word_rest(struct protocol_msg *m, char *word, size_t size, const char *s,
			  const char *word_name, const char *rest_name)
{
	if (take_word(m, word, size, &s, word_name))
		return -1;
	return take_rest(m, m->text, sizeof(m->text), s, rest_name);
}

/* 0 when word was read whole (ok), else -1 with the message of a bad number. */
static int number_read(struct protocol_msg *m, int ok, const char *word, const char *name)
{
	if (ok)
		return 0;
	bad(m, "bad number '%.24s' for %s", word, name);
	return -1;
}

static int take_long(struct protocol_msg *m, long *out, const char **s, const char *name)
{
	char word[32], *end;
	if (take_word(m, word, sizeof(word), s, name))
		return -1;
	errno = 0;
	*out = strtol(word, &end, 10);
	return number_read(m, !*end && !errno, word, name);
}

static int take_double(struct protocol_msg *m, double *out, const char **s, const char *name)
{
	char word[64], *end;
	if (take_word(m, word, sizeof(word), s, name))
		return -1;
	errno = 0;
	*out = strtod(word, &end);
	return number_read(m, !*end && !errno && isfinite(*out), word, name);
}

/* A time unit's seconds; 0 for a unit that is not a time. */
static double unit_seconds(const char *unit)
{
	static const struct {
		const char *name;
		double s;
	} units[] = { { "ns", 1e-9 }, { "us", 1e-6 }, { "ms", 1e-3 }, { "s", 1 } };

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(unit, units[i].name))
			return units[i].s;
	return 0;
}

int protocol_check_value(char *why, size_t size, const char *metric, const char *unit,
			 double value)
{
	double per = unit_seconds(unit);

	if (!isfinite(value)) {
		snprintf(why, size, "value %g is not a finite number", value);
		return -1;
	}
	if (!strncmp(metric, PROTOCOL_EVENT_PREFIX, strlen(PROTOCOL_EVENT_PREFIX))) {
		if (value < 0 || value > PROTOCOL_MAX_COUNT || value != floor(value)) {
			snprintf(why, size, "event count %.6g is not a whole number from 0 to 2^53",
				 value);
			return -1;
		}
		return 0;
	}
	if (per) {
		/* the quotient, not value * per: no overflow on the way */
		if (value < 0 || value > PROTOCOL_MAX_SECONDS / per) {
			snprintf(why, size, "time %.6g %s is %s", value, unit,
				 value < 0 ? "negative" : "beyond a day");
			return -1;
		}
		return 0;
	}
	if (fabs(value) > PROTOCOL_MAX_COUNT) {
		snprintf(why, size, "value %.6g %s is beyond 2^53", value, unit);
		return -1;
	}
	return 0;
}

static int only_spaces(struct protocol_msg *m, const char *s, const char *kind)
{
	while (*s == ' ')
		s++;
	if (*s)
		bad(m, "unexpected '%.24s' after the %s", s, kind);
	return !*s;
}

static enum protocol_kind parse_body(struct protocol_msg *m, const char *s)
{
	char kind[16], why[sizeof(m->why)];
	long v;

	if (take_word(m, kind, sizeof(kind), &s, "kind"))
		return PROTOCOL_BAD;
	if (!strcmp(kind, "hello")) {
		if (take_long(m, &v, &s, "version") ||
		    take_word(m, m->program, sizeof(m->program), &s, "program") ||
		    !only_spaces(m, s, "hello"))
			return PROTOCOL_BAD;
		if (v < 0 || v > INT_MAX)
			return bad(m, "bad number '%ld' for version", v);
		m->version = (int)v;
		return PROTOCOL_HELLO;
	}
	if (!strcmp(kind, "meta"))
		return take_word_rest(m, m->key, sizeof(m->key), s, "key", "value") ?
		       PROTOCOL_BAD : PROTOCOL_META;
	if (!strcmp(kind, "sample")) {
		const char *w;
		size_t n;

		if (take_word(m, m->workload, sizeof(m->workload), &s, "workload") ||
		    take_word(m, m->metric, sizeof(m->metric), &s, "metric") ||
		    take_long(m, &m->iteration, &s, "iteration") ||
		    take_double(m, &m->value, &s, "value") ||
		    take_word(m, m->unit, sizeof(m->unit), &s, "unit"))
			return PROTOCOL_BAD;
		while ((n = next_word(&w, &s))) {
			if (n == 6 && !memcmp(w, "warmup", 6))
				m->flags |= SAMPLE_WARMUP;
			else
				return bad(m, "unknown flag '%.*s'", (int)(n > 24 ? 24 : n), w);
		}
		if (protocol_check_value(why, sizeof(why), m->metric, m->unit, m->value))
			return bad(m, "%s", why);
		return PROTOCOL_SAMPLE;
	}
	if (!strcmp(kind, "profile")) {
		if (take_word(m, m->workload, sizeof(m->workload), &s, "workload") ||
		    take_word(m, m->metric, sizeof(m->metric), &s, "function") ||
		    take_long(m, &m->count, &s, "calls") ||
		    take_double(m, &m->value, &s, "time") || !only_spaces(m, s, "profile"))
			return PROTOCOL_BAD;
		if (m->count < 0 || m->value < 0)
			return bad(m, "negative calls or time for '%.40s'", m->metric);
		if (protocol_check_value(why, sizeof(why), m->metric, "ns", m->value))
			return bad(m, "%s", why);
		return PROTOCOL_PROFILE;
	}
	if (!strcmp(kind, "error"))
		return take_word_rest(m, m->workload, sizeof(m->workload), s, "workload",
				      "message") ? PROTOCOL_BAD : PROTOCOL_ERROR;
	if (!strcmp(kind, "done")) {
		if (take_word(m, m->text, sizeof(m->text), &s, "done status") ||
		    take_long(m, &m->count, &s, "count") || !only_spaces(m, s, "done"))
			return PROTOCOL_BAD;
		if (strcmp(m->text, "ok") && strcmp(m->text, "error"))
			return bad(m, "bad done status '%.24s'", m->text);
		return PROTOCOL_DONE;
	}
	return bad(m, "unknown kind '%s'", kind);
}

enum protocol_kind protocol_parse(struct protocol_msg *out, const char *line,
				  size_t len, const char *nonce, unsigned flags)
{
	char body[PROTOCOL_MAX_LINE];
	const char *start = NULL, *s, *w;
	size_t n, wn;
	int checked = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i + 5 <= len; i++) {
		if (!memcmp(line + i, "@lab ", 5)) {
			start = line + i;
			break;
		}
	}
	if (!start)
		return out->kind = PROTOCOL_NONE;
	n = len - (size_t)(start - line);
	while (n && (start[n - 1] == '\r' || start[n - 1] == '\n'))
		n--;
	if (n >= sizeof(body))
		return bad(out, "longer than %d bytes", PROTOCOL_MAX_LINE - 1);
	if (memchr(start, '\0', n))
		return bad(out, "a NUL byte");

	/*
	 * The checksum is the first " *xxxxxxxx" that matches: a printk that
	 * lands after our text but before our newline leaves a good line with
	 * kernel text behind it, which is ignored.
	 */
	for (size_t end = 5; end + 10 <= n; end++) {
		unsigned want = 0;
		int hex = 1;

		if (start[end] != ' ' || start[end + 1] != '*')
			continue;
		for (size_t i = end + 2; i < end + 10 && hex; i++) {
			int h = hexval(start[i]);
			hex = h >= 0;
			want = want << 4 | (unsigned)(h & 0xf);
		}
		if (hex && protocol_crc32(start, end) == want) {
			n = end;
			checked = 1;
			break;
		}
	}
	if (!checked) {
		for (size_t i = 0; i + 1 < n; i++)
			if (start[i] == ' ' && start[i + 1] == '*')
				return bad(out, "bad checksum");
		if (!(flags & PROTOCOL_CHECKSUM_OPTIONAL))
			return bad(out, "no checksum");
	}
	if (n <= 5)
		return bad(out, "nothing after '@lab'");
	for (size_t i = 0; i < n; i++)
		if (!isprint((unsigned char)start[i]))
			return bad(out, "control character 0x%02x", (unsigned char)start[i]);
	memcpy(body, start + 5, n - 5);
	body[n - 5] = '\0';

	/* a kind is never 16 hex digits, so the nonce word cannot be mistaken */
	s = body;
	wn = next_word(&w, &s);
	if (wn == PROTOCOL_NONCE_LEN) {
		memcpy(out->nonce, w, wn);
		out->nonce[wn] = '\0';
		if (!protocol_nonce_valid(out->nonce))
			out->nonce[0] = '\0';
	}
	if (out->nonce[0]) {
		if (nonce && strcmp(out->nonce, nonce))
			return bad(out, "wrong nonce %s", out->nonce);
	} else {
		if (nonce && !(flags & PROTOCOL_NONCE_OPTIONAL))
			return bad(out, "no nonce");
		s = body;
	}
	return out->kind = parse_body(out, s);
}
