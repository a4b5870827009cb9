/*
 * lab bisect and lab bisect-step: their options, and what they print. The
 * bisection itself is the driver's (lab/plans/bisect-run.c).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab-report.h"
#include "ab-spec.h"
#include "bisect-run.h"
#include "commands.h"
#include "escape.h"
#include "explain.h"
#include "log.h"
#include "options.h"
#include "refbuild.h"
#include "say.h"
#include "store-bisect.h"
#include "store-experiment.h"
#include "store-profile.h"
#include "tempfile.h"
#include "textfmt.h"

/* the lines above the options of 'lab bisect --help' */
static const char bisect_usage[] =
"usage: lab bisect --good REF --bad REF --workload W [--metric M] [options]\n"
"       lab bisect --resume ID\n"
"       lab bisect --status [ID]\n"
"\n"
"exit status: 0 culprit found and confirmed, 1 none found (or no regression),\n"
"             2 error or stopped, 3 culprit found but its own check stays unclear\n";

static const char bisect_step_usage[] =
"usage: lab bisect-step --good REF --bad REF --workload W [--metric M] [options]\n"
"\n"
"  For 'git bisect run': measures HEAD of the repository (--repo, default .)\n"
"  against the good and bad ends, measured once and kept in the database.\n"
"  Its options are those of 'lab bisect', below. Each step is stored with the\n"
"  bisection: 'lab bisect --status' shows them, and the culprit once git's\n"
"  marks leave one first bad commit.\n"
"\n"
"exit status: 0 good, 1 bad, 125 skip (does not build or boot, or unclear),\n"
"             128 stop (an error: git bisect run stops)\n";

/* What the options give the spec's boots. */
struct bisector {
	struct boot_opts bo;
	struct workload_list workloads;
	struct strvec params, args, fragments;
};

/* Which clock the ratios below are in. */
static int print_clock(struct store *st, long long id)
{
	struct strbuf words = STRBUF_INIT;
	int ret = store_experiment_clock_words(st, &words, id);

	if (!ret)
		printf("  clock: %s\n", words.buf);
	strbuf_release(&words);
	return ret;
}

/* The functions a bisection's explanation shows. */
#define BISECT_EXPLAIN_TOP 5

/* A number stored as NULL reads as 0 here, as it always has. */
static double or0(double v)
{
	return isnan(v) ? 0 : v;
}

/* What print_status() reads of a bisection: its id, and its culprit once found. */
struct status_read {
	long long id;
	char culprit[GIT_OID_HEXSZ + 1];
};

static int print_bisection(const struct bisection_status *b, void *data)
{
	struct status_read *sr = data;
	long long id = sr->id;

	printf("bisection E%lld: %s\n  good %s\n  bad  %s\n  workload %s, metric %s (%s)\n", id,
	       b->outcome, term_safe(b->good), term_safe(b->bad), term_safe(b->workload),
	       term_safe(b->metric),
	       b->per_boot ? "per-boot medians" : "samples");
	if (!isnan(b->effect)) {
		char ci[32] = "CI, level not recorded";

		if (!isnan(b->effect_alpha))
			stats_ci_label(ci, sizeof(ci), b->effect_alpha);
		char change[64];

		textfmt_change(change, sizeof(change), b->effect, or0(b->effect_lo),
			       or0(b->effect_hi));
		printf("  effect good -> bad: %s (%s)\n", change, ci);
	}
	printf("  culprit %s\n  %d boots, %d kernels built or found\n", b->culprit, b->boots,
	       b->kernels);
	if (b->culprit && strlen(b->culprit) == GIT_OID_HEXSZ)
		memcpy(sr->culprit, b->culprit, sizeof(sr->culprit));
	return 0;
}

static int print_step(const struct bisect_step_row *s, void *data)
{
	char change[64];

	(void)data;
	/* as the step's own line wrote it: "+0.3 % [+0.1, +0.5]", "455× [449×, 460×]" */
	if (isfinite(s->ratio)) {
		textfmt_change(change, sizeof(change), s->ratio, or0(s->ci_low), or0(s->ci_high));
		printf("  %4d  %-12s  %-5s  %5d  %s\n", (int)s->seq, s->commit, s->mark, (int)s->n,
		       change);
	} else
		printf("  %4d  %-12s  %-5s  %5d  -\n", (int)s->seq, s->commit, s->mark, (int)s->n);
	return 0;
}

