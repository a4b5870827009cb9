/* An A/B as asked for, to the plan ab_run() takes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ab-spec.h"
#include "config.h"
#include "host.h"
#include "image.h"
#include "kcmdline.h"
#include "log.h"
#include "patch.h"
#include "xalloc.h"

void ab_spec_init(struct ab_spec *s)
{
	memset(s, 0, sizeof(*s));
	s->o.alpha = 0.05;
	s->o.delta = 0;		/* the clock's band, STATS_DELTA_* */
	s->o.max_boots = 20;
}

void ab_spec_release(struct ab_spec *s)
{
	kernel_tree_close(&s->tree);
	for (int i = 0; i < 2; i++) {
		kernel_image_release(&s->image[i]);
		strvec_release(&s->frags[i]);
		strvec_release(&s->apply[i]);
		strbuf_release(&s->side_line[i]);
	}
	workload_list_release(&s->workloads);
	strvec_release(&s->args);
	strvec_release(&s->params);
	strvec_release(&s->probes);
	free(s->mems);
	free(s->cpus);
	memset(s, 0, sizeof(*s));
}

/*
 * Build A and B from git: refs, or A plus a patch series applied as
 * commits. Either failing to build ends the experiment before any boot.
 */
static int build_variants(struct kernel_image image[2], struct kernel_tree *t, struct lab_context *ctx,
			  const char *repo, const char *arch, const char *const ref[2],
			  const char *patch, const struct strvec frags[2],
			  const struct strvec apply[2], const struct strvec *probes)
{
	struct strbuf mbox = STRBUF_INIT;
	struct strvec patches[2] = { STRVEC_INIT, STRVEC_INIT };
	git_oid commit[2];
	int ret = -1;

	if (!arch)
		arch = host_arch();
	/* bad input fails before minutes of building */
	for (int s = 0; s < 2; s++) {
		for (size_t i = 0; i < apply[s].nr; i++) {
			if (access(apply[s].v[i], R_OK)) {
				error("cannot read patch '%s': %s", apply[s].v[i], strerror(errno));
				goto out;
			}
			strvec_push(&patches[s], apply[s].v[i]);
		}
		if (build_add_probes(&patches[s], probes, arch))
			goto out;
	}
	if ((patch && patch_fetch(&mbox, patch)) || kernel_tree_open_for(t, ctx, repo))
		goto out;
	/* a ref that does not resolve fails before the other side's build */
	for (int s = 0; s < 2; s++) {
		git_oid tree;

		if (ref[s] && kernel_tree_resolve(&commit[s], &tree, t, ref[s]))
			goto out;
	}
	for (int s = 0; s < 2; s++) {
		struct build_spec spec = { arch, &frags[s], &patches[s] };
		enum refbuild_outcome r;

		if (s && patch) {
			if (patch_apply_series(&commit[1], t->repo, &commit[0], mbox.buf, mbox.len,
					       patch))
				goto out;
			r = refbuild_commit(&image[s], ctx, t, &commit[1], &spec);
		} else {
			r = refbuild(&image[s], &commit[s], ctx, t, ref[s], &spec);
		}
		if (r != REFBUILD_OK)
			goto out;
	}
	ret = 0;
out:
	strbuf_release(&mbox);
	strvec_release(&patches[0]);
	strvec_release(&patches[1]);
	return ret;
}

/* Each side's kernel comes from one place: an image, or a build from git. */
static int check_one_kernel_each(const char *kernel, const char *const side_kernel[2],
				 const char *const ref[2], const char *patch)
{
	static const char *const name[2] = { "A", "B" };

	for (int s = 0; s < 2; s++) {
		const char *git = ref[s] ? (s ? "--b" : "--a") : s && patch ? "--patch" : NULL;

		if (!git)
			continue;
		if (side_kernel[s])
			return error("%s and %s both name %s's kernel: give one", git,
				     s ? "--b-kernel" : "--a-kernel", name[s]);
		if (kernel)
			return error("%s and --kernel both name %s's kernel: give one", git,
				     name[s]);
	}
	return 0;
}

/*
 * Both sides have a kernel, or neither has and the runner boots none (the
 * local runner runs the guest, and the sides differ in command line):
 * else the options that give the missing one are named. Git's sides are
 * checked with the builds.
 */
static int check_sides(const struct ab_spec *s, const struct lab_context *ctx)
{
	const struct runner *r;
	int has[2];

	if (boot_opts_check_targets(&s->o.boot, &ctx->cfg) ||
	    !(r = boot_opts_runner(&s->o.boot, &ctx->cfg)))
		return -1;
	if (s->ref[0] || s->ref[1] || s->patch)
		return 0;
	for (int i = 0; i < 2; i++)
		has[i] = s->kernel || s->side_kernel[i];
	if (has[0] != has[1])
		return error("no kernel for %c: give %s IMG (or --kernel IMG for both sides)",
			     has[0] ? 'B' : 'A', has[0] ? "--b-kernel" : "--a-kernel");
	if (!has[0] && (r->flags & RUNNER_BOOTS_KERNEL))
		return error("no kernels: the %s runner boots one on each side: give --a-kernel IMG "
			     "and --b-kernel IMG, --kernel IMG for both, or --a REF and --b REF "
			     "to build them", r->name);
	return 0;
}

