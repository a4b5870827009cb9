/*
 * lab bisect: find the commit that made a metric worse, on its own.
 * The algorithm is lab/bisect.c; this is git, builds, boots and storage.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect.h"
#include "boot.h"
#include "commands.h"
#include "gitutil.h"
#include "host.h"
#include "log.h"
#include "options.h"
#include "refbuild.h"
#include "store-bisect.h"
#include "store-experiment.h"
#include "subprocess.h"
#include "units.h"
#include "xalloc.h"

static const char bisect_usage[] =
"usage: lab bisect --good REF --bad REF --workload W [--metric M] [options]\n"
"       lab bisect --resume ID\n"
"       lab bisect --status [ID]\n"
"\n"
"  --good REF, --bad REF   the ends: B must be measurably worse than G\n"
"  --workload W            zeroing, demote or boot\n"
"  --metric M              default: the largest significant regression G->B\n"
"  --repo PATH             kernel repository (default core.repo)\n"
"  --arch A                x86_64 or aarch64 (default: this host)\n"
"  --max-boots N           stop (resumable) after N boots in all (default: from the\n"
"                          number of commits); with --resume, raises the budget\n"
"  --iters, --mem, --cpus, --numa, --param, --runner, --accel, --clock, --timeout,\n"
"  --cmdline, --target     as for 'lab run'\n"
"  --targets CLASS         each commit's boots go to the targets of CLASS in turn\n"
"  --db PATH, --config FILE\n"
"\n"
"exit status: 0 culprit found and confirmed, 1 none found (or no regression),\n"
"             2 error or stopped, 3 culprit found but its own check stays unclear\n";

static const char bisect_step_usage[] =
"usage: lab bisect-step --good REF --bad REF --workload W [--metric M] [options]\n"
"\n"
"  For 'git bisect run': measures HEAD of the repository (--repo, default .)\n"
"  against the good and bad ends, measured once and kept in the database.\n"
"  Options as for 'lab bisect' (see 'lab bisect --help').\n"
"\n"
"exit status: 0 good, 1 bad, 125 skip (does not build or boot, or unclear),\n"
"             128 stop (an error: git bisect run stops)\n";

/* The culprit's parent, measured to confirm. */
#define BISECT_PARENT (-3)

struct who {
	git_oid commit;
	char name[16];
	long long variant_id;
	char *image;
	int build_failed, prepared, failures;
	/* one plan, or one per target of --targets, taken in turn boot by boot */
	struct boot_plan *plans;
	size_t nplans, turn;
};

struct bisector {
	struct lab_context *ctx;
	struct kernel_tree t;
	struct build_spec spec;
	struct boot_opts bo;
	struct strvec workloads, params;
	long long exp_id;
	char metric[64];
	int per_boot;
	struct who g, b, p, *cand;
	size_t ncand, builds, boots, seq;
	long long max_boots, boots_before;	/* the budget, and boots stored by earlier runs */
};

static struct who *who_of(struct bisector *bs, int who)
{
	if (who == BISECT_G)
		return &bs->g;
	if (who == BISECT_B)
		return &bs->b;
	if (who == BISECT_PARENT)
		return &bs->p;
	return &bs->cand[who];
}

static int variant_for(struct bisector *bs, struct who *w)
{
	char hex[GIT_OID_HEXSZ + 1];

	if (w->variant_id)
		return 0;
	git_oid_tostr(hex, sizeof(hex), &w->commit);
	return store_variant_record(&bs->ctx->st, &w->variant_id, bs->exp_id, w->name, hex);
}

/* Always per-boot medians: lab/bisect.c compares boots, with their spread pooled. */
static int op_boots(void *data, int who, double **v, size_t *n)
{
	struct bisector *bs = data;
	struct who *w = who_of(bs, who);
	struct unit_side side;

	*v = NULL;
	*n = 0;
	if (variant_for(bs, w) ||
	    units_side_load(&side, &bs->ctx->st, bs->exp_id, w->variant_id, -1, -1, bs->metric))
		return -1;
	for (size_t i = 0; i < side.n; i++)
		if (!strcmp(side.m[i].metric, bs->metric))
			*v = units_values(&side.m[i], 1, n);
	units_side_release(&side);
	return 0;
}


/*
 * A boot that went well but reported no sample of the metric would be
 * measured again and again: the good end's first such boot is an unknown
 * metric, the bad end's an error, a candidate's a failed boot.
 */
static int check_reported(struct bisector *bs, struct who *w, int who, long long run_id)
{
	struct strvec have = STRVEC_INIT;
	struct strbuf list = STRBUF_INIT;
	int ret = 0, found = 0;

	if (!bs->metric[0])
		return 0;
	if (store_run_metrics(&bs->ctx->st, &have, run_id))
		return -1;
	for (size_t i = 0; i < have.nr; i++) {
		found |= !strcmp(have.v[i], bs->metric);
		strbuf_addf(&list, "%s%s", i ? ", " : "", have.v[i]);
	}
	if (found)
		goto out;
	if (who == BISECT_G && bs->ctx->cfg.build_command)
		ret = error("unknown metric '%s' for workload '%s' (the good end reported: %s)",
			    bs->metric, bs->workloads.v[0], list.len ? list.buf : "nothing");
	else if (who == BISECT_G)
		/* a metric of the guest this kernel cannot give (no tracing, say) */
		ret = error("the good end (%s) reported no '%s' (it reported: %s); see 'lab show %lld'",
			    w->name, bs->metric, list.len ? list.buf : "nothing", run_id);
	else if (who == BISECT_B)
		ret = error("the bad end (%s) reported no '%s'; see 'lab show %lld'", w->name,
			    bs->metric, run_id);
	else if (++w->failures >= 3)
		ret = 1;
out:
	strvec_release(&have);
	strbuf_release(&list);
	return ret;
}

