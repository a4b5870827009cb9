#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "stats.h"
#include "store-experiment.h"
#include "units.h"
#include "xalloc.h"

void units_side_release(struct unit_side *s)
{
	for (size_t i = 0; i < s->n; i++) {
		dvec_release(&s->m[i].samples);
		free(s->m[i].len);
		free(s->m[i].target);
	}
	strvec_release(&s->targets);
	free(s->m);
	memset(s, 0, sizeof(*s));
}

static size_t target_index(struct unit_side *s, const char *target)
{
	for (size_t i = 0; i < s->targets.nr; i++)
		if (!strcmp(s->targets.v[i], target))
			return i;
	strvec_push(&s->targets, target);
	return s->targets.nr - 1;
}

struct loading {
	struct unit_side *s;
	struct unit_metric *cur;
	long long last_run;
};

static int add_sample(const struct store_counted_sample *x, void *data)
{
	struct loading *l = data;
	struct unit_side *s = l->s;
	struct unit_metric *cur = l->cur;

	if (!cur || strcmp(cur->workload, x->workload) || strcmp(cur->metric, x->metric) ||
	    strcmp(cur->unit, x->unit)) {
		ALLOC_GROW(s->m, s->n + 1, s->alloc);
		cur = l->cur = &s->m[s->n++];
		memset(cur, 0, sizeof(*cur));
		snprintf(cur->workload, sizeof(cur->workload), "%s", x->workload);
		snprintf(cur->metric, sizeof(cur->metric), "%s", x->metric);
		snprintf(cur->unit, sizeof(cur->unit), "%s", x->unit);
		l->last_run = -1;
	}
	if (x->run_id != l->last_run) {
		/* len and target, a boot each: grown together, to one size */
		if (cur->nboots == cur->boots_alloc) {
			size_t alloc = cur->boots_alloc;

			ALLOC_GROW(cur->len, cur->nboots + 1, cur->boots_alloc);
			ALLOC_GROW(cur->target, cur->nboots + 1, alloc);
		}
		cur->target[cur->nboots] = target_index(s, x->target);
		cur->len[cur->nboots++] = 0;
		l->last_run = x->run_id;
	}
	dvec_push(&cur->samples, x->value);
	cur->len[cur->nboots - 1]++;
	return 0;
}

int units_side_load(struct unit_side *s, struct store *st, long long exp_id,
		    long long variant_id, long mem, long cpus, const char *metric)
{
	struct loading l = { s, NULL, -1 };

	int ret;

	memset(s, 0, sizeof(*s));
	strvec_init(&s->targets);
	ret = store_counted_samples(st, exp_id, variant_id, mem, cpus, metric, add_sample, &l);
	for (size_t i = 0; i < s->n; i++)
		s->m[i].ntargets = s->targets.nr;
	return ret;
}

/* The units to compare for one side: samples, or per-boot medians. */
double *units_values(const struct unit_metric *m, int per_boot, size_t *n)
{
	double *out;

	if (!per_boot) {
		out = xreallocarray(NULL, m->samples.nr, sizeof(*out));
		memcpy(out, m->samples.v, m->samples.nr * sizeof(*out));
		*n = m->samples.nr;
		return out;
	}
	out = xreallocarray(NULL, m->nboots, sizeof(*out));
	if (stats_boot_medians(out, n, m->samples.v, m->len, m->nboots)) {
		/* out of memory: no units, which nothing compares */
		free(out);
		*n = 0;
		return NULL;
	}
	return out;
}

/*
 * The boot-to-boot rule with targets for boots: the samples grouped by
 * target, a target effect when the between-target spread of the medians
 * exceeds what the spread within the targets gives (docs/statistics.md).
 */
static int target_effect(const struct unit_metric *m)
{
	struct stats_boot_units u;
	const double **groups;
	double *v = xreallocarray(NULL, m->samples.nr + 1, sizeof(*v));
	size_t *len = xreallocarray(NULL, m->ntargets, sizeof(*len)), n = 0, used = 0;
	int per_target = 0;

	groups = xreallocarray(NULL, m->ntargets, sizeof(*groups));
	for (size_t t = 0; t < m->ntargets; t++) {
		size_t off = 0;
		groups[used] = v + n;
		len[used] = 0;
		for (size_t b = 0; b < m->nboots; b++) {
			if (m->target[b] == t) {
				memcpy(v + n, m->samples.v + off, m->len[b] * sizeof(*v));
				n += m->len[b];
				len[used] += m->len[b];
			}
			off += m->len[b];
		}
		used += len[used] > 0;
	}
	if (used >= 2 && !stats_boot_units(&u, groups, len, used)) {
		per_target = u.per_boot;
		stats_boot_units_release(&u);
	}
	free_all(groups, len, v);
	return per_target;
}

int units_boot_effect(const struct unit_metric *m)
{
	struct stats_boot_units u;
	const double **groups = xreallocarray(NULL, m->nboots, sizeof(*groups));
	size_t off = 0;
	int per_boot = 0;

	for (size_t b = 0; b < m->nboots; b++) {
		groups[b] = m->samples.v + off;
		off += m->len[b];
	}
	if (!stats_boot_units(&u, groups, m->len, m->nboots)) {
		per_boot = u.per_boot;
		stats_boot_units_release(&u);
	}
	free(groups);
	return per_boot || (m->ntargets >= 2 && target_effect(m));
}

