/* Event counts beside times: what they are, what was measured, what they contradict (events.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "dvec.h"
#include "events.h"
#include "run.h"
#include "stats.h"
#include "store-events.h"
#include "textfmt.h"
#include "xalloc.h"

int metric_is_event(const char *metric)
{
	return metric && !strncmp(metric, EVENT_METRIC_PREFIX, strlen(EVENT_METRIC_PREFIX));
}

enum measured measured_of(const char *accel, const char *clock, const char *runner)
{
	if (runner && !strcmp(runner, "local"))
		return MEASURED_THIS_HOST;
	if (!accel || !*accel)
		return MEASURED_UNKNOWN;
	if (strcmp(accel, "tcg"))
		return MEASURED_HARDWARE;
	return clock && !strncmp(clock, "icount", 6) ? MEASURED_EMULATED_VIRTUAL :
	       MEASURED_EMULATED_WALL;
}

void measured_words(struct strbuf *out, unsigned kinds)
{
	static const struct {
		enum measured kind;
		const char *words;
	} names[] = {
		{ MEASURED_EMULATED_VIRTUAL, "emulated, virtual time" },
		{ MEASURED_EMULATED_WALL, "emulated, wall time" },
		{ MEASURED_HARDWARE, "hardware (KVM, a remote host or a board)" },
		{ MEASURED_THIS_HOST, "this host, as it runs now" },
		{ MEASURED_UNKNOWN, "not recorded (runs without an accelerator)" },
	};
	int n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (kinds & names[i].kind)
			strbuf_addf(out, "%s%s", n++ ? " and " : "", names[i].words);
	if (!n)
		strbuf_addstr(out, "nothing yet (no run ended OK)");
}

void events_report_release(struct events_report *r)
{
	free(r->v);
	free(r->points);
	memset(r, 0, sizeof(*r));
}

/* The events of one metric at one point while they are read: each side's values. */
struct loading {
	struct events_report *r;
	struct event_row cur;
	struct dvec side[2];
	int started;
	/* the workload's cycles and instructions at this point, for its IPC */
	struct event_row cycles, instructions;
};

static struct measured_point *point_at(struct events_report *r, long long mem_mib, int cpus)
{
	for (size_t i = 0; i < r->npoints; i++)
		if (r->points[i].mem_mib == mem_mib && r->points[i].cpus == cpus)
			return &r->points[i];
	ALLOC_GROW(r->points, r->npoints + 1, r->points_alloc);
	memset(&r->points[r->npoints], 0, sizeof(r->points[0]));
	r->points[r->npoints].mem_mib = mem_mib;
	r->points[r->npoints].cpus = cpus;
	return &r->points[r->npoints++];
}

static void push_row(struct events_report *r, const struct event_row *e)
{
	/* a count that did not move, or one side that has none, says nothing */
	if (e->n_a && e->n_b && e->median_a != e->median_b) {
		ALLOC_GROW(r->v, r->nr + 1, r->alloc);
		r->v[r->nr++] = *e;
	}
}

/* Instructions a cycle, of the medians, once a workload's counts at a point are read. */
static void finish_ipc(struct loading *l)
{
	struct event_row ipc = l->instructions;
	const struct event_row *c = &l->cycles;

	if (*c->metric && *ipc.metric && c->median_a > 0 && c->median_b > 0) {
		snprintf(ipc.metric, sizeof(ipc.metric), "%s", EVENT_METRIC_PREFIX "ipc");
		ipc.median_a /= c->median_a;
		ipc.median_b /= c->median_b;
		ipc.n_a = ipc.n_a < c->n_a ? ipc.n_a : c->n_a;
		ipc.n_b = ipc.n_b < c->n_b ? ipc.n_b : c->n_b;
		push_row(l->r, &ipc);
	}
	memset(&l->cycles, 0, sizeof(l->cycles));
	memset(&l->instructions, 0, sizeof(l->instructions));
}

