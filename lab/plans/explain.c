/* lab explain's plan and report: profiled boots of A and B, and where the time went. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "escape.h"
#include "explain.h"
#include "log.h"
#include "progress.h"
#include "store-experiment.h"
#include "store-profile.h"
#include "strbuf.h"
#include "textfmt.h"
#include "xalloc.h"

/* One profiled boot of one side: its run id, -1 after a message. */
static int profiled_boot(long long *run_id, struct lab_context *ctx, const struct explain_opts *o,
			 int side, struct boot_guests *guests, struct progress *pr)
{
	struct boot_opts b = o->boot;
	struct strvec params = STRVEC_INIT;
	struct boot_plan plan;
	struct run_result res;
	int ret = -1;

	for (size_t i = 0; o->boot.params && i < o->boot.params->nr; i++)
		strvec_push(&params, o->boot.params->v[i]);
	strvec_push(&params, "profile=1");
	b.params = &params;
	b.guests = guests;
	b.kernel = o->v[side].kernel;
	b.cmdline = o->v[side].cmdline;
	b.mem_mib = o->mem_mib;
	b.cpus = o->cpus;
	b.experiment_id = b.variant_id = 0;
	memset(&plan, 0, sizeof(plan));
	run_result_init(&res);
	if (boot_plan_prepare(&plan, ctx, &b))
		goto out;
	plan.spec.watch = progress_watch(pr);
	progress_update(pr, side + 1, side ? "(B, profiled)" : "(A, profiled)");
	if (boot_plan_run(&plan, ctx, run_id, &res))
		goto out;
	progress_boot_done(pr, side + 1, *run_id, &res, plan.log_path.buf);
	if (res.status != RUN_OK) {
		error("%c's profiled boot ended %s: %s (lab show %lld)", 'A' + side,
		      run_status_name(res.status), res.error.len ? res.error.buf : "no error given",
		      *run_id);
		if (strstr(res.error.buf, "CONFIG_FUNCTION_PROFILER"))
			fprintf(stderr, "hint: build the kernel with CONFIG_FUNCTION_PROFILER=y "
				"(the lab's kernels/configs enable it)\n");
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
	long long run[2];
	int ret = -1;

	if (context_need_store(ctx))
		return -1;
	boot_guests_init(&guests);
	progress_start(&pr, 2);
	for (int s = 0; s < 2; s++)
		if (profiled_boot(&run[s], ctx, o, s, &guests, &pr))
			goto out;
	e.a_run_id = run[0];
	e.b_run_id = run[1];
	ret = store_explanation_add(&ctx->st, id, &e);
out:
	progress_release(&pr);
	boot_guests_release(&guests);
	return ret;
}

void explain_culprit(struct lab_context *ctx, const struct kernel_image *parent,
		     const struct kernel_image *culprit, const struct boot_opts *bo,
		     const char *clock, const char *metric, long long bisection)
{
	struct explain_opts o = {
		.v = { { .kernel = parent, .cmdline = bo->cmdline },
		       { .kernel = culprit, .cmdline = bo->cmdline } },
		.boot = *bo, .mem_mib = bo->mem_mib, .cpus = bo->cpus,
		.workload = bo->workloads->v[0], .metric = metric, .experiment_id = bisection,
	};
	long long id;

	if (strncmp(clock, "icount", 6) || !boot_opts_lab_guest(bo, &ctx->cfg))
		return;
	fprintf(stderr, "explaining the culprit against its parent: one profiled boot each\n");
	if (explain_run(&id, ctx, &o))
		fprintf(stderr, "the culprit is not explained (lab explain needs "
			"CONFIG_FUNCTION_PROFILER=y)\n");
}

/* One function on both sides. */
struct fn_row {
	char *name;
	long long calls[2];
	double ns[2];
	int have[2];
	double score;
};

struct fn_table {
	struct fn_row *v;
	size_t nr, alloc;
	size_t na;		/* A's rows, first and sorted by name */
	int side;
};

static int fn_take(const char *function, long long calls, double ns, void *data)
{
	struct fn_table *t = data;
	struct fn_row *r = NULL;

	/* both sides come sorted by name: B's rows are found from the end of A's */
	if (t->side) {
		size_t lo = 0, hi = t->na;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			int c = strcmp(t->v[mid].name, function);
			if (!c) {
				r = &t->v[mid];
				break;
			}
			if (c < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	if (!r) {
		ALLOC_GROW(t->v, t->nr + 1, t->alloc);
		r = &t->v[t->nr++];
		memset(r, 0, sizeof(*r));
		r->name = xstrdup(function);
	}
	r->calls[t->side] = calls;
	r->ns[t->side] = ns;
	r->have[t->side] = 1;
	return 0;
}

/* Sum of a metric's samples in one run, warm-ups included: the profiled window's. */
struct metric_sum {
	const char *workload, *metric;
	double sum;
	char unit[16];
	long n;
};

static int metric_take(const struct sample *s, void *data)
{
	struct metric_sum *m = data;

	if (strcmp(s->workload, m->workload) || strcmp(s->metric, m->metric))
		return 0;
	m->sum += s->value;
	m->n++;
	snprintf(m->unit, sizeof(m->unit), "%s", s->unit);
	return 0;
}

/* Nanoseconds in one unit of a time metric; 0 when unit is none. */
static double unit_ns(const char *unit)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };

	for (size_t i = 0; i < ARRAY_SIZE(units); i++)
		if (!strcmp(unit, units[i].unit))
			return units[i].ns;
	return 0;
}

static int by_score(const void *a, const void *b)
{
	const struct fn_row *x = a, *y = b;

	if (x->score != y->score)
		return x->score < y->score ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* ns as a duration in about four digits and the unit that suits it: 812 ns, 61.43 ms, 24.31 s. */
static void duration_text(char *buf, size_t size, double ns, const char *sign)
{
	static const struct {
		double ns;
		const char *unit;
	} units[] = { { 1e9, "s" }, { 1e6, "ms" }, { 1e3, "us" } };
	double a = fabs(ns);

	for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
		if (a >= units[i].ns) {
			snprintf(buf, size, "%s%.4g %s", sign, a / units[i].ns, units[i].unit);
			return;
		}
	}
	snprintf(buf, size, "%s%.0f ns", sign, a);
}

static void time_text(char *buf, size_t size, double ns, int have)
{
	if (have)
		duration_text(buf, size, ns, "");
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

struct report {
	const struct store_explanation *e;
	struct fn_table t;
	struct metric_sum m[2];
	struct strbuf clock, label[2];
};

static int explanation_take(const struct store_explanation *e, void *data)
{
	struct store_explanation *out = data;

	*out = *e;
	out->workload = xstrdup(e->workload);
	out->metric = xstrdup(e->metric);
	return 0;
}

/*
 * Functions that wait rather than work: with sleep counted, their time is
 * whatever their callers waited for, so they head every profile in which
 * something waits longer. Ranked after the others.
 */
static int waits(const char *name)
{
	static const char *const prefixes[] = {
		"schedule", "io_schedule", "wait_for_completion", "__wait_for_common",
		"do_nanosleep", "msleep", "usleep", "cpu_startup_entry", "rest_init",
	};

	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return 1;
	return strstr(name, "idle") != NULL;
}

/*
 * The order of the table. The functions that carry the change, those
 * whose time moved by at least half the most any function's did, come
 * first, the deepest first: a caller carries its callee's change on top
 * of its own time, so among carriers the one whose time changed by the
 * largest factor is nearest the code that changed (a new or vanished
 * function, an infinite factor, before all). The others follow by how
 * much their time moved, and the functions that wait come last.
 */
static void score_rows(struct fn_table *t)
{
	double most = 0;

	for (size_t i = 0; i < t->nr; i++) {
		struct fn_row *r = &t->v[i];
		double d = fabs(r->ns[1] - r->ns[0]);
		if (!waits(r->name) && d > most)
			most = d;
	}
	for (size_t i = 0; i < t->nr; i++) {
		struct fn_row *r = &t->v[i];
		double d = fabs(r->ns[1] - r->ns[0]), base = fmin(r->ns[0], r->ns[1]);
		/* tiers apart by more than any time: 1e30 and up carriers, 0 and down waits */
		if (waits(r->name))
			r->score = -1e30 + d;
		else if (most > 0 && d >= most / 2)
			r->score = 1e30 * (1 + (base > 0 ? fmin(d / base, 1e6) : 1e7));
		else
			r->score = d;
	}
	qsort(t->v, t->nr, sizeof(*t->v), by_score);
}

static void print_text(FILE *f, const struct report *r, long long id, int top)
{
	const struct store_explanation *e = r->e;
	double per = unit_ns(r->m[0].unit), change = (r->m[1].sum - r->m[0].sum) * per;
	char a[32], b[32], d[40], ca[24], cb[24], share[16];

	fprintf(f, "explanation X%lld: %s.%s", id, term_safe(e->workload), term_safe(e->metric));
	if (e->experiment_id)
		fprintf(f, " of E%lld", e->experiment_id);
	fprintf(f, "\n  A %s (run %lld), B %s (run %lld); clock %s\n",
		term_safe(r->label[0].buf), e->a_run_id, term_safe(r->label[1].buf), e->b_run_id,
		term_safe(r->clock.buf));
	fprintf(f, "  one boot a side with the function profiler on, over the whole workload:\n"
		"  times include the profiler's cost, calls are exact; verdicts come from boots "
		"without it\n");
	if (per && r->m[0].n && r->m[1].n) {
		duration_text(a, sizeof(a), r->m[0].sum * per, "");
		duration_text(b, sizeof(b), r->m[1].sum * per, "");
		duration_text(d, sizeof(d), change, change < 0 ? "-" : "+");
		fprintf(f, "  %s in these boots: A %s, B %s (%s); share: a function's change\n"
			"  over that, past 100 %% when it also changed outside the metric's window\n",
			term_safe(e->metric), a, b, d);
	} else {
		fprintf(f, "  %s is not a time measured in the profiled boots: no share given\n",
			term_safe(e->metric));
	}
	fprintf(f, "\n%-30s %9s %9s %9s %9s %9s %7s\n", "function", "calls A", "calls B",
		"time A", "time B", "change", "share");
	for (size_t i = 0; i < r->t.nr && (!top || (int)i < top); i++) {
		const struct fn_row *row = &r->t.v[i];
		double dn = row->ns[1] - row->ns[0];
		char name[64];

		textfmt_cut(name, sizeof(name), row->name, 30, 0);
		calls_text(ca, sizeof(ca), row->calls[0], row->have[0]);
		calls_text(cb, sizeof(cb), row->calls[1], row->have[1]);
		time_text(a, sizeof(a), row->ns[0], row->have[0]);
		time_text(b, sizeof(b), row->ns[1], row->have[1]);
		duration_text(d, sizeof(d), dn, dn < 0 ? "-" : "+");
		if (per && change != 0 && r->m[0].n && r->m[1].n)
			snprintf(share, sizeof(share), "%.1f %%", 100 * dn / change);
		else
			snprintf(share, sizeof(share), "-");
		fprintf(f, "%-30s %9s %9s %9s %9s %9s %7s%s\n", term_safe(name), ca, cb, a, b,
			d, share, !row->have[0] ? "  new" : !row->have[1] ? "  gone" : "");
	}
}

int explain_report(FILE *f, struct store *st, long long id, int top, enum ab_format fmt)
{
	struct store_explanation e = { 0 };
	struct report r = { .e = &e };
	int ret = -1;

	strbuf_init(&r.clock, 0);
	strbuf_init(&r.label[0], 0);
	strbuf_init(&r.label[1], 0);
	if (store_explanation_read(st, id, explanation_take, &e))
		goto out;
	for (int s = 0; s < 2; s++) {
		long long run_id = s ? e.b_run_id : e.a_run_id;
		r.m[s].workload = e.workload;
		r.m[s].metric = e.metric;
		r.t.side = s;
		if (store_run_profile(st, run_id, e.workload, fn_take, &r.t) ||
		    store_run_samples(st, run_id, metric_take, &r.m[s]) ||
		    store_run_kernel_label(st, &r.label[s], run_id))
			goto out;
		if (!s)
			r.t.na = r.t.nr;
	}
	if (store_run_clock(st, &r.clock, e.a_run_id))
		goto out;
	score_rows(&r.t);
	(void)fmt;
	print_text(f, &r, id, top);
	ret = 0;
out:
	for (size_t i = 0; i < r.t.nr; i++)
		free(r.t.v[i].name);
	free(r.t.v);
	free((char *)e.workload);
	free((char *)e.metric);
	strbuf_release(&r.clock);
	strbuf_release(&r.label[0]);
	strbuf_release(&r.label[1]);
	return ret;
}
