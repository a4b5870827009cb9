/* lab explain's plan and report: profiled boots of A and B, and where the time went. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ab-report.h"
#include "array.h"
#include "escape.h"
#include "events.h"
#include "explain.h"
#include "json-writer.h"
#include "kcmdline.h"
#include "log.h"
#include "numfmt.h"
#include "progress.h"
#include "say.h"
#include "store-experiment.h"
#include "profile-diff.h"
#include "strbuf.h"
#include "tempfile.h"
#include "textfmt.h"
#include "xalloc.h"

/* the guest's lab.profile_functions holds this many bytes, its NUL included */
#define EXPLAIN_FUNCTIONS_MAX 512

int explain_functions_check(const char *functions)
{
	const char *p = functions;

	if (strlen(functions) >= EXPLAIN_FUNCTIONS_MAX)
		return error("--functions is %zu bytes long: the guest takes at most %d",
			     strlen(functions), EXPLAIN_FUNCTIONS_MAX - 1);
	do {
		size_t n = strcspn(p, ",");
		char name[EXPLAIN_FUNCTIONS_MAX];

		memcpy(name, p, n);
		name[n] = '\0';
		/* no glob or :mod: command: the guest times each function it is told of by name */
		if (!kcmdline_function_ok(name))
			return error("--functions: '%s' is not a function name (a C identifier, "
				     "perhaps with a clone's suffix such as .isra.0)", name);
		p += n;
	} while (*p++);
	return 0;
}

/*
 * One profiled boot of one side, boot k of the progress: its run id, -1
 * after a message. *boots 0: the boots a side, decided by the clock this
 * boot settles on.
 */
static int profiled_boot(long long *run_id, struct lab_context *ctx, const struct explain_opts *o,
			 int side, long k, int *boots, struct boot_guests *guests,
			 struct progress *pr)
{
	struct boot_opts b = o->boot;
	struct strvec params = STRVEC_INIT;
	struct boot_plan plan;
	struct run_result res;
	int ret = -1;

	for (size_t i = 0; o->boot.params && i < o->boot.params->nr; i++)
		strvec_push(&params, o->boot.params->v[i]);
	strvec_push(&params, "profile=1");
	if (o->functions)
		strvec_pushf(&params, "profile_functions=%s", o->functions);
	b.params = &params;
	b.guests = guests;
	b.kernel = o->v[side].kernel;
	b.cmdline = o->v[side].cmdline;
	b.mem_mib = o->mem_mib;
	b.cpus = o->cpus;
	b.experiment_id = b.variant_id = 0;
	memset(&plan, 0, sizeof(plan));
	run_result_init(&res);
	/* a file the user named is recorded with its first plan, once */
	if (boot_plan_prepare(&plan, ctx, &b))
		goto out;
	if (!*boots) {
		*boots = strncmp(plan.clock.buf, "icount", 6) ? EXPLAIN_WALL_BOOTS : 1;
		pr->total = 2L * *boots;
		if (*boots > 1)
			say("wall time: %d profiled boots a side, for intervals", *boots);
	}
	plan.spec.watch = progress_watch(pr);
	progress_update(pr, k, side ? "(B, profiled)" : "(A, profiled)");
	if (boot_plan_run(&plan, ctx, run_id, &res))
		goto out;
	progress_boot_done(pr, k, *run_id, &res, plan.log_path.buf);
	/* stopped by a signal the command defers: the command says so, not as A's failure */
	if (res.status != RUN_OK && fatal_signal_pending())
		goto out;
	if (res.status != RUN_OK) {
		error("%c's profiled boot ended %s: %s (lab show %lld)", 'A' + side,
		      run_status_name(res.status), res.error.len ? res.error.buf : "no error given",
		      *run_id);
		if (strstr(res.error.buf, "CONFIG_FUNCTION_PROFILER"))
			say_wrap("  ", "hint: build the kernel with CONFIG_FUNCTION_PROFILER=y "
				 "(the lab's kernels/configs enable it), or time chosen functions "
				 "by function_graph: --functions F1,F2");
		goto out;
	}
	if (!res.profile_nr) {
		error("%c's profiled boot sent no profile of %s (lab show %lld)", 'A' + side,
		      o->workload, *run_id);
		goto out;
	}
	ret = 0;
out:
	run_result_release(&res);
	boot_plan_release(&plan);
	strvec_release(&params);
	return ret;
}

