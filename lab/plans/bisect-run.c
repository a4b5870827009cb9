/*
 * The bisect driver (bisect-run.h): git, builds, boots and storage around
 * the algorithm of lab/plans/bisect.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect-git.h"
#include "bisect-ops.h"
#include "bisect-run.h"
#include "explain.h"
#include "gitutil.h"
#include "host.h"
#include "log.h"
#include "say.h"
#include "store-bisect.h"
#include "store-experiment.h"
#include "tempfile.h"
#include "textfmt.h"
#include "units.h"
#include "xalloc.h"

static void take_candidates(struct bisector *bs, const git_oid *ids, size_t n)
{
	bs->cand = xcalloc(n, sizeof(*bs->cand));
	bs->ncand = n;
	for (size_t i = 0; i < n; i++) {
		bs->cand[i].commit = ids[i];
		git_oid_tostr(bs->cand[i].name, 13, &ids[i]);
	}
}

/*
 * The direction of the metric bisected, from what its boots stored: the
 * good end is booted once first when it has no boot yet (G->B would boot
 * it anyway), since only a boot tells what a user's program announces.
 */
static int settle_direction(struct bisector *bs, struct bisect_options *opt)
{
	struct strvec higher = STRVEC_INIT;
	double *v = NULL;
	size_t n = 0;
	int ret = -1;

	if (bisector_boots(bs, BISECT_G, &v, &n))
		goto out;
	if (!n && bisector_measure(bs, BISECT_G))
		goto out;
	if (store_experiment_higher_better(&bs->ctx->st, bs->exp_id, &higher))
		goto out;
	opt->direction = units_direction(&higher, NULL, bs->metric);
	if (opt->direction == STATS_HIGHER_IS_BETTER)
		say("%s: higher is better (its samples say so): a drop is the regression",
		    bs->metric);
	ret = 0;
out:
	free(v);
	strvec_release(&higher);
	return ret;
}

/*
 * Compare every metric G -> B on the boots so far: 1 when one regressed
 * (the largest is kept in bs->metric), 0 when none did, with *unclear
 * set when some metric could still turn out to.
 */
static int compare_ends(struct bisector *bs, double alpha, double delta, int *unclear)
{
	struct units_comparison *c;
	size_t n, boots;
	double best = 0;
	char ci[32], change[64];

	*unclear = 0;
	/* each metric judged the way it is better, as lab ab judges it */
	if (units_compare_variants(&c, &n, &boots, &bs->ctx->st, bs->exp_id, bs->g.variant_id,
				   bs->b.variant_id, alpha, delta))
		return -1;
	say("good -> bad, per metric (%zu boots a side):", boots);
	stats_ci_label(ci, sizeof(ci), alpha);
	for (size_t i = 0; i < n; i++) {
		textfmt_change(change, sizeof(change), c[i].c.ratio, c[i].c.lo, c[i].c.hi);
		say("  %-32s %s (%s) %s", c[i].metric, change, ci,
		    verdict_name(c[i].c.verdict));
		/* the largest either way: a halving is as large as a doubling */
		if (c[i].c.verdict == VERDICT_REGRESSION && c[i].c.ratio > 0 &&
		    fabs(log(c[i].c.ratio)) > best) {
			best = fabs(log(c[i].c.ratio));
			snprintf(bs->metric, sizeof(bs->metric), "%s", c[i].metric);
		}
		*unclear |= c[i].c.verdict == VERDICT_INCONCLUSIVE;
	}
	free(c);
	return best > 0;
}

/*
 * Without a metric: measure both ends and take the metric with the largest
 * significant regression. While none has regressed and some metric is
 * still INCONCLUSIVE, the ends get more boots on the adaptive schedule
 * (2, 4, 8, 16 a side, with its per-look alpha) before giving up. A
 * resumed bisection starts from the boots a side the ends already have.
 */