/*
 * A commit's plans: with --targets one per target of the class, used in
 * turn, so that every commit's boots spread over the same targets alike
 * and no target stands for one commit.
 */
static int prepare_plans(struct bisector *bs, struct who *w)
{
	struct boot_opts o = bs->bo;
	const struct lab_target **all = NULL;
	size_t n = 1;
	int ret = -1;

	o.kernel = w->image;
	o.experiment_id = bs->exp_id;
	o.variant_id = w->variant_id;
	if (o.targets && config_target_class(&bs->ctx->cfg, o.targets, &all, &n))
		return -1;
	w->plans = xrealloc(NULL, n * sizeof(*w->plans));
	w->prepared = 1;
	for (size_t i = 0; i < n; i++) {
		int rc;
		if (all) {
			o.target = all[i]->name;
			o.targets = NULL;
		}
		rc = boot_plan_prepare(&w->plans[i], bs->ctx, &o);
		/* released even when it failed half-way: it may hold an initramfs */
		w->nplans++;
		if (rc)
			goto out;
	}
	ret = 0;
out:
	free(all);
	return ret;
}

static int op_measure(void *data, int who)
{
	struct bisector *bs = data;
	struct who *w = who_of(bs, who);
	struct boot_plan *plan;
	struct run_result res;
	long long run_id, kernel_id;
	int end = who == BISECT_G || who == BISECT_B;

	if (variant_for(bs, w))
		return -1;
	/* before the build: a budget used up builds nothing more */
	if (bs->max_boots && bs->boots_before + (long long)bs->boots >= bs->max_boots)
		return error("boot budget of %lld boots used up (--max-boots)", bs->max_boots);
	if (!w->image && !w->build_failed) {
		switch (refbuild_commit(&w->image, &kernel_id, bs->ctx, &bs->t, &w->commit, &bs->spec)) {
		case REFBUILD_OK:
			bs->builds++;
			if (store_variant_kernel(&bs->ctx->st, w->variant_id, kernel_id))
				return -1;
			break;
		case REFBUILD_FAILED:
			w->build_failed = 1;
			break;
		default:
			return -1;
		}
	}
	if (w->build_failed) {
		if (end)
			return error("the %s end (%s) does not build", who == BISECT_G ? "good" : "bad",
				     w->name);
		return 1;
	}
	if (!w->prepared && prepare_plans(bs, w))
		return -1;
	plan = &w->plans[w->turn++ % w->nplans];
	if (boot_plan_run(plan, bs->ctx, &run_id, &res)) {
		run_result_release(&res);
		return -1;
	}
	bs->boots++;
	fprintf(stderr, "  boot %s: %s (run %lld, %.1f s)%s%s\n", w->name, run_status_name(res.status),
		run_id, res.wall_s, res.status == RUN_OK ? "" : ": ", res.status == RUN_OK ? "" :
		strbuf_str(&res.error));
	if (res.status != RUN_OK) {
		run_result_release(&res);
		if (++w->failures >= 3)
			return end ? error("the %s end failed to boot 3 times; see 'lab show %lld'",
					   who == BISECT_G ? "good" : "bad", run_id) : 1;
		return 0;
	}
	run_result_release(&res);
	return check_reported(bs, w, who, run_id);
}

static int op_decided(void *data, int who, enum bisect_mark mark, size_t n,
		      const struct stats_hl *hl)
{
	struct bisector *bs = data;
	struct who *w = who_of(bs, who);
	char hex[GIT_OID_HEXSZ + 1];
	char *desc = kernel_tree_describe(&bs->t, &w->commit);
	struct bisect_step_row step = { 0, hex, bisect_mark_name(mark), (long long)n, NAN, NAN,
					NAN };

	/* a skipped step was not measured: no ratio to show */
	if (isfinite(hl->estimate))
		fprintf(stderr, "step %zu: %s is %s (n %zu, M/G %.4f, 99%% CI [%.4f, %.4f])\n",
			bs->seq + 1, desc, bisect_mark_name(mark), n, hl->estimate, hl->lo, hl->hi);
	else
		fprintf(stderr, "step %zu: %s is %s (n %zu, no ratio)\n", bs->seq + 1, desc,
			bisect_mark_name(mark), n);
	free(desc);
	git_oid_tostr(hex, sizeof(hex), &w->commit);
	step.seq = (long long)++bs->seq;
	if (isfinite(hl->estimate)) {
		step.ratio = hl->estimate;
		step.ci_low = hl->lo;
		step.ci_high = hl->hi;
	}
	return store_bisect_step(&bs->ctx->st, bs->exp_id, &step);
}

