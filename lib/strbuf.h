#ifndef STRBUF_H
#define STRBUF_H
/*
 * A growable, always NUL-terminated byte buffer.
 *
 * The struct owns buf; strbuf_release() frees it and leaves an empty
 * buffer that may be reused. strbuf_detach() hands ownership to the caller.
 * A non-zero cap makes the buffer size-capped: appends past the cap keep
 * only the newest bytes (console and build logs keep their tail).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

struct strbuf {
	char *buf;
	size_t len;
	size_t alloc;
	size_t cap;		/* 0: unlimited; else keep the last cap bytes */
	size_t dropped;		/* bytes discarded from the front due to cap */
};

#define STRBUF_INIT { NULL, 0, 0, 0, 0 }

void strbuf_init(struct strbuf *sb, size_t hint);
void strbuf_release(struct strbuf *sb);
/* Write sb's bytes to f: how many went (an empty buffer, which may own no memory, writes none). */
size_t strbuf_fwrite(const struct strbuf *sb, FILE *f);
/*
 * strbuf_release() of each buffer named, for the cleanup at a function's
 * end: strbuf_release_all(&path, &text, &why).
 */
#define strbuf_release_all(...) strbuf_release_list((struct strbuf *[]){ __VA_ARGS__ }, \
	sizeof((struct strbuf *[]){ __VA_ARGS__ }) / sizeof(struct strbuf *))
void strbuf_release_list(struct strbuf *const *sb, size_t n);
char *strbuf_detach(struct strbuf *sb);
void strbuf_reset(struct strbuf *sb);
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, int c);
__attribute__((format(printf, 2, 3)))
void strbuf_addf(struct strbuf *sb, const char *fmt, ...);
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
/* The buffer's text replaced by the formatted one. */
void strbuf_vsetf(struct strbuf *sb, const char *fmt, va_list ap);
/* The formatted text in a new string; the caller frees it. */
char *xstrvfmt(const char *fmt, va_list ap);
void strbuf_setlen(struct strbuf *sb, size_t len);
void strbuf_trim(struct strbuf *sb);
/*
 * An open descriptor read to its end (max bytes at most when max is not
 * 0); fd stays open. A whole file by its path: regfile.h's
 * strbuf_read_file().
 */
int strbuf_read_fd(struct strbuf *sb, int fd, size_t max);
/* The buffer's text, or "" when empty (never NULL). */
static inline const char *strbuf_str(const struct strbuf *sb)
{
	return sb->buf ? sb->buf : "";
}

#endif
