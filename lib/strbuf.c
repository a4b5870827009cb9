#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <ctype.h>

#include "strbuf.h"
#include "xalloc.h"

void strbuf_init(struct strbuf *sb, size_t hint)
{
	memset(sb, 0, sizeof(*sb));
	if (hint)
		strbuf_grow(sb, hint);
}

void strbuf_release(struct strbuf *sb)
{
	size_t cap = sb->cap;
	free(sb->buf);
	memset(sb, 0, sizeof(*sb));
	sb->cap = cap;
}

void strbuf_release_list(struct strbuf *const *sb, size_t n)
{
	for (size_t i = 0; i < n; i++)
		strbuf_release(sb[i]);
}

char *strbuf_detach(struct strbuf *sb)
{
	char *s;
	strbuf_grow(sb, 0);
	s = sb->buf;
	memset(sb, 0, sizeof(*sb));
	return s;
}

void strbuf_reset(struct strbuf *sb)
{
	if (sb->buf)
		strbuf_setlen(sb, 0);
	sb->dropped = 0;
}

void strbuf_grow(struct strbuf *sb, size_t extra)
{
	size_t need = sb->len + extra + 1;
	if (need <= sb->alloc)
		return;
	if (need < sb->alloc * 2)
		need = sb->alloc * 2;
	if (need < 64)
		need = 64;
	sb->buf = xrealloc(sb->buf, need);
	if (!sb->alloc)
		sb->buf[0] = '\0';
	sb->alloc = need;
}

static void strbuf_enforce_cap(struct strbuf *sb)
{
	size_t drop;
	if (!sb->cap || sb->len <= sb->cap)
		return;
	drop = sb->len - sb->cap;
	memmove(sb->buf, sb->buf + drop, sb->cap);
	sb->len = sb->cap;
	sb->buf[sb->len] = '\0';
	sb->dropped += drop;
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	strbuf_grow(sb, len);
	if (len)	/* an empty strbuf's data may be NULL, which memcpy() must not get */
		memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
	strbuf_enforce_cap(sb);
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, int c)
{
	char ch = (char)c;
	strbuf_add(sb, &ch, 1);
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	strbuf_grow(sb, 64);
	va_copy(cp, ap);
	n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	if ((size_t)n >= sb->alloc - sb->len) {
		strbuf_grow(sb, (size_t)n);
		n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
	}
	sb->len += (size_t)n;
	strbuf_enforce_cap(sb);
}

void strbuf_vsetf(struct strbuf *sb, const char *fmt, va_list ap)
{
	strbuf_reset(sb);
	strbuf_vaddf(sb, fmt, ap);
}

char *xstrvfmt(const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_vaddf(&sb, fmt, ap);
	return strbuf_detach(&sb);
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void strbuf_setlen(struct strbuf *sb, size_t len)
{
	strbuf_grow(sb, 0);
	if (len > sb->len)
		len = sb->len;
	sb->len = len;
	sb->buf[len] = '\0';
}

void strbuf_trim(struct strbuf *sb)
{
	size_t start = 0;
	if (!sb->len)
		return;
	while (sb->len && isspace((unsigned char)sb->buf[sb->len - 1]))
		sb->len--;
	while (start < sb->len && isspace((unsigned char)sb->buf[start]))
		start++;
	memmove(sb->buf, sb->buf + start, sb->len - start);
	sb->len -= start;
	sb->buf[sb->len] = '\0';
}

int strbuf_read_fd(struct strbuf *sb, int fd, size_t max)
{
	char chunk[8192];
	ssize_t n;

	strbuf_grow(sb, 0);
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		strbuf_add(sb, chunk, (size_t)n);
		if (max && sb->len >= max)
			break;
	}
	return 0;
}

size_t strbuf_fwrite(const struct strbuf *sb, FILE *f)
{
	return sb->len ? fwrite(sb->buf, 1, sb->len, f) : 0;
}
