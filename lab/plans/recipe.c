#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "boot.h"
#include "config-values.h"
#include "config.h"
#include "log.h"
#include "recipe.h"
#include "strbuf.h"
#include "workload.h"
#include "xalloc.h"

static void set(char **field, const char *value)
{
	char *p = xstrdup(value);
	free(*field);
	*field = p;
}

/* A path from the recipe, relative to the recipe's directory. */
static char *recipe_path(const char *recipe, const char *value)
{
	struct strbuf sb = STRBUF_INIT;
	char *copy;

	if (value[0] == '/')
		return xstrdup(value);
	copy = xstrdup(recipe);
	strbuf_addf(&sb, "%s/%s", dirname(copy), value);
	free(copy);
	return strbuf_detach(&sb);
}

/* a valid list such as "4G,16G", checked here so the error names the recipe */
static int each_item(const char *list, int (*parse)(const char *, long *))
{
	long *v = NULL;
	size_t n;
	int ret = parse_list(&v, &n, list, parse);

	free(v);
	return ret;
}

static struct recipe_variant *variant(struct recipe *r, const char *name, size_t len,
				      int line)
{
	struct recipe_variant *v;

	for (size_t i = 0; i < r->nv; i++)
		if (strlen(r->v[i].name) == len && !strncmp(r->v[i].name, name, len))
			return &r->v[i];
	ALLOC_GROW(r->v, r->nv + 1, r->v_alloc);
	v = &r->v[r->nv++];
	memset(v, 0, sizeof(*v));
	strvec_init(&v->configs);
	strvec_init(&v->applies);
	v->name = xstrdup(name);
	v->name[len] = '\0';
	v->line = line;
	return v;
}

static const char *const sections[] = { "recipe", "variant", "workload", NULL };
/* the keys recipe.h calls repeatable; every other is set once */
static const char *const repeatable[] = { "recipe.arch", "recipe.workload", "recipe.metric",
					  "recipe.param", "recipe.probe", "variant.config",
					  "variant.apply", CONFIG_WORKLOAD_REPEATABLE, NULL };

static int bad(const struct config_entry *e, const char *expected)
{
	return error("bad value '%s' for '%s' in recipe %s line %d: expected %s", e->value,
		     e->name, e->path, e->line, expected);
}

static int unknown(const struct config_entry *e, const char *known)
{
	return error("unknown key '%s' in recipe %s line %d (known: %s)", e->name, e->path,
		     e->line, known);
}

static int apply_variant(struct recipe *r, const struct config_entry *e)
{
	const char *name = e->name, *value = e->value;
	const char *sub = name + strlen("variant."), *key = strrchr(name, '.');
	struct recipe_variant *v;
	char *p;

	if (key <= sub)
		return error("unknown key '%s' in recipe %s line %d: variants are "
			     "[variant \"NAME\"]", name, e->path, e->line);
	v = variant(r, sub, (size_t)(key - sub), e->section_line);
	key++;
	if (!strcmp(key, "ref")) {
		set(&v->ref, value);
	} else if (!strcmp(key, "cmdline")) {
		set(&v->cmdline, value);
	} else if (!strcmp(key, "config") || !strcmp(key, "apply")) {
		p = recipe_path(r->path, value);
		strvec_push(!strcmp(key, "config") ? &v->configs : &v->applies, p);
		free(p);
	} else {
		return unknown(e, "ref, cmdline, config, apply");
	}
	return 0;
}

