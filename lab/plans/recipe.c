#include <errno.h>
#include <libgen.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "boot.h"
#include "config-keys.h"
#include "config-values.h"
#include "config.h"
#include "log.h"
#include "recipe.h"
#include "say.h"
#include "strbuf.h"
#include "workload.h"
#include "xalloc.h"

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

static int set_path(void *field, const struct config_entry *e, const char **expected)
{
	(void)expected;
	free(*(char **)field);
	*(char **)field = recipe_path(e->path, e->value);
	return 0;
}

static int push_path(void *field, const struct config_entry *e, const char **expected)
{
	char *p = recipe_path(e->path, e->value);

	(void)expected;
	strvec_push(field, p);
	free(p);
	return 0;
}

/* a program beside the recipe, like its repo; any other workload as written */
static int push_workload(void *field, const struct config_entry *e, const char **expected)
{
	char *p;

	(void)expected;
	if (strncmp(e->value, "exec:", 5))
		return config_set_strvec(field, e->value);
	p = recipe_path(e->path, e->value + 5);
	strvec_pushf(field, "exec:%s", p);
	free(p);
	return 0;
}

static int push_arch(void *field, const char *v)
{
	return parse_arch(v) ? -1 : config_set_strvec(field, v);
}

static int push_metric(void *field, const char *v)
{
	if (!strchr(v, '.') || v[0] == '.')
		return -1;
	return config_set_strvec(field, v);
}

static int push_param(void *field, const char *v)
{
	return strchr(v, '=') ? config_set_strvec(field, v) : -1;
}

static int set_numa(void *field, const char *v)
{
	return parse_numa(v, field);
}

static int set_clock(void *field, const char *v)
{
	enum lab_clock c;

	return parse_clock(v, &c) ? -1 : config_set_string(field, v);
}

#define RECIPE(field) offsetof(struct recipe, field)

static const struct config_key recipe_keys[] = {
	{ "title", RECIPE(title), config_set_string, NULL, NULL },
	{ "repo", RECIPE(repo), NULL, set_path, NULL },
	{ "ref", RECIPE(ref), config_set_string, NULL, NULL },
	{ "arch", RECIPE(arches), push_arch, NULL, "x86_64 or aarch64" },
	{ "workload", RECIPE(workloads), NULL, push_workload, NULL },
	{ "metric", RECIPE(metrics), push_metric, NULL,
	  "WORKLOAD.METRIC such as demote.demote_page_wall" },
	{ "mem", RECIPE(mem), config_set_size_list, NULL, "sizes from 1M to 16T such as 4G or 4G,16G,64G" },
	{ "cpus", RECIPE(cpus), config_set_cpus_list, NULL, "CPU counts from 1 to 1024 such as 2 or 1,2,4" },
	{ "numa", RECIPE(numa), set_numa, NULL, "a NUMA node count from 1 to 64" },
	{ "clock", RECIPE(clock), set_clock, NULL, "wall, icount or auto" },
	{ "boots", RECIPE(boots), config_set_positive, NULL, "a positive integer" },
	{ "iters", RECIPE(iters), config_set_positive, NULL, "a positive integer" },
	{ "delta", RECIPE(delta), config_set_fraction, NULL,
	  "a fraction above 0 and below 1 such as 0.5% or 0.005" },
	{ "cmdline", RECIPE(cmdline), config_set_string, NULL, NULL },
	{ "param", RECIPE(params), push_param, NULL, "K=V" },
	{ "probe", RECIPE(probes), config_set_strvec, NULL, NULL },
};

#define VARIANT(field) offsetof(struct recipe_variant, field)

static const struct config_key variant_keys[] = {
	{ "ref", VARIANT(ref), config_set_string, NULL, NULL },
	{ "cmdline", VARIANT(cmdline), config_set_string, NULL, NULL },
	{ "config", VARIANT(configs), NULL, push_path, NULL },
	{ "apply", VARIANT(applies), NULL, push_path, NULL },
};

/* the line of a variant's (first) header, for the messages that name it */
static void variant_init(void *one, const struct config_entry *e)
{
	((struct recipe_variant *)one)->line = e->section_line;
}

_Static_assert(offsetof(struct recipe_variant, name) == 0, "a variant starts with its name");