/* The candidates: reachable from bad, not from good, parents before children. */
static int build_graph(struct bisect_graph *g, struct bisector *bs)
{
	git_revwalk *walk = NULL;
	git_oid oid, *ids = NULL;
	size_t n = 0, alloc = 0;
	int ret = -1;

	memset(g, 0, sizeof(*g));
	if (git_revwalk_new(&walk, bs->t.repo) ||
	    git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE) ||
	    git_revwalk_push(walk, &bs->b.commit) || git_revwalk_hide(walk, &bs->g.commit)) {
		lab_git_error("cannot walk the history between good and bad");
		goto out;
	}
	while (!git_revwalk_next(&oid, walk)) {
		if (n == alloc) {
			alloc = alloc ? 2 * alloc : 64;
			ids = realloc(ids, alloc * sizeof(*ids));
			if (!ids)
				goto out;
		}
		ids[n++] = oid;
	}
	if (!n || !git_oid_equal(&ids[n - 1], &bs->b.commit)) {
		error("bad (%s) is not a descendant of good (%s)", bs->b.name, bs->g.name);
		goto out;
	}
	g->n = n;
	g->nparents = calloc(n, sizeof(*g->nparents));
	g->parents = calloc(n, sizeof(*g->parents));
	bs->cand = calloc(n, sizeof(*bs->cand));
	if (!g->nparents || !g->parents || !bs->cand)
		goto out;
	bs->ncand = n;
	for (size_t i = 0; i < n; i++) {
		git_commit *c = NULL;
		bs->cand[i].commit = ids[i];
		git_oid_tostr(bs->cand[i].name, 13, &ids[i]);
		if (git_commit_lookup(&c, bs->t.repo, &ids[i])) {
			lab_git_error("cannot read commit");
			goto out;
		}
		g->parents[i] = calloc(git_commit_parentcount(c) + 1, sizeof(size_t));
		for (unsigned k = 0; k < git_commit_parentcount(c); k++)
			for (size_t j = 0; j < i; j++)
				if (git_oid_equal(git_commit_parent_id(c, k), &ids[j]))
					g->parents[i][g->nparents[i]++] = j;
		git_commit_free(c);
	}
	ret = 0;
out:
	free(ids);
	git_revwalk_free(walk);
	return ret;
}

static void graph_release(struct bisect_graph *g)
{
	for (size_t i = 0; g->parents && i < g->n; i++)
		free(g->parents[i]);
	free(g->parents);
	free(g->nparents);
}

/*
 * Compare every metric G -> B on the boots so far: 1 when one regressed
 * (the largest is kept in bs->metric), 0 when none did, with *unclear
 * set when some metric could still turn out to.
 */
static int compare_ends(struct bisector *bs, double alpha, int *unclear)
{
	struct unit_side a, b;
	double best = 0;

	*unclear = 0;
	if (units_side_load(&a, &bs->ctx->st, bs->exp_id, bs->g.variant_id, -1, -1, NULL))
		return -1;
	if (units_side_load(&b, &bs->ctx->st, bs->exp_id, bs->b.variant_id, -1, -1, NULL)) {
		units_side_release(&a);
		return -1;
	}
	fprintf(stderr, "good -> bad, per metric (%zu boots a side):\n",
		a.n ? a.m[0].nboots : (size_t)0);
	for (size_t i = 0; i < a.n; i++) {
		for (size_t j = 0; j < b.n; j++) {
			struct stats_options so = STATS_OPTIONS_INIT;
			struct stats_comparison c;
			double *ua, *ub;
			size_t na, nb;
			int per_boot;

			if (strcmp(a.m[i].metric, b.m[j].metric) || strcmp(a.m[i].workload, b.m[j].workload))
				continue;
			so.alpha = alpha;
			per_boot = units_boot_effect(&a.m[i]) || units_boot_effect(&b.m[j]);
			ua = units_values(&a.m[i], per_boot, &na);
			ub = units_values(&b.m[j], per_boot, &nb);
			if (units_all_positive(ua, na) && units_all_positive(ub, nb) &&
			    !stats_compare(&c, ua, na, ub, nb, &so)) {
				char ci[32];

				stats_ci_label(ci, sizeof(ci), alpha);
				fprintf(stderr, "  %-32s %.4f, %s [%.4f, %.4f] %s\n", a.m[i].metric,
					c.ratio, ci, c.lo, c.hi, verdict_name(c.verdict));
				if (c.verdict == VERDICT_REGRESSION && c.ratio > best) {
					best = c.ratio;
					snprintf(bs->metric, sizeof(bs->metric), "%s", a.m[i].metric);
				}
				*unclear |= c.verdict == VERDICT_INCONCLUSIVE;
			}
			free(ua);
			free(ub);
		}
	}
	units_side_release(&a);
	units_side_release(&b);
	return best > 0;
}

/*
 * Without --metric: measure both ends and take the metric with the largest
 * significant regression. While none has regressed and some metric is
 * still INCONCLUSIVE, the ends get more boots on the adaptive schedule
 * (2, 4, 8, 16 a side, with its per-look alpha) before giving up.
 */
/* Boots a side the ends already have (a resumed bisection): the fewer of the two. */
static int ends_boots(struct bisector *bs, size_t *have)
{
	struct unit_side a, b;

	*have = 0;
	if (variant_for(bs, &bs->g) || variant_for(bs, &bs->b) ||
	    units_side_load(&a, &bs->ctx->st, bs->exp_id, bs->g.variant_id, -1, -1, NULL))
		return -1;
	if (units_side_load(&b, &bs->ctx->st, bs->exp_id, bs->b.variant_id, -1, -1, NULL)) {
		units_side_release(&a);
		return -1;
	}
	if (a.n && b.n)
		*have = a.m[0].nboots < b.m[0].nboots ? a.m[0].nboots : b.m[0].nboots;
	units_side_release(&a);
	units_side_release(&b);
	return 0;
}

