#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect.h"
#include "log.h"
#include "strbuf.h"
#include "xalloc.h"

static const struct {
	const char *workload;
	const char *metrics[5];		/* a trailing '*' names a family */
} guest_metrics[] = {
	{ "zeroing", { "touch", "clear_huge_page" } },
	{ "demote", { "demote_page_wall", "demote_page_sys", "demote_total_wall",
		      "demote_total_sys" } },
	{ "boot", { "to_init", "host_to_init", "deferred_init_*", "fn_*", "probe_*" } },
};

static int metric_matches(const char *pattern, const char *metric)
{
	size_t len = strlen(pattern);

	if (len && pattern[len - 1] == '*')
		return !strncmp(pattern, metric, len - 1) && metric[len - 1];
	return !strcmp(pattern, metric);
}

int bisect_metric_check(const struct strvec *workloads, const char *metric)
{
	struct strbuf known = STRBUF_INIT, names = STRBUF_INIT;
	int ret = -1;

	for (size_t w = 0; w < workloads->nr; w++) {
		for (size_t i = 0; i < sizeof(guest_metrics) / sizeof(guest_metrics[0]); i++) {
			if (strcmp(guest_metrics[i].workload, workloads->v[w]))
				continue;
			for (size_t k = 0; k < 5 && guest_metrics[i].metrics[k]; k++) {
				if (metric_matches(guest_metrics[i].metrics[k], metric))
					ret = 0;
				strbuf_addf(&known, "%s%s", known.len ? ", " : "",
					    guest_metrics[i].metrics[k]);
			}
		}
		strbuf_addf(&names, "%s%s", w ? "," : "", workloads->v[w]);
	}
	if (ret)
		error("unknown metric '%s' for workload '%s' (known: %s)", metric, strbuf_str(&names),
		      strbuf_str(&known));
	strbuf_release(&known);
	strbuf_release(&names);
	return ret;
}

const char *bisect_mark_name(enum bisect_mark m)
{
	switch (m) {
	case BISECT_UNKNOWN: return "UNKNOWN";
	case BISECT_GOOD: return "GOOD";
	case BISECT_BAD: return "BAD";
	case BISECT_SKIP: return "SKIP";
	}
	return "?";
}

struct bitset {
	uint64_t *w;
	size_t words;
};

/* anc[i]: i and its ancestors inside the candidate set, as bitsets. */
static uint64_t *ancestors(const struct bisect_graph *g, size_t *words)
{
	size_t wpr = (g->n + 63) / 64;
	uint64_t *a = xcalloc(g->n * wpr, sizeof(*a));

	for (size_t i = 0; i < g->n; i++) {
		uint64_t *row = a + i * wpr;
		row[i / 64] |= 1ull << (i % 64);
		for (size_t k = 0; k < g->nparents[i]; k++) {
			const uint64_t *p = a + g->parents[i][k] * wpr;
			for (size_t w = 0; w < wpr; w++)
				row[w] |= p[w];
		}
	}
	*words = wpr;
	return a;
}

static size_t popcount_and(const uint64_t *x, const uint64_t *y, size_t words)
{
	size_t c = 0;
	for (size_t w = 0; w < words; w++)
		c += (size_t)__builtin_popcountll(x[w] & y[w]);
	return c;
}

/* What is still in question: ancestors of every bad, minus ancestors of any good. */
static uint64_t *remaining(const struct bisect_graph *g, const enum bisect_mark *marks,
			   const uint64_t *anc, size_t wpr)
{
	uint64_t *r = xcalloc(wpr, sizeof(*r));

	for (size_t i = 0; i < g->n; i++)
		r[i / 64] |= 1ull << (i % 64);
	for (size_t i = 0; i < g->n; i++) {
		const uint64_t *row = anc + i * wpr;
		if (marks[i] == BISECT_BAD)
			for (size_t w = 0; w < wpr; w++)
				r[w] &= row[w];
		else if (marks[i] == BISECT_GOOD)
			for (size_t w = 0; w < wpr; w++)
				r[w] &= ~row[w];
	}
	return r;
}

