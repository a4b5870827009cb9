/* An explanation's two profiles side by side, ranked (profile-diff.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "profile-diff.h"
#include "stats.h"
#include "store-experiment.h"
#include "xalloc.h"

/* What one profiled boot's rows are read with. */
struct boot_reader {
	struct profile_diff *d;
	size_t sorted;		/* d->fn[0, sorted) sorted by name */
	size_t slot, nslots;	/* this boot's index in each function's v */
	int side;
	double sum;		/* the metric's samples in this boot */
	long n;
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct profile_change *)a)->name,
		      ((const struct profile_change *)b)->name);
}

static int fn_take(const char *function, long long calls, double ns, void *data)
{
	struct boot_reader *br = data;
	struct profile_diff *d = br->d;
	struct profile_change key = { .name = (char *)function }, *r;

	r = br->sorted ? bsearch(&key, d->fn, br->sorted, sizeof(*d->fn), by_name) : NULL;
	if (!r) {
		ALLOC_GROW(d->fn, d->nr + 1, d->alloc);
		r = &d->fn[d->nr++];
		memset(r, 0, sizeof(*r));
		r->name = xstrdup(function);
		r->v = xcalloc(br->nslots * 2, sizeof(*r->v));
	}
	/* v holds each boot's ns, then each boot's calls */
	r->v[br->slot] = ns;
	r->v[br->nslots + br->slot] = (double)calls;
	r->have[br->side] = 1;
	return 0;
}

static int metric_take(const struct sample *s, void *data)
{
	struct boot_reader *br = data;
	struct profile_diff *d = br->d;

	if (strcmp(s->workload, d->e.workload) || strcmp(s->metric, d->e.metric))
		return 0;
	br->sum += s->value;
	br->n++;
	snprintf(d->unit, sizeof(d->unit), "%s", s->unit);
	return 0;
}