static int choose_metric(struct bisector *bs, const struct bisect_options *opt)
{
	struct stats_schedule sched = { opt->start, opt->effect_cap, opt->alpha };
	double alpha = stats_schedule_alpha(&sched);
	size_t level, have, more_g, more_b;

	if (bisector_variant(bs, &bs->g) || bisector_variant(bs, &bs->b) ||
	    units_common_boots(&have, &bs->ctx->st, bs->exp_id, bs->g.variant_id,
			       bs->b.variant_id))
		return -1;
	/* nothing seen is inconclusive: the schedule's first look */
	stats_schedule_next(&more_g, &more_b, &sched, 0, 0, VERDICT_INCONCLUSIVE);
	level = more_g;
	for (;;) {
		int unclear, r;

		/* ABBA, as every other comparison; on two targets or more, both at once */
		for (; have < level; have++) {
			int who[2] = { have & 1 ? BISECT_B : BISECT_G, have & 1 ? BISECT_G : BISECT_B };
			int rc[2];

			if (bisector_measure_many(bs, who, 2, rc) || rc[0] || rc[1])
				return -1;
		}
		r = compare_ends(bs, alpha, opt->delta, &unclear);
		if (r)
			return r < 0 ? -1 : 0;
		/* no metric regressed: the schedule goes on while one is still unclear */
		if (!stats_schedule_next(&more_g, &more_b, &sched, level, level,
					 unclear ? VERDICT_INCONCLUSIVE : VERDICT_SAME))
			return 0;
		level += more_g;
	}
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
		say("culprit^ or the culprit does not build or boot: no confirmation");
	return ret;
}

/*
 * The guest program a resume would run, as the database names it, against
 * the one the caller names now (NULL both: the default, the lab's guest or
 * the build's artifact). Whoever can write the database must not choose a
 * program to run: a difference is refused, naming both.
 */
static int same_guest(long long id, const char *stored, const char *now)
{
	if (!strcmp(stored ? stored : "", now ? now : ""))
		return 0;
	return error("cannot resume bisection E%lld: its guest program is '%s' in the database, "
		     "'%s' now: a program is run only as lab.conf or the command line names it",
		     id, stored ? stored : "(the default)",
		     now ? now : "(the default)");
}

/* What over() reads of a stored bisection: its outcome and metric. */
struct stored_end {
	struct strbuf outcome, metric;
};

static int read_end(const struct bisection_status *b, void *data)
{
	struct stored_end *e = data;

	strbuf_addstr(&e->outcome, b->outcome ? b->outcome : "");
	strbuf_addstr(&e->metric, b->metric ? b->metric : "");
	return 0;
}

/*
 * A bisection that ended FAILED is over: a resume would boot an end that
 * reports no sample of the metric once more, for nothing. -1 after a
 * line saying so.
 */
static int over(struct store *st, long long id)
{
	struct stored_end e = { STRBUF_INIT, STRBUF_INIT };
	int ret = store_bisection_read(st, id, read_end, &e);

	if (!ret && !strcmp(e.outcome.buf, bisect_verdict_name(BISECT_FAILED)))
		ret = error("bisection E%lld is over: it ended FAILED, a boot of an end reported "
			    "no '%s' ('lab bisect --status %lld'); start a new one", id,
			    e.metric.buf, id);
	strbuf_release(&e.outcome);
	strbuf_release(&e.metric);
	return ret;
}

/* A new bisection's first line, with the command that would resume it. */
static void started(long long id, const char *resume)
{
	struct strbuf lead = STRBUF_INIT, cmd = STRBUF_INIT;

	strbuf_addf(&lead, "bisection E%lld started", id);
	if (resume) {
		strbuf_addstr(&lead, "; continue it, if it stops, with: ");
		strbuf_addf(&cmd, "%s E%lld", resume, id);
		say_command(lead.buf, cmd.buf);
	} else {
		say("%s", lead.buf);
	}
	strbuf_release(&lead);
	strbuf_release(&cmd);
}

/*
 * Create the bisection of the resolved ends good..bad with its spec (row)
 * or take up the stored one (resume). *bisection_id once this lab owns it.
 */