int explain_run(long long *id, struct lab_context *ctx, const struct explain_opts *o)
{
	struct store_explanation e = {
		.experiment_id = o->experiment_id,
		.workload = o->workload, .metric = o->metric,
	};
	struct boot_guests guests;
	struct progress pr = { 0 };
	long long run[2][EXPLAIN_MAX_BOOTS];
	int boots = o->boots, ret = -1;

	if (context_need_store(ctx))
		return -1;
	if (boots > EXPLAIN_MAX_BOOTS)
		return error("at most %d profiled boots a side, not %d", EXPLAIN_MAX_BOOTS, boots);
	if (o->functions && explain_functions_check(o->functions))
		return -1;
	boot_guests_init(&guests);
	progress_start(&pr, 2L * (boots ? boots : 1), 0);
	for (int i = 0; !i || i < boots; i++)
		for (int s = 0; s < 2; s++)
			if (profiled_boot(&run[s][i], ctx, o, s, 2 * i + s + 1, &boots, &guests,
					  &pr))
				goto out;
	e.a_run_id = run[0][0];
	e.b_run_id = run[1][0];
	e.runs[0] = run[0];
	e.runs[1] = run[1];
	e.nruns[0] = e.nruns[1] = (size_t)boots;
	ret = store_explanation_add(&ctx->st, id, &e);
out:
	progress_release(&pr);
	boot_guests_release(&guests);
	return ret;
}

void explain_culprit(struct lab_context *ctx, struct kernel_image *parent,
		     struct kernel_image *culprit, const struct boot_opts *bo,
		     const char *clock, const char *metric, long long bisection)
{
	struct explain_opts o = {
		.v = { { .kernel = parent, .cmdline = bo->cmdline },
		       { .kernel = culprit, .cmdline = bo->cmdline } },
		.boot = *bo, .mem_mib = bo->mem_mib, .cpus = bo->cpus,
		.workload = bo->workloads->specs.v[0], .metric = metric, .experiment_id = bisection,
	};
	long long id;

	if (strncmp(clock, "icount", 6) || !boot_opts_lab_guest(bo, &ctx->cfg))
		return;
	say("explaining the culprit against its parent: one profiled boot each");
	/* stopped by Ctrl-C: the bisection's command says so, the profiler is not to blame */
	if (explain_run(&id, ctx, &o) && !fatal_signal_pending())
		say("the culprit is not explained (lab explain needs a PMU that samples or "
		    "CONFIG_FUNCTION_PROFILER=y)");
}

static void time_text(char *buf, size_t size, double ns, int have)
{
	if (have)
		textfmt_duration(buf, size, ns, "");
	else
		snprintf(buf, size, "-");
}

static void calls_text(char *buf, size_t size, long long calls, int have)
{
	if (have)
		snprintf(buf, size, "%lld", calls);
	else
		snprintf(buf, size, "-");
}

/* "[+40.1, +47.2]" of [lo, hi] ns in the unit textfmt_duration() gives ref. */
static void ci_text(char *buf, size_t size, double lo, double hi, double ref)
{
	const char *unit;
	double per = textfmt_duration_unit(ref, &unit);

	snprintf(buf, size, "[%+.3g, %+.3g]", lo / per, hi / per);
}

/* What profiled, in one line: the PMU's samples, or ftrace and why not the PMU. */
static void print_by(struct strbuf *out, const struct profile_diff *d)
{
	if (d->graph.len)
		textfmt_wrap_sb(out, "  this kernel has no function profiler: by ", "  ",
			     term_safe(d->graph.buf));
	else if (d->by.len)
		textfmt_wrap_sb(out, "  by ", "  ", term_safe(d->by.buf));
}

