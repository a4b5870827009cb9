#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab.h"
#include "array.h"
#include "boot.h"
#include "log.h"
#include "pool.h"
#include "progress.h"
#include "say.h"
#include "store-experiment.h"
#include "store-verdict.h"
#include "units.h"
#include "subprocess.h"
#include "tempfile.h"
#include "xalloc.h"

struct metric_result {
	char workload[32], metric[64], unit[16];
	long mem, cpus;			/* the sweep point */
	int per_boot;
	int comparable;
	struct stats_comparison c;
	double p_adjusted;
};

/* Compare every metric both sides have (units_compare_point()); *out is owned by the caller. */
static int compare_point(struct metric_result **out, size_t *nout, struct store *st,
			 long long exp_id, const long long vid[2], long mem, long cpus,
			 double alpha, double delta)
{
	struct units_comparison *u;
	size_t n;

	*out = NULL;
	*nout = 0;
	/* without --delta, the band of the clock the experiment's runs were in */
	if (!(delta > 0)) {
		int virt = store_experiment_virtual(st, exp_id);

		if (virt < 0)
			return -1;
		delta = virt ? STATS_DELTA_VIRTUAL : STATS_DELTA_WALL;
	}
	if (units_compare_point(&u, &n, st, exp_id, vid[0], vid[1], mem, cpus, alpha, delta))
		return -1;
	*out = xcalloc(n ? n : 1, sizeof(**out));
	for (size_t i = 0; i < n; i++) {
		struct metric_result *r = &(*out)[i];

		memcpy(r->workload, u[i].workload, sizeof(r->workload));
		memcpy(r->metric, u[i].metric, sizeof(r->metric));
		memcpy(r->unit, u[i].unit, sizeof(r->unit));
		r->mem = mem;
		r->cpus = cpus;
		r->per_boot = u[i].per_boot;
		r->comparable = u[i].comparable;
		r->c = u[i].c;
		r->p_adjusted = r->c.p;
	}
	*nout = n;
	free(u);
	return 0;
}

/* The adaptive schedule's looks; its alpha is the A/B's, set in ab_run(). */
static const struct stats_schedule ab_schedule = STATS_SCHEDULE_INIT;

struct decision {
	char workload[32], metric[64];
	size_t next;		/* units both sides have at the next look */
	int done;
};

/* Each metric's decision so far. */
struct decisions {
	struct decision *v;
	size_t n, alloc;
};

/*
 * After a round: does any metric still want samples? A metric is looked
 * at once both sides have the units the schedule tops them up to (the
 * side with fewer sets the level); it is done when the schedule stops (a
 * verdict other than INCONCLUSIVE, or the cap), or when its sides cannot
 * be compared.
 */
static int want_more(struct decisions *dec, const struct metric_result *r, size_t nr)
{
	int more = nr == 0;

	for (size_t i = 0; i < nr; i++) {
		struct decision *d = NULL;
		size_t na = r[i].c.a.n, nb = r[i].c.b.n, add_a, add_b;

		for (size_t j = 0; j < dec->n && !d; j++)
			if (!strcmp(dec->v[j].workload, r[i].workload) &&
			    !strcmp(dec->v[j].metric, r[i].metric))
				d = &dec->v[j];
		if (!d) {
			ALLOC_GROW(dec->v, dec->n + 1, dec->alloc);
			d = &dec->v[dec->n++];
			memset(d, 0, sizeof(*d));
			memcpy(d->workload, r[i].workload, sizeof(d->workload));
			memcpy(d->metric, r[i].metric, sizeof(d->metric));
			/* nothing seen is inconclusive: the schedule's first look */
			stats_schedule_next(&add_a, &add_b, &ab_schedule, 0, 0, VERDICT_INCONCLUSIVE);
			d->next = add_a;
		}
		if (d->done)
			continue;
		if (na >= d->next && nb >= d->next) {
			d->done = !r[i].comparable ||
				  !stats_schedule_next(&add_a, &add_b, &ab_schedule, na, nb,
						       r[i].c.verdict);
			if (!d->done)
				d->next = na + add_a < nb + add_b ? na + add_a : nb + add_b;
		}
		if (!d->done)
			more = 1;
	}
	return more;
}