static void finish_metric(struct loading *l)
{
	struct events_report *r = l->r;
	struct event_row *e = &l->cur;

	if (!l->started)
		return;
	e->n_a = l->side[0].nr;
	e->n_b = l->side[1].nr;
	e->median_a = stats_median(l->side[0].v, l->side[0].nr);
	e->median_b = stats_median(l->side[1].v, l->side[1].nr);
	if (!strcmp(e->metric, EVENT_METRIC_PREFIX "cycles"))
		l->cycles = *e;
	else if (!strcmp(e->metric, EVENT_METRIC_PREFIX "instructions"))
		l->instructions = *e;
	if (!strcmp(e->metric, EVENT_METRIC_PREFIX "cycles") ||
	    !strcmp(e->metric, EVENT_METRIC_PREFIX "instructions"))
		point_at(r, e->mem_mib, e->cpus)->counters = 1;
	push_row(r, e);
	l->side[0].nr = l->side[1].nr = 0;
	l->started = 0;
}

static int add_event(const struct store_event *x, void *data)
{
	struct loading *l = data;
	struct event_row *e = &l->cur;
	int side;

	if (!strcmp(x->variant, "A"))
		side = 0;
	else if (!strcmp(x->variant, "B"))
		side = 1;
	else
		return 0;
	if (!l->started || e->mem_mib != x->mem_mib || e->cpus != x->cpus ||
	    strcmp(e->workload, x->workload) || strcmp(e->metric, x->metric)) {
		finish_metric(l);
		if (e->mem_mib != x->mem_mib || e->cpus != x->cpus || strcmp(e->workload, x->workload))
			finish_ipc(l);
		memset(e, 0, sizeof(*e));
		snprintf(e->workload, sizeof(e->workload), "%s", x->workload);
		snprintf(e->metric, sizeof(e->metric), "%s", x->metric);
		e->mem_mib = x->mem_mib;
		e->cpus = x->cpus;
		l->started = 1;
	}
	dvec_push(&l->side[side], x->value);
	return 0;
}

static int add_accel(long long mem_mib, int cpus, const char *accel, const char *clock,
		     const char *runner, const struct run_host *host, void *data)
{
	struct events_report *r = data;
	struct measured_point *p = point_at(r, mem_mib, cpus);

	if (!p->kinds) {
		p->host = *host;
	} else if (p->host.mem_mib != host->mem_mib || p->host.cpus != host->cpus) {
		p->host.mem_mib = -1;
		p->host.cpus = -1;
	}
	p->kinds |= measured_of(accel, clock, runner);
	return 0;
}

/* The point at mem_mib, cpus when only the local runner measured it and its runs agree on the host. */
static const struct measured_point *host_point(const struct events_report *r, long long mem_mib,
					       int cpus)
{
	for (size_t i = 0; i < r->npoints; i++) {
		const struct measured_point *p = &r->points[i];

		if (p->mem_mib != mem_mib || p->cpus != cpus)
			continue;
		if (p->kinds != MEASURED_THIS_HOST || p->host.mem_mib <= 0 || p->host.cpus <= 0)
			return NULL;
		return p;
	}
	return NULL;
}

int events_host_words(struct strbuf *out, const struct events_report *r, long long mem_mib,
		      int cpus)
{
	const struct measured_point *p = host_point(r, mem_mib, cpus);

	if (p)
		run_host_words(out, p->host.mem_mib, p->host.cpus);
	return p != NULL;
}

void events_point_words(struct strbuf *out, const struct events_report *r, long long mem_mib,
			int cpus)
{
	const struct measured_point *p = r && r->npoints == 1 ? host_point(r, mem_mib, cpus) : NULL;

	run_size_words(out, mem_mib, cpus, p ? p->host.mem_mib : 0, p ? p->host.cpus : 0);
}

enum source { OF_AB, OF_CULPRIT, OF_EXPLANATION };

/* The events of id (an A/B, a bisection's culprit, an explanation); but an explanation's, its points. */
static int load(struct events_report *r, struct store *st, long long id, const char *culprit,
		enum source src)
{
	struct loading l = { .r = r };
	int ret;