static void print_text(struct strbuf *out, const struct profile_diff *d, int top)
{
	const struct store_explanation *e = &d->e;
	double change = profile_diff_change_ns(d);
	int repeated = profile_diff_repeated(d), w = repeated ? 22 : 30;
	int cw = repeated && !d->sampled ? 8 : 9;	/* "samples A" takes 9 */

	/* the intervals' wider table: the two columns "samples A/B" take from the names */
	if (repeated && d->sampled)
		w -= 2;
	char a[32], b[32], c[72], ca[24], cb[24], share[16], la[96], lb[96];

	strbuf_addf(out, "explanation X%lld: %s.%s", e->id, term_safe(e->workload),
		    term_safe(e->metric));
	if (e->experiment_id)
		strbuf_addf(out, " of E%lld", e->experiment_id);
	textfmt_cut(la, sizeof(la), d->label[0].buf, 24, 1);
	textfmt_cut(lb, sizeof(lb), d->label[1].buf, 24, 1);
	strbuf_addf(out, "\n  A %s (run %lld), B %s (run %lld); clock %s\n", term_safe(la),
		    e->a_run_id, term_safe(lb), e->b_run_id, term_safe(d->clock.buf));
	print_by(out, d);
	if (repeated)
		strbuf_addf(out, "  NOISY: %zu and %zu boots %s, in wall time: medians,\n"
			    "  each change with its 95 %% interval (Hodges-Lehmann); %s\n",
			    d->nruns[0], d->nruns[1],
			    d->sampled ? "sampled" : d->graph.len ? "with the tracer on" :
			    "with the function profiler on",
			    d->sampled ? "a time is a function's own\n  cycles, callees not in it"
			    : "times include its\n  cost; verdicts come from boots without it");
	else if (d->sampled)
		strbuf_addstr(out, "  one boot a side, sampled over the whole workload: a "
			      "function's time is its own\n  cycles (callees not in it), its "
			      "samples times the period; verdicts come from boots\n"
			      "  without sampling\n");
	else
		strbuf_addf(out, "  one boot a side with the %s on, over the whole workload:\n"
			    "  times include its cost, calls are exact%s; verdicts come from boots "
			    "without it\n", d->graph.len ? "tracer" : "function profiler",
			    d->graph.len ? " unless lost" : "");
	if (d->unit_ns && d->metric_n[0] && d->metric_n[1]) {
		textfmt_duration(a, sizeof(a), d->metric_sum[0] * d->unit_ns, "");
		textfmt_duration(b, sizeof(b), d->metric_sum[1] * d->unit_ns, "");
		textfmt_duration(c, sizeof(c), change, change < 0 ? "-" : "+");
		strbuf_addf(out, "  %s in these boots: A %s, B %s (%s); share: a function's "
			    "change\n  over that, past 100 %% when it also changed outside the "
			    "metric's window\n", term_safe(e->metric), a, b, c);
	} else {
		strbuf_addf(out, "  %s is not a time measured in the profiled boots: no share "
			    "given\n", term_safe(e->metric));
	}
	strbuf_addf(out, "\n%-*s %*s %*s %9s %9s %*s %7s\n", w, "function", cw,
		    d->sampled ? "samples A" : "calls A", cw,
		    d->sampled ? "samples B" : "calls B", "time A", "time B", repeated ? -25 : 9,
		    repeated ? "change [95% CI]" : "change", "share");
	for (size_t i = 0; i < d->nr && (!top || (int)i < top); i++) {
		const struct profile_change *row = &d->fn[i];
		double sh = profile_change_share(d, row);
		const char *mark = profile_change_mark(row);
		char name[64];

		textfmt_cut(name, sizeof(name), row->name, (size_t)w, 0);
		calls_text(ca, sizeof(ca), row->calls[0], row->have[0]);
		calls_text(cb, sizeof(cb), row->calls[1], row->have[1]);
		time_text(a, sizeof(a), row->ns[0], row->have[0]);
		time_text(b, sizeof(b), row->ns[1], row->have[1]);
		textfmt_duration(c, sizeof(c), row->change, row->change < 0 ? "-" : "+");
		if (repeated && isfinite(row->lo)) {
			char ci[40];
			ci_text(ci, sizeof(ci), row->lo, row->hi, row->change);
			snprintf(c + strlen(c), sizeof(c) - strlen(c), " %s", ci);
		}
		if (!isfinite(sh))
			snprintf(share, sizeof(share), "-");
		else if (fabs(sh) < 0.0005)
			snprintf(share, sizeof(share), "0.0 %%");	/* never "-0.0 %" */
		else if (fabs(sh) < 10)
			snprintf(share, sizeof(share), "%.1f %%", 100 * sh);
		else
			snprintf(share, sizeof(share), "%s999 %%", sh < 0 ? "<-" : ">");
		strbuf_addf(out, "%-*s %*s %*s %9s %9s %*s %7s%s%s\n", w, term_safe(name),
			    cw, ca, cw, cb, a, b, repeated ? -25 : 9, c,
			    share, *mark ? "  " : "", mark);
	}
}