static int apply_entry(struct recipe *r, const struct config_entry *e)
{
	const char *name = e->name, *value = e->value, *key;

	/* a workload is made by its header, as in lab.conf (config-workload.c) */
	if (!strncmp(name, "workload", 8) && (!name[8] || name[8] == '.'))
		return config_workload_apply(&r->sections, &r->nsections, e);
	/* a variant by its first key, as git keeps no empty section; the reader knows no others */
	if (!value) {
		if (!strcmp(name, "recipe") && !r->line)
			r->line = e->line;
		return 0;
	}
	if (!strncmp(name, "variant.", 8))
		return apply_variant(r, e);
	key = name + strlen("recipe.");
	if (!strcmp(key, "title")) {
		set(&r->title, value);
	} else if (!strcmp(key, "repo")) {
		free(r->repo);
		r->repo = recipe_path(r->path, value);
	} else if (!strcmp(key, "ref")) {
		set(&r->ref, value);
	} else if (!strcmp(key, "arch")) {
		if (strcmp(value, "x86_64") && strcmp(value, "aarch64"))
			return bad(e, "x86_64 or aarch64");
		strvec_push(&r->arches, value);
	} else if (!strcmp(key, "workload") && !strncmp(value, "exec:", 5)) {
		/* a program beside the recipe, like its repo */
		char *p = recipe_path(r->path, value + 5);
		strvec_pushf(&r->workloads, "exec:%s", p);
		free(p);
	} else if (!strcmp(key, "workload")) {
		strvec_push(&r->workloads, value);
	} else if (!strcmp(key, "metric")) {
		if (!strchr(value, '.') || value[0] == '.')
			return bad(e, "WORKLOAD.METRIC such as demote.demote_page_wall");
		strvec_push(&r->metrics, value);
	} else if (!strcmp(key, "mem")) {
		if (each_item(value, parse_size_mib))
			return bad(e, "sizes from 1M to 16T such as 4G or 4G,16G,64G");
		set(&r->mem, value);
	} else if (!strcmp(key, "cpus")) {
		if (each_item(value, parse_cpus))
			return bad(e, "CPU counts from 1 to 1024 such as 2 or 1,2,4");
		set(&r->cpus, value);
	} else if (!strcmp(key, "numa")) {
		if (parse_numa(value, &r->numa))
			return bad(e, "a NUMA node count from 1 to 64");
	} else if (!strcmp(key, "boots") || !strcmp(key, "iters")) {
		if (parse_positive_int(value, !strcmp(key, "boots") ? &r->boots : &r->iters))
			return bad(e, "a positive integer");
	} else if (!strcmp(key, "delta")) {
		if (parse_fraction(value, &r->delta, 1) || !(r->delta > 0))
			return bad(e, "a fraction above 0 and below 1 such as 0.5% or 0.005");
	} else if (!strcmp(key, "cmdline")) {
		set(&r->cmdline, value);
	} else if (!strcmp(key, "param")) {
		if (!strchr(value, '='))
			return bad(e, "K=V");
		strvec_push(&r->params, value);
	} else if (!strcmp(key, "probe")) {
		strvec_push(&r->probes, value);
	} else {
		return unknown(e, "title, repo, ref, arch, workload, metric, mem, cpus, numa, boots, "
			       "iters, delta, cmdline, param, probe");
	}
	return 0;
}

static int check(struct recipe *r)
{
	if (r->nv < 2)
		return error("recipe %s names %zu variant%s: it needs a base and at least one "
			     "more ([variant \"NAME\"])", r->path, r->nv, r->nv == 1 ? "" : "s");
	/* the [recipe] section's line when there is one */
	if (!r->workloads.nr && r->line)
		return error("[recipe] in recipe %s line %d has no workload (recipe.workload)",
			     r->path, r->line);
	if (!r->workloads.nr)
		return error("recipe %s has no workload (recipe.workload)", r->path);
	if (!r->metrics.nr && r->line)
		return error("[recipe] in recipe %s line %d has no metric for its table "
			     "(recipe.metric)", r->path, r->line);
	if (!r->metrics.nr)
		return error("recipe %s has no metric for its table (recipe.metric)", r->path);
	for (size_t i = 0; i < r->nv; i++)
		if (!r->v[i].ref && !r->ref)
			return error("variant '%s' in recipe %s line %d has no ref (variant.%s.ref "
				     "or recipe.ref)", r->v[i].name, r->path, r->v[i].line,
				     r->v[i].name);
	if (!r->arches.nr)
		strvec_push(&r->arches, "x86_64");
	return config_workloads_check(r->sections, r->nsections);
}

static int read_entry(const struct config_entry *e, void *data)
{
	return apply_entry(data, e);
}

int recipe_read(struct recipe *r, const char *path)
{
	int ret = -1;

	memset(r, 0, sizeof(*r));
	strvec_init(&r->arches);
	strvec_init(&r->workloads);
	strvec_init(&r->metrics);
	strvec_init(&r->params);
	strvec_init(&r->probes);
	r->path = xstrdup(path);
	if (access(path, R_OK))
		error("cannot read recipe '%s': %s", path, strerror(errno));
	/* file order: the first variant is the base */
	else if (!config_file_foreach(path, "recipe", sections, repeatable, read_entry, r))
		ret = check(r);
	if (ret)
		recipe_release(r);
	return ret;
}

