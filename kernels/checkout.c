#include <errno.h>
#include <git2/sys/repository.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checkout.h"
#include "escape.h"
#include "gitutil.h"
#include "log.h"
#include "strbuf.h"
#include "xalloc.h"

/*
 * The layout before a directory per tree: the work tree at dir, its index
 * at dir.index. Both are renamed into dir/src and dir/index, files and
 * mtimes as they are, so that make sees no change. They go by way of
 * dir.moving and dir.moving.index: a move cut short is finished by the
 * next lab, whichever step it stopped at.
 */
static int move_old_tree(const struct kernel_tree *t)
{
	struct strbuf old_index = STRBUF_INIT, moving = STRBUF_INIT, moving_index = STRBUF_INIT;
	int ret = 0;

	strbuf_addf(&old_index, "%s.index", t->dir);
	strbuf_addf(&moving, "%s.moving", t->dir);
	strbuf_addf(&moving_index, "%s.moving.index", t->dir);
	if (!access(old_index.buf, F_OK)) {
		if ((access(moving.buf, F_OK) && rename(t->dir, moving.buf) && errno != ENOENT) ||
		    rename(old_index.buf, moving_index.buf)) {
			ret = error("cannot move the work tree '%s': %s", t->dir, strerror(errno));
			goto out;
		}
	} else if (access(moving.buf, F_OK)) {
		goto out;
	}
	if ((mkdir(t->dir, 0755) && errno != EEXIST) ||
	    (rename(moving_index.buf, t->index_path) && errno != ENOENT) ||
	    (rename(moving.buf, t->workdir) && errno != ENOENT)) {
		ret = error("cannot move the work tree '%s' to '%s': %s", moving.buf, t->workdir,
			    strerror(errno));
		goto out;
	}
	info("moved the work tree '%s' to '%s'", t->dir, t->workdir);
out:
	strbuf_release_all(&old_index, &moving, &moving_index);
	return ret;
}

int kernel_tree_open(struct kernel_tree *t, const char *repo_path, const char *dir)
{
	struct strbuf sb = STRBUF_INIT;

	memset(t, 0, sizeof(*t));
	if (git_repository_open_ext(&t->repo, repo_path, 0, NULL))
		return lab_git_errorf("cannot open repository '%s'", repo_path);
	t->repo_path = xstrdup(repo_path);
	t->dir = xstrdup(dir);
	strbuf_addf(&sb, "%s/src", dir);
	t->workdir = strbuf_detach(&sb);
	strbuf_addf(&sb, "%s/index", dir);
	t->index_path = strbuf_detach(&sb);
	if (move_old_tree(t))
		goto fail;
	if ((mkdir(t->dir, 0755) && errno != EEXIST) || (mkdir(t->workdir, 0755) && errno != EEXIST)) {
		error("cannot create work tree '%s': %s", t->workdir, strerror(errno));
		goto fail;
	}
	/* in memory only: the repository's own config keeps its work tree */
	if (git_repository_set_workdir(t->repo, t->workdir, 0) ||
	    git_index_open(&t->index, t->index_path) ||
	    git_repository_set_index(t->repo, t->index)) {
		lab_git_error("cannot set up the lab's work tree");
		goto fail;
	}
	return 0;
fail:
	kernel_tree_close(t);
	return -1;
}

void kernel_tree_close(struct kernel_tree *t)
{
	git_index_free(t->index);
	git_repository_free(t->repo);
	free_all(t->repo_path, t->dir, t->workdir, t->index_path);
	memset(t, 0, sizeof(*t));
}

int kernel_tree_resolve(git_oid *commit, git_oid *tree, struct kernel_tree *t,
			const char *ref)
{
	git_object *obj = NULL, *peeled = NULL;
	int ret = -1;

	if (git_revparse_single(&obj, t->repo, ref) ||
	    git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT)) {
		lab_git_errorf("cannot resolve '%s'", ref);
		goto out;
	}
	git_oid_cpy(commit, git_object_id(peeled));
	git_oid_cpy(tree, git_commit_tree_id((git_commit *)peeled));
	ret = 0;
out:
	git_object_free(obj);
	git_object_free(peeled);
	return ret;
}

static int count_notify(git_checkout_notify_t why, const char *path, const git_diff_file *baseline,
			const git_diff_file *target, const git_diff_file *workdir, void *payload)
{
	(void)why;
	(void)path;
	(void)baseline;
	(void)target;
	(void)workdir;
	(*(size_t *)payload)++;
	return 0;
}

int kernel_tree_checkout(struct kernel_tree *t, const git_oid *commit, size_t *written)
{
	git_checkout_options opts;
	git_commit *c = NULL;
	char hex[GIT_OID_HEXSZ + 1];
	int ret = -1;

	*written = 0;
	git_oid_tostr(hex, sizeof(hex), commit);
	if (git_commit_lookup(&c, t->repo, commit))
		return lab_git_errorf("cannot find commit %s", hex);
	/* another lab (or a build ahead) may have checked out since: its index is on disk */
	if (git_index_read(t->index, 1)) {
		lab_git_error("cannot read the work tree's index");
		git_commit_free(c);
		return -1;
	}
	git_checkout_options_init(&opts, GIT_CHECKOUT_OPTIONS_VERSION);
	opts.checkout_strategy = GIT_CHECKOUT_FORCE | GIT_CHECKOUT_REMOVE_UNTRACKED |
				 GIT_CHECKOUT_REMOVE_IGNORED;
	/* what the lab's index says is there, not the user's HEAD */
	opts.baseline_index = t->index;
	opts.notify_flags = GIT_CHECKOUT_NOTIFY_UPDATED | GIT_CHECKOUT_NOTIFY_UNTRACKED |
			    GIT_CHECKOUT_NOTIFY_IGNORED | GIT_CHECKOUT_NOTIFY_DIRTY;
	opts.notify_cb = count_notify;
	opts.notify_payload = written;
	if (git_checkout_tree(t->repo, (git_object *)c, &opts) || git_index_write(t->index)) {
		lab_git_errorf("cannot check out %.12s into '%s'", hex, t->workdir);
		goto out;
	}
	ret = 0;
out:
	git_commit_free(c);
	return ret;
}

char *kernel_tree_describe(struct kernel_tree *t, const git_oid *commit)
{
	struct strbuf sb = STRBUF_INIT;
	git_commit *c = NULL;
	char hex[GIT_OID_HEXSZ + 1];

	git_oid_tostr(hex, sizeof(hex), commit);
	strbuf_addf(&sb, "%.12s", hex);
	if (!git_commit_lookup(&c, t->repo, commit)) {
		/* a subject is anyone's text: it may not drive the terminal it is shown on */
		strbuf_addch(&sb, ' ');
		escape_term(&sb, git_commit_summary(c), 0);
		git_commit_free(c);
	}
	return strbuf_detach(&sb);
}