static int choose_metric(struct bisector *bs, const struct bisect_options *opt)
{
	struct stats_schedule sched = { opt->start, opt->effect_cap, opt->alpha };
	double alpha = stats_schedule_alpha(&sched);
	size_t level = opt->start, have;

	if (ends_boots(bs, &have))
		return -1;
	for (;;) {
		int unclear, r;

		/* ABBA, as every other comparison */
		for (; have < level; have++)
			for (int k = 0; k < 2; k++)
				if (op_measure(bs, (k ^ (int)(have & 1)) ? BISECT_B : BISECT_G))
					return -1;
		r = compare_ends(bs, alpha, &unclear);
		if (r)
			return r < 0 ? -1 : 0;
		if (!unclear || level >= opt->effect_cap)
			return 0;
		level = level * 2 < opt->effect_cap ? level * 2 : opt->effect_cap;
	}
}

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

/* A number stored as NULL reads as 0 here, as it always has. */
static double or0(double v)
{
	return isnan(v) ? 0 : v;
}

static int print_bisection(const struct bisection_status *b, void *data)
{
	long long id = *(const long long *)data;

	printf("bisection E%lld: %s\n  good %s\n  bad  %s\n  workload %s, metric %s (%s)\n", id,
	       b->outcome, b->good, b->bad, b->workload, b->metric,
	       b->per_boot ? "per-boot medians" : "samples");
	if (!isnan(b->effect)) {
		char ci[32] = "CI, level not recorded";

		if (!isnan(b->effect_alpha))
			stats_ci_label(ci, sizeof(ci), b->effect_alpha);
		printf("  effect good -> bad: %.4f (%+.1f %%), %s [%.4f, %.4f]\n", b->effect,
		       100 * (b->effect - 1), ci, or0(b->effect_lo), or0(b->effect_hi));
	}
	printf("  culprit %s\n  %d boots, %d kernels built or found\n", b->culprit, b->boots,
	       b->kernels);
	return 0;
}

static int print_step(const struct bisect_step_row *s, void *data)
{
	(void)data;
	if (isfinite(s->ratio))
		printf("  %4d  %-12s  %-5s  %5d  %.4f [%.4f, %.4f]\n", (int)s->seq, s->commit,
		       s->mark, (int)s->n, s->ratio, or0(s->ci_low), or0(s->ci_high));
	else
		printf("  %4d  %-12s  %-5s  %5d  -\n", (int)s->seq, s->commit, s->mark, (int)s->n);
	return 0;
}

static int print_status(struct store *st, long long id)
{
	if (store_bisection_read(st, id, print_bisection, &id) || print_clock(st, id))
		return -1;
	printf("  %4s  %-12s  %-5s  %5s  %s\n", "step", "commit", "mark", "boots", "M/G [99% CI]");
	return store_bisect_steps(st, id, print_step, NULL);
}

/*
 * culprit^ against culprit (bisect_confirm()): does the culprit explain
 * G->B? 1 when there is nothing to confirm: a root commit, or culprit^
 * does not build or boot.
 */
static int confirm(struct bisect_confirmation *conf, struct bisector *bs,
		   const struct bisect_ops *ops, const struct bisect_result *r)
{
	git_commit *c = NULL;
	int ret;

	if (git_commit_lookup(&c, bs->t.repo, &bs->cand[r->culprit].commit))
		return lab_git_error("cannot read the culprit");
	if (!git_commit_parentcount(c)) {
		git_commit_free(c);
		return 1;
	}
	git_oid_cpy(&bs->p.commit, git_commit_parent_id(c, 0));
	git_commit_free(c);
	snprintf(bs->p.name, sizeof(bs->p.name), "P");
	ret = bisect_confirm(conf, r, ops, BISECT_PARENT, (int)r->culprit);
	if (ret > 0)
		fprintf(stderr, "culprit^ or the culprit does not build or boot: no confirmation\n");
	return ret;
}

struct bisect_args {
	const char *cmd, *usage;	/* "lab bisect" or "lab bisect-step" */
	const char *good, *bad, *metric, *repo, *arch, *db, *config;
	long long resume, status, max_boots;
	int want_status;
};

static int is_bisection_id(const char *s)
{
	s += *s == 'E';
	return *s && strspn(s, "0123456789") == strlen(s);
}