static int start(struct bisector *bs, const struct bisect_spec *spec,
		 const struct bisect_spec_row *row, const char *good, const char *bad,
		 long long resume, long long *bisection_id)
{
	if (resume) {
		struct strbuf metric = STRBUF_INIT;
		int ret;

		if (over(&bs->ctx->st, resume))
			return -1;
		bs->exp_id = resume;
		/* one lab per bisection: claimed before its runs are touched */
		if (experiment_lock(bs->ctx, bs->exp_id))
			return -1;
		bs->locked = 1;
		if (bisection_id)
			*bisection_id = bs->exp_id;
		ret = store_bisection_resume(&bs->ctx->st, &metric, &bs->per_boot, bs->exp_id);
		snprintf(bs->metric, sizeof(bs->metric), "%s", metric.buf);
		strbuf_release(&metric);
		if (ret)
			return -1;
		return store_experiment_resumed(&bs->ctx->st, bs->exp_id) ||
		       store_runs_interrupted(&bs->ctx->st, bs->exp_id) ||
		       store_experiment_runs(&bs->ctx->st, &bs->boots_before, bs->exp_id) ? -1 : 0;
	}
	if (store_bisection_create(&bs->ctx->st, &bs->exp_id, spec->command, good, bad, row))
		return -1;
	if (spec->metric)
		snprintf(bs->metric, sizeof(bs->metric), "%s", spec->metric);
	started(bs->exp_id, spec->resume_command);
	if (experiment_lock(bs->ctx, bs->exp_id))
		return -1;
	bs->locked = 1;
	if (bisection_id)
		*bisection_id = bs->exp_id;
	return 0;
}

/* The row a bisection's outcome is stored as; the caller sets its outcome. */
static struct bisection_outcome stored_outcome(const struct bisector *bs,
					       const struct bisect_result *r, const char *culprit)
{
	return (struct bisection_outcome){
		.metric = bs->metric, .per_boot = bs->per_boot, .culprit = culprit,
		.effect = r->effect.estimate, .effect_lo = r->effect.lo,
		.effect_hi = r->effect.hi, .effect_alpha = r->effect_alpha,
	};
}

/* The outcome, as stored and as the caller reads it. */
static int finish(struct bisector *bs, const struct bisect_result *r, struct bisect_outcome *out)
{
	struct bisection_outcome o = stored_outcome(bs, r, r->found ? out->culprit : NULL);

	snprintf(out->metric, sizeof(out->metric), "%s", bs->metric);
	out->effect = r->effect;
	out->effect_alpha = r->effect_alpha;
	out->effect_boots = r->effect_boots;
	out->steps = r->steps;
	out->builds = bs->builds;
	out->boots = bs->boots;
	if (r->no_regression)
		out->verdict = r->inconclusive ? BISECT_INCONCLUSIVE : BISECT_NO_REGRESSION;
	else if (!r->found)
		out->verdict = BISECT_CANDIDATES;
	else
		out->verdict = out->confirmed && out->confirmation.more_than_one ? BISECT_UNCLEAR :
			       BISECT_FOUND;
	/* stored as it always was: INCONCLUSIVE ends are NO_REGRESSION there */
	o.outcome = out->verdict == BISECT_INCONCLUSIVE ? "NO_REGRESSION" :
		    bisect_verdict_name(out->verdict);
	if (r->found) {
		git_commit *c = NULL;
		const git_oid *id = &bs->cand[r->culprit].commit;

		git_oid_tostr(out->culprit, sizeof(out->culprit), id);
		if (!git_commit_lookup(&c, bs->t.repo, id)) {
			const git_signature *a = git_commit_author(c);
			strbuf_addstr(&out->subject, git_commit_summary(c));
			strbuf_addf(&out->author, "%s <%s>", a->name, a->email);
			git_commit_free(c);
		}
	}
	for (size_t i = 0; !r->found && !r->no_regression && i < r->nremaining; i++) {
		char *d = kernel_tree_describe(&bs->t, &bs->cand[r->remaining[i]].commit);
		strvec_push(&out->candidates, d);
		free(d);
	}
	if (store_bisection_finish(&bs->ctx->st, bs->exp_id, &o))
		return -1;
	return store_experiment_done(&bs->ctx->st, bs->exp_id);
}

/*
 * An end that boots well and reports no sample of the metric would do so
 * at every resume, a boot more each time: the bisection ends FAILED (its
 * metric kept), never RUNNING, and a resume says it is over (over()).
 */
