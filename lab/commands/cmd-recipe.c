/* lab recipe FILE: a patch thread's experiment as one command, and its table. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textfmt.h"
#include "ab-report.h"
#include "ab-spec.h"
#include "array.h"
#include "commands.h"
#include "config.h"
#include "context.h"
#include "escape.h"
#include "log.h"
#include "options.h"
#include "recipe.h"
#include "say.h"
#include "stats.h"
#include "store-experiment.h"
#include "store-verdict.h"
#include "strbuf.h"
#include "strvec.h"
#include "tempfile.h"
#include "units.h"
#include "xalloc.h"

static const char *const recipe_usage[] = {
	"usage: lab recipe FILE [--arch A] [--resume] [lab ab options...]",
	"",
	"Runs the recipe's A/B experiments, each variant against the first (the",
	"base), on every arch the recipe names, then prints one table per metric:",
	"a row per variant, with the base's n, mean, std and median and each other",
	"variant's change against it with its CI and verdict; a sweep over",
	"memory sizes gets a column per size. Options after FILE go to every",
	"'lab ab' the recipe runs and override the recipe's (--boots 2 --mem 1G for",
	"a quick try, --clock wall|icount, --repo, --db, --config, --runner, --target,",
	"--targets CLASS to share the boots among a class's targets); --arch picks",
	"one of its arches. Every table says the clock its numbers are in.",
	"--resume reuses each A/B this command already finished and continues one that",
	"was interrupted, instead of starting them all again: an A/B is found by what",
	"it is (kernels, command lines, workloads, parameters, points, clock).",
	"Recipes of the seed threads are in kernels/recipes/.",
	"",
	parse_options_here,
	"",
	"exit status: 0 no A/B found a regression, 1 one found a REGRESSION, 2 error",
	"             (finished experiments stay stored)",
	NULL,
};

/* What lab recipe's own options say; the rest fill an A/B's spec. */
struct recipe_args {
	const char *arch, *db, *config;
	int resume;
	enum ab_format fmt;
};

/*
 * The command line's options into a and s, over the recipe's values in s:
 * an option overrides the recipe's value, or adds to its list, as it would
 * on a command line after them. av is permuted: the words that are not
 * options first. Returns how many those are, or -1 after a message (exits
 * 0 after --help). The values point into av.
 */
static int parse_args(struct recipe_args *a, struct ab_spec *s, struct strvec *av)
{
	const struct parse_option options[] = {
		OPT_STRING(0, "arch", &a->arch, "A", "run the recipe on this one of its arches"),
		OPT_BOOL(0, "resume", &a->resume,
			 "reuse finished A/Bs, continue an interrupted one"),
		CONTEXT_OPTIONS(&a->db, &a->config),
		OPT_TEXT(""),
		OPT_TEXT("the options of 'lab ab', for every A/B:"),
		AB_SPEC_OPTIONS(s),
		FORMAT_OPTION(&a->fmt),
		OPT_END(),
	};
	struct option_parser parser = { "lab recipe", recipe_usage, options, NULL };

	return parse_command_options(&parser, (int)av->nr, av->v, PARSE_OPT_ANY_ARGS);
}

/*
 * A table's metric that its workload cannot report is refused before
 * anything is built (recipe_check_metrics()); words are the command's
 * options, over the recipe's first A/B.
 */
static int check_metrics(const struct recipe *r, struct lab_context *ctx,
			 const struct strvec *words)
{
	struct recipe_args a = { .fmt = AB_TEXT };
	struct strvec av = STRVEC_INIT;
	struct ab_spec s;
	int ret;

	ab_spec_init(&s);
	strvec_push_all(&av, words);
	ret = recipe_ab_spec(&s, r, 1, r->arches.v[0]) || parse_args(&a, &s, &av) < 0 ||
	      recipe_check_metrics(r, ctx, &s) ? -1 : 0;
	ab_spec_release(&s);
	strvec_release(&av);
	return ret;
}