/* Options shared by a new bisection and the stored copy a resume re-reads. */
static int parse_args(struct bisect_args *a, struct bisector *bs, struct strbuf *stored,
		      int argc, char **argv)
{
	enum { O_GOOD = 256, O_BAD, O_WORKLOAD, O_METRIC, O_REPO, O_ARCH, O_ITERS, O_MEM, O_CPUS,
	       O_PARAM, O_RUNNER, O_ACCEL, O_CLOCK, O_TIMEOUT, O_CMDLINE, O_DB, O_CONFIG, O_RESUME,
	       O_STATUS, O_MAX_BOOTS, O_NUMA, O_TARGET, O_TARGETS };
	static const struct option longopts[] = {
		{ "good", required_argument, NULL, O_GOOD },
		{ "bad", required_argument, NULL, O_BAD },
		{ "workload", required_argument, NULL, O_WORKLOAD },
		{ "metric", required_argument, NULL, O_METRIC },
		{ "repo", required_argument, NULL, O_REPO },
		{ "arch", required_argument, NULL, O_ARCH },
		{ "iters", required_argument, NULL, O_ITERS },
		{ "mem", required_argument, NULL, O_MEM },
		{ "cpus", required_argument, NULL, O_CPUS },
		{ "param", required_argument, NULL, O_PARAM },
		{ "runner", required_argument, NULL, O_RUNNER },
		{ "accel", required_argument, NULL, O_ACCEL },
		{ "clock", required_argument, NULL, O_CLOCK },
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "cmdline", required_argument, NULL, O_CMDLINE },
		{ "db", required_argument, NULL, O_DB },
		{ "config", required_argument, NULL, O_CONFIG },
		{ "resume", required_argument, NULL, O_RESUME },
		{ "status", optional_argument, NULL, O_STATUS },
		{ "max-boots", required_argument, NULL, O_MAX_BOOTS },
		{ "numa", required_argument, NULL, O_NUMA },
		{ "target", required_argument, NULL, O_TARGET }, { "targets", required_argument, NULL, O_TARGETS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		int bad = 0, keep = 1;
		long v = 0;
		switch (c) {
		case O_GOOD: a->good = optarg; break;
		case O_BAD: a->bad = optarg; break;
		case O_WORKLOAD:
			if (workloads_parse(&bs->workloads, optarg))
				return -1;
			break;
		case O_METRIC: a->metric = optarg; break;
		case O_REPO: a->repo = optarg; break;
		case O_ARCH:
			bad = strcmp(optarg, "x86_64") && strcmp(optarg, "aarch64");
			a->arch = optarg;
			break;
		case O_ITERS: case O_MEM: case O_CPUS: case O_PARAM: case O_RUNNER:
		case O_ACCEL: case O_CLOCK: case O_TIMEOUT: case O_CMDLINE: case O_NUMA: case O_TARGET: case O_TARGETS:
			bad = boot_opts_set(&bs->bo, &bs->params, longopts[c - O_GOOD].name,
					    optarg) < 0;
			break;
		case O_DB: a->db = optarg; keep = 0; break;
		case O_CONFIG: a->config = optarg; keep = 0; break;
		case O_RESUME:
			keep = 0;
			bad = parse_positive_int(optarg + (optarg[0] == 'E'), &v);
			a->resume = v;
			break;
		case O_STATUS:
			keep = 0;
			a->want_status = 1;
			/* the usage's "--status [ID]": the id may be the next word */
			if (!optarg && optind < argc && is_bisection_id(argv[optind]))
				optarg = argv[optind++];
			if (optarg)
				bad = parse_positive_int(optarg + (optarg[0] == 'E'), &v);
			a->status = v;
			break;
		case O_MAX_BOOTS:
			bad = parse_positive_int(optarg, &v);
			a->max_boots = v;
			break;
		case 'h':
			fputs(a->usage, stdout);
			exit(0);
		default:
			return option_error(a->cmd, "h", longopts, argv);
		}
		if (bad)
			return error("bad value '%s' for --%s (see '%s --help')",
				     optarg ? optarg : "", longopts[c - O_GOOD].name, a->cmd);
		if (keep && stored)
			strbuf_addf(stored, "--%s=%s\n", longopts[c - O_GOOD].name, optarg);
	}
	if (optind < argc)
		return error("unexpected argument '%s' for '%s'", argv[optind], a->cmd);
	return 0;
}

static int load_stored(struct strvec *args, struct store *st, long long id)
{
	struct strbuf stored = STRBUF_INIT;
	const char *p;

	strvec_push(args, "bisect");
	if (store_bisection_args(st, &stored, id)) {
		strbuf_release(&stored);
		return -1;
	}
	for (p = stored.buf; *p;) {
		size_t n = strcspn(p, "\n");
		struct strbuf sb = STRBUF_INIT;
		strbuf_add(&sb, p, n);
		strvec_push(args, sb.buf);
		strbuf_release(&sb);
		p += n + (p[n] == '\n');
	}
	strbuf_release(&stored);
	return 0;
}

static int start(struct bisector *bs, const struct bisect_args *a, const char *args)
{
	char good[GIT_OID_HEXSZ + 1], bad[GIT_OID_HEXSZ + 1];
	git_oid tree;

	if (kernel_tree_resolve(&bs->g.commit, &tree, &bs->t, a->good) ||
	    kernel_tree_resolve(&bs->b.commit, &tree, &bs->t, a->bad))
		return -1;
	git_oid_tostr(good, sizeof(good), &bs->g.commit);
	git_oid_tostr(bad, sizeof(bad), &bs->b.commit);
	/* refused before anything is stored: a bisection row would stay RUNNING */
	if (git_oid_equal(&bs->g.commit, &bs->b.commit))
		return error("good and bad are the same commit (%s): nothing to bisect", good);
	switch (git_graph_descendant_of(bs->t.repo, &bs->b.commit, &bs->g.commit)) {
	case 1:
		break;
	case 0:
		return error("bad (%s) is not a descendant of good (%s)", a->bad, a->good);
	default:
		return lab_git_error("cannot walk the history between good and bad");
	}
	if (a->resume) {
		struct strbuf metric = STRBUF_INIT;
		int ret;

		bs->exp_id = a->resume;
		/* one lab per bisection: claimed before its runs are touched */
		if (experiment_lock(bs->ctx, bs->exp_id))
			return -1;
		ret = store_bisection_resume(&bs->ctx->st, &metric, &bs->per_boot, bs->exp_id);
		snprintf(bs->metric, sizeof(bs->metric), "%s", metric.buf);
		strbuf_release(&metric);
		if (ret)
			return -1;
		return store_runs_interrupted(&bs->ctx->st, bs->exp_id) ||
		       store_experiment_runs(&bs->ctx->st, &bs->boots_before, bs->exp_id) ? -1 : 0;
	}
	if (store_bisection_create(&bs->ctx->st, &bs->exp_id, args, bs->workloads.v[0], good, bad,
				   a->metric))
		return -1;
	if (a->metric)
		snprintf(bs->metric, sizeof(bs->metric), "%s", a->metric);
	fprintf(stderr, "bisection E%lld started; continue an interrupted one with 'lab bisect --resume %lld'\n",
		bs->exp_id, bs->exp_id);
	return experiment_lock(bs->ctx, bs->exp_id);
}

