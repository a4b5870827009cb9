#ifndef CAPTURE_H
#define CAPTURE_H
/*
 * Capture what a function under test prints on stderr, for tests that
 * check error lines: capture_start(), call, capture_end() into a strbuf.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "strbuf.h"

struct capture {
	int saved;
	FILE *f;
};

static inline void capture_start(struct capture *cap)
{
	fflush(stderr);
	cap->f = tmpfile();
	cap->saved = dup(2);
	if (!cap->f || cap->saved < 0 || dup2(fileno(cap->f), 2) < 0) {
		perror("capture");
		exit(2);
	}
}

/* What was printed on stderr, as printed, and stderr back where it was. */
static inline void capture_raw(struct capture *cap, struct strbuf *out)
{
	char chunk[1024];
	size_t n;

	fflush(stderr);
	dup2(cap->saved, 2);
	close(cap->saved);
	strbuf_reset(out);
	rewind(cap->f);
	while ((n = fread(chunk, 1, sizeof(chunk), cap->f)) > 0)
		strbuf_add(out, chunk, n);
	fclose(cap->f);
}

/*
 * The same with each line the lab wrapped at 100 columns joined back (a
 * newline and the four spaces of its continuation become one space), so
 * that a test compares a message whole, however long it is.
 */
static inline void capture_end(struct capture *cap, struct strbuf *out)
{
	size_t j = 0;

	capture_raw(cap, out);
	for (size_t i = 0; i < out->len; i++) {
		if (!strncmp(out->buf + i, "\n    ", 5) && out->buf[i + 5] != ' ') {
			out->buf[j++] = ' ';
			i += 4;
		} else {
			out->buf[j++] = out->buf[i];
		}
	}
	strbuf_setlen(out, j);
}

/* What was printed on stderr since the last call into out, as printed, and listening on. */
static inline const char *capture_next(struct capture *cap, struct strbuf *out)
{
	capture_raw(cap, out);
	capture_start(cap);
	return out->buf;
}

#endif
