#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "gitutil.h"
#include "log.h"
#include "meter.h"
#include "refbuild.h"
#include "say.h"
#include "tempfile.h"
#include "textfmt.h"

/* Subject, author and date as they read now, for reports made without the repository. */
static int record_commit(struct lab_context *ctx, struct kernel_tree *t, const git_oid *commit)
{
	git_commit *c = NULL;
	struct strbuf author = STRBUF_INIT;
	char hex[GIT_OID_HEXSZ + 1];
	const git_signature *a;
	int ret;

	if (git_commit_lookup(&c, t->repo, commit))
		return lab_git_error("cannot read commit");
	git_oid_tostr(hex, sizeof(hex), commit);
	a = git_commit_author(c);
	strbuf_addf(&author, "%s <%s>", a->name, a->email);
	ret = store_commit_measured(&ctx->st, hex, git_commit_summary(c), author.buf,
				    (double)a->when.time);
	strbuf_release(&author);
	git_commit_free(c);
	return ret;
}

enum refbuild_outcome refbuild_commit(struct kernel_image *image, struct lab_context *ctx,
				      struct kernel_tree *t, const git_oid *commit,
				      const struct build_spec *spec)
{
	struct build_result res;
	struct meter meter;
	struct strbuf line = STRBUF_INIT;
	struct build_env env = {
		.dir = ctx->dir,
		.base_config = ctx->cfg.build_config,
		.command = ctx->cfg.build_command,
		.artifact = ctx->cfg.build_artifact,
		.jobs = ctx->cfg.build_jobs,
		.timeout_s = ctx->cfg.build_timeout_s,
		.ccache_mib = ctx->cfg.build_ccache_mib,
		.meter = &meter,
	};
	char *full = kernel_tree_describe(t, commit);
	char hex[GIT_OID_HEXSZ + 1], desc[256];
	enum refbuild_outcome ret = REFBUILD_ERROR;

	/* the hash and as much of the subject as leaves the line within 100 columns */
	textfmt_cut(desc, sizeof(desc), full, 44, 0);
	git_oid_tostr(hex, sizeof(hex), commit);
	build_result_init(&res);
	meter_init(&meter, stderr);
	if (record_commit(ctx, t, commit))
		goto out;
	meter_begin(&meter, 0, 0, "build %s (%s)", term_safe(desc), term_safe(spec->arch));
	if (kernel_build(&res, &env, t, commit, spec)) {
		meter_done(&meter, "build %s (%s): error", desc, spec->arch);
		goto out;
	}
	strbuf_addf(&line, "build %s (%s): %s in %.1f s", desc, spec->arch,
		    build_status_name(res.status), res.seconds);
	if (res.status != BUILD_CACHED)
		strbuf_addf(&line, ", %zu file%s checked out", res.files_written,
			    res.files_written == 1 ? "" : "s");
	meter_done(&meter, "%s", line.buf);
	if (res.ccache.hits || res.ccache.misses)
		say("  compiler cache: %ld hits, %ld misses, %.1f %% hits", res.ccache.hits,
		    res.ccache.misses,
		    100.0 * (double)res.ccache.hits / (double)(res.ccache.hits + res.ccache.misses));
	/* make killed by a Ctrl-C the command defers: no failure of the tree to show */
	if (res.status == BUILD_FAILED && fatal_signal_pending()) {
		ret = REFBUILD_FAILED;
		goto out;
	}
	if (res.status == BUILD_FAILED) {
		say("  %s\n  log: %s", strbuf_str(&res.why), res.log);
		if (res.tail.len) {
			struct strbuf tail = STRBUF_INIT;

			escape_term(&tail, res.tail.buf, ESCAPE_TERM_LINES);
			say("  ...\n%s", tail.buf);
			strbuf_release(&tail);
		}
		ret = REFBUILD_FAILED;
		goto out;
	}
	if (store_kernel(&ctx->st, &res.image.id, &res.image))
		goto out;
	debug("kernel '%s' %s from %.12s, config %.12s: %s, hash %s", res.image.path,
	      kernel_origin_name(res.image.origin), hex, res.image.config_hash, res.image.arch,
	      res.image.hash);
	kernel_image_release(image);
	*image = res.image;
	kernel_image_init(&res.image);
	ret = REFBUILD_OK;
out:
	meter_release(&meter);
	strbuf_release(&line);
	free(full);
	build_result_release(&res);
	return ret;
}

enum refbuild_outcome refbuild(struct kernel_image *image, git_oid *commit,
			       struct lab_context *ctx, struct kernel_tree *t,
			       const char *ref, const struct build_spec *spec)
{
	git_oid tree;

	if (kernel_tree_resolve(commit, &tree, t, ref))
		return REFBUILD_ERROR;
	return refbuild_commit(image, ctx, t, commit, spec);
}

int kernel_tree_open_for(struct kernel_tree *t, struct lab_context *ctx, const char *repo)
{
	struct strbuf wd = STRBUF_INIT;
	char *trees, *copy;
	int ret;

	if (!repo)
		repo = ctx->cfg.repo;
	if (!repo)
		return error("no kernel repository given (--repo PATH or core.repo in lab.conf)");
	if ((context_need_store(ctx)) || !(trees = context_subdir(ctx, "trees")))
		return -1;
	copy = strdup(repo);
	if (!copy) {
		free(trees);
		return error("out of memory");
	}
	/* one tree per repository name: its work tree, index and build directories */
	while (strlen(copy) > 1 && copy[strlen(copy) - 1] == '/')
		copy[strlen(copy) - 1] = '\0';
	strbuf_addf(&wd, "%s/%s", trees, basename(copy));
	ret = kernel_tree_open(t, repo, wd.buf);
	free(copy);
	free(trees);
	strbuf_release(&wd);
	return ret;
}