static int end_failed(struct bisector *bs, struct bisect_outcome *out)
{
	struct bisect_result none;
	struct bisection_outcome o;

	memset(&none, 0, sizeof(none));
	none.effect.estimate = none.effect.lo = none.effect.hi = none.effect_alpha = NAN;
	o = stored_outcome(bs, &none, NULL);
	o.outcome = bisect_verdict_name(BISECT_FAILED);
	if (out) {
		out->verdict = BISECT_FAILED;
		snprintf(out->metric, sizeof(out->metric), "%s", bs->metric);
	}
	return store_bisection_finish(&bs->ctx->st, bs->exp_id, &o) ||
	       store_experiment_done(&bs->ctx->st, bs->exp_id) ? -1 : 0;
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
		say("bisecting %s", bs->metric);
		if (store_bisection_set_metric(st, bs->exp_id, bs->metric))
			return -1;
	}
	/* every decision of lab/plans/bisect.c compares per-boot medians */
	bs->per_boot = 1;
	return store_bisection_set_per_boot(st, bs->exp_id, bs->per_boot);
}

/* What both bisect_run() and bisect_run_step() check and set up first. */
static int bisector_setup(struct bisector *bs, struct lab_context *ctx,
			  const struct bisect_spec *spec, struct bisect_options *opt)
{
	if (!spec->good || !spec->bad || !spec->boot.workloads || !spec->boot.workloads->specs.nr)
		return error("a bisection needs a good and a bad ref and a workload");
	/* before a build: what goes on the kernel command line is the same for every commit */
	if (boot_opts_check_targets(&spec->boot, &ctx->cfg) ||
	    boot_opts_check_cmdline(&spec->boot, &ctx->cfg) ||
	    (spec->metric && bisect_spec_metric_check(&bs->metric_unknown, ctx, spec)))
		return -1;
	if (spec->alpha) {
		if (!(spec->alpha > 0 && spec->alpha < 1))
			return error("bad alpha %g for a bisection (between 0 and 1)", spec->alpha);
		opt->alpha = spec->alpha;
	}
	if (spec->delta) {
		if (!(spec->delta > 0 && spec->delta < 1))
			return error("bad delta %g for a bisection (between 0 and 1)", spec->delta);
		opt->delta = spec->delta;
	}
	bs->opt = opt;
	bs->band_given = spec->delta > 0;
	bs->ctx = ctx;
	bs->bo = spec->boot;
	/* kept with the bisection even when it came from lab.conf: a resume measures in it */
	if (!bs->bo.clock)
		bs->bo.clock = config_clock_name(ctx->cfg.clock);
	bs->spec.arch = spec->arch ? spec->arch : host_arch();
	bs->spec.fragments = spec->fragments;
	bs->repo = spec->repo;
	snprintf(bs->g.name, sizeof(bs->g.name), "G");
	snprintf(bs->b.name, sizeof(bs->b.name), "B");
	return kernel_tree_open_for(&bs->t, ctx, spec->repo);
}

