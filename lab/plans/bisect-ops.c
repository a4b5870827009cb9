/* The measurements of a bisection: its kernels' builds, boots and steps (bisect-ops.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "bisect-ops.h"
#include "host.h"
#include "log.h"
#include "pool.h"
#include "say.h"
#include "store-bisect.h"
#include "store-experiment.h"
#include "subprocess.h"
#include "tempfile.h"
#include "textfmt.h"
#include "units.h"
#include "xalloc.h"

struct who *bisector_who(struct bisector *bs, int who)
{
	if (who == BISECT_G)
		return &bs->g;
	if (who == BISECT_B)
		return &bs->b;
	if (who == BISECT_PARENT)
		return &bs->p;
	return &bs->cand[who];
}

const char *bisector_workload(struct bisector *bs)
{
	return bs->bo.workloads->specs.v[0];
}

int bisector_variant(struct bisector *bs, struct who *w)
{
	char hex[GIT_OID_HEXSZ + 1];

	if (w->variant_id)
		return 0;
	git_oid_tostr(hex, sizeof(hex), &w->commit);
	return store_variant_record(&bs->ctx->st, &w->variant_id, bs->exp_id, w->name, hex);
}

/* 1 while the seed's boots count: the bisection's own all ran in its clock. */
static int seed_holds(struct bisector *bs)
{
	struct strvec clocks = STRVEC_INIT;
	int ret;

	if (store_experiment_clocks(&bs->ctx->st, &clocks, bs->exp_id))
		return -1;
	ret = !clocks.nr || (clocks.nr == 1 && !strcmp(clocks.v[0], bs->seed_clock));
	strvec_release(&clocks);
	return ret;
}

/*
 * Virtual time: the bisection's boots so far (and its seed's) all ran in
 * icount. -1 when the store cannot say (after its message): taken for
 * wall time, that would boot the ends again and decide on other rules
 * without a word.
 */
int bisector_exact(void *data)
{
	struct bisector *bs = data;

	if (bs->seed)
		return seed_holds(bs);
	return store_experiment_virtual(&bs->ctx->st, bs->exp_id);
}

/* Always per-boot medians: lab/plans/bisect.c compares boots, with their spread pooled. */
int bisector_boots(void *data, int who, double **v, size_t *n)
{
	struct bisector *bs = data;
	struct who *w = bisector_who(bs, who);
	double *seeded;
	size_t nseeded;
	int holds;

	*v = NULL;
	*n = 0;
	if (bisector_variant(bs, w) ||
	    units_boot_medians(v, n, &bs->ctx->st, bs->exp_id, w->variant_id, -1, -1, bs->metric))
		return -1;
	if (!bs->seed || !w->seed_variant)
		return 0;
	if ((holds = seed_holds(bs)) <= 0)
		return holds;
	if (units_boot_medians(&seeded, &nseeded, &bs->ctx->st, bs->seed, w->seed_variant,
			       bs->seed_mem, bs->seed_cpus, bs->metric))
		return -1;
	*v = xreallocarray(*v, *n + nseeded, sizeof(**v));
	if (nseeded)
		memcpy(*v + *n, seeded, nseeded * sizeof(*seeded));
	*n += nseeded;
	free(seeded);
	return 0;
}

/* who's kernel, built (or found) once: 0, 1 when it does not build, -1 error. */
static int build(struct bisector *bs, struct who *w)
{
	if (w->image.path || w->build_failed)
		return w->build_failed;
	switch (refbuild_commit(&w->image, bs->ctx, &bs->t, &w->commit, &bs->spec)) {
	case REFBUILD_OK:
		bs->builds++;
		return store_variant_kernel(&bs->ctx->st, w->variant_id, w->image.id) ? -1 : 0;
	case REFBUILD_FAILED:
		/* its compiler killed by a signal the command defers: not the commit's doing */
		if (fatal_signal_pending())
			return -1;
		w->build_failed = 1;
		return 1;
	default:
		return -1;
	}
}

struct seed_reader {
	const char *kind, *status, *workloads;
	struct who *ends[2];
	const char *cmdline;
};

static int seed_experiment(const struct store_experiment *e, void *data)
{
	struct seed_reader *r = data;

	r->kind = xstrdup(e->kind);
	r->status = xstrdup(e->status);
	r->workloads = xstrdup(e->workloads ? e->workloads : "");
	return 0;
}

