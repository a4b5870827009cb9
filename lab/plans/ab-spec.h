#ifndef AB_SPEC_H
#define AB_SPEC_H
/*
 * An A/B as a person asks for it: each side's kernel as an image or as a
 * git ref to build (or A plus a patch series), the command lines in
 * parts, the sweep as lists. `lab ab` fills one from its command line
 * with AB_SPEC_OPTIONS (lab/commands/options.h); `lab recipe` from a
 * recipe, then from its own command line with the same options. ab_spec_prepare() checks it,
 * builds what it names and fills spec->o, the plan ab_run() takes.
 * The spec owns its lists, images and command lines; option values point
 * into the argv that was parsed.
 */
#include "ab.h"
#include "boot.h"
#include "refbuild.h"
#include "strbuf.h"
#include "strvec.h"

struct ab_spec {
	const char *kernel;		/* both sides' image */
	const char *side_kernel[2];
	const char *cmdline;		/* both sides' command line */
	const char *side_cmdline[2];	/* each side's, after it */
	const char *ref[2];		/* git refs to build */
	const char *patch;		/* B is A plus this series */
	const char *repo, *arch;
	struct workload_list workloads;
	struct strvec params, frags[2], apply[2], probes;
	struct strvec args;		/* --arg, for the exec: or stress-ng: workload */
	const struct lab_workload *sections;	/* a recipe's [workload] sections */
	size_t nsections;
	long *mems, *cpus;		/* NULL: the config's */
	size_t nmems, ncpus;
	struct ab_opts o;		/* the plan: boots, alpha, boot options... */

	/* what ab_spec_prepare() made */
	struct kernel_image image[2];	/* each side's, built or resolved once (one file: [0]) */
	struct strbuf side_line[2];
	struct kernel_tree tree;
};

void ab_spec_init(struct ab_spec *s);
void ab_spec_release(struct ab_spec *s);

/*
 * Check the spec (each side's kernel named once, git options only with
 * git), build the sides it names from git, and fill s->o but for resume
 * and command, on ctx with its configuration loaded. -1 after a message.
 */
int ab_spec_prepare(struct ab_spec *s, struct lab_context *ctx);

/*
 * After ab_spec_prepare(): 1 when A and B boot the same kernel (the same
 * bytes) with the same command line (kcmdline_same(): the same parameters
 * in any order), an A/A.
 */
int ab_spec_same_sides(const struct ab_spec *s);

#endif
