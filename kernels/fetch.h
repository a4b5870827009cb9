#ifndef FETCH_H
#define FETCH_H
/*
 * A patch series from where it is published: a file, or an http(s) URL
 * read with libcurl. patch_fetch() reads it into a strbuf the caller
 * owns, and refuses anything that is not an mbox or patch (mbox.h).
 */
#include <stddef.h>

struct strbuf;

/* Bigger mboxes are refused: a kernel series is a few hundred KiB. */
#define PATCH_FETCH_MAX ((size_t)32 << 20)

/*
 * Read source, a file path or an http:// or https:// URL, into *out (its
 * old content is replaced). 0, or -1 after one error line, *out empty:
 *   lab: cannot fetch 'http://127.0.0.1:8000/x.mbox': HTTP 404
 *   lab: 'notes.txt' is not an mbox or patch: no 'diff --git' line in it
 */
int patch_fetch(struct strbuf *out, const char *source);
/* patch_fetch() with a size cap of max bytes instead of PATCH_FETCH_MAX. */
int patch_fetch_max(struct strbuf *out, const char *source, size_t max);

#endif