static void print_json(struct strbuf *out, const struct profile_diff *d, int top,
		       const struct events_report *ev)
{
	const struct store_explanation *e = &d->e;
	struct json_writer jw;

	json_writer_init_sb(&jw, out, 0);
	json_object_begin(&jw, NULL);
	json_int(&jw, "explanation", e->id);
	if (e->experiment_id)
		json_int(&jw, "experiment", e->experiment_id);
	else
		json_null(&jw, "experiment");
	json_string(&jw, "workload", e->workload);
	json_string(&jw, "metric", e->metric);
	json_string(&jw, "clock", d->clock.buf);
	json_bool(&jw, "profiled", 1);
	json_string(&jw, "profiled_by", d->graph.len ? "function_graph" :
		    d->sampled ? "pmu" : "function_profiler");
	json_int(&jw, "boots_a", (long long)d->nruns[0]);
	json_int(&jw, "boots_b", (long long)d->nruns[1]);
	json_bool(&jw, "noisy", profile_diff_repeated(d));
	for (int s = 0; s < 2; s++) {
		json_object_begin(&jw, s ? "b" : "a");
		json_int(&jw, "run", s ? e->b_run_id : e->a_run_id);
		json_string(&jw, "kernel", d->label[s].buf);
		json_number(&jw, "metric_ns",
			    d->unit_ns && d->metric_n[s] ? d->metric_sum[s] * d->unit_ns : NAN);
		json_object_end(&jw);
	}
	json_array_begin(&jw, "functions");
	for (size_t i = 0; i < d->nr && (!top || (int)i < top); i++) {
		const struct profile_change *r = &d->fn[i];

		json_object_begin(&jw, NULL);
		json_string(&jw, "function", r->name);
		for (int s = 0; s < 2; s++) {
			if (r->have[s])
				json_int(&jw, s ? "calls_b" : "calls_a", r->calls[s]);
			else
				json_null(&jw, s ? "calls_b" : "calls_a");
			json_number(&jw, s ? "ns_b" : "ns_a", r->have[s] ? r->ns[s] : NAN);
		}
		json_number(&jw, "change_ns", r->change);
		json_number(&jw, "change_lo_ns", r->lo);
		json_number(&jw, "change_hi_ns", r->hi);
		json_number(&jw, "share", profile_change_share(d, r));
		json_string(&jw, "mark", profile_change_mark(r));
		json_object_end(&jw);
	}
	json_array_end(&jw);
	ab_report_json_events(&jw, ev);
	json_object_end(&jw);
	json_writer_end(&jw);
}

static void print_csv(struct strbuf *out, const struct profile_diff *d, int top)
{
	strbuf_addstr(out, "explanation,workload,metric,function,calls_a,calls_b,ns_a,ns_b,"
		      "change_ns,change_lo_ns,change_hi_ns,share,mark\n");
	for (size_t i = 0; i < d->nr && (!top || (int)i < top); i++) {
		const struct profile_change *r = &d->fn[i];
		double sh = profile_change_share(d, r);

		strbuf_addf(out, "X%lld,", d->e.id);
		escape_csv_sb(out, d->e.workload);
		strbuf_addch(out, ',');
		escape_csv_sb(out, d->e.metric);
		strbuf_addch(out, ',');
		escape_csv_sb(out, r->name);
		for (int s = 0; s < 2; s++)
			if (r->have[s])
				strbuf_addf(out, ",%lld", r->calls[s]);
			else
				strbuf_addch(out, ',');
		for (int s = 0; s < 2; s++) {
			strbuf_addch(out, ',');
			if (r->have[s])
				numfmt_exact_sb(out, r->ns[s]);
		}
		strbuf_addch(out, ',');
		numfmt_exact_sb(out, r->change);
		strbuf_addch(out, ',');
		if (isfinite(r->lo)) {
			numfmt_exact_sb(out, r->lo);
			strbuf_addch(out, ',');
			numfmt_exact_sb(out, r->hi);
		} else {
			strbuf_addch(out, ',');
		}
		strbuf_addch(out, ',');
		numfmt_exact_sb(out, sh);
		strbuf_addf(out, ",%s\n", profile_change_mark(r));
	}
}

int explain_report(struct strbuf *out, struct store *st, long long id, int top,
		   enum ab_format fmt)
{
	struct profile_diff d;
	struct events_report ev = { 0 };
	int ret = -1;

	if (profile_diff_load(&d, st, id) || events_report_load_explanation(&ev, st, id))
		goto out;
	if (fmt == AB_JSON) {
		print_json(out, &d, top, &ev);
	} else if (fmt == AB_CSV) {
		print_csv(out, &d, top);
	} else {
		print_text(out, &d, top);
		ab_report_print_events(out, &ev, "A", "B");
	}
	ret = 0;
out:
	events_report_release(&ev);
	profile_diff_release(&d);
	return ret;
}

struct report_all {
	struct strbuf *out;
	struct store *st;
	int top;
};

static int report_one(const struct store_explanation *e, void *data)
{
	struct report_all *r = data;

	strbuf_addch(r->out, '\n');
	return explain_report(r->out, r->st, e->id, r->top, AB_TEXT);
}

int explain_report_all(struct strbuf *out, struct store *st, long long exp_id, int top)
{
	struct report_all r = { out, st, top };

	return store_explanations(st, exp_id, report_one, &r);
}
