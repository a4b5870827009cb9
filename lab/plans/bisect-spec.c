/* A bisection's spec and its stored row, both ways, and its outcome (bisect-spec.h). */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "bisect-spec.h"
#include "gitutil.h"
#include "log.h"
#include "regfile.h"
#include "strbuf.h"
#include "store-bisect.h"

/* The blob id of a config fragment's content, as git would name it. */
static int fragment_id(char hex[GIT_OID_HEXSZ + 1], const char *path)
{
	struct strbuf data = STRBUF_INIT, why = STRBUF_INIT;
	git_oid oid;
	int ret = 0;

	/* read here, not by libgit2's path: a fifo must be refused, not waited on */
	if (regfile_read(&data, path, 0, 0, "config fragment", &why))
		ret = error("%s", why.buf);
	else if (git_odb_hash(&oid, data.buf, data.len, GIT_OBJECT_BLOB))
		ret = lab_git_error("cannot hash config fragment");
	else
		git_oid_tostr(hex, GIT_OID_HEXSZ + 1, &oid);
	strbuf_release_all(&data, &why);
	return ret;
}

int bisect_spec_metric_check(int *unknown, struct lab_context *ctx,
			     const struct bisect_spec *spec)
{
	enum workload_metric m = WORKLOAD_METRIC_UNKNOWN;

	if (boot_opts_lab_guest(&spec->boot, &ctx->cfg) &&
	    workloads_metric_check(&m, spec->boot.workloads, spec->metric))
		return -1;
	*unknown = m == WORKLOAD_METRIC_UNKNOWN;
	return 0;
}

int bisect_spec_to_row(struct bisect_spec_row *r, const struct bisect_spec *spec,
		       const struct boot_opts *bo)
{
	char hex[GIT_OID_HEXSZ + 1];
	const char *text[] = { spec->good, spec->bad, spec->repo, spec->arch, spec->metric,
			       bo->cmdline, bo->runner, bo->accel, bo->clock, bo->guest, bo->target,
			       bo->targets };
	struct strbuf *to[] = { &r->good_ref, &r->bad_ref, &r->repo, &r->arch, &r->metric,
				&r->cmdline, &r->runner, &r->accel, &r->clock, &r->guest,
				&r->target, &r->targets };

	for (size_t i = 0; i < ARRAY_SIZE(to); i++)
		if (text[i])
			strbuf_addstr(to[i], text[i]);
	workload_list_join(&r->workloads, bo->workloads);
	for (size_t i = 0; bo->params && i < bo->params->nr; i++)
		strbuf_addf(&r->params, "%s%s", i ? " " : "", bo->params->v[i]);
	r->iters = bo->iters;
	r->mem_mib = bo->mem_mib;
	r->cpus = bo->cpus;
	r->numa = bo->numa;
	r->timeout_s = bo->timeout_s;
	r->alpha = spec->alpha;
	r->delta = spec->delta;
	r->max_boots = spec->max_boots;
	r->seed = spec->seed;
	for (size_t i = 0; spec->fragments && i < spec->fragments->nr; i++) {
		if (fragment_id(hex, spec->fragments->v[i]))
			return -1;
		strbuf_addf(&r->fragments, "%s %s\n", hex, spec->fragments->v[i]);
	}
	return 0;
}

/* Each stored "BLOB-ID PATH" line: the path, as long as its content is the same. */
static int load_fragments(struct strvec *out, const struct strbuf *stored, long long id)
{
	char hex[GIT_OID_HEXSZ + 1];
	const char *line = stored->buf;

	while (line && *line) {
		const char *end = strchr(line, '\n'), *path = line + GIT_OID_HEXSZ + 1;
		size_t len = end ? (size_t)(end - line) : strlen(line);
		const char *p;

		if (len <= GIT_OID_HEXSZ + 1 || line[GIT_OID_HEXSZ] != ' ')
			return error("bisection E%lld has a damaged config fragment line '%.*s'", id,
				     (int)len, line);
		strvec_pushf(out, "%.*s", (int)(len - GIT_OID_HEXSZ - 1), path);
		p = out->v[out->nr - 1];
		if (fragment_id(hex, p))
			return -1;
		if (strncmp(hex, line, GIT_OID_HEXSZ))
			return error("config fragment '%s' changed since bisection E%lld started: "
				     "put it back as it was, or start a new bisection", p, id);
		line = end ? end + 1 : NULL;
	}
	return 0;
}

static const char *or_null(const struct strbuf *sb)
{
	return sb->len ? sb->buf : NULL;
}

int bisect_spec_load(struct bisect_stored_spec *s, struct store *st, long long id)
{
	struct bisect_spec *spec = &s->spec;
	struct bisect_spec_row *r = &s->row;

	if (store_bisect_spec_read(st, id, r) || workloads_parse(&s->workloads, r->workloads.buf) ||
	    load_fragments(&s->fragments, &r->fragments, id))
		return -1;
	strvec_split(&s->params, r->params.len ? r->params.buf : "");
	/* the commits it started with, wherever the refs point now */
	spec->good = r->good.buf;
	spec->bad = r->bad.buf;
	spec->repo = or_null(&r->repo);
	spec->arch = or_null(&r->arch);
	spec->fragments = &s->fragments;
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
	spec->delta = r->delta;
	spec->max_boots = r->max_boots;
	spec->seed = r->seed;
	spec->resume = id;
	return 0;
}

void bisect_stored_spec_release(struct bisect_stored_spec *s)
{
	bisect_spec_row_release(&s->row);
	workload_list_release(&s->workloads);
	strvec_release(&s->params);
	strvec_release(&s->fragments);
}

static const char *const verdict_names[] = {
	[BISECT_FOUND] = "FOUND", [BISECT_UNCLEAR] = "UNCLEAR", [BISECT_CANDIDATES] = "CANDIDATES",
	[BISECT_NO_REGRESSION] = "NO_REGRESSION", [BISECT_INCONCLUSIVE] = "INCONCLUSIVE",
	[BISECT_FAILED] = "FAILED",
};

const char *bisect_verdict_name(enum bisect_verdict v)
{
	return (size_t)v < ARRAY_SIZE(verdict_names) ? verdict_names[v] : "?";
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
	strbuf_release_all(&out->subject, &out->author);
	strvec_release(&out->candidates);
}