static void size_name(char *buf, size_t size, long long mib)
{
	if (mib % 1024)
		snprintf(buf, size, "%lldM", mib);
	else
		snprintf(buf, size, "%lldG", mib / 1024);
}

/*
 * The verdict of metric ("workload.metric") at a point of experiment exp
 * into *v: 1 when there is one. A number the table prints reads 0 when
 * stored as NULL, as it always has.
 */
static int verdict_row(struct verdict_row *v, struct store *st, long long exp,
		       const char *metric, long long mem, long long cpus)
{
	const char *dot = strchr(metric, '.');
	struct strbuf workload = STRBUF_INIT;
	double *const nums[] = { &v->mean_a, &v->mean_b, &v->std_a, &v->std_b, &v->median_a,
				 &v->median_b, &v->ci_low, &v->ci_high, &v->alpha };
	int found = 0;

	strbuf_add(&workload, metric, (size_t)(dot - metric));
	if (store_verdict_get(st, v, &found, exp, workload.buf, dot + 1, mem, cpus))
		found = 0;
	strbuf_release(&workload);
	for (size_t k = 0; found && k < ARRAY_SIZE(nums); k++)
		if (isnan(*nums[k]))
			*nums[k] = 0;
	return found;
}

/* "+5.1 % [+2.0, +8.3]" from a B/A ratio and its CI; label: its level, when not in the header */
static void change(struct strbuf *sb, const struct verdict_row *v, const char *label)
{
	double r = v->ratio;

	if (!isfinite(r)) {
		strbuf_addstr(sb, "not compared");
		return;
	}
	char buf[96];

	textfmt_change(buf, sizeof(buf), r, v->ci_low, v->ci_high);
	strbuf_addstr(sb, buf);
	if (label)
		strbuf_addf(sb, " %s", label);
}

/*
 * The header's "vs base [95% CI]": the level of the variants' stored
 * intervals, one per verdict (a fixed boot count gives 1 - alpha, the
 * adaptive schedule 1 - its per-look alpha). When the rows disagree, the
 * header says "[CI]" and *mixed asks each row for its own level.
 */
static void table_ci_label(char *buf, size_t size, int *mixed, struct store *st,
			   const struct recipe *r, const long long *exp, const char *metric,
			   long long mem, long long cpus)
{
	struct verdict_row v;
	char first[32] = "", each[32];

	*mixed = 0;
	for (size_t i = 1; i < r->nv; i++) {
		if (!verdict_row(&v, st, exp[i], metric, mem, cpus))
			continue;
		stats_ci_label(each, sizeof(each), v.alpha);
		if (!first[0])
			snprintf(first, sizeof(first), "%s", each);
		else if (strcmp(first, each))
			*mixed = 1;
	}
	snprintf(buf, size, "vs base [%s]", first[0] && !*mixed ? first : "CI");
}

/* A variant's numbers, times k (the table's unit), without the line's end. */
static void print_variant_row(FILE *f, const char *name, long long n, double mean, double std,
			      double median, double k)
{
	char m[32], sd[32], md[32];

	textfmt_value(m, sizeof(m), mean * k);
	textfmt_value(sd, sizeof(sd), std * k);
	textfmt_value(md, sizeof(md), median * k);
	fprintf(f, "  %-14s %4lld %9s %9s %9s", term_safe(name), n, m, sd, md);
}

