#include <ctype.h>
#include <errno.h>
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

int protocol_format(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n, m;

	n = snprintf(buf, size, "@lab ");
	if (n < 0 || (size_t)n >= size)
		return -1;
	va_start(ap, fmt);
	m = vsnprintf(buf + n, size - (size_t)n, fmt, ap);
	va_end(ap);
	if (m < 0 || (size_t)(n + m) >= size)
		return -1;
	n += m;
	m = snprintf(buf + n, size - (size_t)n, " *%08x\n",
		     protocol_crc32(buf, (size_t)n));
	if (m < 0 || (size_t)(n + m) >= size)
		return -1;
	return n + m;
}

/* Copy the next space-delimited word into dst; advance *s. */
static int take_word(char *dst, size_t size, const char **s)
{
	const char *p = *s;
	size_t n;

	while (*p == ' ')
		p++;
	n = strcspn(p, " ");
	if (!n || n >= size)
		return -1;
	memcpy(dst, p, n);
	dst[n] = '\0';
	*s = p + n;
	return 0;
}

static int take_rest(char *dst, size_t size, const char *s)
{
	size_t n;
	while (*s == ' ')
		s++;
	n = strlen(s);
	if (n >= size)
		return -1;
	memcpy(dst, s, n + 1);
	return 0;
}

static int take_long(long *out, const char **s)
{
	char word[32], *end;
	if (take_word(word, sizeof(word), s))
		return -1;
	errno = 0;
	*out = strtol(word, &end, 10);
	return (*end || errno) ? -1 : 0;
}

static int take_double(double *out, const char **s)
{
	char word[64], *end;
	if (take_word(word, sizeof(word), s))
		return -1;
	errno = 0;
	*out = strtod(word, &end);
	return (*end || errno || !isfinite(*out)) ? -1 : 0;
}

static int only_spaces(const char *s)
{
	while (*s == ' ')
		s++;
	return !*s;
}

static enum protocol_kind parse_body(struct protocol_msg *m, const char *s)
{
	char kind[16];
	long v;

	if (take_word(kind, sizeof(kind), &s))
		return PROTOCOL_BAD;
	if (!strcmp(kind, "hello")) {
		if (take_long(&v, &s) || take_word(m->program, sizeof(m->program), &s) ||
		    !only_spaces(s))
			return PROTOCOL_BAD;
		m->version = (int)v;
		return PROTOCOL_HELLO;
	}
	if (!strcmp(kind, "meta")) {
		if (take_word(m->key, sizeof(m->key), &s) ||
		    take_rest(m->text, sizeof(m->text), s))
			return PROTOCOL_BAD;
		return PROTOCOL_META;
	}
	if (!strcmp(kind, "sample")) {
		char flag[16];
		if (take_word(m->workload, sizeof(m->workload), &s) ||
		    take_word(m->metric, sizeof(m->metric), &s) ||
		    take_long(&m->iteration, &s) || take_double(&m->value, &s) ||
		    take_word(m->unit, sizeof(m->unit), &s))
			return PROTOCOL_BAD;
		while (!only_spaces(s)) {
			if (take_word(flag, sizeof(flag), &s))
				return PROTOCOL_BAD;
			if (!strcmp(flag, "warmup"))
				m->flags |= SAMPLE_WARMUP;
			else
				return PROTOCOL_BAD;
		}
		return PROTOCOL_SAMPLE;
	}
	if (!strcmp(kind, "error")) {
		if (take_word(m->workload, sizeof(m->workload), &s) ||
		    take_rest(m->text, sizeof(m->text), s))
			return PROTOCOL_BAD;
		return PROTOCOL_ERROR;
	}
	if (!strcmp(kind, "done")) {
		if (take_word(m->text, sizeof(m->text), &s) ||
		    take_long(&m->count, &s) || !only_spaces(s))
			return PROTOCOL_BAD;
		if (strcmp(m->text, "ok") && strcmp(m->text, "error"))
			return PROTOCOL_BAD;
		return PROTOCOL_DONE;
	}
	return PROTOCOL_BAD;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

enum protocol_kind protocol_parse(struct protocol_msg *out, const char *line,
				  size_t len, unsigned flags)
{
	char body[PROTOCOL_MAX_LINE];
	const char *start = NULL;
	size_t n;
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
	if (n >= sizeof(body) || memchr(start, '\0', n))
		return out->kind = PROTOCOL_BAD;

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
				return out->kind = PROTOCOL_BAD;
		if (!(flags & PROTOCOL_CHECKSUM_OPTIONAL))
			return out->kind = PROTOCOL_BAD;
	}
	if (n <= 5)
		return out->kind = PROTOCOL_BAD;
	for (size_t i = 0; i < n; i++)
		if (!isprint((unsigned char)start[i]))
			return out->kind = PROTOCOL_BAD;
	memcpy(body, start + 5, n - 5);
	body[n - 5] = '\0';
	return out->kind = parse_body(out, body);
}
