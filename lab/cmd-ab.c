/* lab ab: is B slower than A? Interleaved boots, one verdict per metric. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ab.h"
#include "boot.h"
#include "host.h"
#include "patch.h"
#include "refbuild.h"
#include "commands.h"
#include "log.h"
#include "options.h"
#include "store-experiment.h"
#include "strbuf.h"

static const char ab_usage[] =
"usage: lab ab --a-kernel IMG --b-kernel IMG --workload W [options]\n"
"       lab ab --a REF --b REF --workload W [options]\n"
"       lab ab --a REF --patch FILE|URL --workload W [options]\n"
"\n"
"  --a REF, --b REF    git refs to build (or find in the cache) as A and B\n"
"  --patch FILE|URL    B is A plus this patch series (mbox), applied as commits\n"
"  --repo PATH         kernel repository (default core.repo)\n"
"  --arch A            x86_64 or aarch64 for builds (default: this host)\n"
"  --a-config FILE     config fragment for A only (repeatable); --b-config for B\n"
"  --a-apply FILE      patch applied to A's tree for the build, never committed\n"
"                      (repeatable); --b-apply for B\n"
"  --probe NAME        probe patch from kernels/probes/<arch>/ (or a file) on both\n"
"                      sides: times a function before ftrace exists (repeatable)\n"
"  --kernel IMG        kernel for both variants (then they differ in command line)\n"
"  --a-kernel IMG      kernel of A (the base)\n"
"  --b-kernel IMG      kernel of B\n"
"  --cmdline STR       command line for both variants\n"
"  --a-cmdline STR     extra command line of A\n"
"  --b-cmdline STR     extra command line of B\n"
"  --workload W        zeroing, demote, boot (repeatable, or W1,W2)\n"
"  --mem LIST          memory sizes: 4G or 4G,16G,64G (a sweep)\n"
"  --cpus LIST         CPU counts: 1 or 1,2,4 (a sweep)\n"
"  --numa N            N NUMA nodes sharing each guest's memory and CPUs\n"
"  --boots N           N boots per variant and point (default: adaptive)\n"
"  --max-boots N       adaptive: most boots per variant and point (default 20)\n"
"  --iters N           iterations per workload in a boot\n"
"  --param K=V         guest parameter lab.K=V for both (repeatable)\n"
"  --alpha A           false-positive rate (default 0.05)\n"
"  --delta D           smallest change that matters: 2% or 0.02 (default 2%)\n"
"  --format F          text, csv or json (default text)\n"
"  --force             compare even when runs differ in provenance\n"
"  --resume EXP        continue experiment EXP (same options as when it started)\n"
"  --target NAME       boot on lab.conf's [target \"NAME\"]\n"
"  --targets CLASS     share the boots among the targets of CLASS, each running its\n"
"                      own ABBA order, boots on different targets at the same time\n"
"  --runner, --accel, --clock, --timeout, --guest, --db, --config   as for 'lab run'\n"
"\n"
"exit status: 0 no regression found, 1 regression, 2 error\n";

static int parse_fraction(const char *s, double *out, int percent_ok)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s)
		return -1;
	if (percent_ok && *end == '%') {
		v /= 100;
		end++;
	}
	if (*end || !(v > 0) || v >= 1)
		return -1;
	*out = v;
	return 0;
}

/*
 * Build A and B from git: refs, or A plus a patch series applied as
 * commits. Either failing to build ends the experiment before any boot.
 */
