#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "sample.h"
#include "xalloc.h"

/*
 * The iterations of one series, as an open-addressed hash set. Built only
 * for a series whose iterations stopped rising, so that the usual run
 * (0, 1, 2, ...) pays nothing for the repeat check.
 */
struct iter_set {
	long *slot;		/* LONG_MIN: empty */
	size_t cap, nr;
	int has_min;		/* LONG_MIN itself is in the set */
};

static size_t iter_hash(long v, size_t cap)
{
	unsigned long long x = (unsigned long long)v;
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return (size_t)x & (cap - 1);
}

static int iter_set_put(struct iter_set *s, long v);

static void iter_set_grow(struct iter_set *s)
{
	long *old = s->slot;
	size_t old_cap = s->cap;

	s->cap = s->cap ? s->cap * 2 : 64;
	s->slot = xcalloc(s->cap, sizeof(*s->slot));
	for (size_t i = 0; i < s->cap; i++)
		s->slot[i] = LONG_MIN;
	s->nr = 0;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i] != LONG_MIN)
			iter_set_put(s, old[i]);
	free(old);
}

/* Returns 1 when v was there already. */
static int iter_set_put(struct iter_set *s, long v)
{
	size_t i;

	if (v == LONG_MIN) {
		if (s->has_min)
			return 1;
		s->has_min = 1;
		return 0;
	}
	if ((s->nr + 1) * 2 > s->cap)
		iter_set_grow(s);
	for (i = iter_hash(v, s->cap); s->slot[i] != LONG_MIN; i = (i + 1) & (s->cap - 1))
		if (s->slot[i] == v)
			return 1;
	s->slot[i] = v;
	s->nr++;
	return 0;
}

static long find_series(const struct sample_set *set, const char *workload, const char *metric)
{
	const struct sample_series *h = set->series_nr ? &set->series[set->hint] : NULL;

	if (h && !strcmp(h->metric, metric) && !strcmp(h->workload, workload))
		return (long)set->hint;
	for (size_t i = 0; i < set->series_nr; i++)
		if (!strcmp(set->series[i].metric, metric) &&
		    !strcmp(set->series[i].workload, workload))
			return (long)i;
	return -1;
}

const char *sample_set_unit(const struct sample_set *set, const char *workload,
			    const char *metric)
{
	long i = find_series(set, workload, metric);
	return i < 0 ? NULL : set->series[i].unit;
}

/* Whether iteration is new to series i, remembering it. */
static int first_time(struct sample_set *set, size_t i, long iteration)
{
	struct sample_series *sr = &set->series[i];

	if (iteration > sr->last && !sr->seen) {
		sr->last = iteration;
		return 1;
	}
	if (!sr->seen) {
		sr->seen = xcalloc(1, sizeof(*sr->seen));
		for (size_t k = 0; k < set->nr; k++)
			if (set->v[k].series == i)
				iter_set_put(sr->seen, set->v[k].iteration);
	}
	if (iter_set_put(sr->seen, iteration))
		return 0;
	if (iteration > sr->last)
		sr->last = iteration;
	return 1;
}

enum sample_added sample_set_add(struct sample_set *set, const struct sample *s)
{
	long i = find_series(set, s->workload, s->metric);
	struct sample_rec *r;

	if (i < 0) {
		struct sample_series *sr;

		ALLOC_GROW(set->series, set->series_nr + 1, set->series_alloc);
		i = (long)set->series_nr++;
		sr = &set->series[i];
		sr->workload = xstrdup(s->workload);
		sr->metric = xstrdup(s->metric);
		sr->unit = xstrdup(s->unit);
		sr->last = s->iteration;
		sr->seen = NULL;
	} else if (strcmp(set->series[i].unit, s->unit)) {
		return SAMPLE_OTHER_UNIT;
	} else if (!first_time(set, (size_t)i, s->iteration)) {
		return SAMPLE_REPEATED;
	}
	set->hint = (size_t)i;
	ALLOC_GROW(set->v, set->nr + 1, set->alloc);
	r = &set->v[set->nr++];
	r->series = (unsigned)i;
	r->flags = s->flags;
	r->iteration = s->iteration;
	r->value = s->value;
	return SAMPLE_ADDED;
}

void sample_set_get(const struct sample_set *set, size_t i, struct sample *out)
{
	const struct sample_rec *r = &set->v[i];
	const struct sample_series *sr = &set->series[r->series];

	*out = (struct sample){ .workload = sr->workload, .metric = sr->metric, .unit = sr->unit,
				.iteration = r->iteration, .value = r->value, .flags = r->flags };
}

void sample_set_meta(struct sample_set *set, const char *key, const char *value)
{
	for (size_t i = 0; i < set->meta_nr; i++) {
		if (!strcmp(set->meta[i].key, key)) {
			free(set->meta[i].value);
			set->meta[i].value = xstrdup(value);
			return;
		}
	}
	ALLOC_GROW(set->meta, set->meta_nr + 1, set->meta_alloc);
	set->meta[set->meta_nr].key = xstrdup(key);
	set->meta[set->meta_nr].value = xstrdup(value);
	set->meta_nr++;
}

const char *sample_set_meta_get(const struct sample_set *set, const char *key)
{
	for (size_t i = 0; i < set->meta_nr; i++)
		if (!strcmp(set->meta[i].key, key))
			return set->meta[i].value;
	return NULL;
}

void sample_set_release(struct sample_set *set)
{
	for (size_t i = 0; i < set->meta_nr; i++) {
		free(set->meta[i].key);
		free(set->meta[i].value);
	}
	for (size_t i = 0; i < set->series_nr; i++) {
		free_all(set->series[i].workload, set->series[i].metric, set->series[i].unit);
		if (set->series[i].seen)
			free(set->series[i].seen->slot);
		free(set->series[i].seen);
	}
	free_all(set->series, set->meta, set->v);
	memset(set, 0, sizeof(*set));
}