static int print_status(struct store *st, long long id)
{
	struct status_read sr = { .id = id };
	struct strbuf report = STRBUF_INIT;
	int ret;

	if (store_bisection_read(st, id, print_bisection, &sr) || print_clock(st, id))
		return -1;
	printf("  %4s  %-12s  %-5s  %5s  %s\n", "step", "commit", "mark", "boots", "M/G [99% CI]");
	if (store_bisect_steps(st, id, print_step, NULL))
		return -1;
	if (sr.culprit[0] && ab_report_culprit_events(&report, st, id, sr.culprit))
		ret = -1;
	else
		ret = explain_report_all(&report, st, id, BISECT_EXPLAIN_TOP);
	strbuf_fwrite(&report, stdout);
	strbuf_release(&report);
	return ret;
}

struct bisect_args {
	const char *cmd, *usage;	/* "lab bisect" or "lab bisect-step" */
	const char *good, *bad, *metric, *repo, *arch, *db, *config;
	long long resume, status, max_boots;
	double delta;			/* 0: the default band */
	int want_status;
};

static int is_bisection_id(const char *s)
{
	s += *s == 'E';
	return *s && strspn(s, "0123456789") == strlen(s);
}

/* --resume ID, --status [ID]: a bisection's id, E7 or 7 */
static int opt_bisection(const struct parse_option *opt, const char *arg)
{
	struct bisect_args *a = opt->value;
	long v = 0;

	if (arg && parse_positive_int(arg + (arg[0] == 'E'), &v))
		return PARSE_OPT_BAD;
	if (!strcmp(opt->long_name, "status")) {
		a->want_status = 1;
		a->status = v;
	} else {
		a->resume = v;
	}
	return 0;
}

/* A fragment is stored with the bisection: by a path that a resume from elsewhere finds. */
static int absolute_paths(struct strvec *paths)
{
	struct strvec abs = STRVEC_INIT;

	for (size_t i = 0; i < paths->nr; i++) {
		char *p = realpath(paths->v[i], NULL);

		if (!p) {
			error("cannot read config fragment '%s': %s", paths->v[i], strerror(errno));
			strvec_release(&abs);
			return -1;
		}
		strvec_push(&abs, p);
		free(p);
	}
	strvec_release(paths);
	*paths = abs;
	return 0;
}

/* Options shared by a new bisection and the stored copy a resume re-reads. */
static int parse_args(struct bisect_args *a, struct bisector *bs, struct strbuf *stored,
		      int argc, char **argv)
{
	const char *const usage[] = { a->usage, parse_options_here, NULL };
	long max_boots = 0;
	const struct parse_option options[] = {
		OPT_STRING(0, "good", &a->good, "REF, --bad REF",
			   "the ends: B must be measurably worse than G"),
		{ .type = OPTION_STRING, .long_name = "bad", .value = &a->bad, .argh = "REF",
		  .flags = PARSE_OPT_HIDDEN },
		OPT_CALLBACK(0, "workload", &bs->workloads, "W",
			     "zeroing, demote, boot, exec:PATH, stress-ng:STRESSOR or a\n"
			     "[workload] section's name", boot_opt_workloads),
		OPT_STRVEC(0, "arg", &bs->args, "ARG",
			   "argument of the exec: or stress-ng: workload (repeatable)"),
		OPT_STRING(0, "metric", &a->metric, "M",
			   "default: the largest significant regression G->B"),
		OPT_CALLBACK(0, "delta", &a->delta, "D",
			     "smallest change that matters: 0.5% or 0.005 (default 2%,\n"
			     "0.1% in virtual time)", ab_opt_delta),
		OPT_STRING(0, "repo", &a->repo, "PATH", "kernel repository (default core.repo)"),
		OPT_CALLBACK(0, "arch", &a->arch, "A", "x86_64 or aarch64 (default: this host)",
			     boot_opt_arch),
		OPT_STRVEC(0, "fragment", &bs->fragments, "FILE",
			   "config fragment every commit is built with (repeatable)"),
		OPT_INT(0, "max-boots", &max_boots, 1, INT_MAX, "N",
			"stop (resumable) after N boots in all (default: from the\n"
			"number of commits); with --resume, raises the budget"),
		BOOT_GUEST_OPTIONS(&bs->bo),
		BOOT_OPTIONS(&bs->bo, &bs->params),
		{ .type = OPTION_CALLBACK, .long_name = "resume", .value = a, .argh = "ID",
		  .help = "continue bisection ID with the options it started with",
		  .cb = opt_bisection, .flags = PARSE_OPT_NORECORD },
		{ .type = OPTION_CALLBACK, .long_name = "status", .value = a, .argh = "ID",
		  .help = "a bisection's steps so far (default: the newest)", .cb = opt_bisection,
		  .flags = PARSE_OPT_OPTARG | PARSE_OPT_NORECORD, .next_word = is_bisection_id },
		CONTEXT_OPTIONS(&a->db, &a->config),
		OPT_END(),
	};
	struct option_parser parser = { a->cmd, usage, options, stored };

	if (parse_command_options(&parser, argc, argv, 0) < 0)
		return -1;
	if (max_boots)
		a->max_boots = max_boots;
	return absolute_paths(&bs->fragments);
}

