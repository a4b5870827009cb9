#ifndef AB_SPEC_H
#define AB_SPEC_H
/*
 * An A/B as a person asks for it: each side's kernel as an image or as a
 * git ref to build (or A plus a patch series), the command lines in
 * parts, the sweep as lists. `lab ab` fills one from its command line
 * with AB_SPEC_OPTIONS; `lab recipe` from a recipe, then from its own
 * command line with the same options. ab_spec_prepare() checks it,
 * builds what it names and fills spec->o, the plan ab_run() takes.
 * The spec owns its lists, images and command lines; option values point
 * into the argv that was parsed.
 */
#include "ab.h"
#include "boot.h"
#include "parse-options.h"
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
	struct strvec workloads, params, frags[2], apply[2], probes;
	struct strvec args;		/* --arg, for the exec: or stress-ng: workload */
	const struct lab_workload *sections;	/* a recipe's [workload] sections */
	size_t nsections;
	long *mems, *cpus;		/* NULL: the config's */
	size_t nmems, ncpus;
	enum ab_format fmt;
	struct ab_opts o;		/* the plan: boots, alpha, boot options... */

	/* what ab_spec_prepare() made */
	struct kernel_image image[2];	/* each side's, built or resolved once */
	struct strbuf side_line[2];
	struct kernel_tree tree;
};

void ab_spec_init(struct ab_spec *s);
void ab_spec_release(struct ab_spec *s);

/* The callbacks of its options: opt->value is the field, or the spec for lists. */
int ab_opt_mems(const struct parse_option *opt, const char *arg);
int ab_opt_cpus(const struct parse_option *opt, const char *arg);
int ab_opt_alpha(const struct parse_option *opt, const char *arg);
int ab_opt_delta(const struct parse_option *opt, const char *arg);
int ab_opt_format(const struct parse_option *opt, const char *arg);

/*
 * The options of an A/B, for lab ab's table and lab recipe's: all but
 * --arch (lab recipe's picks one of the recipe's), --resume, --db and
 * --config, which each command says in its own way.
 */
#define AB_SPEC_OPTIONS(s) \
	OPT_STRING(0, "a", &(s)->ref[0], "REF, --b REF", \
		   "git refs to build (or find in the cache) as A and B"), \
	{ .type = OPTION_STRING, .long_name = "b", .value = &(s)->ref[1], .argh = "REF", \
	  .flags = PARSE_OPT_HIDDEN }, \
	OPT_STRING(0, "patch", &(s)->patch, "FILE|URL", \
		   "B is A plus this patch series (mbox), applied as commits"), \
	OPT_STRING(0, "repo", &(s)->repo, "PATH", "kernel repository (default core.repo)"), \
	OPT_STRVEC(0, "a-config", &(s)->frags[0], "FILE", \
		   "config fragment for A only (repeatable); --b-config for B"), \
	{ .type = OPTION_STRVEC, .long_name = "b-config", .value = &(s)->frags[1], \
	  .argh = "FILE", .flags = PARSE_OPT_HIDDEN }, \
	OPT_STRVEC(0, "a-apply", &(s)->apply[0], "FILE", \
		   "patch applied to A's tree for the build, never committed\n" \
		   "(repeatable); --b-apply for B"), \
	{ .type = OPTION_STRVEC, .long_name = "b-apply", .value = &(s)->apply[1], \
	  .argh = "FILE", .flags = PARSE_OPT_HIDDEN }, \
	OPT_STRVEC(0, "probe", &(s)->probes, "NAME", \
		   "probe patch from kernels/probes/<arch>/ (or a file) on both\n" \
		   "sides: times a function before ftrace exists (repeatable)"), \
	OPT_STRING(0, "kernel", &(s)->kernel, "IMG", \
		   "kernel for both variants (then they differ in command line)"), \
	OPT_STRING(0, "a-kernel", &(s)->side_kernel[0], "IMG", "kernel of A (the base)"), \
	OPT_STRING(0, "b-kernel", &(s)->side_kernel[1], "IMG", "kernel of B"), \
	OPT_STRING(0, "cmdline", &(s)->cmdline, "STR", "command line for both variants"), \
	OPT_STRING(0, "a-cmdline", &(s)->side_cmdline[0], "STR", "extra command line of A"), \
	OPT_STRING(0, "b-cmdline", &(s)->side_cmdline[1], "STR", "extra command line of B"), \
	OPT_CALLBACK(0, "workload", &(s)->workloads, "W", \
		     "zeroing, demote, boot, exec:PATH, stress-ng:STRESSOR or a\n" \
		     "[workload] section's name (repeatable, or W1,W2)", boot_opt_workloads), \
	OPT_STRVEC(0, "arg", &(s)->args, "ARG", \
		   "argument of the exec: or stress-ng: workload (repeatable)"), \
	OPT_CALLBACK(0, "mem", (s), "LIST", "memory sizes: 4G or 4G,16G,64G (a sweep)", \
		     ab_opt_mems), \
	OPT_CALLBACK(0, "cpus", (s), "LIST", "CPU counts: 1 or 1,2,4 (a sweep)", ab_opt_cpus), \
	OPT_INT(0, "boots", &(s)->o.boots, 1, INT_MAX, "N", \
		"N boots per variant and point (default: adaptive)"), \
	OPT_INT(0, "max-boots", &(s)->o.max_boots, 1, INT_MAX, "N", \
		"adaptive: most boots per variant and point (default 20)"), \
	OPT_CALLBACK(0, "alpha", &(s)->o.alpha, "A", "false-positive rate (default 0.05)", \
		     ab_opt_alpha), \
	OPT_CALLBACK(0, "delta", &(s)->o.delta, "D", \
		     "smallest change that matters: 2% or 0.02 (default 2%)", ab_opt_delta), \
	OPT_CALLBACK(0, "format", &(s)->fmt, "F", "text, csv or json (default text)", \
		     ab_opt_format), \
	OPT_BOOL(0, "force", &(s)->o.force, "compare even when runs differ in provenance"), \
	BOOT_OPTIONS(&(s)->o.boot, &(s)->params), \
	OPT_STRING(0, "guest", &(s)->o.boot.guest, "PATH", \
		   "guest program (default: the one built beside lab)")

/*
 * Check the spec (each side's kernel named once, git options only with
 * git), build the sides it names from git, and fill s->o but for resume
 * and command, on ctx with its configuration loaded. -1 after a message.
 */
int ab_spec_prepare(struct ab_spec *s, struct lab_context *ctx);

#endif
