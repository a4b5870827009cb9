/* The measurements of a bisection: its kernels' builds, boots and steps (bisect-ops.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect-ops.h"
#include "escape.h"
#include "log.h"
#include "store-bisect.h"
#include "store-experiment.h"
#include "subprocess.h"
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
	return bs->bo.workloads->v[0];
}

int bisector_variant(struct bisector *bs, struct who *w)
{
	char hex[GIT_OID_HEXSZ + 1];

	if (w->variant_id)
		return 0;
	git_oid_tostr(hex, sizeof(hex), &w->commit);
	return store_variant_record(&bs->ctx->st, &w->variant_id, bs->exp_id, w->name, hex);
}

/* Virtual time: the bisection's boots so far all ran in icount. */
int bisector_exact(void *data)
{
	struct bisector *bs = data;

	return store_experiment_virtual(&bs->ctx->st, bs->exp_id) == 1;
}

/* Always per-boot medians: lab/plans/bisect.c compares boots, with their spread pooled. */
int bisector_boots(void *data, int who, double **v, size_t *n)
{
	struct bisector *bs = data;
	struct who *w = bisector_who(bs, who);

	*v = NULL;
	*n = 0;
	if (bisector_variant(bs, w))
		return -1;
	return units_boot_medians(v, n, &bs->ctx->st, bs->exp_id, w->variant_id, bs->metric);
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

int bisector_measure(void *data, int who)
{
	struct bisector *bs = data;
	struct who *w = bisector_who(bs, who);
	struct run_result res;
	long long run_id, kernel_id;
	int end = who == BISECT_G || who == BISECT_B;

	if (bisector_variant(bs, w))
		return -1;
	if (who >= 0 && !bs->step_open) {
		bs->step_open = 1;
		bs->step_boots = bs->boots;
		bs->step_start = now_monotonic();
	}
	/* before the build: a budget used up builds nothing more */
	if (bs->max_boots && bs->boots_before + (long long)bs->boots >= bs->max_boots)
		return error("boot budget of %lld boots used up (--max-boots)", bs->max_boots);
	if (!w->image.path && !w->build_failed) {
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
	if (boot_plan_run(&w->plans[w->turn++ % w->nplans], bs->ctx, &run_id, &res)) {
		run_result_release(&res);
		return -1;
	}
	bs->boots++;
	fprintf(stderr, "  boot %s: %s (run %lld, %.1f s)%s%s\n", w->name, run_status_name(res.status),
		run_id, res.wall_s, res.status == RUN_OK ? "" : ": ", res.status == RUN_OK ? "" :
		term_safe(strbuf_str(&res.error)));
	if (res.status != RUN_OK) {
		run_result_release(&res);
		if (++w->failures >= 3)
			return end ? error("the %s end failed to boot 3 times; see 'lab show %lld'",
					   who == BISECT_G ? "good" : "bad", run_id) : 1;
		return 0;
	}
	run_result_release(&res);
	if (bisector_settle_band(bs))
		return -1;
	return check_reported(bs, w, who, run_id);
}

int bisector_settle_band(struct bisector *bs)
{
	long long runs = 0;
	int virt;

	if (bs->band_settled || bs->band_given || !bs->opt)
		return 0;
	if (store_experiment_runs(&bs->ctx->st, &runs, bs->exp_id))
		return -1;
	if (!runs)
		return 0;
	virt = store_experiment_virtual(&bs->ctx->st, bs->exp_id);
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

	/* a skipped step was not measured: no ratio to show */
	if (isfinite(hl->estimate))
		fprintf(stderr, "step %zu: %s is %s (n %zu, M/G %.4f, 99%% CI [%.4f, %.4f]; "
			"%zu boot%s, %.0f s)\n", bs->seq + 1, desc, bisect_mark_name(mark), n,
			hl->estimate, hl->lo, hl->hi, boots, boots == 1 ? "" : "s", secs);
	else
		fprintf(stderr, "step %zu: %s is %s (n %zu, no ratio; %zu boot%s, %.0f s)\n",
			bs->seq + 1, desc, bisect_mark_name(mark), n, boots, boots == 1 ? "" : "s",
			secs);
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