static int create_experiment(long long *exp_id, long long vid[2], struct store *st,
			     const struct ab_opts *o, const long long kid[2],
			     const char *workloads)
{
	struct store_variant_spec v[2];

	for (int i = 0; i < 2; i++) {
		v[i].kernel_id = kid[i];
		v[i].cmdline = o->v[i].cmdline;
		v[i].git_ref = o->v[i].git_ref;
	}
	return store_experiment_create_ab(st, exp_id, vid, o->command, workloads, v);
}

struct resume_check {
	long long exp_id, *vid;
	const struct ab_opts *o;
	const long long *kid;
	const char *workloads;
	int found;
};

static int check_variant(const struct store_variant *v, void *data)
{
	struct resume_check *c = data;
	int i = c->found++;

	if (i >= 2)
		return 0;
	c->vid[i] = v->id;
	if (v->kernel_id != c->kid[i])
		return error("cannot resume experiment %lld: variant %c's kernel differs from the one it started with",
			     c->exp_id, 'A' + i);
	if (strcmp(v->cmdline, c->o->v[i].cmdline ? c->o->v[i].cmdline : ""))
		return error("cannot resume experiment %lld: variant %c's command line was '%s'",
			     c->exp_id, 'A' + i, v->cmdline);
	if (strcmp(v->workloads, c->workloads))
		return error("cannot resume experiment %lld: its workloads were '%s'", c->exp_id,
			     v->workloads);
	return 0;
}

/* A resumed experiment must be the same experiment: same kernels and command lines. */
static int resume_experiment(long long vid[2], struct store *st, long long exp_id,
			     const struct ab_opts *o, const long long kid[2],
			     const char *workloads)
{
	struct resume_check c = { exp_id, vid, o, kid, workloads, 0 };

	if (store_experiment_variants(st, exp_id, "ab", check_variant, &c))
		return -1;
	if (c.found < 2)
		return error("no A/B experiment %lld in database '%s'", exp_id, st->path);
	return store_runs_interrupted(st, exp_id);
}

/*
 * Runs from one experiment may differ only in what the variants name
 * (kernel, command line). Anything else that differs is named, and the
 * experiment is marked REFUSED. The clock is refused even with --force:
 * instructions and seconds are different quantities, not a noisier
 * measure of one.
 */
struct provenance_check {
	struct store *st;
	long long exp_id;
	int force;
	int one_class;		/* every run on targets of one class */
};

static int differs(const char *column, const char *first, const char *second, void *data)
{
	struct provenance_check *c = data;
	int ret;

	if (!strcmp(column, "clock")) {
		struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
		clock_words(&a, first);
		clock_words(&b, second);
		ret = error("refusing to compare: runs of experiment %lld differ in clock "
			    "('%s', %s, vs '%s', %s): a wall-time run and a virtual-time "
			    "run are never compared, not even with --force",
			    c->exp_id, first, a.buf, second, b.buf);
		strbuf_release_all(&a, &b);
	} else if (!strcmp(column, "class") && !c->force) {
		ret = error("refusing to compare: runs of experiment %lld ran on targets of class '%s' "
			    "and of class '%s', which are not declared interchangeable; use --force "
			    "to compare anyway", c->exp_id, *first ? first : "(none)",
			    *second ? second : "(none)");
	} else if (c->one_class && (!strcmp(column, "runner") || !strcmp(column, "qemu_version"))) {
		/* a class says its targets measure alike, whatever boots them */
		return 0;
	} else if (c->force) {
		warning("runs of experiment %lld differ in %s ('%s' vs '%s'): compared anyway (--force)",
			c->exp_id, column, first, second);
		return 0;
	} else {
		ret = error("refusing to compare: runs of experiment %lld differ in %s ('%s' vs '%s'); use --force to compare anyway",
			    c->exp_id, column, first, second);
	}
	store_experiment_refused(c->st, c->exp_id);
	return ret;
}