/* unclear: the culprit failed its own check, re-tests included */
static int finish(struct bisector *bs, const struct bisect_result *r, int unclear)
{
	char hex[GIT_OID_HEXSZ + 1] = "";
	struct bisection_outcome o = {
		.metric = bs->metric,
		.per_boot = bs->per_boot,
		.effect = r->effect.estimate,
		.effect_lo = r->effect.lo,
		.effect_hi = r->effect.hi,
		.effect_alpha = r->effect_alpha,
		.culprit = r->found ? hex : NULL,
		.outcome = r->no_regression ? "NO_REGRESSION" : !r->found ? "CANDIDATES" :
			   unclear ? "UNCLEAR" : "FOUND",
	};

	if (r->found)
		git_oid_tostr(hex, sizeof(hex), &bs->cand[r->culprit].commit);
	if (store_bisection_finish(&bs->ctx->st, bs->exp_id, &o))
		return -1;
	return store_experiment_done(&bs->ctx->st, bs->exp_id);
}

static void print_culprit(struct bisector *bs, const struct bisect_result *r,
			  const struct bisect_confirmation *conf)
{
	git_commit *c = NULL;
	char hex[GIT_OID_HEXSZ + 1], ci[32];

	stats_ci_label(ci, sizeof(ci), r->effect_alpha);
	if (r->no_regression && r->inconclusive) {
		printf("could not tell whether bad is worse than good after %zu boots a side: %s %.4f, "
		       "%s [%.4f, %.4f]; nothing to bisect\n", r->effect_boots, bs->metric,
		       r->effect.estimate, ci, r->effect.lo, r->effect.hi);
		return;
	}
	if (r->no_regression) {
		printf("no regression between good and bad: %s %.4f, %s [%.4f, %.4f]; nothing to bisect\n",
		       bs->metric, r->effect.estimate, ci, r->effect.lo, r->effect.hi);
		return;
	}
	if (!r->found) {
		printf("could not tell which of these %zu commits is the first bad one:\n", r->nremaining);
		for (size_t i = 0; i < r->nremaining; i++) {
			char *d = kernel_tree_describe(&bs->t, &bs->cand[r->remaining[i]].commit);
			printf("  %s\n", d);
			free(d);
		}
		return;
	}
	git_oid_tostr(hex, sizeof(hex), &bs->cand[r->culprit].commit);
	printf("culprit: %s\n", hex);
	if (!git_commit_lookup(&c, bs->t.repo, &bs->cand[r->culprit].commit)) {
		const git_signature *a = git_commit_author(c);
		printf("  subject: %s\n  author: %s <%s>\n", git_commit_summary(c), a->name, a->email);
		git_commit_free(c);
	}
	/* the boots include the confirmation's, made before this is printed */
	printf("  good -> bad %s: %.4f (%+.1f %%), %s [%.4f, %.4f], %zu steps, %zu builds, %zu boots\n",
	       bs->metric, r->effect.estimate, 100 * (r->effect.estimate - 1), ci, r->effect.lo,
	       r->effect.hi, r->steps, bs->builds, bs->boots);
	if (!conf)
		return;
	printf("confirmation, culprit^ vs culprit (%zu/%zu boots%s): %.4f, 99%% CI [%.4f, %.4f], z %.2f against good -> bad\n",
	       conf->n_parent, conf->n_culprit, conf->rounds > 1 ? ", re-tested" : "",
	       conf->ratio.estimate, conf->ratio.lo, conf->ratio.hi, conf->z);
	if (!conf->more_than_one)
		printf("  the culprit explains the whole good -> bad effect (%.4f)\n", r->effect.estimate);
	else
		printf("  UNCLEAR: the culprit does not explain the whole effect (%.4f), even with %zu boots "
		       "each: a wrong culprit, or more than one commit contributes\n",
		       r->effect.estimate, conf->n_culprit);
}

static void bisector_release(struct bisector *bs)
{
	struct who *all[3] = { &bs->g, &bs->b, &bs->p };
	for (int i = 0; i < 3; i++) {
		for (size_t k = 0; k < all[i]->nplans; k++)
			boot_plan_release(&all[i]->plans[k]);
		free(all[i]->plans);
		free(all[i]->image);
	}
	for (size_t i = 0; i < bs->ncand; i++) {
		for (size_t k = 0; k < bs->cand[i].nplans; k++)
			boot_plan_release(&bs->cand[i].plans[k]);
		free(bs->cand[i].plans);
		free(bs->cand[i].image);
	}
	free(bs->cand);
	kernel_tree_close(&bs->t);
	strvec_release(&bs->workloads);
	strvec_release(&bs->params);
}

