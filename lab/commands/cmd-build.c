/* lab build REF...: build commits (or find them in the cache), print each image's path. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "host.h"
#include "log.h"
#include "options.h"
#include "refbuild.h"

static const char *const build_usage[] = {
	"usage: lab build REF... [--arch x86_64|aarch64] [--repo PATH] [--fragment FILE]...",
	"                        [--apply FILE]... [--probe NAME]... [--db PATH] [--config FILE]",
	"",
	"Checks each REF out into the lab's own work tree (never yours), builds it with",
	"make O=<build dir>, or finds it in the artifact cache, and prints the image.",
	"--apply patches the work tree for this build only; --probe does the same",
	"with kernels/probes/<arch>/NAME.patch. Both are part of the cache key.",
	"",
	parse_options_here,
	"",
	"exit status: 0 all built or cached, 1 a BUILD_FAILED, 2 error",
	NULL,
};

int cmd_build(int argc, char **argv)
{
	struct strvec fragments = STRVEC_INIT, patches = STRVEC_INIT, probes = STRVEC_INIT;
	struct build_spec spec = { host_arch(), &fragments, &patches };
	struct lab_context ctx;
	struct kernel_tree t;
	const char *repo = NULL, *db = NULL, *config = NULL;
	struct kernel_image image;
	git_oid commit;
	const struct parse_option options[] = {
		{ .type = OPTION_CALLBACK, .long_name = "arch", .value = &spec.arch, .argh = "A",
		  .help = "x86_64 or aarch64 (default: this host)", .cb = boot_opt_arch,
		  .expect = "x86_64 or aarch64" },
		OPT_STRING(0, "repo", &repo, "PATH", "kernel repository (default core.repo)"),
		OPT_STRVEC(0, "fragment", &fragments, "FILE", "config fragment (repeatable)"),
		OPT_STRVEC(0, "apply", &patches, "FILE", "patch for this build (repeatable)"),
		OPT_STRVEC(0, "probe", &probes, "NAME",
			   "probe patch from kernels/probes/<arch>/ (repeatable)"),
		CONTEXT_OPTIONS(&db, &config),
		OPT_END(),
	};
	struct option_parser parser = { "lab build", build_usage, options, NULL };
	int n, ret = 2;

	memset(&ctx, 0, sizeof(ctx));
	memset(&t, 0, sizeof(t));
	kernel_image_init(&image);
	n = parse_command_options(&parser, argc, argv, PARSE_OPT_ANY_ARGS);
	if (n < 0)
		goto out;
	if (n < 1) {
		error("'lab build' takes a ref (see 'lab build --help')");
		goto out;
	}
	if (build_add_probes(&patches, &probes, spec.arch))
		goto out;
	if (context_load_config(&ctx, config, db) || kernel_tree_open_for(&t, &ctx, repo))
		goto out;
	ret = 0;
	for (int i = 0; i < n && ret < 2; i++) {
		kernel_image_release(&image);
		kernel_image_init(&image);
		switch (refbuild(&image, &commit, &ctx, &t, argv[i], &spec)) {
		case REFBUILD_OK:
			printf("%s\n", image.path);
			fflush(stdout);
			break;
		case REFBUILD_FAILED:
			ret = 1;
			break;
		default:
			ret = 2;
			break;
		}
	}
out:
	kernel_image_release(&image);
	kernel_tree_close(&t);
	context_release(&ctx);
	strvec_release(&fragments);
	strvec_release(&patches);
	strvec_release(&probes);
	return ret;
}
