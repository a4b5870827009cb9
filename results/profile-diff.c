/* An explanation's two profiles side by side, ranked (profile-diff.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "profile-diff.h"
#include "store-experiment.h"
#include "xalloc.h"

static int fn_take(const char *function, long long calls, double ns, void *data)
{
	struct profile_diff *d = data;
	struct profile_change *r = NULL;

	/* both sides come sorted by name: B's rows are found among A's */
	if (d->side) {
		size_t lo = 0, hi = d->na;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			int c = strcmp(d->fn[mid].name, function);
			if (!c) {
				r = &d->fn[mid];
				break;
			}
			if (c < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	if (!r) {
		ALLOC_GROW(d->fn, d->nr + 1, d->alloc);
		r = &d->fn[d->nr++];
		memset(r, 0, sizeof(*r));
		r->name = xstrdup(function);
	}
	r->calls[d->side] = calls;
	r->ns[d->side] = ns;
	r->have[d->side] = 1;
	return 0;
}

static int metric_take(const struct sample *s, void *data)
{
	struct profile_diff *d = data;

	if (strcmp(s->workload, d->e.workload) || strcmp(s->metric, d->e.metric))
		return 0;
	d->metric_sum[d->side] += s->value;
	d->metric_n[d->side]++;
	snprintf(d->unit, sizeof(d->unit), "%s", s->unit);
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
	double dx = fabs(x->ns[1] - x->ns[0]), dy = fabs(y->ns[1] - y->ns[0]);

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
		double x = fabs(r->ns[1] - r->ns[0]);
		if (!waits(r->name) && x > most)
			most = x;
	}
	for (size_t i = 0; i < d->nr; i++) {
		struct profile_change *r = &d->fn[i];
		double x = fabs(r->ns[1] - r->ns[0]);
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

int profile_diff_load(struct profile_diff *d, struct store *st, long long id)
{
	memset(d, 0, sizeof(*d));
	strbuf_init(&d->clock, 0);
	strbuf_init(&d->label[0], 0);
	strbuf_init(&d->label[1], 0);
	if (store_explanation_read(st, id, explanation_take, &d->e))
		return -1;
	for (d->side = 0; d->side < 2; d->side++) {
		long long run_id = d->side ? d->e.b_run_id : d->e.a_run_id;
		if (store_run_profile(st, run_id, d->e.workload, fn_take, d) ||
		    store_run_samples(st, run_id, metric_take, d) ||
		    store_run_kernel_label(st, &d->label[d->side], run_id))
			return -1;
		if (!d->side)
			d->na = d->nr;
	}
	if (store_run_clock(st, &d->clock, d->e.a_run_id))
		return -1;
	d->unit_ns = unit_ns(d->unit);
	rank(d);
	return 0;
}

void profile_diff_release(struct profile_diff *d)
{
	for (size_t i = 0; i < d->nr; i++)
		free(d->fn[i].name);
	free(d->fn);
	free((char *)d->e.workload);
	free((char *)d->e.metric);
	strbuf_release(&d->clock);
	strbuf_release(&d->label[0]);
	strbuf_release(&d->label[1]);
	memset(d, 0, sizeof(*d));
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

	return change != 0 ? (f->ns[1] - f->ns[0]) / change : NAN;
}

const char *profile_change_mark(const struct profile_change *f)
{
	return !f->have[0] ? "new" : !f->have[1] ? "gone" : "";
}
