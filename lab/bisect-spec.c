/* A bisection's spec and its stored row, both ways, and its outcome (bisect-run.h). */
#include <math.h>
#include <string.h>

#include "bisect-run.h"
#include "store-bisect.h"

void bisect_spec_to_row(struct bisect_spec_row *r, const struct bisect_spec *spec,
			const struct boot_opts *bo)
{
	const char *text[] = { spec->good, spec->bad, spec->repo, spec->arch, spec->metric,
			       bo->cmdline, bo->runner, bo->accel, bo->clock, bo->guest, bo->target,
			       bo->targets };
	struct strbuf *to[] = { &r->good_ref, &r->bad_ref, &r->repo, &r->arch, &r->metric,
				&r->cmdline, &r->runner, &r->accel, &r->clock, &r->guest,
				&r->target, &r->targets };

	for (size_t i = 0; i < sizeof(to) / sizeof(to[0]); i++)
		if (text[i])
			strbuf_addstr(to[i], text[i]);
	for (size_t i = 0; i < bo->workloads->nr; i++)
		strbuf_addf(&r->workloads, "%s%s", i ? "," : "", bo->workloads->v[i]);
	for (size_t i = 0; bo->params && i < bo->params->nr; i++)
		strbuf_addf(&r->params, "%s%s", i ? " " : "", bo->params->v[i]);
	r->iters = bo->iters;
	r->mem_mib = bo->mem_mib;
	r->cpus = bo->cpus;
	r->numa = bo->numa;
	r->timeout_s = bo->timeout_s;
	r->alpha = spec->alpha;
	r->max_boots = spec->max_boots;
}

static const char *or_null(const struct strbuf *sb)
{
	return sb->len ? sb->buf : NULL;
}

int bisect_spec_load(struct bisect_stored_spec *s, struct store *st, long long id)
{
	struct bisect_spec *spec = &s->spec;
	struct bisect_spec_row *r = &s->row;

	if (store_bisect_spec_read(st, id, r) || workloads_parse(&s->workloads, r->workloads.buf))
		return -1;
	strvec_split(&s->params, r->params.len ? r->params.buf : "");
	spec->good = r->good_ref.buf;
	spec->bad = r->bad_ref.buf;
	spec->repo = or_null(&r->repo);
	spec->arch = or_null(&r->arch);
	spec->metric = or_null(&r->metric);
	spec->boot.workloads = &s->workloads;
	spec->boot.params = &s->params;
	spec->boot.cmdline = or_null(&r->cmdline);
	spec->boot.runner = or_null(&r->runner);
	spec->boot.accel = or_null(&r->accel);
	spec->boot.clock = or_null(&r->clock);
	spec->boot.guest = or_null(&r->guest);
	spec->boot.target = or_null(&r->target);
	spec->boot.targets = or_null(&r->targets);
	spec->boot.iters = r->iters;
	spec->boot.mem_mib = r->mem_mib;
	spec->boot.cpus = r->cpus;
	spec->boot.numa = r->numa;
	spec->boot.timeout_s = r->timeout_s;
	spec->alpha = r->alpha;
	spec->max_boots = r->max_boots;
	spec->resume = id;
	return 0;
}

void bisect_stored_spec_release(struct bisect_stored_spec *s)
{
	bisect_spec_row_release(&s->row);
	strvec_release(&s->workloads);
	strvec_release(&s->params);
}

const char *bisect_verdict_name(enum bisect_verdict v)
{
	switch (v) {
	case BISECT_FOUND: return "FOUND";
	case BISECT_UNCLEAR: return "UNCLEAR";
	case BISECT_CANDIDATES: return "CANDIDATES";
	case BISECT_NO_REGRESSION: return "NO_REGRESSION";
	case BISECT_INCONCLUSIVE: return "INCONCLUSIVE";
	}
	return "?";
}

void bisect_outcome_init(struct bisect_outcome *out)
{
	memset(out, 0, sizeof(*out));
	strbuf_init(&out->subject, 0);
	strbuf_init(&out->author, 0);
	strvec_init(&out->candidates);
	out->effect.estimate = out->effect.lo = out->effect.hi = NAN;
	out->effect_alpha = NAN;
}

void bisect_outcome_release(struct bisect_outcome *out)
{
	strbuf_release(&out->subject);
	strbuf_release(&out->author);
	strvec_release(&out->candidates);
}