static int check_provenance(struct store *st, long long exp_id, int force)
{
	struct provenance_check c = { st, exp_id, force, 0 };
	struct strvec classes = STRVEC_INIT;
	int ret = -1;

	if (store_experiment_classes(st, &classes, exp_id))
		goto out;
	c.one_class = classes.nr == 1 && *classes.v[0];
	ret = store_experiment_provenance(st, exp_id, differs, &c);
out:
	strvec_release(&classes);
	return ret;
}

static void verdict_of(struct verdict_row *v, const struct metric_result *r)
{
	const struct stats_comparison *c = &r->c;

	memset(v, 0, sizeof(*v));
	snprintf(v->workload, sizeof(v->workload), "%s", r->workload);
	snprintf(v->metric, sizeof(v->metric), "%s", r->metric);
	snprintf(v->unit, sizeof(v->unit), "%s", r->unit);
	v->mem_mib = r->mem;
	v->cpus = (int)r->cpus;
	snprintf(v->direction, sizeof(v->direction), "%s",
		 c->direction == STATS_HIGHER_IS_BETTER ? "higher" : "lower");
	snprintf(v->unit_compared, sizeof(v->unit_compared), "%s",
		 r->per_boot ? "boot-medians" : "samples");
	v->n_a = (long long)c->a.n;
	v->n_b = (long long)c->b.n;
	v->mean_a = c->a.mean;
	v->mean_b = c->b.mean;
	v->std_a = c->a.std;
	v->std_b = c->b.std;
	v->median_a = c->a.median;
	v->median_b = c->b.median;
	/* sides that cannot be compared keep their summaries, and nothing else */
	v->ratio = r->comparable ? c->ratio : NAN;
	v->ci_low = r->comparable ? c->lo : NAN;
	v->ci_high = r->comparable ? c->hi : NAN;
	v->p = r->comparable ? c->p : NAN;
	v->p_adjusted = r->comparable ? r->p_adjusted : NAN;
	v->alpha = c->alpha;
	v->delta = c->delta;
	v->mde = r->comparable ? c->mde : NAN;
	snprintf(v->verdict, sizeof(v->verdict), "%s",
		 r->comparable ? verdict_name(c->verdict) : "UNCOMPARABLE");
}

static int store_verdicts(struct store *st, long long exp_id, const struct metric_result *r,
			  size_t n)
{
	struct verdict_row *v = xreallocarray(NULL, n + 1, sizeof(*v));
	int ret;

	for (size_t i = 0; i < n; i++)
		verdict_of(&v[i], &r[i]);
	ret = store_verdicts_write(st, exp_id, v, n);
	free(v);
	return ret;
}

/* Final verdicts over every point, with Benjamini-Hochberg across all of them. */
static int evaluate(struct store *st, long long exp_id, const long long vid[2],
		    const struct ab_opts *o, double alpha)
{
	struct metric_result *all = NULL;
	double *p = NULL, *adj = NULL;
	size_t n = 0, alloc = 0, np = 0;
	int ret = -1;

	for (size_t i = 0; i < o->nmems; i++) {
		for (size_t j = 0; j < o->ncpus; j++) {
			struct metric_result *r;
			size_t nr;
			if (compare_point(&r, &nr, st, exp_id, vid, o->mems[i], o->cpus[j],
					  alpha, o->delta))
				goto out;
			ALLOC_GROW(all, n + nr + 1, alloc);
			memcpy(all + n, r, nr * sizeof(*r));
			n += nr;
			free(r);
		}
	}
	p = xreallocarray(NULL, n + 1, sizeof(*p));
	adj = xreallocarray(NULL, n + 1, sizeof(*adj));
	for (size_t i = 0; i < n; i++)
		if (all[i].comparable)
			p[np++] = all[i].c.p;
	if (np && stats_bh_adjust(adj, p, np))
		goto out;
	np = 0;
	for (size_t i = 0; i < n; i++) {
		if (!all[i].comparable)
			continue;
		all[i].p_adjusted = adj[np++];
		/* the verdict's significance is the false-discovery-rate adjusted p */
		all[i].c.verdict = stats_verdict_at(&all[i].c, all[i].p_adjusted);
	}
	if (store_begin(st))
		goto out;
	if (store_verdicts(st, exp_id, all, n) ||
	    store_experiment_done(st, exp_id)) {
		store_rollback(st);
		goto out;
	}
	ret = store_commit(st);
out:
	free(all);
	free(p);
	free(adj);
	return ret;
}