static int seed_variant(const struct store_variant *v, void *data)
{
	struct seed_reader *r = data;

	for (int i = 0; i < 2; i++)
		if (!r->ends[i]->seed_variant && v->kernel_id == r->ends[i]->image.id &&
		    !strcmp(v->cmdline ? v->cmdline : "", r->cmdline))
			r->ends[i]->seed_variant = v->id;
	return 0;
}

/* Why seed cannot stand for the ends, into why; "" when it can. -1 error. */
static int seed_check(struct bisector *bs, long long seed, struct strbuf *why)
{
	struct seed_reader r = { .ends = { &bs->g, &bs->b }, .cmdline = bs->bo.cmdline ?
				 bs->bo.cmdline : "" };
	struct strbuf want = STRBUF_INIT;
	struct strvec clocks = STRVEC_INIT;
	int ret = -1;

	workload_list_join(&want, bs->bo.workloads);
	if (store_experiment_read(&bs->ctx->st, seed, seed_experiment, &r) ||
	    store_experiment_clocks(&bs->ctx->st, &clocks, seed))
		goto out;
	if (strcmp(r.kind, "ab") || strcmp(r.status, "DONE"))
		strbuf_addf(why, "E%lld is not a finished A/B", seed);
	else if (strcmp(r.workloads, want.buf))
		strbuf_addf(why, "E%lld ran other workloads (%s)", seed, r.workloads);
	else if (clocks.nr != 1 || strncmp(clocks.v[0], "icount", 6))
		strbuf_addf(why, "E%lld did not run in virtual time alone", seed);
	if (why->len) {
		ret = 0;
		goto out;
	}
	snprintf(bs->seed_clock, sizeof(bs->seed_clock), "%s", clocks.v[0]);
	for (int i = 0; i < 2; i++) {
		struct who *w = r.ends[i];
		long ok = 0, failed = 0;
		int b;

		if (bisector_variant(bs, w) || (b = build(bs, w)) < 0)
			goto out;
		/* an end that does not build is said when it is measured */
		if (b > 0) {
			strbuf_addf(why, "the %s end does not build", i ? "bad" : "good");
			break;
		}
		w->seed_variant = 0;
		if (store_experiment_variants(&bs->ctx->st, seed, "ab", seed_variant, &r))
			goto out;
		if (w->seed_variant && store_variant_boots(&bs->ctx->st, w->seed_variant,
							   bs->seed_mem, bs->seed_cpus, &ok, &failed))
			goto out;
		if (!ok) {
			strbuf_addf(why, "E%lld has no boot of the %s end's kernel with this "
				    "command line at %ld MiB and %ld CPUs", seed, i ? "bad" : "good",
				    bs->seed_mem, bs->seed_cpus);
			break;
		}
	}
	ret = 0;
out:
	free((char *)r.kind);
	free((char *)r.status);
	free((char *)r.workloads);
	strbuf_release(&want);
	strvec_release(&clocks);
	return ret;
}