static int print_point(FILE *f, struct store *st, const struct recipe *r, const long long *exp,
		       const char *metric, long long mem, long long cpus, const char *clock)
{
	struct strbuf sb = STRBUF_INIT;
	struct verdict_row v;
	char sz[32], head[48], ci[32];
	const char *unit;
	double k;
	int mixed;

	table_ci_label(head, sizeof(head), &mixed, st, r, exp, metric, mem, cpus);
	if (!verdict_row(&v, st, exp[1], metric, mem, cpus))
		return error("no verdict for %s at %lld MiB in experiment E%lld", metric, mem,
			     exp[1]);
	size_name(sz, sizeof(sz), mem);
	k = textfmt_unit_scale(&unit, v.unit, v.median_a);
	/* the clock in words can be long ("... and wall time"): the line is wrapped, not cut */
	strbuf_addf(&sb, "%s (%s, %s is better), %s, %lld cpu%s, %s", term_safe(metric),
		    term_safe(unit), v.direction, sz, cpus, cpus == 1 ? "" : "s", clock);
	fputc('\n', f);
	textfmt_wrap(f, "", "  ", sb.buf);
	strbuf_reset(&sb);
	fprintf(f, "  %-14s %4s %9s %9s %9s  %-28s %s\n", "variant", "n", "mean", "std",
		"median", head, "verdict");
	print_variant_row(f, r->v[0].name, v.n_a, v.mean_a, v.std_a, v.median_a, k);
	fprintf(f, "  %-28s %s\n", "", "(base)");
	for (size_t i = 1; i < r->nv; i++) {
		if (!verdict_row(&v, st, exp[i], metric, mem, cpus)) {
			fprintf(f, "  %-14s (no verdict in E%lld)\n", term_safe(r->v[i].name),
				exp[i]);
			continue;
		}
		strbuf_reset(&sb);
		stats_ci_label(ci, sizeof(ci), v.alpha);
		change(&sb, &v, mixed ? ci : NULL);
		print_variant_row(f, r->v[i].name, v.n_b, v.mean_b, v.std_b, v.median_b, k);
		/* padded by columns, not bytes: a multiple's "×" is two bytes wide */
		fputs("  ", f);
		textfmt_pad(f, sb.buf, 28);
		fprintf(f, " %s (E%lld)\n", v.verdict, exp[i]);
	}
	strbuf_release(&sb);
	return 0;
}

/*
 * A side's median of per-boot medians where the experiment has no verdict
 * for the metric because the other side never reported it (a variant with
 * deferred struct page init off has no deferred init time): 1 with *out
 * and unit, 0 when this side has none either.
 */
static int side_median(double *out, char unit[16], struct store *st, long long exp,
		       const char *side, const char *metric, long long mem, long long cpus)
{
	struct unit_side us = { 0 };
	const char *dot = strchr(metric, '.');
	long long vid = 0;
	int found = 0;

	if (store_variant_id(st, &vid, exp, side) || !vid ||
	    units_side_load(&us, st, exp, vid, (long)mem, (long)cpus, dot + 1))
		goto out;
	for (size_t k = 0; k < us.n && !found; k++) {
		const struct unit_metric *m = &us.m[k];
		double median;

		if (strncmp(m->workload, metric, (size_t)(dot - metric)) ||
		    m->workload[dot - metric])
			continue;
		if (!stats_boot_median(&median, m->samples.v, m->len, m->nboots)) {
			*out = median;
			snprintf(unit, 16, "%s", m->unit);
			found = 1;
		}
	}
out:
	units_side_release(&us);
	return found;
}

#define RECIPE_SWEEP_CELL 27
#define RECIPE_SWEEP_PER_LINE ((TEXTFMT_COLUMNS - 16) / (RECIPE_SWEEP_CELL + 1))

/* The smallest median of a sweep's base: what its table scales its unit to. */
static double ref_median(struct store *st, const struct recipe *r, const long long *exp,
			 const char *metric, const long long *mem, size_t nmem, long long cpus)
{
	struct verdict_row vr;
	double ref = NAN;

	for (size_t m = 0; m < nmem; m++)
		if (r->nv > 1 && verdict_row(&vr, st, exp[1], metric, mem[m], cpus) &&
		    vr.median_a > 0 && !(vr.median_a >= ref))
			ref = vr.median_a;
	return ref;
}

