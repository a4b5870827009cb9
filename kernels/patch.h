#ifndef PATCH_H
#define PATCH_H
/*
 * B = A plus a patch series: fetch an mbox (fetch.h), split it into
 * patches (mbox.h), and commit each one on top of the last, as `git am`
 * would (here). This header brings all three, for the commands that do
 * the whole of it.
 *
 * patch_apply_series() writes commits into the repository's object
 * database and nothing else: no ref moves, the index and work tree are
 * untouched. The committer is "lab <lab@localhost>" at the author's time,
 * so applying the same series to the same base gives the same commit ids
 * (and a build cache can key on them).
 */
#include <stddef.h>

#include <git2.h>

#include "fetch.h"
#include "mbox.h"

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