static void plan_opts(struct boot_opts *b, const struct ab_opts *o, int side, long mem,
		      long cpus, long long exp_id, long long vid, struct boot_guests *guests)
{
	*b = o->boot;
	b->guests = guests;
	b->kernel = o->v[side].kernel;
	b->cmdline = o->v[side].cmdline;
	b->mem_mib = mem;
	b->cpus = cpus;
	b->experiment_id = exp_id;
	b->variant_id = vid;
}

/* Boots for one sweep point until the schedule is satisfied. */
static int run_point(struct lab_context *ctx, const struct ab_opts *o, long long exp_id,
		     const long long vid[2], long mem, long cpus, double alpha,
		     struct boot_guests *guests, struct progress *pr)
{
	struct boot_plan plan[2];
	struct decisions dec = { NULL, 0, 0 };
	long ok[2] = { 0, 0 }, failed[2];
	long long last_failed = 0;
	int ret = -1, prepared = 0;

	memset(plan, 0, sizeof(plan));
	for (int s = 0; s < 2; s++) {
		struct boot_opts b;
		int rc;
		plan_opts(&b, o, s, mem, cpus, exp_id, vid[s], guests);
		/* released even when it failed half-way: it may hold an initramfs */
		rc = boot_plan_prepare(&plan[s], ctx, &b);
		prepared++;
		if (rc || store_variant_boots(&ctx->st, vid[s], mem, cpus, &ok[s], &failed[s]))
			goto out;
	}
	for (int s = 0; s < 2; s++)
		plan[s].spec.watch = progress_watch(pr);
	for (;;) {
		/* ABBA: the order alternates with each round, so drift cancels */
		long round = ok[0] < ok[1] ? ok[0] : ok[1];
		int first = (int)(round % 2);

		/* stopped by a signal: what ended is stored, ab_run() marks the rest */
		if (fatal_signal_pending())
			goto out;
		if (o->boots) {
			if (ok[0] >= o->boots && ok[1] >= o->boots)
				break;
		} else if (ok[0] >= 2 && ok[1] >= 2 && ok[0] == ok[1]) {
			struct metric_result *r;
			size_t nr;
			int more;
			if (compare_point(&r, &nr, &ctx->st, exp_id, vid, mem, cpus, alpha,
					  o->delta))
				goto out;
			more = want_more(&dec, r, nr);
			free(r);
			if (!more || ok[0] >= o->max_boots)
				break;
		}
		for (int k = 0; k < 2; k++) {
			int s = k ? 1 - first : first;
			struct run_result res;
			long long run_id;

			if (ok[s] > round || fatal_signal_pending())
				continue;
			/* a variant that keeps failing ends the experiment, not the machine */
			if (failed[s] >= 3 && failed[s] > ok[s]) {
				error("variant %c failed %ld boots; last one: 'lab show %lld'",
				      'A' + s, failed[s], last_failed);
				goto out;
			}
			progress_update(pr, pr->base + ok[0] + ok[1] + 1, s ? "(B)" : "(A)");
			if (boot_plan_run(&plan[s], ctx, &run_id, &res)) {
				run_result_release(&res);
				goto out;
			}
			progress_boot_done(pr, pr->base + ok[0] + ok[1] + 1, run_id, &res,
					   plan[s].log_path.buf);
			if (res.status == RUN_OK)
				ok[s]++;
			else {
				failed[s]++;
				last_failed = run_id;
			}
			run_result_release(&res);
		}
	}
	ret = 0;
out:
	/* the next point's boots count on from this one's */
	pr->base += ok[0] + ok[1];
	meter_clear(&pr->meter);
	for (int s = 0; s < prepared; s++)
		boot_plan_release(&plan[s]);
	free(dec.v);
	return ret;
}