static void spec_from_args(struct bisect_spec *spec, struct bisector *bs,
			   const struct bisect_args *a, const char *command)
{
	bs->bo.workloads = &bs->workloads;
	bs->bo.params = &bs->params;
	spec->good = a->good;
	spec->bad = a->bad;
	spec->repo = a->repo;
	spec->arch = a->arch;
	spec->fragments = &bs->fragments;
	spec->metric = a->metric;
	spec->boot = bs->bo;
	spec->max_boots = a->max_boots;
	spec->delta = a->delta;
	spec->resume = a->resume;
	spec->command = command;
}

static void bisector_release(struct bisector *bs)
{
	workload_list_release(&bs->workloads);
	strvec_release(&bs->params);
	strvec_release(&bs->args);
	strvec_release(&bs->fragments);
}

/* A [workload] section's name into the spec it stands for: stored so, a resume needs no lab.conf. */
static int resolve(struct bisector *bs, const struct lab_context *ctx)
{
	return workloads_resolve(&bs->workloads, &bs->args, NULL, 0, ctx->cfg.workloads,
				 ctx->cfg.nworkloads);
}

/*
 * A resume measures as the bisection started (its stored spec): an option
 * that would change that is refused rather than ignored. Only the budget
 * may be raised.
 */
static int resume_alone(const struct bisect_args *a, const struct strbuf *given)
{
	const char *line = strbuf_str(given);

	if (!a->resume)
		return 0;
	for (; *line; line += strcspn(line, "\n") + (line[strcspn(line, "\n")] == '\n')) {
		size_t len = strcspn(line, "=\n");

		if (len != strlen("--max-boots") || strncmp(line, "--max-boots", len))
			return error("%.*s cannot be given with --resume: bisection E%lld goes on with "
				     "the options it started with ('lab bisect --status %lld')",
				     (int)len, line, a->resume, a->resume);
	}
	return 0;
}

/*
 * The culprit's effect against good -> bad's: z, the difference in their
 * spread; but boots that repeat without spread (virtual time, a guest
 * without noise) give no z to weigh by (0, or infinite for the smallest
 * difference): then whether the two are the same, as the confirmation
 * decided it.
 */
static void print_against(const struct bisect_confirmation *conf)
{
	int spread = conf->ratio.lo < conf->ratio.hi || conf->effect.lo < conf->effect.hi;

	if (isfinite(conf->z) && spread)
		printf("  z %.2f against good -> bad\n", conf->z);
	else
		printf("  %sthe same as good -> bad (the boots repeat without spread)\n",
		       conf->more_than_one ? "not " : "");
}

static void print_outcome(const struct bisect_outcome *o)
{
	const struct bisect_confirmation *conf = o->confirmed ? &o->confirmation : NULL;
	char ci[32], change[64], effect[32];

	stats_ci_label(ci, sizeof(ci), o->effect_alpha);
	textfmt_change(change, sizeof(change), o->effect.estimate, o->effect.lo, o->effect.hi);
	switch (o->verdict) {
	case BISECT_FAILED:
		return;
	case BISECT_INCONCLUSIVE:
		printf("could not tell whether bad is worse than good after %zu boots a side; "
		       "nothing to bisect\n  %s: %s (%s)\n", o->effect_boots, term_safe(o->metric),
		       change, ci);
		return;
	case BISECT_NO_REGRESSION:
		printf("no regression beyond the %g %% band between good and bad (--delta sets the "
		       "band); nothing to bisect\n  %s: %s (%s)\n", 100 * o->delta,
		       term_safe(o->metric), change, ci);
		return;
	case BISECT_CANDIDATES:
		printf("could not tell which of these %zu commits is the first bad one:\n",
		       o->candidates.nr);
		for (size_t i = 0; i < o->candidates.nr; i++)
			printf("  %s\n", term_safe(o->candidates.v[i]));
		return;
	case BISECT_FOUND:
	case BISECT_UNCLEAR:
		break;
	}
	printf("culprit: %s\n", o->culprit);
	if (o->subject.len)
		printf("  subject: %s\n  author: %s\n", term_safe(o->subject.buf),
		       term_safe(o->author.buf));
	/* the boots include the confirmation's, made before this is printed */
	printf("  good -> bad %s: %s (%s), %zu steps, %zu builds, %zu boots\n",
	       term_safe(o->metric), change, ci, o->steps, o->builds, o->boots);
	if (!conf)
		return;
	textfmt_change(change, sizeof(change), conf->ratio.estimate, conf->ratio.lo,
		       conf->ratio.hi);
	textfmt_ratio(effect, sizeof(effect), o->effect.estimate);
	printf("confirmation, culprit^ vs culprit (%zu/%zu boots%s): %s (99%% CI),\n",
	       conf->n_parent, conf->n_culprit, conf->rounds > 1 ? ", re-tested" : "", change);
	print_against(conf);
	if (!conf->more_than_one) {
		printf("  the culprit explains the whole good -> bad effect (%s)\n", effect);
	} else {
		struct strbuf sb = STRBUF_INIT;

		strbuf_addf(&sb, "UNCLEAR: the culprit does not explain the whole effect (%s), even "
			    "with %zu boots each: a wrong culprit, or more than one commit "
			    "contributes", effect, conf->n_culprit);
		textfmt_wrap(stdout, "  ", "  ", sb.buf);
		strbuf_release(&sb);
	}
}