	memset(r, 0, sizeof(*r));
	if (src == OF_CULPRIT)
		ret = store_culprit_events(st, id, culprit, add_event, &l);
	else if (src == OF_AB)
		ret = store_experiment_events(st, id, add_event, &l);
	else
		ret = store_explanation_events(st, id, add_event, &l);
	if (!ret) {
		finish_metric(&l);
		finish_ipc(&l);
	}
	dvec_release(&l.side[0]);
	dvec_release(&l.side[1]);
	if (!ret && src != OF_EXPLANATION)
		ret = store_experiment_accels(st, id, add_accel, r);
	if (ret)
		events_report_release(r);
	return ret;
}

int events_report_load(struct events_report *r, struct store *st, long long exp_id)
{
	return load(r, st, exp_id, NULL, OF_AB);
}

int events_report_load_culprit(struct events_report *r, struct store *st, long long exp_id,
			       const char *culprit)
{
	return load(r, st, exp_id, culprit, OF_CULPRIT);
}

int events_report_load_explanation(struct events_report *r, struct store *st,
				   long long explanation_id)
{
	return load(r, st, explanation_id, NULL, OF_EXPLANATION);
}

unsigned events_measured_at(const struct events_report *r, long long mem_mib, int cpus)
{
	for (size_t i = 0; i < r->npoints; i++)
		if (r->points[i].mem_mib == mem_mib && r->points[i].cpus == cpus)
			return r->points[i].kinds;
	return 0;
}

const char *events_no_counters(const struct events_report *r, long long mem_mib, int cpus)
{
	for (size_t i = 0; i < r->npoints; i++) {
		const struct measured_point *p = &r->points[i];

		if (p->mem_mib != mem_mib || p->cpus != cpus || p->counters || !p->kinds)
			continue;
		if (!(p->kinds & ~(MEASURED_EMULATED_VIRTUAL | MEASURED_EMULATED_WALL)))
			return "no hardware counters (emulated)";
		return "no hardware counters (the kernel or the CPU offers none)";
	}
	return NULL;
}

unsigned events_measured_all(const struct events_report *r)
{
	unsigned kinds = 0;

	for (size_t i = 0; i < r->npoints; i++)
		kinds |= r->points[i].kinds;
	return kinds;
}

#define EMULATED (MEASURED_EMULATED_VIRTUAL | MEASURED_EMULATED_WALL)

const struct event_row *events_disagree(const struct events_report *r,
					const struct verdict_row *v)
{
	unsigned kinds = events_measured_at(r, v->mem_mib, v->cpus);
	double cost;

	/* only where every run was emulated: hardware pays for its faults */
	if (!kinds || (kinds & ~EMULATED) || !isfinite(v->ratio) || v->ratio <= 0 ||
	    (strcmp(v->verdict, "REGRESSION") && strcmp(v->verdict, "IMPROVEMENT")))
		return NULL;
	/* time B/A: for a rate, higher is less time */
	cost = strcmp(v->direction, "higher") ? v->ratio : 1 / v->ratio;
	for (size_t i = 0; i < r->nr; i++) {
		const struct event_row *e = &r->v[i];

		if (e->mem_mib != v->mem_mib || e->cpus != v->cpus ||
		    strcmp(e->workload, v->workload) ||
		    strcmp(e->metric, EVENT_METRIC_PREFIX "pgfault"))
			continue;
		if ((cost > 1 && e->median_b * EVENTS_DISAGREE_FACTOR < e->median_a) ||
		    (cost < 1 && e->median_a * EVENTS_DISAGREE_FACTOR < e->median_b))
			return e;
	}
	return NULL;
}

void events_disagree_words(struct strbuf *out, const struct verdict_row *v,
			   const struct event_row *e)
{
	char change[32];
	double r = v->ratio;

	strbuf_addf(out, "%s.%s: emulated %s ", v->workload, v->metric,
		    strcmp(v->direction, "higher") ? "time" : "rate");
	textfmt_ratio(change, sizeof(change), r);
	strbuf_addstr(out, change);
	strbuf_addf(out, ", %s %.15g -> %.15g: real hardware may disagree",
		    e->metric + strlen(EVENT_METRIC_PREFIX), e->median_a, e->median_b);
}