/*
 * The images the user named, each read once here: a file both sides name
 * is one image, image[0], which both sides point at (and which is recorded
 * once). A runner of this host (the local one) runs it as a program; any
 * other boots it, so it must be a kernel image.
 */
static int resolve_images(struct ab_spec *s, struct lab_context *ctx)
{
	int boots = !(boot_opts_runner_flags(&s->o.boot, &ctx->cfg) & RUNNER_THIS_HOST);

	for (int i = 0; i < 2; i++) {
		const char *path = s->side_kernel[i] ? s->side_kernel[i] : s->kernel;

		s->o.v[i].kernel = NULL;
		kernel_image_release(&s->image[i]);
		if (!path)
			continue;
		if (i && s->image[0].path && !strcmp(s->image[0].path, path)) {
			s->o.v[i].kernel = &s->image[0];
			continue;
		}
		if (kernel_image_resolve(&s->image[i], path, boots))
			return -1;
		s->o.v[i].kernel = &s->image[i];
	}
	return 0;
}

/* The config's size or CPU count, when the spec has no list of them. */
static void list_default(long **list, size_t *n, long value)
{
	if (*list)
		return;
	*list = xcalloc(1, sizeof(**list));
	(*list)[0] = value;
	*n = 1;
}

int ab_spec_prepare(struct ab_spec *s, struct lab_context *ctx)
{
	if (!s->workloads.specs.nr)
		return error("no workload given (--workload %s)", WORKLOAD_NAMES);
	if (workloads_resolve(&s->workloads, &s->args, s->sections, s->nsections,
			      ctx->cfg.workloads, ctx->cfg.nworkloads))
		return -1;
	if (check_one_kernel_each(s->kernel, s->side_kernel, s->ref, s->patch) ||
	    check_sides(s, ctx))
		return -1;
	for (int i = 0; i < 2; i++) {
		struct strbuf *sb = &s->side_line[i];

		strbuf_reset(sb);
		if (s->cmdline)
			strbuf_addstr(sb, s->cmdline);
		if (s->side_cmdline[i])
			strbuf_addf(sb, "%s%s", sb->len ? " " : "", s->side_cmdline[i]);
		s->o.v[i].cmdline = strbuf_str(sb);
	}
	if (s->ref[0] || s->ref[1] || s->patch) {
		if (!s->ref[0] || (!s->ref[1] && !s->patch))
			return error("building from git needs --a REF and either --b REF or --patch");
		if (s->ref[1] && s->patch)
			return error("--b and --patch both name B: give one");
		/* a clock no boot can give is refused before minutes of builds */
		for (size_t i = 0; i < (s->cpus ? s->ncpus : 1); i++) {
			struct boot_opts b = s->o.boot;

			b.cpus = s->cpus ? s->cpus[i] : 0;
			if (boot_opts_check_clock(ctx, &b, s->arch ? s->arch : host_arch()))
				return -1;
		}
		if (build_variants(s->image, &s->tree, ctx, s->repo, s->arch, s->ref, s->patch,
				   s->frags, s->apply, &s->probes))
			return -1;
		for (int i = 0; i < 2; i++) {
			s->o.v[i].kernel = &s->image[i];
			s->o.v[i].git_ref = i && s->patch ? s->patch : s->ref[i];
		}
	} else if (s->frags[0].nr || s->frags[1].nr || s->apply[0].nr || s->apply[1].nr ||
		   s->probes.nr) {
		return error("--a-config, --a-apply and --probe need kernels built from git (--a, --b)");
	} else if (resolve_images(s, ctx)) {
		return -1;
	}
	list_default(&s->mems, &s->nmems, ctx->cfg.mem_mib);
	list_default(&s->cpus, &s->ncpus, ctx->cfg.cpus);
	s->o.boot.workloads = &s->workloads;
	s->o.boot.params = &s->params;
	s->o.mems = s->mems;
	s->o.nmems = s->nmems;
	s->o.cpus = s->cpus;
	s->o.ncpus = s->ncpus;
	return 0;
}

int ab_spec_same_sides(const struct ab_spec *s)
{
	const struct kernel_image *a = s->o.v[0].kernel, *b = s->o.v[1].kernel;

	/* "a=1 b=2" and "b=2 a=1" are one command line to the kernel */
	if (!kcmdline_same(s->o.v[0].cmdline, s->o.v[1].cmdline) || !a != !b)
		return 0;
	return !a || a == b || !strcmp(a->hash, b->hash);
}