/* Seed 004's layout: a row per variant, a column per memory size. */
static void print_sweep(FILE *f, struct store *st, const struct recipe *r,
			const long long *exp, const char *metric, const long long *mem,
			size_t nmem, long long cpus, const char *clock)
{
	struct strbuf sb = STRBUF_INIT;
	struct verdict_row vr;
	char sz[32], unit[16] = "";
	const char *direction = "lower", *shown;
	double v, k;

	for (size_t m = 0; m < nmem && !unit[0]; m++) {
		if (verdict_row(&vr, st, exp[1], metric, mem[m], cpus)) {
			snprintf(unit, sizeof(unit), "%s", vr.unit);
			direction = strcmp(vr.direction, "higher") ? "lower" : "higher";
		} else {
			side_median(&v, unit, st, exp[1], "A", metric, mem[m], cpus);
		}
	}
	if (!unit[0])
		return;
	k = textfmt_unit_scale(&shown, unit, ref_median(st, r, exp, metric, mem, nmem, cpus));
	fprintf(f, "\n");
	strbuf_addf(&sb, "%s, median in %s (%s is better), %lld cpu%s, %s: a column per memory size",
		    term_safe(metric), term_safe(shown), direction, cpus, cpus == 1 ? "" : "s", clock);
	textfmt_wrap(f, "", "  ", sb.buf);
	/* RECIPE_SWEEP_PER_LINE sizes side by side, within 100 columns; the next ones below */
	for (size_t m0 = 0; m0 < nmem; m0 += RECIPE_SWEEP_PER_LINE) {
		size_t m1 = nmem - m0 < RECIPE_SWEEP_PER_LINE ? nmem : m0 + RECIPE_SWEEP_PER_LINE;

		fprintf(f, "  %-14s", "variant");
		for (size_t m = m0; m < m1; m++) {
			size_name(sz, sizeof(sz), mem[m]);
			fprintf(f, " %-*s", RECIPE_SWEEP_CELL, sz);
		}
		for (size_t i = 0; i < r->nv; i++) {
			fprintf(f, "\n  %-14s", term_safe(r->v[i].name));
			for (size_t m = m0; m < m1; m++) {
				char num[32];

				strbuf_reset(&sb);
				if (!verdict_row(&vr, st, exp[i ? i : 1], metric, mem[m], cpus)) {
					if (side_median(&v, unit, st, exp[i ? i : 1], i ? "B" : "A",
							metric, mem[m], cpus)) {
						textfmt_value(num, sizeof(num), v * k);
						strbuf_addf(&sb, "%s (no verdict)", num);
					} else {
						strbuf_addstr(&sb, "-");
					}
				} else if (!i) {
					textfmt_value(num, sizeof(num), vr.median_a * k);
					strbuf_addf(&sb, "%s (base)", num);
				} else {
					char ratio[32];

					textfmt_value(num, sizeof(num), vr.median_b * k);
					textfmt_ratio(ratio, sizeof(ratio), vr.ratio);
					strbuf_addf(&sb, "%s (%s) %s", num, ratio, vr.verdict);
				}
				fputc(' ', f);
				textfmt_pad(f, sb.buf, RECIPE_SWEEP_CELL);
			}
		}
		fputc('\n', f);
	}
	strbuf_release(&sb);
}

/* The clock of every A/B of the recipe: one, unless they were measured apart. */
static int recipe_clock(struct strbuf *out, struct store *st, const struct recipe *r,
			const long long *exp)
{
	struct strbuf one = STRBUF_INIT;
	int ret = 0;

	for (size_t i = 1; i < r->nv && !ret; i++) {
		strbuf_reset(&one);
		ret = store_experiment_clock_words(st, &one, exp[i]);
		if (!ret && !strstr(strbuf_str(out), one.buf))
			strbuf_addf(out, "%s%s", out->len ? " and " : "", one.buf);
	}
	strbuf_release(&one);
	return ret;
}

static int point_order(const void *a, const void *b)
{
	const struct verdict_row *x = a, *y = b;

	if (x->cpus != y->cpus)
		return (x->cpus > y->cpus) - (x->cpus < y->cpus);
	return (x->mem_mib > y->mem_mib) - (x->mem_mib < y->mem_mib);
}