enum stats_direction units_direction(const struct strvec *higher, const char *workload,
				     const char *metric)
{
	for (size_t i = 0; i < higher->nr; i++) {
		const char *dot = strchr(higher->v[i], '.');

		if (!dot || strcmp(dot + 1, metric))
			continue;
		if (!workload || ((size_t)(dot - higher->v[i]) == strlen(workload) &&
				  !strncmp(higher->v[i], workload, strlen(workload))))
			return STATS_HIGHER_IS_BETTER;
	}
	return STATS_LOWER_IS_BETTER;
}

int units_all_positive(const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!(v[i] > 0))
			return 0;
	return 1;
}


int units_boot_medians(double **v, size_t *n, struct store *st, long long exp_id,
		       long long variant_id, long mem, long cpus, const char *metric)
{
	struct unit_side side;

	*v = NULL;
	*n = 0;
	if (units_side_load(&side, st, exp_id, variant_id, mem, cpus, metric))
		return -1;
	for (size_t i = 0; i < side.n; i++)
		if (!strcmp(side.m[i].metric, metric)) {
			free(*v);
			*v = units_values(&side.m[i], 1, n);
		}
	units_side_release(&side);
	return 0;
}

int units_common_boots(size_t *n, struct store *st, long long exp_id, long long variant_a,
		       long long variant_b)
{
	struct unit_side a, b;

	*n = 0;
	if (units_side_load(&a, st, exp_id, variant_a, -1, -1, NULL))
		return -1;
	if (units_side_load(&b, st, exp_id, variant_b, -1, -1, NULL)) {
		units_side_release(&a);
		return -1;
	}
	if (a.n && b.n)
		*n = a.m[0].nboots < b.m[0].nboots ? a.m[0].nboots : b.m[0].nboots;
	units_side_release(&a);
	units_side_release(&b);
	return 0;
}

int units_compare_point(struct units_comparison **out, size_t *n, struct store *st,
			long long exp_id, long long variant_a, long long variant_b, long mem,
			long cpus, double alpha, double delta)
{
	struct unit_side a, b;
	struct stats_options opt = STATS_OPTIONS_INIT;
	struct strvec higher = STRVEC_INIT;
	size_t alloc = 0;

	*out = NULL;
	*n = 0;
	if (store_experiment_higher_better(st, exp_id, &higher))
		return -1;
	if (units_side_load(&a, st, exp_id, variant_a, mem, cpus, NULL)) {
		strvec_release(&higher);
		return -1;
	}
	if (units_side_load(&b, st, exp_id, variant_b, mem, cpus, NULL)) {
		units_side_release(&a);
		strvec_release(&higher);
		return -1;
	}
	opt.alpha = alpha;
	opt.delta = delta;
	for (size_t i = 0; i < a.n; i++) {
		const struct unit_metric *ma = &a.m[i], *mb = NULL;
		struct units_comparison *r;
		double *ua, *ub;
		size_t na, nb;

		for (size_t j = 0; j < b.n && !mb; j++)
			if (!strcmp(b.m[j].workload, ma->workload) &&
			    !strcmp(b.m[j].metric, ma->metric) && !strcmp(b.m[j].unit, ma->unit))
				mb = &b.m[j];
		if (!mb)
			continue;
		ALLOC_GROW(*out, *n + 1, alloc);
		r = &(*out)[(*n)++];
		memset(r, 0, sizeof(*r));
		memcpy(r->workload, ma->workload, sizeof(r->workload));
		memcpy(r->metric, ma->metric, sizeof(r->metric));
		memcpy(r->unit, ma->unit, sizeof(r->unit));
		/* a user's workload says which of its metrics are rates */
		opt.direction = units_direction(&higher, ma->workload, ma->metric);
		/* one unit for both sides, so that like is compared with like */
		r->per_boot = units_boot_effect(ma) || units_boot_effect(mb);
		ua = units_values(ma, r->per_boot, &na);
		ub = units_values(mb, r->per_boot, &nb);
		r->comparable = units_all_positive(ua, na) && units_all_positive(ub, nb) &&
				!stats_compare(&r->c, ua, na, ub, nb, &opt);
		if (!r->comparable) {
			memset(&r->c, 0, sizeof(r->c));
			stats_summarize(&r->c.a, ua, na);
			stats_summarize(&r->c.b, ub, nb);
			r->c.p = NAN;
			r->c.verdict = VERDICT_INCONCLUSIVE;
		}
		free(ua);
		free(ub);
	}
	units_side_release(&a);
	units_side_release(&b);
	strvec_release(&higher);
	return 0;
}

int units_compare_variants(struct units_comparison **out, size_t *n, size_t *boots_a,
			   struct store *st, long long exp_id, long long variant_a,
			   long long variant_b, double alpha, double delta)
{
	size_t kept = 0;

	*boots_a = 0;
	if (units_compare_point(out, n, st, exp_id, variant_a, variant_b, -1, -1, alpha, delta) ||
	    units_common_boots(boots_a, st, exp_id, variant_a, variant_a))
		return -1;
	for (size_t i = 0; i < *n; i++)
		if ((*out)[i].comparable)
			(*out)[kept++] = (*out)[i];
	*n = kept;
	return 0;
}
