#ifndef MBOX_H
#define MBOX_H
/*
 * A patch series read from mail: git format-patch output split into
 * patches, as `git am` reads it.
 *
 * patch_series_parse() is pure: bytes in, a struct patch_series out, with
 * no repository, no I/O and no messages (a failure's reason goes into
 * *why). The series owns every string in it; patch_series_release() frees
 * them all.
 */
#include <stddef.h>

#include <git2.h>

struct strbuf;

struct patch {
	char *author_name;	/* RFC 2047 decoded, UTF-8 */
	char *author_email;
	git_time date;		/* the Date: header; the parse time if none */
	char *subject;		/* unfolded, "[PATCH v2 3/7]" stripped */
	char *body;		/* up to the "---" line, trimmed; may be "" */
	char *diff;		/* from the first "diff --git" to the "-- " signature */
	size_t diff_len;
};

struct patch_series {
	struct patch *v;
	size_t nr;
	size_t alloc;
};

#define PATCH_SERIES_INIT { NULL, 0, 0 }

/*
 * Split git format-patch output (one or more mails, "From <sha> <date>"
 * separated, or one mail without that line) into patches, in order. Mails
 * without a diff (a cover letter, a reply) are skipped. On failure returns
 * -1, leaves *series empty and says why in *why (appended, no "lab:"):
 *   no 'diff --git' line in it
 * The message body's Content-Transfer-Encoding (quoted-printable, base64)
 * is undone; CRLF line ends become LF, as git am does by default.
 */
int patch_series_parse(struct patch_series *series, const char *buf, size_t len,
		       struct strbuf *why);
void patch_series_release(struct patch_series *series);

#endif