static int print_table(FILE *f, struct store *st, const struct recipe *r, const char *arch,
		       const long long *exp)
{
	struct strbuf clock = STRBUF_INIT;
	struct verdict_list l = { 0 };
	long long *mem = NULL, *cpus = NULL;
	size_t npts = 0, mem_alloc = 0, cpus_alloc = 0;
	int ret = -1;

	/* the sweep points, the same for every metric: CPU counts, then sizes */
	if (store_verdicts_read(st, &l, exp[1]))
		goto out;
	qsort(l.v, l.nr, sizeof(*l.v), point_order);
	for (size_t i = 0; i < l.nr; i++) {
		if (npts && cpus[npts - 1] == l.v[i].cpus && mem[npts - 1] == l.v[i].mem_mib)
			continue;
		ALLOC_GROW(cpus, npts + 1, cpus_alloc);
		ALLOC_GROW(mem, npts + 1, mem_alloc);
		cpus[npts] = l.v[i].cpus;
		mem[npts++] = l.v[i].mem_mib;
	}
	if (recipe_clock(&clock, st, r, exp))
		goto out;
	fprintf(f, "\n== %s (%s)\n", term_safe(r->title ? r->title : r->path), term_safe(arch));
	fprintf(f, "  clock: %s\n", clock.buf);
	for (size_t i = 0; i < r->nv; i++) {
		const struct recipe_variant *v = &r->v[i];
		fprintf(f, "  %-14s %s", term_safe(v->name), term_safe(v->ref ? v->ref : r->ref));
		for (size_t k = 0; k < v->applies.nr; k++)
			fprintf(f, " + %s", term_safe(v->applies.v[k]));
		for (size_t k = 0; k < v->configs.nr; k++)
			fprintf(f, ", config %s", term_safe(v->configs.v[k]));
		if (v->cmdline)
			fprintf(f, ", cmdline '%s'", term_safe(v->cmdline));
		fputc('\n', f);
	}
	for (size_t k = 0; k < r->probes.nr; k++)
		fprintf(f, "  probe %s on every variant\n", term_safe(r->probes.v[k]));
	for (size_t k = 0; k < r->metrics.nr; k++) {
		const char *metric = r->metrics.v[k];
		size_t n;

		/* one table per CPU count: a point, or a sweep over sizes */
		for (size_t p = 0; p < npts; p += n) {
			for (n = 1; p + n < npts && cpus[p + n] == cpus[p]; n++)
				;
			if (n > 1)
				print_sweep(f, st, r, exp, metric, &mem[p], n, cpus[p], clock.buf);
			else if (print_point(f, st, r, exp, metric, mem[p], cpus[p], clock.buf))
				goto out;
		}
	}
	ret = 0;
out:
	free(mem);
	free(cpus);
	verdict_list_release(&l);
	strbuf_release(&clock);
	return ret;
}

/* What an A/B of the recipe needs of the command: its options, its output. */
struct recipe_cmd {
	const struct recipe *r;
	const char *arch;
	const struct strvec *words;	/* the command's, parsed again over each A/B's */
	struct strvec av;		/* what the last parse's values point into */
	struct recipe_args a;
	struct lab_context *ctx;
};

static int one_spec(struct ab_spec *s, size_t i, void *data)
{
	struct recipe_cmd *c = data;

	strvec_release(&c->av);
	strvec_push_all(&c->av, c->words);
	c->a = (struct recipe_args){ .fmt = AB_TEXT };
	return recipe_ab_spec(s, c->r, i, c->arch) || parse_args(&c->a, s, &c->av) < 0 ? -1 : 0;
}

static int one_done(long long exp, void *data)
{
	struct recipe_cmd *c = data;
	struct strbuf report = STRBUF_INIT;
	int ret = ab_report(&report, &c->ctx->st, exp, c->a.fmt, 0);

	strbuf_fwrite(&report, stdout);
	strbuf_release(&report);
	return ret;
}