long bisect_next(const struct bisect_graph *g, const enum bisect_mark *marks)
{
	size_t wpr, left;
	uint64_t *anc = ancestors(g, &wpr), *r = remaining(g, marks, anc, wpr);
	long best = -1;
	size_t best_score = 0;

	left = popcount_and(r, r, wpr);
	for (size_t i = 0; i < g->n && left > 1; i++) {
		size_t w, score;
		if (!(r[i / 64] >> (i % 64) & 1) || marks[i] != BISECT_UNKNOWN)
			continue;
		w = popcount_and(anc + i * wpr, r, wpr);
		score = w < left - w ? w : left - w;
		if (best < 0 || score > best_score) {
			best = (long)i;
			best_score = score;
		}
	}
	free(anc);
	free(r);
	return best;
}

struct sides {
	double *g, *b, *m;
	size_t ng, nb, nm;
};

static void sides_release(struct sides *s)
{
	free(s->g);
	free(s->b);
	free(s->m);
	memset(s, 0, sizeof(*s));
}

static int load(const struct bisect_ops *ops, int who, double **v, size_t *n)
{
	free(*v);
	*v = NULL;
	*n = 0;
	return ops->units(ops->data, who, v, n);
}

/* Bring G and B to at least level units each, alternately (ABBA). */
static int top_up_ends(const struct bisect_ops *ops, struct sides *s, size_t level)
{
	for (int round = 0;; round++) {
		if (load(ops, BISECT_G, &s->g, &s->ng) || load(ops, BISECT_B, &s->b, &s->nb))
			return -1;
		if (s->ng >= level && s->nb >= level)
			return 0;
		for (int k = 0; k < 2; k++) {
			int who = (k ^ (round & 1)) ? BISECT_B : BISECT_G;
			size_t have = who == BISECT_G ? s->ng : s->nb;
			int r;
			if (have >= level)
				continue;
			r = ops->measure(ops->data, who);
			if (r)
				return -1;
		}
	}
}

/* G -> B first: is there a regression at all, and how large? */
static int measure_effect(struct bisect_result *out, const struct bisect_options *opt,
			  const struct bisect_ops *ops, struct sides *s)
{
	struct stats_schedule sched = { opt->start, 160, opt->alpha };
	struct stats_options so = { stats_schedule_alpha(&sched), opt->delta, opt->direction };
	struct stats_comparison c;

	for (size_t level = opt->start; level <= 160; level *= 2) {
		if (top_up_ends(ops, s, level))
			return -1;
		if (stats_compare(&c, s->g, s->ng, s->b, s->nb, &so))
			return -1;
		if (c.verdict != VERDICT_INCONCLUSIVE)
			break;
	}
	out->effect.estimate = c.ratio;
	out->effect.lo = c.lo;
	out->effect.hi = c.hi;
	out->effect_alpha = c.alpha;
	out->log_effect = log(c.ratio);
	out->no_regression = c.verdict != VERDICT_REGRESSION;
	return 0;
}

/* Classify one candidate against G and half of L; fresh G and B boots interleave. */
static int classify(enum bisect_mark *mark, struct stats_hl *hl, size_t *n,
		    const struct bisect_options *opt, const struct bisect_ops *ops,
		    struct sides *s, int who, double half)
{
	int round = 0;

	*mark = BISECT_SKIP;
	*n = 0;
	hl->estimate = hl->lo = hl->hi = NAN;
	for (size_t level = opt->start; level <= opt->cap; level *= 2) {
		for (;;) {
			int r;
			if (load(ops, who, &s->m, &s->nm))
				return -1;
			*n = s->nm;
			if (s->nm >= level)
				break;
			r = ops->measure(ops->data, who);
			if (r < 0)
				return -1;
			if (r > 0)
				return 0;	/* does not build or boot: skip */
			r = ops->measure(ops->data, round++ & 1 ? BISECT_B : BISECT_G);
			if (r)
				return -1;
		}
		if (load(ops, BISECT_G, &s->g, &s->ng) ||
		    stats_hl_ratio(hl, s->g, s->ng, s->m, s->nm, opt->step_alpha))
			return -1;
		*n = s->nm;
		{
			double lo = log(hl->lo), hi = log(hl->hi);
			int beyond = half > 0 ? lo > half : hi < half;
			int short_of = half > 0 ? hi < half : lo > half;
			if (beyond) {
				*mark = BISECT_BAD;
				return 0;
			}
			if (short_of) {
				*mark = BISECT_GOOD;
				return 0;
			}
		}
	}
	return 0;
}