/* The command that goes on with a bisection in this database and configuration, but its id. */
static void resume_prefix(struct strbuf *sb, const struct bisect_args *a)
{
	strbuf_addstr(sb, "lab bisect");
	if (a->config) {
		strbuf_addstr(sb, " --config ");
		escape_shell(sb, a->config);
	}
	if (a->db) {
		strbuf_addstr(sb, " --db ");
		escape_shell(sb, a->db);
	}
	strbuf_addstr(sb, " --resume");
}

/* The command that goes on with bisection id. */
static void resume_command(struct strbuf *sb, const struct bisect_args *a, long long id)
{
	resume_prefix(sb, a);
	strbuf_addf(sb, " E%lld", id);
}

/* Stopped by a signal (fatal_signal_defer()): say how the bisection goes on, and die of it. */
__attribute__((noreturn))
static void interrupted(struct lab_context *ctx, struct bisector *bs,
			const struct bisect_args *a, long long id)
{
	struct strbuf resume = STRBUF_INIT;

	/* stopped before its bisection was stored, there is nothing to resume */
	if (id) {
		resume_command(&resume, a, id);
		say_interrupted(resume.buf, "bisection E%lld", id);
	}
	strbuf_release(&resume);
	bisector_release(bs);
	context_release(ctx);
	fatal_signal_die();
}

/* Stopped for a reason said above (a budget, a failure): the command that goes on. */
static void stopped(const struct bisect_args *a, long long id)
{
	struct strbuf lead = STRBUF_INIT, resume = STRBUF_INIT;

	strbuf_addf(&lead, "bisection E%lld stopped; continue it with: ", id);
	resume_command(&resume, a, id);
	say_command(lead.buf, resume.buf);
	strbuf_release_all(&lead, &resume);
}

/* The ends and the workload a new bisection needs: refused, naming what is missing. */
static int check_ends(const struct bisect_args *a, const struct bisector *bs)
{
	struct strbuf missing = STRBUF_INIT;

	if (!a->good)
		strbuf_addstr(&missing, "--good REF");
	if (!a->bad)
		strbuf_addf(&missing, "%s--bad REF", missing.len ? ", " : "");
	if (!bs->workloads.specs.nr)
		strbuf_addf(&missing, "%s--workload W", missing.len ? ", " : "");
	if (missing.len)
		error("'%s' needs --good REF, --bad REF and --workload W; missing: %s", a->cmd,
		      missing.buf);
	strbuf_release(&missing);
	return !a->good || !a->bad || !bs->workloads.specs.nr ? -1 : 0;
}

/* What both commands start from: nothing parsed, no context, the command as given. */
static void start(struct bisect_args *a, struct bisector *bs, struct lab_context *ctx,
		  struct strbuf *command, int argc, char **argv)
{
	memset(a, 0, sizeof(*a));
	memset(bs, 0, sizeof(*bs));
	memset(ctx, 0, sizeof(*ctx));
	/* recorded as given: parsing reorders argv */
	strbuf_addstr(command, "lab ");
	escape_shell_words(command, argc, argv);
}