/* Stopped by a signal (fatal_signal_defer()): say how the recipe goes on, and die of it. */
__attribute__((noreturn))
static void interrupted(struct lab_context *ctx, const struct recipe *r, const char *command)
{
	struct strbuf resume = STRBUF_INIT;

	strbuf_addf(&resume, "%s --resume", command);
	say_interrupted(resume.buf, "recipe %s", r->path);
	strbuf_release(&resume);
	context_release(ctx);
	fatal_signal_die();
}

int cmd_recipe(int argc, char **argv)
{
	struct strvec words = STRVEC_INIT, av = STRVEC_INIT, shown = STRVEC_INIT;
	struct strbuf command = STRBUF_INIT;
	struct recipe_args a = { .fmt = AB_TEXT };
	struct lab_context ctx;
	struct ab_spec check;
	struct boot_guests guests;	/* one initramfs for all the recipe's A/Bs */
	struct recipe r;
	long long *exp = NULL;
	int n, regressed = 0, ret = 2;

	memset(&ctx, 0, sizeof(ctx));
	memset(&r, 0, sizeof(r));
	ab_spec_init(&check);
	boot_guests_init(&guests);
	for (int i = 0; i < argc; i++) {
		strvec_push(&words, argv[i]);
		/* the command recorded with each A/B: --resume is how, not what */
		if (strcmp(argv[i], "--resume"))
			strvec_push(&shown, argv[i]);
	}
	strbuf_addstr(&command, "lab ");
	escape_shell_words(&command, (int)shown.nr, shown.v);
	/* every option is checked once, before anything is built */
	strvec_push_all(&av, &words);
	n = parse_args(&a, &check, &av);
	if (n < 0)
		goto out;
	if (n != 1) {
		error("'lab recipe' takes one recipe file (see 'lab recipe --help')");
		goto out;
	}
	if (recipe_read(&r, av.v[0]))
		goto out;
	if (a.arch) {
		size_t k;
		for (k = 0; k < r.arches.nr && strcmp(r.arches.v[k], a.arch); k++)
			;
		if (k == r.arches.nr) {
			error("recipe %s does not run on '%s' (its arch: %s)", r.path, a.arch,
			      r.arches.v[0]);
			goto out;
		}
	}
	exp = xcalloc(r.nv, sizeof(*exp));
	/* one configuration and one connection for every A/B and the tables */
	if (context_load_config(&ctx, a.config, a.db) || check_metrics(&r, &ctx, &words) ||
	    context_open_store(&ctx))
		goto out;
	/* Ctrl-C between boots: the A/B under way is marked, and the recipe says how it goes on */
	fatal_signal_defer(1);
	for (size_t k = 0; k < r.arches.nr; k++) {
		struct recipe_cmd c = { &r, r.arches.v[k], &words, STRVEC_INIT, { 0 }, &ctx };
		struct recipe_run rr = { &r, r.arches.v[k], a.resume, command.buf, &guests,
					 one_spec, one_done, &c };
		int rc;

		if (a.arch && strcmp(rr.arch, a.arch))
			continue;
		rc = recipe_run(exp, &ctx, &rr);
		strvec_release(&c.av);
		if (rc < 0 && fatal_signal_pending())
			interrupted(&ctx, &r, command.buf);
		if (rc < 0)
			goto out;
		regressed |= rc;
		fflush(stdout);
		if (print_table(stdout, &ctx.st, &r, rr.arch, exp))
			goto out;
		fflush(stdout);
	}
	ret = regressed ? 1 : 0;
out:
	recipe_release(&r);
	boot_guests_release(&guests);
	context_release(&ctx);
	ab_spec_release(&check);
	free(exp);
	strvec_release(&words);
	strvec_release(&av);
	strvec_release(&shown);
	strbuf_release(&command);
	return ret;
}