static void join_workloads(struct strbuf *sb, const struct ab_opts *o)
{
	workload_list_join(sb, o->boot.workloads);
}

/*
 * Each side's kernel as the database knows it; 0 for none. A built one
 * has its row; a file the user named is recorded here, once, and its
 * boots read the row it carries from then on.
 */
static int variant_kernels(long long kid[2], struct lab_context *ctx, const struct ab_opts *o)
{
	for (int s = 0; s < 2; s++) {
		/* resolved once, by the command: nothing is read here */
		if (store_kernel_once(&ctx->st, o->v[s].kernel))
			return -1;
		kid[s] = o->v[s].kernel ? o->v[s].kernel->id : 0;
	}
	return 0;
}

int ab_find(long long *id, int *done, struct lab_context *ctx, const struct ab_opts *o)
{
	struct strbuf workloads = STRBUF_INIT, params = STRBUF_INIT;
	struct store_ab_spec spec;
	const struct runner *r;
	const char *clock = o->boot.clock ? o->boot.clock : config_clock_name(ctx->cfg.clock);
	int ret = -1;

	*id = 0;
	*done = 0;
	if (context_need_store(ctx))
		return -1;
	memset(&spec, 0, sizeof(spec));
	if (variant_kernels(spec.kernel_id, ctx, o))
		goto out;
	join_workloads(&workloads, o);
	boot_params(&params, &o->boot, workloads.buf, ctx->cfg.iters);
	for (int s = 0; s < 2; s++)
		spec.cmdline[s] = o->v[s].cmdline;
	spec.workloads = workloads.buf;
	spec.params = params.buf;
	if (!(r = boot_opts_runner(&o->boot, &ctx->cfg)))
		goto out;
	spec.runner = r->name;
	/* auto settles on a clock only when a plan is made: either will do */
	spec.clock = strcmp(clock, "auto") ? clock : NULL;
	spec.mems = o->mems;
	spec.nmems = o->nmems;
	spec.cpus = o->cpus;
	spec.ncpus = o->ncpus;
	ret = store_experiment_find_ab(&ctx->st, id, done, &spec);
out:
	strbuf_release_all(&workloads, &params);
	return ret;
}

/*
 * The adaptive schedule's look, once the smaller side reached a new count:
 * 1 when more boots are wanted, 0 to stop, -1 on error.
 */
static int pool_look(struct decisions *dec, struct lab_context *ctx,
		     const struct ab_opts *o, long long exp_id, const long long vid[2],
		     long mem, long cpus, double alpha)
{
	struct metric_result *r;
	size_t nr;
	int more;

	if (compare_point(&r, &nr, &ctx->st, exp_id, vid, mem, cpus, alpha, o->delta))
		return -1;
	more = want_more(dec, r, nr);
	free(r);
	return more;
}

/*
 * One sweep point on the targets of a class, at the same time. Each
 * target runs its own rounds of two boots in ABBA order (its first round
 * AB, its second BA, ...), so that the drift of each target cancels as it
 * does on one machine. A side is booted only while its boots, ended OK or
 * under way, are short of the cap: --boots, or --max-boots until the
 * schedule stops, then the larger side's count, so that a stop or a
 * resumed point ends with the sides balanced; a target whose next side is
 * full boots the other one.
 */
static int run_point_pool(struct lab_context *ctx, const struct ab_opts *o, long long exp_id,
			  const long long vid[2], long mem, long cpus, double alpha,
			  struct boot_guests *guests, struct progress *pr)
{
	struct boot_opts b[2];
	struct pool pool;
	struct decisions dec = { NULL, 0, 0 };
	long ok[2], failed[2], busy[2] = { 0, 0 }, looked = 0, *rounds = NULL;
	int ret = -1, stop = 0;