static int build_variants(char *image[2], struct kernel_tree *t, struct lab_context *ctx,
			  const char *repo, const char *arch, const char *const ref[2],
			  const char *patch, const struct strvec frags[2],
			  const struct strvec apply[2], const struct strvec *probes)
{
	struct strbuf mbox = STRBUF_INIT;
	struct strvec patches[2] = { STRVEC_INIT, STRVEC_INIT };
	git_oid commit[2];
	long long kernel_id;
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
	for (int s = 0; s < 2; s++) {
		struct build_spec spec = { arch, &frags[s], &patches[s] };
		enum refbuild_outcome r;

		if (s && patch) {
			if (patch_apply_series(&commit[1], t->repo, &commit[0], mbox.buf, mbox.len,
					       patch))
				goto out;
			r = refbuild_commit(&image[s], &kernel_id, ctx, t, &commit[1], &spec);
		} else {
			r = refbuild(&image[s], &commit[s], &kernel_id, ctx, t, ref[s], &spec);
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

/*
 * One word as a POSIX shell reads it back: bare when it holds only
 * characters no shell treats specially, else in single quotes, where
 * nothing is special but the quote itself, written '\''.
 */
static void add_shell_word(struct strbuf *sb, const char *w)
{
	static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789_@%+=:,./-";

	if (*w && w[strspn(w, safe)] == '\0') {
		strbuf_addstr(sb, w);
		return;
	}
	strbuf_addch(sb, '\'');
	for (; *w; w++) {
		if (*w == '\'')
			strbuf_addstr(sb, "'\\''");
		else
			strbuf_addch(sb, *w);
	}
	strbuf_addch(sb, '\'');
}

void ab_command_line(struct strbuf *sb, int argc, char **argv)
{
	strbuf_addstr(sb, "lab");
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--resume")) {
			i++;
			continue;
		}
		if (!strncmp(argv[i], "--resume=", 9))
			continue;
		strbuf_addch(sb, ' ');
		add_shell_word(sb, argv[i]);
	}
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

int ab_command(long long *exp_id, int argc, char **argv)
{
	enum { O_KERNEL = 256, O_A_KERNEL, O_B_KERNEL, O_CMDLINE, O_A_CMDLINE, O_B_CMDLINE,
	       O_WORKLOAD, O_MEM, O_CPUS, O_BOOTS, O_MAX_BOOTS, O_ITERS, O_PARAM, O_ALPHA,
	       O_DELTA, O_FORMAT, O_FORCE, O_RESUME, O_RUNNER, O_ACCEL, O_CLOCK, O_TIMEOUT, O_GUEST,
	       O_DB, O_CONFIG, O_A, O_B, O_PATCH, O_REPO, O_ARCH, O_A_CONFIG, O_B_CONFIG,
	       O_A_APPLY, O_B_APPLY, O_PROBE, O_NUMA, O_TARGET, O_TARGETS };
	static const struct option longopts[] = {
		{ "kernel", required_argument, NULL, O_KERNEL },
		{ "a-kernel", required_argument, NULL, O_A_KERNEL },
		{ "b-kernel", required_argument, NULL, O_B_KERNEL },
		{ "cmdline", required_argument, NULL, O_CMDLINE },
		{ "a-cmdline", required_argument, NULL, O_A_CMDLINE },
		{ "b-cmdline", required_argument, NULL, O_B_CMDLINE },
		{ "workload", required_argument, NULL, O_WORKLOAD },
		{ "mem", required_argument, NULL, O_MEM },
		{ "cpus", required_argument, NULL, O_CPUS },
		{ "boots", required_argument, NULL, O_BOOTS },
		{ "max-boots", required_argument, NULL, O_MAX_BOOTS },
		{ "iters", required_argument, NULL, O_ITERS },
		{ "param", required_argument, NULL, O_PARAM },
		{ "alpha", required_argument, NULL, O_ALPHA },
		{ "delta", required_argument, NULL, O_DELTA },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "force", no_argument, NULL, O_FORCE },
		{ "resume", required_argument, NULL, O_RESUME },
		{ "runner", required_argument, NULL, O_RUNNER },
		{ "accel", required_argument, NULL, O_ACCEL },
		{ "clock", required_argument, NULL, O_CLOCK },
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "guest", required_argument, NULL, O_GUEST },
		{ "db", required_argument, NULL, O_DB },
		{ "config", required_argument, NULL, O_CONFIG },
		{ "a", required_argument, NULL, O_A },
		{ "b", required_argument, NULL, O_B },
		{ "patch", required_argument, NULL, O_PATCH },
		{ "repo", required_argument, NULL, O_REPO },
		{ "arch", required_argument, NULL, O_ARCH },
		{ "a-config", required_argument, NULL, O_A_CONFIG },
		{ "b-config", required_argument, NULL, O_B_CONFIG },
		{ "a-apply", required_argument, NULL, O_A_APPLY },
		{ "b-apply", required_argument, NULL, O_B_APPLY },
		{ "probe", required_argument, NULL, O_PROBE },
		{ "numa", required_argument, NULL, O_NUMA },
		{ "target", required_argument, NULL, O_TARGET }, { "targets", required_argument, NULL, O_TARGETS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct strvec workloads = STRVEC_INIT, params = STRVEC_INIT;
	struct strbuf command = STRBUF_INIT, cmd_a = STRBUF_INIT, cmd_b = STRBUF_INIT;
	struct ab_opts o;
	struct lab_context ctx;
	const char *kernel = NULL, *cmdline = NULL, *a_cmdline = NULL, *b_cmdline = NULL;
	const char *db = NULL, *config = NULL, *ref[2] = { NULL, NULL }, *patch = NULL;
	const char *repo = NULL, *arch = NULL;
	struct strvec frags[2] = { STRVEC_INIT, STRVEC_INIT };
	struct strvec apply[2] = { STRVEC_INIT, STRVEC_INIT }, probes = STRVEC_INIT;
	char *image[2] = { NULL, NULL };
	struct kernel_tree tree;
	enum ab_format fmt = AB_TEXT;
	long *mems = NULL, *cpus = NULL, resume = 0;
	size_t nmems = 0, ncpus = 0;
	int c, ret = 2;

	memset(&o, 0, sizeof(o));
	memset(&ctx, 0, sizeof(ctx));
	memset(&tree, 0, sizeof(tree));
	o.alpha = 0.05;
	o.delta = 0.02;
	o.max_boots = 20;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		int bad = 0;
		switch (c) {
		case O_KERNEL: kernel = optarg; break;
		case O_A_KERNEL: o.v[0].kernel = optarg; break;
		case O_B_KERNEL: o.v[1].kernel = optarg; break;
		case O_CMDLINE: cmdline = optarg; break;
		case O_A_CMDLINE: a_cmdline = optarg; break;
		case O_B_CMDLINE: b_cmdline = optarg; break;
		case O_WORKLOAD:
			if (workloads_parse(&workloads, optarg))
				goto out;
			break;
		case O_MEM: bad = parse_list(&mems, &nmems, optarg, parse_size_mib); break;
		case O_CPUS: bad = parse_list(&cpus, &ncpus, optarg, parse_cpus); break;
		case O_BOOTS: bad = parse_positive_int(optarg, &o.boots); break;
		case O_MAX_BOOTS: bad = parse_positive_int(optarg, &o.max_boots); break;
		case O_ITERS: case O_RUNNER: case O_ACCEL: case O_CLOCK: case O_TIMEOUT: case O_GUEST:
		case O_PARAM: case O_NUMA: case O_TARGET: case O_TARGETS:
			bad = boot_opts_set(&o.boot, &params, longopts[c - O_KERNEL].name, optarg) < 0;
			break;
		case O_ALPHA: bad = parse_fraction(optarg, &o.alpha, 0); break;
		case O_DELTA: bad = parse_fraction(optarg, &o.delta, 1); break;
		case O_FORMAT: bad = ab_format_parse(&fmt, optarg); break;
		case O_FORCE: o.force = 1; break;
		case O_RESUME:
			if (optarg[0] == 'E')
				optarg++;
			bad = parse_positive_int(optarg, &resume);
			break;
		case O_DB: db = optarg; break;
		case O_CONFIG: config = optarg; break;
		case O_A: ref[0] = optarg; break;
		case O_B: ref[1] = optarg; break;
		case O_PATCH: patch = optarg; break;
		case O_REPO: repo = optarg; break;
		case O_ARCH:
			bad = strcmp(optarg, "x86_64") && strcmp(optarg, "aarch64");
			arch = optarg;
			break;
		case O_A_CONFIG: strvec_push(&frags[0], optarg); break;
		case O_B_CONFIG: strvec_push(&frags[1], optarg); break;
		case O_A_APPLY: strvec_push(&apply[0], optarg); break;
		case O_B_APPLY: strvec_push(&apply[1], optarg); break;
		case O_PROBE: strvec_push(&probes, optarg); break;
		case 'h':
			fputs(ab_usage, stdout);
			ret = 0;
			goto out;
		default:
			option_error("lab ab", "h", longopts, argv);
			goto out;
		}
		if (bad) {
			error("bad value '%s' for --%s (see 'lab ab --help')", optarg,
			      longopts[c - O_KERNEL].name);
			goto out;
		}
	}
	if (optind < argc) {
		error("unexpected argument '%s' for 'lab ab'", argv[optind]);
		goto out;
	}
	if (!workloads.nr) {
		error("no workload given (--workload %s)", WORKLOAD_NAMES);
		goto out;
	}
	if (check_one_kernel_each(kernel, (const char *const[]){ o.v[0].kernel, o.v[1].kernel },
				  ref, patch))
		goto out;
	for (int s = 0; s < 2; s++) {
		struct strbuf *sb = s ? &cmd_b : &cmd_a;
		const char *own = s ? b_cmdline : a_cmdline;
		if (!o.v[s].kernel)
			o.v[s].kernel = kernel;
		if (cmdline)
			strbuf_addstr(sb, cmdline);
		if (own)
			strbuf_addf(sb, "%s%s", sb->len ? " " : "", own);
		o.v[s].cmdline = sb->buf;
	}
	if (context_load_config(&ctx, config, db))
		goto out;
	if (ref[0] || ref[1] || patch) {
		if (!ref[0] || (!ref[1] && !patch)) {
			error("building from git needs --a REF and either --b REF or --patch");
			goto out;
		}
		if (ref[1] && patch) {
			error("--b and --patch both name B: give one");
			goto out;
		}
		if (build_variants(image, &tree, &ctx, repo, arch, ref, patch, frags, apply,
				   &probes))
			goto out;
		for (int s = 0; s < 2; s++) {
			o.v[s].kernel = image[s];
			o.v[s].git_ref = s && patch ? patch : ref[s];
		}
	} else if (frags[0].nr || frags[1].nr || apply[0].nr || apply[1].nr || probes.nr) {
		error("--a-config, --a-apply and --probe need kernels built from git (--a, --b)");
		goto out;
	}
	if (!mems) {
		mems = malloc(sizeof(*mems));
		if (!mems)
			goto out;
		mems[0] = ctx.cfg.mem_mib;
		nmems = 1;
	}
	if (!cpus) {
		cpus = malloc(sizeof(*cpus));
		if (!cpus)
			goto out;
		cpus[0] = ctx.cfg.cpus;
		ncpus = 1;
	}
	ab_command_line(&command, argc, argv);
	o.boot.workloads = &workloads;
	o.boot.params = &params;
	o.mems = mems;
	o.nmems = nmems;
	o.cpus = cpus;
	o.ncpus = ncpus;
	o.resume = resume;
	o.command = command.buf;

	ret = (int)ab_run(exp_id, &ctx, &o);
	if (ret != AB_ERROR && ab_report(stdout, &ctx.st, *exp_id, fmt))
		ret = AB_ERROR;
	if (*exp_id && !resume && ret == AB_ERROR && ctx.st.db) {
		int exists = 0;
		/* a rolled-back experiment (a full disk) cannot be resumed */
		if (!store_experiment_exists(&ctx.st, *exp_id, &exists) && exists)
			fprintf(stderr, "experiment E%lld: continue with the same command and --resume E%lld\n",
				*exp_id, *exp_id);
	}
out:
	kernel_tree_close(&tree);
	context_release(&ctx);
	free(image[0]);
	free(image[1]);
	strvec_release(&frags[0]);
	strvec_release(&frags[1]);
	strvec_release(&apply[0]);
	strvec_release(&apply[1]);
	strvec_release(&probes);
	free(mems);
	free(cpus);
	strvec_release(&workloads);
	strvec_release(&params);
	strbuf_release(&command);
	strbuf_release(&cmd_a);
	strbuf_release(&cmd_b);
	return ret;
}

int cmd_ab(int argc, char **argv)
{
	long long exp_id = 0;

	return ab_command(&exp_id, argc, argv);
}
