#ifndef CPIO_READ_H
#define CPIO_READ_H
/*
 * The tests' own reader of newc cpio archives, independent of the lab's
 * writer (runners/cpio.h): walk() checks every header, alignment, the
 * trailer and the padding, and lists the entries; find() looks one up.
 */
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

/* One archive entry as the test's own reader sees it. */
struct entry {
	char name[256];
	unsigned long ino, mode, uid, gid, nlink, mtime, size, rmajor, rminor;
	const char *data;
};

#ifndef MAX_ENTRIES
#define MAX_ENTRIES 32
#endif

static int hex8(const char *p, unsigned long *out)
{
	unsigned long v = 0;
	int i;

	for (i = 0; i < 8; i++) {
		char c = p[i];
		int d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else
			return -1;
		v = v * 16 + (unsigned long)d;
	}
	*out = v;
	return 0;
}

/*
 * An independent reader of the newc format: checks magic, 4-byte alignment
 * of every header and every data block, the trailer, and that only zeros
 * pad the archive to 512 bytes. Returns the number of entries before the
 * trailer, or -1 with the reason in *why.
 */
static int walk(const struct strbuf *ar, struct entry *out, const char **why)
{
	const char *b = ar->buf;
	size_t off = 0, len = ar->len;
	int nr = 0;

	if (len % 512) {
		*why = "length is not a multiple of 512";
		return -1;
	}
	for (;;) {
		unsigned long f[13];
		struct entry e;
		int i;

		if (off % 4 || off + 110 > len || memcmp(b + off, "070701", 6)) {
			*why = "bad header";
			return -1;
		}
		for (i = 0; i < 13; i++)
			if (hex8(b + off + 6 + 8 * i, &f[i]) < 0) {
				*why = "bad hex field";
				return -1;
			}
		memset(&e, 0, sizeof(e));
		e.ino = f[0];
		e.mode = f[1];
		e.uid = f[2];
		e.gid = f[3];
		e.nlink = f[4];
		e.mtime = f[5];
		e.size = f[6];
		e.rmajor = f[9];
		e.rminor = f[10];
		if (f[12] || f[7] || f[8]) {
			*why = "check or devmajor/devminor not zero";
			return -1;
		}
		if (!f[11] || f[11] > sizeof(e.name) || off + 110 + f[11] > len ||
		    b[off + 110 + f[11] - 1]) {
			*why = "bad name";
			return -1;
		}
		memcpy(e.name, b + off + 110, f[11]);
		off += 110 + f[11];
		while (off % 4)
			if (b[off++]) {
				*why = "non-zero name padding";
				return -1;
			}
		if (off + e.size > len) {
			*why = "data past the end";
			return -1;
		}
		e.data = b + off;
		off += e.size;
		while (off % 4)
			if (b[off++]) {
				*why = "non-zero data padding";
				return -1;
			}
		if (!strcmp(e.name, "TRAILER!!!"))
			break;
		if (nr == MAX_ENTRIES) {
			*why = "too many entries";
			return -1;
		}
		out[nr++] = e;
	}
	for (; off < len; off++)
		if (b[off]) {
			*why = "non-zero archive padding";
			return -1;
		}
	return nr;
}

static const struct entry *find(const struct entry *e, int nr, const char *name)
{
	int i;
	for (i = 0; i < nr; i++)
		if (!strcmp(e[i].name, name))
			return &e[i];
	return NULL;
}

#endif