int bisect_effect(struct bisect_result *out, const struct bisect_options *opt,
		  const struct bisect_ops *ops)
{
	struct sides s;
	int ret;

	memset(out, 0, sizeof(*out));
	memset(&s, 0, sizeof(s));
	ret = measure_effect(out, opt, ops, &s);
	sides_release(&s);
	return ret;
}

int bisect_classify(enum bisect_mark *mark, struct stats_hl *hl, size_t *n,
		    const struct bisect_options *opt, const struct bisect_ops *ops, int who,
		    double log_effect)
{
	struct sides s;
	int ret;

	memset(&s, 0, sizeof(s));
	ret = classify(mark, hl, n, opt, ops, &s, who, log_effect / 2);
	sides_release(&s);
	return ret;
}

int bisect_run(struct bisect_result *out, const struct bisect_graph *g,
	       const struct bisect_options *opt, const struct bisect_ops *ops)
{
	enum bisect_mark *marks = xcalloc(g->n, sizeof(*marks));
	struct sides s;
	size_t wpr;
	uint64_t *anc = NULL, *r = NULL;
	int ret = -1;
	long next;

	memset(out, 0, sizeof(*out));
	memset(&s, 0, sizeof(s));
	if (measure_effect(out, opt, ops, &s))
		goto out;
	if (out->no_regression) {
		ret = 0;
		goto out;
	}
	marks[g->n - 1] = BISECT_BAD;
	while ((next = bisect_next(g, marks)) >= 0) {
		struct stats_hl hl = { NAN, NAN, NAN };
		size_t n = 0;
		if (classify(&marks[next], &hl, &n, opt, ops, &s, (int)next, out->log_effect / 2))
			goto out;
		out->steps++;
		if (ops->decided && ops->decided(ops->data, (int)next, marks[next], n, &hl))
			goto out;
	}
	anc = ancestors(g, &wpr);
	r = remaining(g, marks, anc, wpr);
	for (size_t i = 0; i < g->n; i++) {
		if (!(r[i / 64] >> (i % 64) & 1))
			continue;
		out->remaining = realloc(out->remaining, (out->nremaining + 1) * sizeof(size_t));
		if (!out->remaining)
			goto out;
		out->remaining[out->nremaining++] = i;
	}
	if (out->nremaining == 1) {
		out->found = 1;
		out->culprit = out->remaining[0];
	}
	ret = 0;
out:
	free(marks);
	free(anc);
	free(r);
	sides_release(&s);
	return ret;
}

void bisect_result_release(struct bisect_result *r)
{
	free(r->remaining);
	r->remaining = NULL;
	r->nremaining = 0;
}

int bisect_confirm(struct bisect_confirmation *out, const struct bisect_result *r,
		   const struct bisect_ops *ops, int parent, int culprit)
{
	double *vp = NULL, *vc = NULL;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	out->ratio.estimate = out->ratio.lo = out->ratio.hi = out->z = NAN;
	for (int round = 0;; round++) {
		if (load(ops, parent, &vp, &out->n_parent) || load(ops, culprit, &vc, &out->n_culprit))
			goto out;
		if (out->n_parent >= BISECT_CONFIRM_UNITS && out->n_culprit >= BISECT_CONFIRM_UNITS)
			break;
		/* ABBA, as every other comparison here */
		for (int k = 0; k < 2; k++) {
			int who = (k ^ (round & 1)) ? culprit : parent;
			size_t have = who == parent ? out->n_parent : out->n_culprit;
			int m;
			if (have >= BISECT_CONFIRM_UNITS)
				continue;
			m = ops->measure(ops->data, who);
			if (m) {
				ret = m > 0 ? 1 : -1;
				goto out;
			}
		}
	}
	if (stats_hl_ratio(&out->ratio, vp, out->n_parent, vc, out->n_culprit, 0.01) ||
	    stats_ratio_z(&out->z, &out->ratio, 0.01, &r->effect, r->effect_alpha))
		goto out;
	out->more_than_one = fabs(out->z) > stats_norm_quantile(1 - 0.01 / 2);
	ret = 0;
out:
	free(vp);
	free(vc);
	return ret;
}
