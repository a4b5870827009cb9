#ifndef REFBUILD_H
#define REFBUILD_H
/*
 * From a git ref to a bootable image, for the commands: resolve, build or
 * find in the cache, record the kernel (with its commit) and the commit's
 * subject, author and date in the database, and say on stderr what
 * happened. A failed build shows the tail of its
 * log and where the whole log is kept.
 */
#include <git2.h>

#include "build.h"
#include "context.h"

enum refbuild_outcome {
	REFBUILD_OK = 0,
	REFBUILD_FAILED = 1,	/* BUILD_FAILED: the kernel's problem */
	REFBUILD_ERROR = -1,	/* bad ref, or the lab's own failure */
};

/*
 * *image (the caller releases it) and *commit are set on REFBUILD_OK: the
 * image resolved by the build, with its commit, config and hash, and its
 * row in the database (image->id), which the boots take as it is.
 */
enum refbuild_outcome refbuild(struct kernel_image *image, git_oid *commit,
			       struct lab_context *ctx, struct kernel_tree *t,
			       const char *ref, const struct build_spec *spec);

/* The same for a commit already resolved (bisect, patch series). */
enum refbuild_outcome refbuild_commit(struct kernel_image *image, struct lab_context *ctx,
				      struct kernel_tree *t, const git_oid *commit,
				      const struct build_spec *spec);

/* Open the repository named by --repo or core.repo with the lab's work tree. */
int kernel_tree_open_for(struct kernel_tree *t, struct lab_context *ctx, const char *repo);

#endif