void recipe_release(struct recipe *r)
{
	for (size_t i = 0; i < r->nv; i++) {
		free(r->v[i].name);
		free(r->v[i].ref);
		free(r->v[i].cmdline);
		strvec_release(&r->v[i].configs);
		strvec_release(&r->v[i].applies);
	}
	free(r->v);
	free(r->path);
	free(r->title);
	free(r->repo);
	free(r->ref);
	free(r->mem);
	free(r->cpus);
	free(r->cmdline);
	strvec_release(&r->arches);
	strvec_release(&r->workloads);
	strvec_release(&r->metrics);
	strvec_release(&r->params);
	strvec_release(&r->probes);
	config_workloads_release(&r->sections, &r->nsections);
	memset(r, 0, sizeof(*r));
}

int recipe_ab_spec(struct ab_spec *s, const struct recipe *r, size_t i, const char *arch)
{
	const struct recipe_variant *side[2] = { &r->v[0], &r->v[i] };

	s->repo = r->repo;
	s->arch = arch;
	s->cmdline = r->cmdline;
	for (int k = 0; k < 2; k++) {
		s->ref[k] = side[k]->ref ? side[k]->ref : r->ref;
		s->side_cmdline[k] = side[k]->cmdline;
		strvec_push_all(&s->frags[k], &side[k]->configs);
		strvec_push_all(&s->apply[k], &side[k]->applies);
	}
	for (size_t k = 0; k < r->workloads.nr; k++)
		if (workloads_parse(&s->workloads, r->workloads.v[k]))
			return -1;
	/* ab_spec_prepare() resolves its [workload] sections' names */
	s->sections = r->sections;
	s->nsections = r->nsections;
	for (size_t k = 0; k < r->params.nr; k++) {
		const char *kv = r->params.v[k];
		if (!strchr(kv, '=') || strchr(kv, ' '))
			return error("bad value '%s' for 'recipe.param' in recipe %s: expected K=V",
				     kv, r->path);
		strvec_push(&s->params, kv);
	}
	strvec_push_all(&s->probes, &r->probes);
	/* recipe_read() checked the lists */
	if ((r->mem && parse_list(&s->mems, &s->nmems, r->mem, parse_size_mib)) ||
	    (r->cpus && parse_list(&s->cpus, &s->ncpus, r->cpus, parse_cpus)))
		return error("bad sweep in recipe %s", r->path);
	s->o.boot.numa = r->numa;
	s->o.boot.iters = r->iters;
	s->o.boots = r->boots;
	if (r->delta)
		s->o.delta = r->delta;
	return 0;
}

int recipe_check_metrics(const struct recipe *r, struct lab_context *ctx, struct ab_spec *s)
{
	struct strbuf known = STRBUF_INIT;
	int ret = -1;

	if (workloads_resolve(&s->workloads, &s->args, s->sections, s->nsections,
			      ctx->cfg.workloads, ctx->cfg.nworkloads))
		goto out;
	for (size_t k = 0; boot_opts_lab_guest(&s->o.boot, &ctx->cfg) && k < r->metrics.nr; k++) {
		const char *wm = r->metrics.v[k], *metric = strchr(wm, '.') + 1;
		size_t wlen = (size_t)(metric - 1 - wm);

		for (size_t i = 0; i < s->workloads.nr; i++) {
			const char *spec = s->workloads.v[i];
			struct user_workload w;
			int same;

			user_workload_init(&w);
			/* the name its samples are stored under */
			if (workload_is_user(spec) && user_workload_parse(&w, spec)) {
				user_workload_release(&w);
				goto out;
			}
			if (!workload_is_user(spec))
				strbuf_addstr(&w.name, spec);
			same = w.name.len == wlen && !strncmp(w.name.buf, wm, wlen);
			user_workload_release(&w);
			strbuf_reset(&known);
			if (same && workload_metric(spec, metric, &known) == WORKLOAD_METRIC_NO) {
				error("unknown metric '%s' for workload '%.*s' in recipe %s (known: %s)",
				      metric, (int)wlen, wm, r->path, known.buf);
				goto out;
			}
		}
	}
	ret = 0;
out:
	strbuf_release(&known);
	return ret;
}