int bisector_take_seed(struct bisector *bs, long long seed)
{
	struct strbuf why = STRBUF_INIT;
	long ok[2] = { 0, 0 }, failed;
	int ret = -1;

	if (!seed)
		return 0;
	bs->seed_mem = bs->bo.mem_mib ? bs->bo.mem_mib : bs->ctx->cfg.mem_mib;
	bs->seed_cpus = bs->bo.cpus ? bs->bo.cpus : bs->ctx->cfg.cpus;
	if (seed_check(bs, seed, &why))
		goto out;
	ret = 0;
	if (why.len) {
		bs->g.seed_variant = bs->b.seed_variant = 0;
		say("the ends are booted: %s", why.buf);
		goto out;
	}
	bs->seed = seed;
	if (store_variant_boots(&bs->ctx->st, bs->g.seed_variant, bs->seed_mem, bs->seed_cpus,
				&ok[0], &failed) ||
	    store_variant_boots(&bs->ctx->st, bs->b.seed_variant, bs->seed_mem, bs->seed_cpus,
				&ok[1], &failed))
		ret = -1;
	else
		say("the ends start from E%lld's boots (%ld and %ld, in virtual time)", seed, ok[0],
		    ok[1]);
out:
	strbuf_release(&why);
	return ret;
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
	bs->cannot_finish = who == BISECT_G || who == BISECT_B;
	if (who == BISECT_G && bs->metric_unknown)
		ret = error("unknown metric '%s' for workload '%s' (the good end reported: %s)",
			    bs->metric, bisector_workload(bs), list.len ? list.buf : "nothing");
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

	o.kernel = &w->image;
	o.guests = &bs->guests;
	o.experiment_id = bs->exp_id;
	o.variant_id = w->variant_id;
	if (o.targets && config_target_class(&bs->ctx->cfg, o.targets, &all, &n))
		return -1;
	w->plans = xcalloc(n, sizeof(*w->plans));
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

static void builder_finish(struct bisector *bs)
{
	if (!bs->building)
		return;
	subprocess_finish(&bs->builder);
	bs->building = 0;
}

void bisector_ahead(void *data, int who, const int *next, size_t n)
{
	struct bisector *bs = data;

	bs->ahead_of = who;
	bs->nahead = 0;
	for (size_t i = 0; i < n && i < ARRAY_SIZE(bs->ahead); i++)
		bs->ahead[bs->nahead++] = next[i];
}

/*
 * Before w's first boot, once w is built: a lab build of the candidates
 * after it, in wall time only. There a step takes several boots of the
 * commit and of both ends; in virtual time it takes one, shorter than a
 * build, and the next step would wait for the build of a candidate it
 * does not need.
 */
static void start_ahead(struct bisector *bs, struct who *w)
{
	const char *self = lab_program();
	struct strvec av = STRVEC_INIT;
	struct strbuf names = STRBUF_INIT;
	size_t refs;

	if (!bs->nahead || bisector_who(bs, bs->ahead_of) != w)
		return;
	if (bs->building) {
		if (!subprocess_ended(&bs->builder))
			return;
		builder_finish(bs);
	}
	/* a hint: when the clock cannot be read, no build ahead either */
	if (!self || (bs->spec.patches && bs->spec.patches->nr) || bisector_exact(bs))
		goto out;
	strvec_pushl(&av, self, "build", "--db", bs->ctx->st.path, "--arch", bs->spec.arch, NULL);
	if (bs->ctx->cfg.path)
		strvec_pushl(&av, "--config", bs->ctx->cfg.path, NULL);
	if (bs->repo)
		strvec_pushl(&av, "--repo", bs->repo, NULL);
	for (size_t i = 0; bs->spec.fragments && i < bs->spec.fragments->nr; i++)
		strvec_pushl(&av, "--fragment", bs->spec.fragments->v[i], NULL);
	refs = av.nr;
	for (size_t i = 0; i < bs->nahead; i++) {
		struct who *c = bisector_who(bs, bs->ahead[i]);
		char hex[GIT_OID_HEXSZ + 1];

		if (c->image.path || c->build_failed || c->ahead)
			continue;
		c->ahead = 1;
		git_oid_tostr(hex, sizeof(hex), &c->commit);
		strvec_push(&av, hex);
		strbuf_addf(&names, "%s%.12s", names.len ? " and " : "", hex);
	}
	if (av.nr > refs && !subprocess_start(&bs->builder, strvec_argv(&av), NULL,
					      SUBPROCESS_SILENT)) {
		bs->building = 1;
		say("  building ahead: %s", names.buf);
	}
out:
	bs->nahead = 0;
	strvec_release(&av);
	strbuf_release(&names);
}

/*
 * Before who's boot: its variant, the step it opens, the budget, its
 * build. 0 to boot, 1 when it does not build (a candidate), -1 error.
 */
static int before_boot(struct bisector *bs, struct who *w, int who, size_t queued)
{
	int end = who == BISECT_G || who == BISECT_B;

	if (bisector_variant(bs, w))
		return -1;
	if (who >= 0 && !bs->step_open) {
		bs->step_open = 1;
		bs->step_boots = bs->boots;
		bs->step_start = now_monotonic();
	}
	/* before the build: a budget used up builds nothing more */
	if (bs->max_boots && bs->boots_before + (long long)(bs->boots + queued) >= bs->max_boots)
		return error("boot budget of %lld boots used up (--max-boots)", bs->max_boots);
	if (build(bs, w) < 0)
		return -1;
	if (w->build_failed) {
		if (end)
			return error("the %s end (%s) does not build", who == BISECT_G ? "good" : "bad",
				     w->name);
		return 1;
	}
	return 0;
}

/* A boot of who ended: said, and taken as measure() returns it. */
static int after_boot(struct bisector *bs, struct who *w, int who, long long run_id,
		      enum run_status status, double wall_s, const char *err, const char *target)
{
	int end = who == BISECT_G || who == BISECT_B;

	bs->boots++;
	say("  boot %s: %s (run %lld, %.1f s%s%s)%s%s", w->name, run_status_name(status), run_id,
	    wall_s, target ? " on " : "", target ? target : "",
	    status == RUN_OK ? "" : ": ", status == RUN_OK ? "" : err);
	/* stopped by a signal the command defers (boot.c stored it INFRA): no mark, no retry */
	if (status != RUN_OK && fatal_signal_pending())
		return -1;
	if (status != RUN_OK) {
		if (++w->failures >= 3)
			return end ? error("the %s end failed to boot 3 times; see 'lab show %lld'",
					   who == BISECT_G ? "good" : "bad", run_id) : 1;
		return 0;
	}
	if (bisector_settle_band(bs))
		return -1;
	return check_reported(bs, w, who, run_id);
}

int bisector_measure(void *data, int who)
{
	struct bisector *bs = data;
	struct who *w = bisector_who(bs, who);
	struct run_result res;
	long long run_id;
	int ret = before_boot(bs, w, who, 0);

	if (ret)
		return ret;
	if (!w->prepared && prepare_plans(bs, w))
		return -1;
	start_ahead(bs, w);
	if (boot_plan_run(&w->plans[w->turn++ % w->nplans], bs->ctx, &run_id, &res)) {
		run_result_release(&res);
		return -1;
	}
	ret = after_boot(bs, w, who, run_id, res.status, res.wall_s, strbuf_str(&res.error), NULL);
	run_result_release(&res);
	return ret;
}

int bisector_width(struct bisector *bs)
{
	const struct lab_target **all = NULL;
	size_t n = 0;

	if (!bs->bo.targets)
		return 1;
	if (config_target_class(&bs->ctx->cfg, bs->bo.targets, &all, &n))
		return -1;
	free(all);
	return n > POOL_MAX_SIDES ? POOL_MAX_SIDES : (int)n;
}

/*
 * Boots of several commits at once on the targets of --targets, a pool
 * whose sides are this batch's commits (each booted as soon as a target
 * is idle), each boot taken as bisector_measure() takes one; without
 * several targets, one bisector_measure() after the other.
 */
int bisector_measure_many(void *data, const int *who, size_t n, int *rc)
{
	struct bisector *bs = data;
	struct boot_opts opts[POOL_MAX_SIDES];
	size_t side[POOL_MAX_SIDES + 2], *running = NULL;
	size_t nsides = 0, todo[POOL_MAX_SIDES + 2], ntodo = 0, on[POOL_MAX_SIDES + 2];
	unsigned char started[POOL_MAX_SIDES + 2] = { 0 };
	struct pool p;
	int ret = -1;

	memset(&p, 0, sizeof(p));
	/* one target, or none: one boot after the other */
	if (bs->width <= 1) {
		for (size_t i = 0; i < n; i++)
			if ((rc[i] = bisector_measure(bs, who[i])) < 0)
				return -1;
		return 0;
	}
	if (n > ARRAY_SIZE(side))
		return error("more than %zu boots to start at once", ARRAY_SIZE(side));
	for (size_t i = 0; i < n; i++) {
		struct who *w = bisector_who(bs, who[i]);

		rc[i] = before_boot(bs, w, who[i], ntodo);
		if (rc[i] < 0)
			return -1;
		if (rc[i])
			continue;
		side[i] = nsides;
		for (size_t k = 0; k < i; k++)
			if (!rc[k] && who[k] == who[i])
				side[i] = side[k];
		if (side[i] == nsides) {
			if (nsides == POOL_MAX_SIDES)
				return error("more than %d commits to boot at once", POOL_MAX_SIDES);
			opts[nsides] = bs->bo;
			opts[nsides].kernel = &w->image;
			opts[nsides].guests = &bs->guests;
			opts[nsides].experiment_id = bs->exp_id;
			opts[nsides].variant_id = w->variant_id;
			nsides++;
		}
		todo[ntodo++] = i;
	}
	if (!ntodo)
		return 0;
	/* a batch of several candidates boots for the steps from the next one on */
	for (size_t j = 0, cands = 0; j < ntodo; j++)
		if (who[todo[j]] >= 0 && ++cands == 2)
			bs->batch_first = bs->seq + 1;
	if (pool_init(&p, &bs->ctx->cfg, bs->bo.targets, bs->bo.mem_mib ? bs->bo.mem_mib :
		      bs->ctx->cfg.mem_mib, bs->bo.cpus ? bs->bo.cpus : bs->ctx->cfg.cpus) ||
	    pool_start(&p, bs->ctx, opts, (int)nsides))
		goto out;
	running = xcalloc(p.n, sizeof(*running));
	/* boot j on target j + turn: over the batches, each commit's boots go round the targets */
	for (size_t j = 0; j < ntodo; j++)
		on[j] = (j + bs->turn) % p.n;
	bs->turn++;
	for (size_t done = 0; done < ntodo;) {
		struct pool_done d;
		int taken_out;
		size_t i;

		for (size_t t = 0; t < p.n; t++) {
			size_t j = 0;

			if (p.t[t].busy || p.t[t].out)
				continue;
			/* its own next boot, else one of a target taken out */
			while (j < ntodo && (started[j] || (on[j] != t && !p.t[on[j]].out)))
				j++;
			if (j == ntodo)
				continue;
			if (pool_boot(&p, t, (int)side[todo[j]]))
				goto out;
			started[j] = 1;
			running[t] = todo[j];
		}
		if (pool_wait(&p, &d, &taken_out))
			goto out;
		done++;
		i = running[d.target];
		rc[i] = after_boot(bs, bisector_who(bs, who[i]), who[i], d.run_id, d.status,
				   d.wall_s, d.error, p.t[d.target].t->name);
		if (rc[i] < 0)
			goto out;
		if (taken_out && !pool_live(&p)) {
			error("no target of class '%s' is left", p.class);
			goto out;
		}
	}
	ret = 0;
out:
	free(running);
	pool_release(&p);
	return ret;
}

int bisector_settle_band(struct bisector *bs)
{
	long long runs = 0;
	int virt;

	if (bs->band_settled || bs->band_given || !bs->opt)
		return 0;
	if (store_experiment_runs(&bs->ctx->st, &runs, bs->exp_id))
		return -1;
	if (!runs && !bs->seed)
		return 0;
	virt = runs ? store_experiment_virtual(&bs->ctx->st, bs->exp_id) : 1;
	if (virt < 0)
		return -1;
	if (virt)
		bs->opt->delta = BISECT_VIRTUAL_DELTA;
	bs->band_settled = 1;
	return 0;
}

int bisector_decided(void *data, int who, enum bisect_mark mark, size_t n,
		      const struct stats_hl *hl)
{
	struct bisector *bs = data;
	struct who *w = bisector_who(bs, who);
	char hex[GIT_OID_HEXSZ + 1];
	char *desc = kernel_tree_describe(&bs->t, &w->commit);
	struct bisect_step_row step = { 0, hex, bisect_mark_name(mark), (long long)n, NAN, NAN,
					NAN };

	size_t boots = bs->step_open ? bs->boots - bs->step_boots : 0;
	double secs = bs->step_open ? now_monotonic() - bs->step_start : 0;
	char how[96];

	/* a batch's boots are its first step's; the other steps were booted with it */
	if (!bs->step_open && bs->batch_first && bs->seq + 1 > bs->batch_first)
		snprintf(how, sizeof(how), "booted with step %zu", bs->batch_first);
	else
		snprintf(how, sizeof(how), "%zu boot%s, %.0f s", boots, boots == 1 ? "" : "s", secs);
	/* a skipped step was not measured: no ratio to show */
	if (isfinite(hl->estimate)) {
		char change[64];

		/* the change M/G as lab ab writes one: "+1.1 % [-1.7, +4.0]", "455× [449×, 460×]" */
		textfmt_change(change, sizeof(change), hl->estimate, hl->lo, hl->hi);
		say_wrap("  ", "step %zu: %s is %s (n %zu, M/G %s, 99%% CI; %s)", bs->seq + 1, desc,
			 bisect_mark_name(mark), n, change, how);
	} else {
		say_wrap("  ", "step %zu: %s is %s (n %zu, no ratio; %s)", bs->seq + 1, desc,
			 bisect_mark_name(mark), n, how);
	}
	bs->step_open = 0;
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

/* The commits of the graph as the bisection's candidates. */
void bisector_release(struct bisector *bs)
{
	if (bs->building)
		say("waiting for the build ahead to end");
	builder_finish(bs);
	struct who *all[3] = { &bs->g, &bs->b, &bs->p };
	for (int i = 0; i < 3; i++) {
		for (size_t k = 0; k < all[i]->nplans; k++)
			boot_plan_release(&all[i]->plans[k]);
		free(all[i]->plans);
		kernel_image_release(&all[i]->image);
	}
	for (size_t i = 0; i < bs->ncand; i++) {
		for (size_t k = 0; k < bs->cand[i].nplans; k++)
			boot_plan_release(&bs->cand[i].plans[k]);
		free(bs->cand[i].plans);
		kernel_image_release(&bs->cand[i].image);
	}
	free(bs->cand);
	boot_guests_release(&bs->guests);
	kernel_tree_close(&bs->t);
	if (bs->locked)
		experiment_unlock(bs->ctx);
}