static int run_take(int side, long long run_id, void *data)
{
	struct profile_diff *d = data;

	ALLOC_GROW(d->runs[side], d->nruns[side] + 1, d->runs_alloc[side]);
	d->runs[side][d->nruns[side]++] = run_id;
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

static int by_rank(const void *a, const void *b)
{
	const struct profile_change *x = a, *y = b;
	double bx = fmin(x->ns[0], x->ns[1]), by = fmin(y->ns[0], y->ns[1]);
	double dx = fabs(x->change), dy = fabs(y->change);

	if (x->tier != y->tier)
		return y->tier - x->tier;
	if (x->tier == 2 && bx != by)
		return bx < by ? -1 : 1;
	if (dx != dy)
		return dx < dy ? 1 : -1;
	return strcmp(x->name, y->name);
}

/*
 * Functions that wait rather than work: with sleep counted, their time is
 * whatever their callers waited for, so they head every profile in which
 * something waits longer; a kernel thread's loop (RCU's grace-period
 * kthread, a worker) sleeps between rounds that shift with any change.
 * Ranked after the others.
 */
static int waits(const char *name)
{
	static const char *const prefixes[] = {
		"schedule", "io_schedule", "wait_for_completion", "__wait_for_common",
		"do_nanosleep", "msleep", "usleep", "cpu_startup_entry", "rest_init",
		"__cond_resched", "rcu_gp_", "worker_thread", "kthread",
	};

	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return 1;
	/* a kernel thread's main loop sleeps between its rounds */
	return strstr(name, "idle") != NULL || strstr(name, "_thread_fn") != NULL;
}

/*
 * The order. The functions that carry the change, those whose time moved
 * by at least half the most any function's did, come first, the deepest
 * first: a caller's time holds its callee's, so among carriers the one
 * with the least time is nearest the code that changed (a new or vanished
 * function, with none on one side, before all). The others follow by how
 * much their time moved, and the functions that wait come last.
 */
static void rank(struct profile_diff *d)
{
	double most = 0;

	for (size_t i = 0; i < d->nr; i++) {
		struct profile_change *r = &d->fn[i];
		double x = fabs(r->change);
		if (!waits(r->name) && x > most)
			most = x;
	}
	for (size_t i = 0; i < d->nr; i++) {
		struct profile_change *r = &d->fn[i];
		double x = fabs(r->change);
		r->tier = waits(r->name) ? 0 : most > 0 && x >= most / 2 ? 2 : 1;
	}
	qsort(d->fn, d->nr, sizeof(*d->fn), by_rank);
}

static int explanation_take(const struct store_explanation *e, void *data)
{
	struct store_explanation *out = data;

	*out = *e;
	out->workload = xstrdup(e->workload);
	out->metric = xstrdup(e->metric);
	return 0;
}

/* Each side's medians of the boots' values, and the change with its interval. */
static void summarize(struct profile_diff *d, struct profile_change *r, size_t nslots)
{
	size_t na = d->nruns[0], nb = d->nruns[1];
	double *tmp = xcalloc(nslots, sizeof(*tmp));

	/* stats_median() reorders what it is given: each median from a copy */
	for (int s = 0; s < 2; s++) {
		size_t from = s ? na : 0, n = s ? nb : na;
		memcpy(tmp, r->v + from, n * sizeof(*tmp));
		r->ns[s] = stats_median(tmp, n);
		memcpy(tmp, r->v + nslots + from, n * sizeof(*tmp));
		r->calls[s] = llround(stats_median(tmp, n));
	}
	free(tmp);
	r->change = r->ns[1] - r->ns[0];
	r->lo = r->hi = NAN;
	if (na > 1 && nb > 1) {
		struct stats_hl hl;
		if (!stats_hl_shift(&hl, r->v, na, r->v + na, nb, 0.05)) {
			r->change = hl.estimate;
			r->lo = hl.lo;
			r->hi = hl.hi;
		}
	}
	free(r->v);
	r->v = NULL;
}

static int by_take(const char *key, const char *value, void *data)
{
	struct profile_diff *d = data;
	size_t len = strlen(d->e.workload);

	/* "zeroing: function_graph on f1 f2: 812 calls, 0 lost, 0 overwritten" */
	if (strncmp(value, d->e.workload, len) || strncmp(value + len, ": ", 2))
		return 0;
	if (!strcmp(key, "guest.profile_graph") && !d->graph.len)
		strbuf_addstr(&d->graph, value + len + 2);
	/* "zeroing: sampled cycles (PMU), a sample every 500000 cycles on 2 CPUs: ..." */
	if (!strcmp(key, "guest.profile_by") && !d->by.len) {
		strbuf_addstr(&d->by, value + len + 2);
		d->sampled = !strncmp(d->by.buf, "sampled ", 8);
	}
	return 0;
}

int profile_diff_load(struct profile_diff *d, struct store *st, long long id)
{
	size_t nslots, slot = 0;
	double sums[2][64];
	size_t nsums[2] = { 0, 0 };

	memset(d, 0, sizeof(*d));
	strbuf_init(&d->clock, 0);
	strbuf_init(&d->label[0], 0);
	strbuf_init(&d->label[1], 0);
	strbuf_init(&d->graph, 0);
	strbuf_init(&d->by, 0);
	if (store_explanation_read(st, id, explanation_take, &d->e) ||
	    store_explanation_runs(st, &d->e, run_take, d))
		return -1;
	nslots = d->nruns[0] + d->nruns[1];
	for (int s = 0; s < 2; s++) {
		for (size_t i = 0; i < d->nruns[s]; i++, slot++) {
			struct boot_reader br = { .d = d, .sorted = d->nr, .slot = slot,
						  .nslots = nslots, .side = s };
			if (store_run_profile(st, d->runs[s][i], d->e.workload, fn_take, &br) ||
			    store_run_samples(st, d->runs[s][i], metric_take, &br))
				return -1;
			qsort(d->fn, d->nr, sizeof(*d->fn), by_name);
			if (br.n && nsums[s] < ARRAY_SIZE(sums[s]))
				sums[s][nsums[s]++] = br.sum;
			d->metric_n[s] += br.n;
		}
		if (store_run_kernel_label(st, &d->label[s], d->runs[s][0]))
			return -1;
		d->metric_sum[s] = nsums[s] ? stats_median(sums[s], nsums[s]) : 0;
	}
	for (size_t i = 0; i < d->nr; i++)
		summarize(d, &d->fn[i], nslots);
	if (store_run_clock(st, &d->clock, d->runs[0][0]) ||
	    store_run_meta(st, d->runs[0][0], by_take, d))
		return -1;
	d->unit_ns = unit_ns(d->unit);
	rank(d);
	return 0;
}

void profile_diff_release(struct profile_diff *d)
{
	for (size_t i = 0; i < d->nr; i++) {
		free(d->fn[i].name);
		free(d->fn[i].v);
	}
	free_all(d->fn, d->runs[0], d->runs[1]);
	free((char *)d->e.workload);
	free((char *)d->e.metric);
	strbuf_release_all(&d->clock, &d->label[0], &d->label[1], &d->graph, &d->by);
	memset(d, 0, sizeof(*d));
}

int profile_diff_repeated(const struct profile_diff *d)
{
	return d->nruns[0] > 1 || d->nruns[1] > 1;
}

double profile_diff_change_ns(const struct profile_diff *d)
{
	if (!d->unit_ns || !d->metric_n[0] || !d->metric_n[1])
		return 0;
	return (d->metric_sum[1] - d->metric_sum[0]) * d->unit_ns;
}

double profile_change_share(const struct profile_diff *d, const struct profile_change *f)
{
	double change = profile_diff_change_ns(d);

	return change != 0 ? f->change / change : NAN;
}

const char *profile_change_mark(const struct profile_change *f)
{
	return !f->have[0] ? "new" : !f->have[1] ? "gone" : "";
}