	(void)pr;	/* the targets boot at once: each end is said, no meter drawn */
	if (pool_init(&pool, &ctx->cfg, o->boot.targets, mem, cpus))
		return -1;
	for (int s = 0; s < 2; s++)
		plan_opts(&b[s], o, s, mem, cpus, exp_id, vid[s], guests);
	if (pool_start(&pool, ctx, b, 2))
		goto out;
	for (int s = 0; s < 2; s++)
		if (store_variant_boots(&ctx->st, vid[s], mem, cpus, &ok[s], &failed[s]))
			goto out;
	rounds = xreallocarray(NULL, pool.n, sizeof(*rounds));
	memset(rounds, 0, pool.n * sizeof(*rounds));
	say("%zu target%s of class '%s' share%s the boots", pool_live(&pool),
		pool_live(&pool) == 1 ? "" : "s", pool.class, pool_live(&pool) == 1 ? "s" : "");
	for (;;) {
		struct pool_done d;
		struct pool_target *pt;
		long min = ok[0] < ok[1] ? ok[0] : ok[1], cap;
		int taken_out;

		if (!o->boots && !stop && min >= 2 && min > looked) {
			int more = pool_look(&dec, ctx, o, exp_id, vid, mem, cpus, alpha);
			if (more < 0)
				goto out;
			looked = min;
			stop = !more || looked >= o->max_boots;
		}
		for (int s = 0; s < 2; s++)
			if (failed[s] >= 3 && failed[s] > ok[s]) {
				error("variant %c failed %ld boots; see 'lab list'", 'A' + s, failed[s]);
				goto out;
			}
		if (o->boots)
			cap = o->boots;
		else if (!stop)
			cap = o->max_boots;
		else
			cap = ok[0] + busy[0] > ok[1] + busy[1] ? ok[0] + busy[0] : ok[1] + busy[1];
		for (size_t i = 0; i < pool.n; i++) {
			/* this target's round k is AB for even k, BA for odd k */
			int first = (int)(rounds[i] % 2), side;

			pt = &pool.t[i];
			if (pt->busy || pt->out)
				continue;
			side = pt->ok[first] > rounds[i] ? 1 - first : first;
			if (ok[side] + busy[side] >= cap)
				side = 1 - side;
			if (ok[side] + busy[side] >= cap)
				continue;
			if (pool_boot(&pool, i, side))
				goto out;
			busy[side]++;
		}
		if (!pool_busy(&pool) || fatal_signal_pending())
			break;
		if (pool_wait(&pool, &d, &taken_out))
			goto out;
		pt = &pool.t[d.target];
		busy[d.side]--;
		/* --quiet: only what went wrong */
		if (d.status == RUN_OK)
			say_more("  %s: boot %c OK (run %lld, %.1f s)", pt->t->name,
				 'A' + d.side, d.run_id, d.wall_s);
		else
			say("  %s: boot %c %s (run %lld, %.1f s): %s", pt->t->name,
			    'A' + d.side, run_status_name(d.status), d.run_id, d.wall_s,
			    d.error);
		if (d.status == RUN_OK)
			ok[d.side]++;
		else if (d.status != RUN_INFRA)
			failed[d.side]++;
		if (pt->ok[0] > rounds[d.target] && pt->ok[1] > rounds[d.target])
			rounds[d.target]++;
		if (taken_out && !pool_live(&pool)) {
			error("no target of class '%s' is left for experiment E%lld", pool.class,
			      exp_id);
			goto out;
		}
	}
	ret = fatal_signal_pending() ? -1 : 0;
out:
	pool_release(&pool);
	free(rounds);
	free(dec.v);
	return ret;
}

