#ifndef CHECKOUT_H
#define CHECKOUT_H
/*
 * The lab's own work tree of a kernel repository.
 *
 * The user's repository is opened for its objects only: its HEAD, index,
 * branches and work tree are never touched. The lab checks commits out
 * into a directory it owns, with an index file of its own beside it, so
 * moving between two commits rewrites just the files that differ (make
 * then rebuilds only what changed) and leaves every other mtime alone.
 * Files in that directory that are dirty or not in the commit are reset or
 * removed, never merged.
 *
 * Each tree has a directory of its own: the work tree is <dir>/src, its
 * index <dir>/index, and its build directories go in <dir>/kbuild/. Every
 * tree's sources are then "../../src" from its build directories, and the
 * compiler cache (ccache.h) finds one tree's objects for another's.
 *
 * struct kernel_tree owns the repository handle and the index;
 * kernel_tree_close() frees them.
 */
#include <git2.h>

struct kernel_tree {
	git_repository *repo;
	git_index *index;
	char *repo_path;
	char *dir;		/* the tree's own directory */
	char *workdir;		/* <dir>/src */
	char *index_path;	/* <dir>/index */
};

/*
 * Open repo_path (any path inside a repository) with dir as the lab's
 * tree. A work tree from before dir held it, at dir itself with its index
 * at dir.index, is moved into dir/src as it is: nothing is checked out
 * again.
 */
int kernel_tree_open(struct kernel_tree *t, const char *repo_path, const char *dir);
void kernel_tree_close(struct kernel_tree *t);

/*
 * Resolve a ref, tag, abbreviated id or expression (v6.1, HEAD~3,
 * bd225530a4c7) to a commit and its tree. Fails with
 * "cannot resolve 'X': <why>".
 */
int kernel_tree_resolve(git_oid *commit, git_oid *tree, struct kernel_tree *t,
			const char *ref);

/* Check out commit; *written counts the files written or removed. */
int kernel_tree_checkout(struct kernel_tree *t, const git_oid *commit, size_t *written);

/* "<abbrev> <subject>" of a commit, for messages, escaped as escape_term() does; caller frees. */
char *kernel_tree_describe(struct kernel_tree *t, const git_oid *commit);

#endif
