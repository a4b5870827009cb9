#ifndef PATCH_H
#define PATCH_H
/*
 * B = A plus a patch series: fetch an mbox, split it into patches, and
 * commit each one on top of the last, as `git am` would.
 *
 * patch_fetch() reads a file or an http(s) URL into a strbuf the caller
 * owns, and refuses anything that is not an mbox or patch.
 *
 * patch_series_parse() is pure: bytes in, a struct patch_series out, with
 * no repository, no I/O and no messages (a failure's reason goes into
 * *why). The series owns every string in it; patch_series_release() frees
 * them all.
 *
 * patch_apply_series() writes commits into the repository's object
 * database and nothing else: no ref moves, the index and work tree are
 * untouched. The committer is "lab <lab@localhost>" at the author's time,
 * so applying the same series to the same base gives the same commit ids
 * (and a build cache can key on them).
 */
#include <stddef.h>

#include <git2.h>

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

/*
 * Apply the patches in mbox (len bytes, read from source, which names it
 * in messages) one by one on top of base_commit; *out is the last new
 * commit. Each commit has the patch's author and the message
 * "subject\n\nbody\n". 0, or -1 after one error line:
 *   lab: patch 2/3 'mm: batch HVO work' does not apply to 1a2b3c4d5e6f: <why>
 * Commits made before a failure stay in the object database, unreferenced.
 */
int patch_apply_series(git_oid *out, git_repository *repo, const git_oid *base_commit,
		       const char *mbox, size_t len, const char *source);

#endif