/*
 * The metric to bisect and its unit of comparison, chosen once (when not
 * given) and kept with the bisection. 1: no metric regressed.
 */
static int settle_metric(struct bisector *bs, const struct bisect_options *opt)
{
	struct store *st = &bs->ctx->st;

	if (!bs->metric[0]) {
		if (choose_metric(bs, opt))
			return -1;
		if (!bs->metric[0])
			return 1;
		fprintf(stderr, "bisecting %s\n", bs->metric);
		if (store_bisection_set_metric(st, bs->exp_id, bs->metric))
			return -1;
	}
	/* every decision of lab/bisect.c compares per-boot medians */
	bs->per_boot = 1;
	return store_bisection_set_per_boot(st, bs->exp_id, bs->per_boot);
}

/*
 * The clock goes with the stored options even when it came from lab.conf:
 * a resume measures in the clock the bisection started with.
 */
static void keep_clock(struct bisector *bs, const struct bisect_args *a, struct strbuf *stored,
		       const struct lab_config *cfg)
{
	if (a->resume || bs->bo.clock)
		return;
	bs->bo.clock = config_clock_name(cfg->clock);
	strbuf_addf(stored, "--clock=%s\n", bs->bo.clock);
}

static void bisector_setup(struct bisector *bs, const struct bisect_args *a)
{
	bs->spec.arch = a->arch ? a->arch : host_arch();
	bs->bo.workloads = &bs->workloads;
	bs->bo.params = &bs->params;
	snprintf(bs->g.name, sizeof(bs->g.name), "G");
	snprintf(bs->b.name, sizeof(bs->b.name), "B");
}

/*
 * Every boot counts against a budget, so that no loop boots forever: enough
 * for G->B at its largest, twice the steps the candidates need at their
 * largest (skips; each boot of a candidate brings one of an end), and the
 * confirmation with its re-tests.
 */
static long long default_budget(size_t ncand, const struct bisect_options *opt)
{
	long long steps = 4;

	for (size_t n = ncand; n; n >>= 1)
		steps += 2;
	return 2 * (long long)opt->effect_cap + steps * 2 * (long long)opt->cap +
	       2 * BISECT_CONFIRM_CAP;
}


static int no_regression(struct bisector *bs)
{
	printf("no significant regression from good to bad in any metric: nothing to bisect\n");
	if (store_bisection_no_regression(&bs->ctx->st, bs->exp_id) ||
	    store_experiment_done(&bs->ctx->st, bs->exp_id))
		return -1;
	return 0;
}

int cmd_bisect(int argc, char **argv)
{
	struct bisect_options opt = BISECT_OPTIONS_INIT;
	struct bisect_ops ops = { op_boots, op_measure, op_decided, NULL };
	struct bisect_args a;
	struct bisector bs;
	struct bisect_graph g;
	struct bisect_result r;
	struct bisect_confirmation conf;
	struct lab_context ctx;
	struct strbuf stored = STRBUF_INIT;
	struct strvec again = STRVEC_INIT;
	int ret = 2, confirmed = 0, unclear = 0;

	memset(&a, 0, sizeof(a));
	memset(&bs, 0, sizeof(bs));
	memset(&g, 0, sizeof(g));
	memset(&r, 0, sizeof(r));
	memset(&ctx, 0, sizeof(ctx));
	a.cmd = "lab bisect";
	a.usage = bisect_usage;
	bs.ctx = &ctx;
	ops.data = &bs;
	if (parse_args(&a, &bs, &stored, argc, argv) ||
	    context_load_config(&ctx, a.config, a.db) || context_open_store(&ctx))
		goto out;
	keep_clock(&bs, &a, &stored, &ctx.cfg);
	if (a.want_status) {
		long long id = a.status;
		if ((!id && store_bisection_latest(&ctx.st, &id)) || print_status(&ctx.st, id))
			goto out;
		ret = 0;
		goto out;
	}
	if (a.resume) {
		long long id = a.resume, raise = a.max_boots;
		if (load_stored(&again, &ctx.st, id))
			goto out;
		strbuf_reset(&stored);
		if (parse_args(&a, &bs, NULL, (int)again.nr, again.v))
			goto out;
		a.resume = id;
		if (raise)
			a.max_boots = raise;
	}
	if (!a.good || !a.bad || !bs.workloads.nr) {
		error("lab bisect needs --good REF, --bad REF and --workload W");
		goto out;
	}
	/* the lab's guest reports known metrics; a build.command's program, what its G does */
	if ((a.metric && !ctx.cfg.build_command && bisect_metric_check(&bs.workloads, a.metric)) ||
	    boot_opts_check_targets(&bs.bo, &ctx.cfg))
		goto out;
	bisector_setup(&bs, &a);
	if (kernel_tree_open_for(&bs.t, &ctx, a.repo) || start(&bs, &a, stored.buf))
		goto out;
	if (build_graph(&g, &bs))
		goto out;
	bs.max_boots = a.max_boots ? a.max_boots : default_budget(bs.ncand, &opt);
	switch (settle_metric(&bs, &opt)) {
	case 0:
		break;
	case 1:
		ret = no_regression(&bs) ? 2 : 1;
		goto out;
	default:
		goto out;
	}
	if (bisect_run(&r, &g, &opt, &ops))
		goto out;
	/* the outcome is stored after the check: FOUND only for a confirmed culprit */
	if (r.found) {
		int c = confirm(&conf, &bs, &ops, &r);
		if (c < 0)
			goto out;
		confirmed = c == 0;
	}
	unclear = confirmed && conf.more_than_one;
	/* the check measured G->B again on every boot of the ends: the sharper estimate */
	if (confirmed) {
		r.effect = conf.effect;
		r.effect_alpha = 0.01;
	}
	if (finish(&bs, &r, unclear))
		goto out;
	print_culprit(&bs, &r, confirmed ? &conf : NULL);
	printf("\n");
	if (print_status(&ctx.st, bs.exp_id))
		goto out;
	ret = unclear ? 3 : r.found ? 0 : 1;
out:
	/* a bisection another lab runs is not this one's to offer */
	if (ret == 2 && bs.exp_id && ctx.lock_fd > 0)
		fprintf(stderr, "bisection E%lld stopped; continue it with 'lab bisect --resume %lld'\n",
			bs.exp_id, bs.exp_id);
	bisect_result_release(&r);
	graph_release(&g);
	bisector_release(&bs);
	context_release(&ctx);
	strbuf_release(&stored);
	strvec_release(&again);
	return ret;
}