int cmd_bisect(int argc, char **argv)
{
	struct bisect_spec spec = BISECT_SPEC_INIT;
	struct bisect_outcome o;
	struct bisect_args a;
	struct bisector bs;
	struct lab_context ctx;
	struct strbuf command = STRBUF_INIT, given = STRBUF_INIT, resume = STRBUF_INIT;
	long long id = 0;
	int ret = 2;

	start(&a, &bs, &ctx, &command, argc, argv);
	bisect_outcome_init(&o);
	a.cmd = "lab bisect";
	a.usage = bisect_usage;
	/* a resume takes what was stored, its budget aside */
	if (parse_args(&a, &bs, &given, argc, argv) || resume_alone(&a, &given) ||
	    context_load_config(&ctx, a.config, a.db) || resolve(&bs, &ctx) ||
	    (!a.resume && !a.want_status && check_ends(&a, &bs)) || context_open_store(&ctx))
		goto out;
	if (a.want_status) {
		id = a.status;
		if ((!id && store_bisection_latest(&ctx.st, &id)) || print_status(&ctx.st, id))
			goto out;
		ret = 0;
		goto out;
	}
	spec_from_args(&spec, &bs, &a, command.buf);
	resume_prefix(&resume, &a);
	spec.resume_command = resume.buf;
	bisect_outcome_release(&o);
	/* Ctrl-C between boots: the bisection is marked, and says how it goes on */
	fatal_signal_defer(1);
	if (bisect_run(&ctx, &spec, &id, &o)) {
		/* not stored INTERRUPTED, it stopped on the store's failure: 2, as any other */
		if (fatal_signal_pending() && !o.unmarked)
			interrupted(&ctx, &bs, &a, id);
		goto out;
	}
	if (o.verdict == BISECT_NO_REGRESSION && !o.metric[0]) {
		printf("no metric regressed beyond the %g %% band from good to bad (--delta sets it): "
		       "nothing to bisect\n", 100 * o.delta);
		ret = 1;
		goto out;
	}
	print_outcome(&o);
	printf("\n");
	if (print_status(&ctx.st, id))
		goto out;
	/* Ctrl-C while the culprit was explained: the outcome is stored and said, then die of it */
	if (fatal_signal_pending())
		interrupted(&ctx, &bs, &a, 0);
	ret = o.verdict == BISECT_UNCLEAR ? 3 : o.verdict == BISECT_FOUND ? 0 : 1;
out:
	/* a bisection another lab runs is not this one's to offer */
	if (ret == 2 && id && o.verdict == BISECT_FAILED)
		say("bisection E%lld ended FAILED: no resume can finish it ('lab bisect --status %lld')",
		    id, id);
	else if (ret == 2 && id && !a.want_status)
		stopped(&a, id);
	bisect_outcome_release(&o);
	bisector_release(&bs);
	context_release(&ctx);
	strbuf_release_all(&command, &given, &resume);
	return ret;
}

/*
 * lab bisect-step: for `git bisect run`. Measures HEAD of the repository it
 * runs in against good and bad ends measured once and kept in the
 * database; exits 0 good, 1 bad, 125 skip (git bisect's codes).
 */
int cmd_bisect_step(int argc, char **argv)
{
	struct bisect_spec spec = BISECT_SPEC_INIT;
	struct bisect_step_outcome o;
	struct bisect_args a;
	struct bisector bs;
	struct lab_context ctx;
	struct strbuf command = STRBUF_INIT;
	char change[64], effect[32];
	int ret = 128;

	start(&a, &bs, &ctx, &command, argc, argv);
	a.cmd = "lab bisect-step";
	a.usage = bisect_step_usage;
	/* git bisect run treats 128 and above as "stop bisecting" */
	if (parse_args(&a, &bs, NULL, argc, argv) ||
	    context_load_config(&ctx, a.config, a.db) || resolve(&bs, &ctx) ||
	    check_ends(&a, &bs) || context_open_store(&ctx))
		goto out;
	spec_from_args(&spec, &bs, &a, command.buf);
	if (!spec.repo)
		spec.repo = ".";
	if (bisect_run_step(&ctx, &spec, "HEAD", NULL, &o))
		goto out;
	textfmt_change(change, sizeof(change), o.ratio.estimate, o.ratio.lo, o.ratio.hi);
	textfmt_ratio(effect, sizeof(effect), o.effect.estimate);
	say("%s: %s (n %zu, M/G %s, 99%% CI; G->B %s)", o.commit, bisect_mark_name(o.mark), o.n,
	    change, effect);
	ret = o.mark == BISECT_GOOD ? 0 : o.mark == BISECT_BAD ? 1 : 125;
out:
	bisector_release(&bs);
	context_release(&ctx);
	strbuf_release(&command);
	return ret;
}