int bisect_run(struct lab_context *ctx, const struct bisect_spec *spec,
	       long long *bisection_id, struct bisect_outcome *out)
{
	struct bisect_options opt = BISECT_OPTIONS_INIT;
	struct bisect_ops ops = { bisector_boots, bisector_measure, bisector_decided, NULL,
				  bisector_exact, bisector_ahead, NULL, 0 };
	struct bisector bs;
	struct bisect_graph g;
	struct bisect_result r;
	struct bisect_spec_row row;
	struct bisect_stored_spec stored;
	char good[GIT_OID_HEXSZ + 1], bad[GIT_OID_HEXSZ + 1];
	git_oid *ids = NULL;
	int ret = -1, c;

	memset(&bs, 0, sizeof(bs));
	memset(&g, 0, sizeof(g));
	memset(&r, 0, sizeof(r));
	memset(&stored, 0, sizeof(stored));
	bisect_spec_row_init(&row);
	bisect_outcome_init(out);
	ops.data = &bs;
	if (bisection_id)
		*bisection_id = 0;
	if (spec->resume) {
		long long raise = spec->max_boots;

		if (bisect_spec_load(&stored, &ctx->st, spec->resume) ||
		    same_guest(spec->resume, stored.spec.boot.guest, spec->boot.guest))
			goto out;
		spec = &stored.spec;
		if (raise)
			stored.spec.max_boots = raise;
	}
	if (bisector_setup(&bs, ctx, spec, &opt))
		goto out;
	/* the range is walked before anything is stored: one too large is refused first */
	if (bisect_spec_to_row(&row, spec, &bs.bo) ||
	    bisect_git_ends(&bs.g.commit, &bs.b.commit, good, bad, &bs.t, spec->good, spec->bad) ||
	    bisect_git_descends(&bs.t, &bs.g.commit, &bs.b.commit, spec->good, spec->bad) ||
	    bisect_graph_build(&g, &ids, bs.t.repo, &bs.g.commit, &bs.b.commit, spec->good,
			       spec->bad) ||
	    start(&bs, spec, &row, good, bad, spec->resume, bisection_id))
		goto out;
	take_candidates(&bs, ids, g.n);
	c = bisector_width(&bs);
	if (c < 0)
		goto out;
	/* with --targets, a step tests as many commits as there are targets */
	bs.width = (size_t)c;
	if (c > 1) {
		ops.measure_many = bisector_measure_many;
		ops.width = bs.width;
	}
	bs.max_boots = spec->max_boots ? spec->max_boots : bisect_default_budget(bs.ncand, &opt);
	if (bisector_take_seed(&bs, spec->seed) || bisector_settle_band(&bs))
		goto out;
	switch (settle_metric(&bs, &opt)) {
	case 0:
		break;
	case 1:
		out->delta = opt.delta;
		out->verdict = BISECT_NO_REGRESSION;
		out->boots = bs.boots;
		if (store_bisection_no_regression(&ctx->st, bs.exp_id) ||
		    store_experiment_done(&ctx->st, bs.exp_id))
			goto out;
		ret = 0;
		goto out;
	default:
		goto out;
	}
	if (settle_direction(&bs, &opt) || bisect_search(&r, &g, &opt, &ops))
		goto out;
	out->delta = opt.delta;
	/* the outcome is stored after the check: FOUND only for a confirmed culprit */
	if (r.found) {
		if ((c = confirm(&out->confirmation, &bs, &ops, &r)) < 0)
			goto out;
		out->confirmed = c == 0;
	}
	/* the check measured G->B again on every boot of the ends: the sharper estimate */
	if (out->confirmed) {
		r.effect = out->confirmation.effect;
		r.effect_alpha = 0.01;
	}
	if (finish(&bs, &r, out))
		goto out;
	if (out->verdict == BISECT_FOUND && bs.p.image.path && bs.cand[r.culprit].nplans)
		explain_culprit(ctx, &bs.p.image, &bs.cand[r.culprit].image, &bs.bo,
				bs.cand[r.culprit].plans[0].clock.buf, bs.metric, bs.exp_id);
	ret = 0;
out:
	if (ret && bs.cannot_finish && bs.exp_id && bs.locked)
		end_failed(&bs, out);
	/* stopped by a signal the command defers: marked, for the command to say how it goes on */
	else if (ret && fatal_signal_pending() && bs.exp_id && bs.locked &&
		 store_experiment_interrupted(&ctx->st, bs.exp_id))
		out->unmarked = 1;
	free(ids);
	bisect_result_release(&r);
	bisect_graph_release(&g);
	bisector_release(&bs);
	bisect_spec_row_release(&row);
	bisect_stored_spec_release(&stored);
	return ret;
}

/* the last step stored */
static int last_seq(const struct bisect_step_row *s, void *data)
{
	long long *seq = data;

	if (s->seq > *seq)
		*seq = s->seq;
	return 0;
}

/*
 * git bisect run learns a step's mark from the exit code, the bisection
 * from its stored step. When the marks end the search (bisect-git.h), the
 * first bad commit, or those skips leave, is stored as the outcome, for
 * --status and the report, after a `git bisect reset` too; unconfirmed.
 */

static int record_step(struct bisector *bs, const struct bisect_result *r,
		       const struct bisect_step_outcome *o)
{
	char hex[GIT_OID_HEXSZ + 1], culprit[GIT_OID_HEXSZ + 1];
	struct bisect_step_row step = { 0, hex, bisect_mark_name(o->mark), (long long)o->n,
					o->ratio.estimate, o->ratio.lo, o->ratio.hi };
	struct bisection_outcome done = stored_outcome(bs, r, culprit);
	int over;

	git_oid_tostr(hex, sizeof(hex), &bs->cand[0].commit);
	if (store_bisect_steps(&bs->ctx->st, bs->exp_id, last_seq, &step.seq))
		return -1;
	step.seq++;
	if (store_bisect_step(&bs->ctx->st, bs->exp_id, &step))
		return -1;
	over = bisect_git_conclude(culprit, &bs->ctx->st, bs->exp_id, bs->t.repo, &bs->g.commit,
				   &bs->b.commit);
	if (over <= 0)
		return over;
	if (!*culprit)
		done.culprit = NULL;
	done.outcome = bisect_verdict_name(*culprit ? BISECT_FOUND : BISECT_CANDIDATES);
	say("bisection E%lld: %s%s%s ('lab bisect --status %lld')", bs->exp_id, done.outcome,
	    *culprit ? ", culprit " : "", culprit, bs->exp_id);
	return store_bisection_finish(&bs->ctx->st, bs->exp_id, &done) ||
	       store_experiment_done(&bs->ctx->st, bs->exp_id) ? -1 : 0;
}

