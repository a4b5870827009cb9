/*
 * What the parts of a night share (nightly-night.h): its infrastructure
 * failures and counts, its boots' options and builds, the series copied.
 */
#include <git2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "host.h"
#include "log.h"
#include "nightly-night.h"
#include "redact.h"
#include "refbuild.h"
#include "say.h"
#include "strbuf.h"
#include "strvec.h"
#include "tempfile.h"

void night_infra(struct night *nt, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	if (fatal_signal_pending())
		return;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	/* the repository's address, or libgit2's words quoting it, may hold a password */
	say_to(nt->out, "infrastructure: %s", url_redacted(strbuf_str(&sb)));
	strvec_push(&nt->infra, url_redacted(strbuf_str(&sb)));
	strbuf_release(&sb);
}

void night_count(struct night *nt, long long change_id, const char *verdict)
{
	int regression = !strcmp(verdict, "REGRESSION");

	if (!regression && strcmp(verdict, "IMPROVEMENT"))
		return;
	for (size_t i = 0; i < nt->ncounted; i++)
		if (nt->counted[i] == change_id)
			return;
	ALLOC_GROW(nt->counted, nt->ncounted + 1, nt->counted_alloc);
	nt->counted[nt->ncounted++] = change_id;
	if (regression)
		nt->regressions++;
	else
		nt->improvements++;
}

void night_stopped(struct night *nt, const char *fmt, ...)
{
	va_list ap;

	if (nt->next.len)
		return;
	va_start(ap, fmt);
	strbuf_vaddf(&nt->next, fmt, ap);
	va_end(ap);
}

void night_boot_opts(struct boot_opts *o, struct night *nt, const struct workload_list *workloads,
		     struct kernel_image *kernel, const char *cmdline, long mem)
{
	memset(o, 0, sizeof(*o));
	o->kernel = kernel;
	o->cmdline = cmdline;
	o->clock = nt->n->clock;
	o->workloads = workloads;
	o->params = &nt->params;
	o->iters = nt->n->iters;
	o->mem_mib = mem;
	o->guests = &nt->guests;
}

int night_build(struct night *nt, struct kernel_image *image, const char *commit)
{
	struct strvec none = STRVEC_INIT;
	struct build_spec spec = { host_arch(), &none, &none };
	struct kernel_tree t;
	git_oid oid;
	enum refbuild_outcome r;

	memset(&t, 0, sizeof(t));
	if (git_oid_fromstr(&oid, commit))
		return error("bad commit id '%s'", commit);
	if (kernel_tree_open_for(&t, nt->ctx, nt->mirror.buf)) {
		night_infra(nt, "cannot open the mirror '%s'", nt->mirror.buf);
		return -1;
	}
	r = refbuild_commit(image, nt->ctx, &t, &oid, &spec);
	kernel_tree_close(&t);
	if (fatal_signal_pending())
		return -1;
	if (r == REFBUILD_OK)
		return 0;
	if (r == REFBUILD_FAILED)
		return 1;
	night_infra(nt, "build of %.12s failed on the lab's side (the build's messages are above)",
	      commit);
	return -1;
}

int series_copy_add(const struct nightly_series *s, void *data)
{
	struct series_copy *sc = data;

	strvec_push(&sc->key, s->series);
	strvec_push(&sc->workload, s->workload);
	strvec_push(&sc->metric, s->metric);
	strvec_push(&sc->unit, s->unit);
	strvec_push(&sc->target, s->target);
	strvec_push(&sc->cmdline, s->cmdline);
	strvec_push(&sc->clock, s->clock);
	ALLOC_GROW(sc->mem, sc->nr + 1, sc->mem_alloc);
	sc->mem[sc->nr++] = s->mem_mib;
	return 0;
}

void series_copy_release(struct series_copy *sc)
{
	strvec_release(&sc->key);
	strvec_release(&sc->workload);
	strvec_release(&sc->metric);
	strvec_release(&sc->unit);
	strvec_release(&sc->target);
	strvec_release(&sc->cmdline);
	strvec_release(&sc->clock);
	free(sc->mem);
}

struct nightly_series series_at(const struct series_copy *sc, size_t i)
{
	return (struct nightly_series){ sc->key.v[i], sc->workload.v[i], sc->metric.v[i],
					sc->unit.v[i], sc->target.v[i], sc->cmdline.v[i],
					sc->clock.v[i], sc->mem[i] };
}
