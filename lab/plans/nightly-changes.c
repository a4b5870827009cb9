/*
 * A night's changes (nightly-changes.h): change points and suspects of each
 * series, each new one confirmed by an interleaved A/B, a confirmed
 * regression bisected.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "say.h"
#include "textfmt.h"
#include "ab.h"
#include "bisect-run.h"
#include "changepoint.h"
#include "log.h"
#include "nightly-changes.h"
#include "nightly-night.h"
#include "store-bisect.h"
#include "store-experiment.h"
#include "store-nightly.h"
#include "store-verdict.h"
#include "strbuf.h"
#include "strvec.h"
#include "tempfile.h"
#include "xalloc.h"

/* E-divisive looks at this many newest points of a series each night. */
#define NIGHTLY_TAIL 100
/* A confirming A/B stops at this many boots a side (the adaptive schedule's cap). */
#define CONFIRM_MAX_BOOTS 20

/*
 * What `lab list` and the reports show for a confirmation and a bisection:
 * the lab nightly command as it was typed, which started them, and after
 * it a shell comment saying which part of the night they are (a newline
 * in it would end the comment: it becomes a space). A killed night finds
 * them again by what they measure (their stored spec), not by these words.
 */
static void night_command(struct strbuf *sb, struct night *nt, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void night_command(struct strbuf *sb, struct night *nt, const char *fmt, ...)
{
	va_list ap;
	size_t start;

	strbuf_addf(sb, "%s  # nightly %s: ", nt->command, nt->n->name);
	start = sb->len;
	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
	for (size_t i = start; i < sb->len; i++)
		if (sb->buf[i] == '\n' || sb->buf[i] == '\r')
			sb->buf[i] = ' ';
}

static void confirm_command(struct strbuf *sb, struct night *nt, const struct nightly_series *s,
			    const struct nightly_change *c)
{
	night_command(sb, nt, "confirm %s %ldM cmdline='%s' %.12s..%.12s", s->workload,
		      s->mem_mib, s->cmdline, c->before, c->after);
}

static void bisect_command(struct strbuf *sb, struct night *nt, const struct nightly_series *s,
			   const struct nightly_change *c)
{
	night_command(sb, nt, "bisect %s %.12s..%.12s", s->series, c->before, c->after);
}

/*
 * The confirming A/B: before against after on the same host, interleaved,
 * with lab ab's schedule. An A/B of the same spec already stored (this
 * night's killed one, or a finished one) is continued or taken as it is,
 * as `lab recipe --resume` does. 0 with the verdict stored, 1
 * infrastructure, -1 error.
 */
static int confirm(struct night *nt, const struct nightly_series *s, struct nightly_change *c)
{
	struct strbuf cmd = STRBUF_INIT;
	struct workload_list wl = WORKLOAD_LIST_INIT;
	struct verdict_row v;
	struct ab_opts o;
	struct kernel_image image[2];
	long long exp_id = 0;
	long mem = s->mem_mib, cpus = nt->ctx->cfg.cpus;
	int done = 0, found, ret = -1, r;

	kernel_image_init(&image[0]);
	kernel_image_init(&image[1]);
	/* the images are part of the spec: a build is a cache hit once built */
	for (int side = 0; side < 2; side++) {
		r = night_build(nt, &image[side], side ? c->after : c->before);
		if (r && fatal_signal_pending())
			night_stopped(nt, "confirms %.12s..%.12s by an A/B", c->before, c->after);
		if (r) {
			if (r > 0)
				night_infra(nt, "%.12s built last night and does not now",
				      side ? c->after : c->before);
			ret = 1;
			goto out;
		}
	}
	confirm_command(&cmd, nt, s, c);
	if (workloads_parse(&wl, s->workload))
		goto out;
	memset(&o, 0, sizeof(o));
	o.v[0] = (struct ab_variant){ &image[0], s->cmdline, c->before };
	o.v[1] = (struct ab_variant){ &image[1], s->cmdline, c->after };
	night_boot_opts(&o.boot, nt, &wl, NULL, NULL, 0);
	o.mems = &mem;
	o.nmems = 1;
	o.cpus = &cpus;
	o.ncpus = 1;
	o.max_boots = CONFIRM_MAX_BOOTS;
	o.alpha = 0.05;
	/* a night's commits are many: the wall's band unless [nightly] delta says */
	o.delta = nt->n->delta ? nt->n->delta : STATS_DELTA_WALL;
	o.command = cmd.buf;
	if (ab_find(&exp_id, &done, nt->ctx, &o))
		goto out;
	if (!done) {
		o.resume = exp_id;
		say_to(nt->out, "confirming %s: %.12s against %.12s, interleaved%s",
			s->series, c->before, c->after, exp_id ? " (continued)" : "");
		r = ab_run(&exp_id, nt->ctx, &o);
		experiment_unlock(nt->ctx);
		if (r == AB_INTERRUPTED)
			night_stopped(nt, "goes on with A/B E%lld (%.12s..%.12s)", exp_id, c->before,
				      c->after);
		if (r == AB_ERROR || r == AB_INTERRUPTED) {
			night_infra(nt, "the confirming A/B of %.12s..%.12s stopped (the reason is above)",
			      c->before, c->after);
			ret = 1;
			goto out;
		}
	}
	if (store_verdict_get(&nt->ctx->st, &v, &found, exp_id, s->workload, s->metric, mem, cpus))
		goto out;
	if (!found)
		snprintf(v.verdict, sizeof(v.verdict), "INCONCLUSIVE");
	if (store_nightly_change_confirmed(&nt->ctx->st, c->id, exp_id, v.verdict))
		goto out;
	snprintf(c->verdict, sizeof(c->verdict), "%s", v.verdict);
	c->ab_experiment = exp_id;
	if (found) {
		char change[96];

		textfmt_change(change, sizeof(change), v.ratio, v.ci_low, v.ci_high);
		say_to(nt->out, "  E%lld: %s %s", exp_id, v.verdict, change);
	} else {
		say_to(nt->out, "  E%lld: no verdict for %s.%s", exp_id, s->workload,
			s->metric);
	}
	ret = 0;
out:
	kernel_image_release(&image[0]);
	kernel_image_release(&image[1]);
	strbuf_release(&cmd);
	workload_list_release(&wl);
	return ret;
}

/*
 * The bisection stored with this spec (its bisect_specs row, as the driver
 * writes it: the clock the config gives when the nightly names none), to
 * continue: *id 0 when none.
 */
static int bisection_find(long long *id, struct night *nt, const struct bisect_spec *spec)
{
	struct bisect_spec_row row;
	struct boot_opts bo = spec->boot;
	int ret;

	if (!bo.clock)
		bo.clock = config_clock_name(nt->ctx->cfg.clock);
	bisect_spec_row_init(&row);
	/* the night's ends are commit ids already */
	ret = bisect_spec_to_row(&row, spec, &bo) ||
	      store_bisection_by_spec(&nt->ctx->st, id, &row, spec->good, spec->bad) ? -1 : 0;
	bisect_spec_row_release(&row);
	return ret;
}

/* A confirmed regression, bisected within the budget. 0, 1 infrastructure, -1 error. */
static int bisect(struct night *nt, const struct nightly_series *s, struct nightly_change *c)
{
	struct bisect_spec spec = BISECT_SPEC_INIT;
	struct bisect_outcome out;
	struct strbuf cmd = STRBUF_INIT;
	struct workload_list wl = WORKLOAD_LIST_INIT;
	struct nightly_change done;
	long long id = 0, bid = 0;
	int ret = -1, found;

	bisect_outcome_init(&out);
	/*
	 * Every metric of the workload is measured by the same boots and
	 * confirmed by the same A/B: a culprit one bisection found between
	 * these commits is the others' too, without bisecting again.
	 */
	if (store_nightly_change_found_by_ab(&nt->ctx->st, &done, &found, nt->n->name,
					     c->ab_experiment))
		goto out;
	if (found && !strcmp(done.before, c->before) && !strcmp(done.after, c->after)) {
		if (store_nightly_change_bisected(&nt->ctx->st, c->id, done.bisection, done.culprit,
						  done.outcome))
			goto out;
		c->bisection = done.bisection;
		snprintf(c->culprit, sizeof(c->culprit), "%s", done.culprit);
		snprintf(c->outcome, sizeof(c->outcome), "%s", done.outcome);
		say_to(nt->out, "%s: E%lld, bisected on another metric: %s, culprit %s",
			s->series, done.bisection, done.outcome, done.culprit);
		ret = 0;
		goto out;
	}
	bisect_command(&cmd, nt, s, c);
	if (workloads_parse(&wl, s->workload))
		goto out;
	spec.good = c->before;
	spec.bad = c->after;
	spec.repo = nt->mirror.buf;
	spec.metric = s->metric;
	night_boot_opts(&spec.boot, nt, &wl, NULL, s->cmdline, s->mem_mib);
	spec.max_boots = nt->n->bisect_budget;
	spec.delta = nt->n->delta;
	/* the ends as the confirming A/B booted them, when in virtual time */
	spec.seed = c->ab_experiment;
	spec.command = cmd.buf;
	/* a resume reads the rest of the spec back from the bisection's row */
	if (bisection_find(&id, nt, &spec))
		goto out;
	spec.resume = id;
	say_to(nt->out, "bisecting %s between %.12s and %.12s", s->series, c->before,
		c->after);
	if (bisect_run(nt->ctx, &spec, &bid, &out)) {
		if (fatal_signal_pending())
			night_stopped(nt, "goes on with bisection E%lld (%.12s..%.12s)", bid ? bid : id,
				      c->before, c->after);
		night_infra(nt, "the bisection of %.12s..%.12s stopped (the reason is above); it resumes "
		      "next night", c->before, c->after);
		ret = 1;
		goto out;
	}
	if (store_nightly_change_bisected(&nt->ctx->st, c->id, bid, out.culprit,
					  bisect_verdict_name(out.verdict)))
		goto out;
	c->bisection = bid;
	snprintf(c->culprit, sizeof(c->culprit), "%s", out.culprit);
	snprintf(c->outcome, sizeof(c->outcome), "%s", bisect_verdict_name(out.verdict));
	if (*out.culprit)
		say_to(nt->out, "  E%lld: %s, culprit %s\n  subject: %s\n  author: %s", bid,
			c->outcome, out.culprit, strbuf_str(&out.subject),
			strbuf_str(&out.author));
	else
		say_to(nt->out, "  E%lld: %s, no culprit", bid, c->outcome);
	ret = 0;
out:
	bisect_outcome_release(&out);
	strbuf_release(&cmd);
	workload_list_release(&wl);
	return ret;
}

struct candidate {
	size_t before, after;
	const char *kind;
	double ratio;
};

/* Change points and a suspect of one series; each new one confirmed, a regression bisected. */
int night_analyse(const struct nightly_series *s, void *data)
{
	struct night *nt = data;
	struct changepoint_opts opt = CHANGEPOINT_OPTS_INIT;
	struct changepoint *cps = NULL, sus;
	struct strvec commits = STRVEC_INIT;
	struct strbuf last = STRBUF_INIT, last_refuted = STRBUF_INIT;
	struct candidate *cand = NULL;
	size_t n = 0, ncps = 0, ncand = 0, start = 0, refuted = 0, from, i;
	double *x = NULL;
	int ret = -1, r;

	if (nt->n->delta)
		opt.delta = nt->n->delta;
	if (store_nightly_points(&nt->ctx->st, &x, &n, &commits, nt->n->name, s->series) ||
	    store_nightly_change_last(&nt->ctx->st, &last, nt->n->name, s->series, 1) ||
	    store_nightly_change_last(&nt->ctx->st, &last_refuted, nt->n->name, s->series, 0))
		goto out;
	for (i = 0; i < n; i++) {
		if (last.len && !strcmp(commits.v[i], last.buf))
			start = i;
		if (last_refuted.len && !strcmp(commits.v[i], last_refuted.buf))
			refuted = i;
	}
	/*
	 * The newest confirmed change is where the search starts: a regression
	 * there whose bisection a killed or stopped night left is finished first.
	 */
	if (last.len) {
		struct nightly_change c;
		int found;

		if (store_nightly_change_get(&nt->ctx->st, &c, &found, nt->n->name, s->series,
					     last.buf))
			goto out;
		if (found && !strcmp(c.verdict, "REGRESSION") && !*c.outcome) {
			r = bisect(nt, s, &c);
			if (r) {
				ret = r < 0 ? -1 : 0;
				goto out;
			}
			night_count(nt, c.id, c.verdict);
		}
	}
	from = n > NIGHTLY_TAIL && n - NIGHTLY_TAIL > start ? n - NIGHTLY_TAIL : start;
	if (changepoints_find(&cps, &ncps, x + from, n - from, &opt)) {
		error("cannot look for change points in %s: %s", s->series, strerror(errno));
		goto out;
	}
	cand = xcalloc(ncps + 1, sizeof(*cand));
	for (i = 0; i < ncps; i++)
		cand[ncand++] = (struct candidate){ from + cps[i].before, from + cps[i].index,
						    "CHANGEPOINT", cps[i].ratio };
	r = changepoint_suspect(&sus, x, n, start, refuted, &opt);
	if (r < 0) {
		error("cannot look for a step in %s: %s", s->series, strerror(errno));
		goto out;
	}
	if (r)
		cand[ncand++] = (struct candidate){ sus.before, sus.index, "SUSPECT", sus.ratio };
	for (i = 0; i < ncand; i++) {
		struct nightly_change c;
		char change[32];
		int found;

		if (cand[i].after <= start)
			continue;
		if (store_nightly_change_get(&nt->ctx->st, &c, &found, nt->n->name, s->series,
					     commits.v[cand[i].after]))
			goto out;
		if (!found) {
			memset(&c, 0, sizeof(c));
			snprintf(c.before, sizeof(c.before), "%s", commits.v[cand[i].before]);
			snprintf(c.after, sizeof(c.after), "%s", commits.v[cand[i].after]);
			snprintf(c.kind, sizeof(c.kind), "%s", cand[i].kind);
			c.ratio = cand[i].ratio;
			if (store_nightly_change_add(&nt->ctx->st, &c, nt->n->name, s->series, nt->id))
				goto out;
			textfmt_ratio(change, sizeof(change), c.ratio);
			say_to(nt->out, "%s: %s %.12s..%.12s, %s in the series",
				s->series, !strcmp(c.kind, "SUSPECT") ? "a step at" :
				"a change point at", c.before, c.after, change);
		}
		if (!*c.verdict) {
			r = confirm(nt, s, &c);
			if (r) {
				ret = r < 0 ? -1 : 0;
				goto out;
			}
			night_count(nt, c.id, c.verdict);
		}
		if (!strcmp(c.verdict, "REGRESSION") && !*c.outcome) {
			r = bisect(nt, s, &c);
			if (r) {
				ret = r < 0 ? -1 : 0;
				goto out;
			}
		}
		if (!strcmp(c.verdict, "REGRESSION") || !strcmp(c.verdict, "IMPROVEMENT"))
			start = cand[i].after;
	}
	ret = 0;
out:
	free(cps);
	free(cand);
	free(x);
	strvec_release(&commits);
	strbuf_release_all(&last, &last_refuted);
	return ret;
}