int bisect_run_step(struct lab_context *ctx, const struct bisect_spec *spec, const char *ref,
		    long long *bisection_id, struct bisect_step_outcome *out)
{
	struct bisect_options opt = BISECT_OPTIONS_INIT;
	struct bisect_ops ops = { bisector_boots, bisector_measure, NULL, NULL, bisector_exact,
				  NULL, NULL, 0 };
	struct bisector bs;
	struct bisect_result r;
	struct bisect_spec_row row;
	char good[GIT_OID_HEXSZ + 1], bad[GIT_OID_HEXSZ + 1];
	long long id = 0;
	git_oid tree;
	int ret = -1;

	memset(&bs, 0, sizeof(bs));
	memset(&r, 0, sizeof(r));
	bisect_spec_row_init(&row);
	memset(out, 0, sizeof(*out));
	out->ratio.estimate = out->ratio.lo = out->ratio.hi = NAN;
	out->effect = out->ratio;
	out->mark = BISECT_SKIP;
	ops.data = &bs;
	if (bisection_id)
		*bisection_id = 0;
	if (bisector_setup(&bs, ctx, spec, &opt))
		goto out;
	if (bisect_spec_to_row(&row, spec, &bs.bo) ||
	    bisect_git_ends(&bs.g.commit, &bs.b.commit, good, bad, &bs.t, spec->good, spec->bad) ||
	    store_bisection_by_spec(&ctx->st, &id, &row, good, bad) ||
	    (!id && bisect_git_descends(&bs.t, &bs.g.commit, &bs.b.commit, spec->good,
					spec->bad)) ||
	    start(&bs, spec, &row, good, bad, id, bisection_id) || bisector_settle_band(&bs))
		goto out;
	/* each step of git bisect run has a budget of its own */
	bs.boots_before = 0;
	bs.max_boots = spec->max_boots ? spec->max_boots : bisect_default_budget(1, &opt);
	bs.cand = calloc(1, sizeof(*bs.cand));
	if (!bs.cand)
		goto out;
	bs.ncand = 1;
	if (kernel_tree_resolve(&bs.cand[0].commit, &tree, &bs.t, ref))
		goto out;
	git_oid_tostr(bs.cand[0].name, 13, &bs.cand[0].commit);
	snprintf(out->commit, sizeof(out->commit), "%s", bs.cand[0].name);
	switch (settle_metric(&bs, &opt)) {
	case 0:
		break;
	case 1:
		error("no metric regressed beyond the %g %% band from good to bad (--delta sets it): "
		      "nothing to bisect",
		      100 * opt.delta);
		goto out;
	default:
		goto out;
	}
	if (settle_direction(&bs, &opt) || bisect_effect(&r, &opt, &ops))
		goto out;
	out->effect = r.effect;
	if (r.no_regression) {
		char ci[32], change[64];

		stats_ci_label(ci, sizeof(ci), r.effect_alpha);
		textfmt_change(change, sizeof(change), r.effect.estimate, r.effect.lo, r.effect.hi);
		error("%s between good and bad (%s, %s; %zu boots a side): nothing to bisect",
		      r.inconclusive ? "no clear regression" : "no regression", change, ci,
		      r.effect_boots);
		goto out;
	}
	if (bisect_classify(&out->mark, &out->ratio, &out->n, &opt, &ops, 0, r.log_effect) ||
	    record_step(&bs, &r, out))
		goto out;
	ret = 0;
out:
	if (ret && bs.cannot_finish && bs.exp_id && bs.locked)
		end_failed(&bs, NULL);
	bisect_result_release(&r);
	bisector_release(&bs);
	bisect_spec_row_release(&row);
	return ret;
}
