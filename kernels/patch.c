/* A parsed series applied as commits with libgit2 (patch.h). */
#include <string.h>

#include <git2.h>

#include "gitutil.h"
#include "log.h"
#include "mbox.h"
#include "patch.h"
#include "strbuf.h"

/* Commit patch p (number i of n) on top of parent into *out. */
static int apply_one(git_commit **out, git_repository *repo, git_commit *parent,
		     const struct patch *p, size_t i, size_t n)
{
	git_diff *diff = NULL;
	git_tree *tree = NULL, *new_tree = NULL;
	git_index *index = NULL;
	git_signature *author = NULL, *committer = NULL;
	struct strbuf what = STRBUF_INIT, msg = STRBUF_INIT;
	const git_commit *parents[1] = { parent };
	char hex[13];
	git_oid tree_id, id;
	int ret = -1;

	git_oid_tostr(hex, sizeof(hex), git_commit_id(parent));
	strbuf_addf(&what, "patch %zu/%zu '%s'", i + 1, n, p->subject);
	if (git_diff_from_buffer(&diff, p->diff, p->diff_len)) {
		strbuf_addstr(&what, " cannot be read");
		lab_git_error(what.buf);
		goto out;
	}
	if (git_commit_tree(&tree, parent)) {
		strbuf_addf(&what, ": cannot read the tree of %s", hex);
		lab_git_error(what.buf);
		goto out;
	}
	if (git_apply_to_tree(&index, repo, tree, diff, NULL)) {
		strbuf_addf(&what, " does not apply to %s", hex);
		lab_git_error(what.buf);
		goto out;
	}
	if (git_index_write_tree_to(&tree_id, index, repo) ||
	    git_tree_lookup(&new_tree, repo, &tree_id)) {
		strbuf_addstr(&what, ": cannot write its tree");
		lab_git_error(what.buf);
		goto out;
	}
	if (git_signature_new(&author, p->author_name, p->author_email, p->date.time,
			      p->date.offset) ||
	    git_signature_new(&committer, "lab", "lab@localhost", p->date.time, p->date.offset)) {
		strbuf_addf(&what, ": bad author '%s <%s>'", p->author_name, p->author_email);
		lab_git_error(what.buf);
		goto out;
	}
	strbuf_addstr(&msg, p->subject);
	if (*p->body)
		strbuf_addf(&msg, "\n\n%s", p->body);
	strbuf_addch(&msg, '\n');
	if (git_commit_create(&id, repo, NULL, author, committer, NULL, msg.buf, new_tree,
			      1, parents) ||
	    git_commit_lookup(out, repo, &id)) {
		strbuf_addstr(&what, ": cannot write its commit");
		lab_git_error(what.buf);
		goto out;
	}
	ret = 0;
out:
	git_diff_free(diff);
	git_tree_free(tree);
	git_tree_free(new_tree);
	git_index_free(index);
	git_signature_free(author);
	git_signature_free(committer);
	strbuf_release(&what);
	strbuf_release(&msg);
	return ret;
}

int patch_apply_series(git_oid *out, git_repository *repo, const git_oid *base_commit,
		       const char *mbox, size_t len, const char *source)
{
	struct patch_series series = PATCH_SERIES_INIT;
	struct strbuf why = STRBUF_INIT;
	git_commit *head = NULL;
	int ret = -1;

	if (patch_series_parse(&series, mbox, len, &why)) {
		error("'%s' is not an mbox or patch: %s", source, why.buf);
		goto out;
	}
	if (git_commit_lookup(&head, repo, base_commit)) {
		char hex[GIT_OID_HEXSZ + 1];
		git_oid_tostr(hex, sizeof(hex), base_commit);
		lab_git_errorf("cannot read commit %s", hex);
		goto out;
	}
	for (size_t i = 0; i < series.nr; i++) {
		git_commit *next;

		if (apply_one(&next, repo, head, &series.v[i], i, series.nr))
			goto out;
		git_commit_free(head);
		head = next;
	}
	git_oid_cpy(out, git_commit_id(head));
	ret = 0;
out:
	git_commit_free(head);
	patch_series_release(&series);
	strbuf_release(&why);
	return ret;
}