static const struct config_section recipe_section = {
	"recipe", recipe_keys, ARRAY_SIZE(recipe_keys), NULL, 0, 0, NULL, NULL, NULL, 0,
};
static const struct config_section variant_section = {
	"variant", variant_keys, ARRAY_SIZE(variant_keys), "a variant",
	sizeof(struct recipe_variant), 0, NULL, variant_init, NULL, 0,
};

static const char *const sections[] = { "recipe", "variant", "workload", NULL };
/* the keys recipe.h calls repeatable; every other is set once */
static const char *const repeatable[] = { "recipe.arch", "recipe.workload", "recipe.metric",
					  "recipe.param", "recipe.probe", "variant.config",
					  "variant.apply", CONFIG_WORKLOAD_REPEATABLE, NULL };

/* the section an entry is in: its name's first word */
static int in(const struct config_entry *e, const char *section)
{
	size_t len = strlen(section);

	return !strncmp(e->name, section, len) && (!e->name[len] || e->name[len] == '.');
}

static int apply_entry(struct recipe *r, const struct config_entry *e)
{
	/* a workload is made by its header, as in lab.conf (config-workload.c) */
	if (in(e, "workload"))
		return config_workload_apply(&r->sections, &r->nsections, e);
	/* a variant by its first key, as git keeps no empty section; the reader knows no others */
	if (in(e, "variant"))
		return config_section_apply_named(&variant_section, &r->v, &r->nv, e);
	if (!e->value && !r->line)
		r->line = e->line;
	return config_section_apply(&recipe_section, r, e);
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
	free(r->clock);
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
	/* --clock after the file overrides it, as any option does */
	s->o.boot.clock = r->clock;
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

		for (size_t i = 0; i < s->workloads.specs.nr; i++) {
			const struct user_workload *w = s->workloads.user[i];
			/* the name its samples are stored under */
			const char *name = w ? w->name.buf : s->workloads.specs.v[i];
			int same = strlen(name) == wlen && !strncmp(name, wm, wlen);

			strbuf_reset(&known);
			if (same && workload_metric(s->workloads.specs.v[i], w, metric, &known) ==
				    WORKLOAD_METRIC_NO) {
				struct strbuf of = STRBUF_INIT;

				strbuf_addf(&of, " for workload '%.*s' in recipe %s", (int)wlen, wm,
					    r->path);
				workload_unknown("metric", metric, of.buf, known.buf);
				strbuf_release(&of);
				goto out;
			}
		}
	}
	ret = 0;
out:
	strbuf_release(&known);
	return ret;
}

/* One A/B of the recipe: *exp its experiment, reused or continued with rr->resume. */
static int run_one(long long *exp, struct lab_context *ctx, const struct recipe_run *rr,
		   size_t i)
{
	struct ab_spec s;
	long long earlier = 0;
	enum ab_outcome r;
	int done = 0, ret = -1;

	ab_spec_init(&s);
	say("recipe %s: %s against %s on %s", rr->r->path, rr->r->v[i].name,
	    rr->r->v[0].name, rr->arch);
	if (rr->spec(&s, i, rr->data) || ab_spec_prepare(&s, ctx))
		goto out;
	s.o.command = rr->command;
	s.o.boot.guests = rr->guests;
	if (rr->resume && ab_find(&earlier, &done, ctx, &s.o))
		goto out;
	if (done) {
		say("experiment E%lld: done before, reused", earlier);
		*exp = earlier;
		ret = 0;
		goto out;
	}
	s.o.resume = earlier;
	*exp = 0;
	r = ab_run(exp, ctx, &s.o);
	if (r == AB_ERROR || r == AB_INTERRUPTED) {
		/* interrupted, the command says how it goes on */
		if (*exp && r == AB_ERROR)
			say("experiment E%lld stopped: continue with the same command and --resume",
			    *exp);
		experiment_unlock(ctx);
		goto out;
	}
	experiment_unlock(ctx);
	ret = rr->done(*exp, rr->data);
out:
	ab_spec_release(&s);
	return ret;
}

int recipe_run(long long *exp, struct lab_context *ctx, const struct recipe_run *rr)
{
	int regressed = 0;

	for (size_t i = 1; i < rr->r->nv; i++) {
		enum ab_outcome o;

		if (run_one(&exp[i], ctx, rr, i))
			return -1;
		/* a regression anywhere in the table is the command's, as lab ab's is */
		o = ab_outcome_of(&ctx->st, exp[i]);
		if (o == AB_ERROR)
			return -1;
		regressed |= o == AB_REGRESSION;
	}
	return regressed;
}