/*
 * lab bisect-step: for `git bisect run`. Measures HEAD of the repository it
 * runs in against good and bad ends measured once and kept in the
 * database; exits 0 good, 1 bad, 125 skip (git bisect's codes).
 */
int cmd_bisect_step(int argc, char **argv)
{
	struct bisect_options opt = BISECT_OPTIONS_INIT;
	struct bisect_ops ops = { op_boots, op_measure, NULL, NULL };
	struct bisect_args a;
	struct bisector bs;
	struct bisect_result r;
	struct lab_context ctx;
	struct strbuf stored = STRBUF_INIT;
	struct stats_hl hl = { NAN, NAN, NAN };
	enum bisect_mark mark = BISECT_SKIP;
	git_oid tree;
	size_t n = 0;
	int ret = 128;

	memset(&a, 0, sizeof(a));
	memset(&bs, 0, sizeof(bs));
	memset(&r, 0, sizeof(r));
	memset(&ctx, 0, sizeof(ctx));
	a.cmd = "lab bisect-step";
	a.usage = bisect_step_usage;
	bs.ctx = &ctx;
	ops.data = &bs;
	/* git bisect run treats 128 and above as "stop bisecting" */
	if (parse_args(&a, &bs, &stored, argc, argv) ||
	    context_load_config(&ctx, a.config, a.db) || context_open_store(&ctx))
		goto out;
	keep_clock(&bs, &a, &stored, &ctx.cfg);
	if (!a.good || !a.bad || !bs.workloads.nr) {
		error("lab bisect-step needs --good REF, --bad REF and --workload W");
		goto out;
	}
	if ((a.metric && !ctx.cfg.build_command && bisect_metric_check(&bs.workloads, a.metric)) ||
	    boot_opts_check_targets(&bs.bo, &ctx.cfg))
		goto out;
	bisector_setup(&bs, &a);
	if (store_bisection_by_args(&ctx.st, &a.resume, stored.buf) ||
	    kernel_tree_open_for(&bs.t, &ctx, a.repo ? a.repo : ".") || start(&bs, &a, stored.buf))
		goto out;
	/* each step of git bisect run has a budget of its own */
	bs.boots_before = 0;
	bs.max_boots = a.max_boots ? a.max_boots : default_budget(1, &opt);
	bs.cand = calloc(1, sizeof(*bs.cand));
	if (!bs.cand)
		goto out;
	bs.ncand = 1;
	if (kernel_tree_resolve(&bs.cand[0].commit, &tree, &bs.t, "HEAD"))
		goto out;
	git_oid_tostr(bs.cand[0].name, 13, &bs.cand[0].commit);
	switch (settle_metric(&bs, &opt)) {
	case 0:
		break;
	case 1:
		error("no significant regression from good to bad: nothing to bisect");
		goto out;
	default:
		goto out;
	}
	if (bisect_effect(&r, &opt, &ops))
		goto out;
	if (r.no_regression) {
		char ci[32];

		stats_ci_label(ci, sizeof(ci), r.effect_alpha);
		error("%s between good and bad (%.4f, %s [%.4f, %.4f], %zu boots a side): nothing to bisect",
		      r.inconclusive ? "no clear regression" : "no regression", r.effect.estimate, ci,
		      r.effect.lo, r.effect.hi, r.effect_boots);
		goto out;
	}
	if (bisect_classify(&mark, &hl, &n, &opt, &ops, 0, r.log_effect))
		goto out;
	fprintf(stderr, "%s: %s (n %zu, M/G %.4f, 99%% CI [%.4f, %.4f], G->B %.4f)\n", bs.cand[0].name,
		bisect_mark_name(mark), n, hl.estimate, hl.lo, hl.hi, r.effect.estimate);
	ret = mark == BISECT_GOOD ? 0 : mark == BISECT_BAD ? 1 : 125;
out:
	bisector_release(&bs);
	context_release(&ctx);
	strbuf_release(&stored);
	return ret;
}
