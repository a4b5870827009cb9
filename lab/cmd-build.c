/* lab build REF: build a commit (or find it in the cache), print the image path. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "host.h"
#include "log.h"
#include "options.h"
#include "refbuild.h"

static const char build_usage[] =
"usage: lab build REF [--arch x86_64|aarch64] [--repo PATH] [--fragment FILE]...\n"
"                     [--apply FILE]... [--probe NAME]... [--db PATH] [--config FILE]\n"
"\n"
"Checks REF out into the lab's own work tree (never yours), builds it with\n"
"make O=<build dir>, or finds it in the artifact cache, and prints the image.\n"
"--apply patches the work tree for this build only; --probe does the same\n"
"with kernels/probes/<arch>/NAME.patch. Both are part of the cache key.\n"
"exit status: 0 built or cached, 1 BUILD_FAILED, 2 error\n";

int cmd_build(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "arch", required_argument, NULL, 'a' },
		{ "repo", required_argument, NULL, 'r' },
		{ "fragment", required_argument, NULL, 'f' },
		{ "db", required_argument, NULL, 'd' },
		{ "config", required_argument, NULL, 'c' },
		{ "apply", required_argument, NULL, 'p' },
		{ "probe", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct strvec fragments = STRVEC_INIT, patches = STRVEC_INIT, probes = STRVEC_INIT;
	struct build_spec spec = { host_arch(), &fragments, &patches };
	struct lab_context ctx;
	struct kernel_tree t;
	const char *repo = NULL, *db = NULL, *config = NULL;
	char *image = NULL;
	git_oid commit;
	long long kernel_id;
	int c, ret = 2;

	memset(&ctx, 0, sizeof(ctx));
	memset(&t, 0, sizeof(t));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			if (strcmp(optarg, "x86_64") && strcmp(optarg, "aarch64")) {
				error("bad value '%s' for --arch: expected x86_64 or aarch64", optarg);
				goto out;
			}
			spec.arch = optarg;
			break;
		case 'r': repo = optarg; break;
		case 'f': strvec_push(&fragments, optarg); break;
		case 'd': db = optarg; break;
		case 'c': config = optarg; break;
		case 'p': strvec_push(&patches, optarg); break;
		case 'P': strvec_push(&probes, optarg); break;
		case 'h': fputs(build_usage, stdout); ret = 0; goto out;
		default:
			option_error("lab build", "h", longopts, argv);
			goto out;
		}
	}
	if (optind + 1 != argc) {
		error("'lab build' takes one ref (see 'lab build --help')");
		goto out;
	}
	if (build_add_probes(&patches, &probes, spec.arch))
		goto out;
	if (context_load_config(&ctx, config, db) || kernel_tree_open_for(&t, &ctx, repo))
		goto out;
	switch (refbuild(&image, &commit, &kernel_id, &ctx, &t, argv[optind], &spec)) {
	case REFBUILD_OK:
		printf("%s\n", image);
		ret = 0;
		break;
	case REFBUILD_FAILED:
		ret = 1;
		break;
	default:
		break;
	}
out:
	free(image);
	kernel_tree_close(&t);
	context_release(&ctx);
	strvec_release(&fragments);
	strvec_release(&patches);
	strvec_release(&probes);
	return ret;
}