enum ab_outcome ab_run(long long *exp_id, struct lab_context *ctx, const struct ab_opts *o)
{
	struct stats_schedule sched = ab_schedule;
	struct strbuf workloads = STRBUF_INIT;
	/* the caller's guests (a recipe's A/Bs share them), else the plan's own */
	struct boot_guests own, *guests = o->boot.guests ? o->boot.guests : &own;
	struct progress pr;
	long long kid[2] = { 0, 0 }, vid[2];
	long limit = o->boots ? o->boots : o->max_boots;
	size_t points = o->nmems * o->ncpus, point = 0;
	double alpha = o->alpha;

	boot_guests_init(&own);
	if (boot_opts_check_targets(&o->boot, &ctx->cfg))
		return AB_ERROR;
	/* what a boot would refuse is refused before the experiment exists */
	for (size_t i = 0; i < o->nmems; i++) {
		for (size_t j = 0; j < o->ncpus; j++) {
			for (int s = 0; s < 2; s++) {
				struct boot_opts b;

				plan_opts(&b, o, s, o->mems[i], o->cpus[j], 0, 0, guests);
				if (boot_opts_check(ctx, &b))
					return AB_ERROR;
			}
		}
	}
	if (context_need_store(ctx))
		return AB_ERROR;
	join_workloads(&workloads, o);
	if (variant_kernels(kid, ctx, o))
		goto fail;
	if (o->resume) {
		int exists;
		if (store_experiment_exists(&ctx->st, o->resume, &exists))
			goto fail;
		if (!exists) {
			error("no A/B experiment %lld in database '%s'", o->resume, ctx->st.path);
			goto fail;
		}
		/* before its runs are touched: another lab may be running them */
		if (experiment_lock(ctx, o->resume))
			goto fail;
		*exp_id = o->resume;
		if (resume_experiment(vid, &ctx->st, *exp_id, o, kid, workloads.buf) ||
		    store_experiment_resumed(&ctx->st, *exp_id))
			goto fail;
	} else if (create_experiment(exp_id, vid, &ctx->st, o, kid, workloads.buf) ||
		   experiment_lock(ctx, *exp_id)) {
		goto fail;
	}
	say("experiment E%lld: %s", *exp_id, o->resume ? "resumed" : "started");
	if (!o->boots) {
		/* several looks at the data: each look gets a smaller alpha */
		sched.alpha = o->alpha;
		alpha = stats_schedule_alpha(&sched);
	}
	/* the experiment's boots, not a point's: an adaptive schedule knows only its most */
	progress_start(&pr, (long)points * 2 * limit, !o->boots);
	/* one guest for every point, side and target: its initramfs is the same bytes */
	for (size_t i = 0; i < o->nmems; i++) {
		for (size_t j = 0; j < o->ncpus; j++) {
			if ((o->boot.targets ? run_point_pool : run_point)(ctx, o, *exp_id, vid,
									  o->mems[i], o->cpus[j], alpha,
									  guests, &pr)) {
				progress_release(&pr);
				goto fail;
			}
			/* a point the schedule stopped early leaves its budget unused */
			pr.total = pr.base + (long)(points - ++point) * 2 * limit;
		}
	}
	progress_release(&pr);
	if (check_provenance(&ctx->st, *exp_id, o->force))
		goto fail;
	if (evaluate(&ctx->st, *exp_id, vid, o, alpha))
		goto fail;
	boot_guests_release(&own);
	strbuf_release(&workloads);
	return ab_outcome_of(&ctx->st, *exp_id);
fail:
	boot_guests_release(&own);
	strbuf_release(&workloads);
	if (fatal_signal_pending() && *exp_id && store_is_open(&ctx->st) &&
	    !store_experiment_interrupted(&ctx->st, *exp_id))
		return AB_INTERRUPTED;
	return AB_ERROR;
}

enum ab_outcome ab_outcome_of(struct store *st, long long exp_id)
{
	long long n;

	if (store_verdict_regressions(st, &n, exp_id))
		return AB_ERROR;
	return n ? AB_REGRESSION : AB_NO_REGRESSION;
}
