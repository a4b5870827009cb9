#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab.h"
#include "boot.h"
#include "host.h"
#include "image.h"
#include "log.h"
#include "progress.h"
#include "units.h"
#include "subprocess.h"
#include "xalloc.h"

struct metric_result {
	char workload[32], metric[64], unit[16];
	int per_boot;
	int comparable;
	struct stats_comparison c;
	double p_adjusted;
};

/* Compare every metric both sides have; *out is owned by the caller. */
static int compare_point(struct metric_result **out, size_t *nout, struct store *st,
			 long long exp_id, const long long vid[2], long mem, long cpus,
			 double alpha, double delta)
{
	struct unit_side a, b;
	struct stats_options opt = STATS_OPTIONS_INIT;

	*out = NULL;
	*nout = 0;
	if (units_side_load(&a, st, exp_id, vid[0], mem, cpus, NULL))
		return -1;
	if (units_side_load(&b, st, exp_id, vid[1], mem, cpus, NULL)) {
		units_side_release(&a);
		return -1;
	}
	opt.alpha = alpha;
	opt.delta = delta;
	*out = xrealloc(NULL, (a.n ? a.n : 1) * sizeof(**out));
	for (size_t i = 0; i < a.n; i++) {
		const struct unit_metric *ma = &a.m[i], *mb = NULL;
		struct metric_result *r;
		double *ua, *ub;
		size_t na, nb;

		for (size_t j = 0; j < b.n && !mb; j++)
			if (!strcmp(b.m[j].workload, ma->workload) &&
			    !strcmp(b.m[j].metric, ma->metric) && !strcmp(b.m[j].unit, ma->unit))
				mb = &b.m[j];
		if (!mb)
			continue;
		r = &(*out)[(*nout)++];
		memset(r, 0, sizeof(*r));
		memcpy(r->workload, ma->workload, sizeof(r->workload));
		memcpy(r->metric, ma->metric, sizeof(r->metric));
		memcpy(r->unit, ma->unit, sizeof(r->unit));
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
		r->p_adjusted = r->c.p;
		free(ua);
		free(ub);
	}
	units_side_release(&a);
	units_side_release(&b);
	return 0;
}

static const struct stats_schedule default_schedule = STATS_SCHEDULE_INIT;

/* The schedule's look reached with n units per side: 0 before the first. */
static size_t look_level(size_t n)
{
	size_t level = 0;
	for (size_t l = default_schedule.start; l <= default_schedule.cap; l *= 2)
		if (n >= l)
			level = l;
	return level;
}

struct decision {
	char workload[32], metric[64];
	size_t level;		/* last look evaluated */
	int done;
};

/*
 * After a round: does any metric still want samples? A metric is looked
 * at once per schedule level it reaches; it is done with a verdict other
 * than INCONCLUSIVE, or at the cap.
 */
static int want_more(struct decision **dec, size_t *ndec, const struct metric_result *r,
		     size_t nr)
{
	int more = nr == 0;

	for (size_t i = 0; i < nr; i++) {
		struct decision *d = NULL;
		size_t n = r[i].c.a.n < r[i].c.b.n ? r[i].c.a.n : r[i].c.b.n;
		size_t level = look_level(n);

		for (size_t j = 0; j < *ndec && !d; j++)
			if (!strcmp((*dec)[j].workload, r[i].workload) &&
			    !strcmp((*dec)[j].metric, r[i].metric))
				d = &(*dec)[j];
		if (!d) {
			*dec = xrealloc(*dec, (*ndec + 1) * sizeof(**dec));
			d = &(*dec)[(*ndec)++];
			memset(d, 0, sizeof(*d));
			memcpy(d->workload, r[i].workload, sizeof(d->workload));
			memcpy(d->metric, r[i].metric, sizeof(d->metric));
		}
		if (d->done)
			continue;
		if (level > d->level) {
			d->level = level;
			if (!r[i].comparable || r[i].c.verdict != VERDICT_INCONCLUSIVE ||
			    level >= default_schedule.cap)
				d->done = 1;
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
	sqlite3_stmt *q = NULL;
	long long id;
	int ret = -1;

	if (store_begin(st))
		return -1;
	if (sqlite3_prepare_v2(st->db, "INSERT INTO experiments(kind, command, workloads, created) "
			       "VALUES ('ab', ?1, ?2, ?3)", -1, &q, NULL) != SQLITE_OK)
		goto fail;
	sqlite3_bind_text(q, 1, o->command, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, workloads, -1, SQLITE_STATIC);
	sqlite3_bind_double(q, 3, now_wall());
	if (sqlite3_step(q) != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(q);
	q = NULL;
	id = sqlite3_last_insert_rowid(st->db);
	for (int i = 0; i < 2; i++) {
		if (sqlite3_prepare_v2(st->db, "INSERT INTO variants(experiment_id, name, kernel_id, "
				       "cmdline, git_ref) VALUES (?1, ?2, ?3, ?4, ?5)", -1, &q,
				       NULL) != SQLITE_OK)
			goto fail;
		sqlite3_bind_int64(q, 1, id);
		sqlite3_bind_text(q, 2, i ? "B" : "A", -1, SQLITE_STATIC);
		if (kid[i])
			sqlite3_bind_int64(q, 3, kid[i]);
		sqlite3_bind_text(q, 4, o->v[i].cmdline ? o->v[i].cmdline : "", -1, SQLITE_STATIC);
		if (o->v[i].git_ref)
			sqlite3_bind_text(q, 5, o->v[i].git_ref, -1, SQLITE_STATIC);
		if (sqlite3_step(q) != SQLITE_DONE)
			goto fail;
		sqlite3_finalize(q);
		q = NULL;
		vid[i] = sqlite3_last_insert_rowid(st->db);
	}
	/* an experiment rolled back (a full disk) has no id to resume */
	if (store_commit(st))
		return -1;
	*exp_id = id;
	return 0;
fail:
	store_error(st, "cannot create experiment");
	sqlite3_finalize(q);
	store_rollback(st);
	return ret;
}

/* A resumed experiment must be the same experiment: same kernels and command lines. */
static int resume_experiment(long long vid[2], struct store *st, long long exp_id,
			     const struct ab_opts *o, const long long kid[2],
			     const char *workloads)
{
	sqlite3_stmt *q = NULL;
	int ret = -1, found = 0, rc;

	if (sqlite3_prepare_v2(st->db, "SELECT v.name, v.id, COALESCE(v.kernel_id, 0), v.cmdline, "
			       "e.workloads FROM variants v JOIN experiments e ON "
			       "e.id = v.experiment_id WHERE e.id = ?1 AND e.kind = 'ab' "
			       "ORDER BY v.name", -1, &q, NULL) != SQLITE_OK)
		return store_error(st, "cannot read experiment");
	sqlite3_bind_int64(q, 1, exp_id);
	while (found < 2 && (rc = sqlite3_step(q)) == SQLITE_ROW) {
		int i = found++;
		const char *cmd = (const char *)sqlite3_column_text(q, 3);
		const char *wl = (const char *)sqlite3_column_text(q, 4);
		vid[i] = sqlite3_column_int64(q, 1);
		if (sqlite3_column_int64(q, 2) != kid[i]) {
			error("cannot resume experiment %lld: variant %c's kernel differs from the one it started with",
			      exp_id, 'A' + i);
			goto out;
		}
		if (strcmp(cmd ? cmd : "", o->v[i].cmdline ? o->v[i].cmdline : "")) {
			error("cannot resume experiment %lld: variant %c's command line was '%s'",
			      exp_id, 'A' + i, cmd ? cmd : "");
			goto out;
		}
		if (strcmp(wl ? wl : "", workloads)) {
			error("cannot resume experiment %lld: its workloads were '%s'", exp_id,
			      wl ? wl : "");
			goto out;
		}
	}
	if (found < 2 && rc != SQLITE_DONE) {
		store_error(st, "cannot read experiment");
		goto out;
	}
	if (found != 2) {
		error("no A/B experiment %lld in database '%s'", exp_id, st->path);
		goto out;
	}
	sqlite3_finalize(q);
	q = NULL;
	ret = store_runs_interrupted(st, exp_id);
out:
	sqlite3_finalize(q);
	return ret;
}

/*
 * Boots of a variant at a point so far: OK ones, and failed ones. A boot
 * left INFRA by a lab that was stopped is not the variant's failure.
 */
static int count_boots(struct store *st, long long vid, long mem, long cpus, long *ok,
		       long *failed)
{
	sqlite3_stmt *q = NULL;
	int ret = -1;

	if (sqlite3_prepare_v2(st->db, "SELECT count(*) FILTER (WHERE status = 'OK'), "
			       "count(*) FILTER (WHERE status NOT IN ('OK', 'INFRA', 'RUNNING')) "
			       "FROM runs WHERE variant_id = ?1 AND mem_mib = ?2 AND cpus = ?3",
			       -1, &q, NULL) != SQLITE_OK)
		return store_error(st, "cannot count boots");
	sqlite3_bind_int64(q, 1, vid);
	sqlite3_bind_int64(q, 2, mem);
	sqlite3_bind_int64(q, 3, cpus);
	if (sqlite3_step(q) != SQLITE_ROW) {
		store_error(st, "cannot count boots");
		goto out;
	}
	*ok = sqlite3_column_int64(q, 0);
	*failed = sqlite3_column_int64(q, 1);
	ret = 0;
out:
	sqlite3_finalize(q);
	return ret;
}

/*
 * Runs from one experiment may differ only in what the variants name
 * (kernel, command line). Anything else that differs is named, and the
 * experiment is marked REFUSED. The clock is refused even with --force:
 * instructions and seconds are different quantities, not a noisier
 * measure of one.
 */
static int check_provenance(struct store *st, long long exp_id, int force)
{
	static const char *const cols[] = { "clock", "runner", "host", "host_cpu",
					    "qemu_version", "accel", "workloads", "params" };
	int ret = 0, rc;

	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]) && !ret; i++) {
		sqlite3_stmt *q = NULL;
		char sql[256], first[256];
		snprintf(sql, sizeof(sql), "SELECT DISTINCT COALESCE(%s, '') FROM runs WHERE "
			 "experiment_id = ?1 AND status = 'OK' LIMIT 2", cols[i]);
		if (sqlite3_prepare_v2(st->db, sql, -1, &q, NULL) != SQLITE_OK)
			return store_error(st, "cannot check provenance");
		sqlite3_bind_int64(q, 1, exp_id);
		rc = sqlite3_step(q);
		if (rc == SQLITE_ROW) {
			snprintf(first, sizeof(first), "%s", store_text(q, 0));
			rc = sqlite3_step(q);
		}
		if (rc == SQLITE_ROW && !strcmp(cols[i], "clock")) {
			struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
			clock_words(&a, first);
			clock_words(&b, store_text(q, 0));
			ret = error("refusing to compare: runs of experiment %lld differ in clock "
				    "('%s', %s, vs '%s', %s): a wall-time run and a virtual-time "
				    "run are never compared, not even with --force",
				    exp_id, first, a.buf, store_text(q, 0), b.buf);
			strbuf_release(&a);
			strbuf_release(&b);
			store_exec(st, "cannot record refusal",
				   "UPDATE experiments SET status = 'REFUSED' WHERE id = ?1", exp_id,
				   NULL);
		} else if (rc == SQLITE_ROW && force) {
			warning("runs of experiment %lld differ in %s ('%s' vs '%s'): compared anyway (--force)",
				exp_id, cols[i], first, store_text(q, 0));
		} else if (rc == SQLITE_ROW) {
			ret = error("refusing to compare: runs of experiment %lld differ in %s ('%s' vs '%s'); use --force to compare anyway",
				    exp_id, cols[i], first, store_text(q, 0));
			store_exec(st, "cannot record refusal",
				   "UPDATE experiments SET status = 'REFUSED' WHERE id = ?1", exp_id,
				   NULL);
		} else if (rc != SQLITE_DONE) {
			ret = store_error(st, "cannot check provenance");
		}
		sqlite3_finalize(q);
	}
	return ret;
}

static int store_verdicts(struct store *st, long long exp_id, const struct metric_result *r,
			  size_t n, const long *mem, const long *cpus)
{
	sqlite3_stmt *q = NULL;
	int ret = -1;

	if (sqlite3_prepare_v2(st->db,
			       "INSERT OR REPLACE INTO verdicts(experiment_id, workload, metric, unit, "
			       "mem_mib, cpus, direction, unit_compared, n_a, n_b, mean_a, mean_b, "
			       "std_a, std_b, median_a, median_b, ratio, ci_low, ci_high, p, "
			       "p_adjusted, alpha, delta, mde, verdict) VALUES (?1, ?2, ?3, ?4, ?5, "
			       "?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, "
			       "?20, ?21, ?22, ?23, ?24, ?25)", -1, &q, NULL) != SQLITE_OK)
		return store_error(st, "cannot store verdicts");
	for (size_t i = 0; i < n; i++) {
		const struct stats_comparison *c = &r[i].c;
		double vals[] = { c->a.mean, c->b.mean, c->a.std, c->b.std, c->a.median,
				  c->b.median, c->ratio, c->lo, c->hi, c->p, r[i].p_adjusted };
		sqlite3_bind_int64(q, 1, exp_id);
		sqlite3_bind_text(q, 2, r[i].workload, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 3, r[i].metric, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 4, r[i].unit, -1, SQLITE_STATIC);
		sqlite3_bind_int64(q, 5, mem[i]);
		sqlite3_bind_int64(q, 6, cpus[i]);
		sqlite3_bind_text(q, 7, c->direction == STATS_HIGHER_IS_BETTER ? "higher" : "lower",
				  -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 8, r[i].per_boot ? "boot-medians" : "samples", -1,
				  SQLITE_STATIC);
		sqlite3_bind_int64(q, 9, (long long)c->a.n);
		sqlite3_bind_int64(q, 10, (long long)c->b.n);
		for (int k = 0; k < 11; k++) {
			if (isfinite(vals[k]) && (r[i].comparable || k < 6))
				sqlite3_bind_double(q, 11 + k, vals[k]);
			else
				sqlite3_bind_null(q, 11 + k);
		}
		sqlite3_bind_double(q, 22, c->alpha);
		sqlite3_bind_double(q, 23, c->delta);
		if (r[i].comparable && isfinite(c->mde))
			sqlite3_bind_double(q, 24, c->mde);
		else
			sqlite3_bind_null(q, 24);
		sqlite3_bind_text(q, 25, r[i].comparable ? verdict_name(c->verdict) : "UNCOMPARABLE",
				  -1, SQLITE_STATIC);
		if (sqlite3_step(q) != SQLITE_DONE) {
			store_error(st, "cannot store verdicts");
			goto out;
		}
		sqlite3_reset(q);
	}
	ret = 0;
out:
	sqlite3_finalize(q);
	return ret;
}

/* Final verdicts over every point, with Benjamini-Hochberg across all of them. */
static int evaluate(struct store *st, long long exp_id, const long long vid[2],
		    const struct ab_opts *o, double alpha)
{
	struct metric_result *all = NULL;
	long *mem = NULL, *cpus = NULL;
	double *p = NULL, *adj = NULL;
	size_t n = 0, np = 0;
	int ret = -1;

	for (size_t i = 0; i < o->nmems; i++) {
		for (size_t j = 0; j < o->ncpus; j++) {
			struct metric_result *r;
			size_t nr;
			if (compare_point(&r, &nr, st, exp_id, vid, o->mems[i], o->cpus[j],
					  alpha, o->delta))
				goto out;
			all = xrealloc(all, (n + nr + 1) * sizeof(*all));
			mem = xrealloc(mem, (n + nr + 1) * sizeof(*mem));
			cpus = xrealloc(cpus, (n + nr + 1) * sizeof(*cpus));
			for (size_t k = 0; k < nr; k++) {
				all[n] = r[k];
				mem[n] = o->mems[i];
				cpus[n++] = o->cpus[j];
			}
			free(r);
		}
	}
	p = xrealloc(NULL, (n + 1) * sizeof(*p));
	adj = xrealloc(NULL, (n + 1) * sizeof(*adj));
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
		all[i].c.p = all[i].p_adjusted;
		all[i].c.verdict = stats_verdict(&all[i].c);
		all[i].c.p = p[np - 1];
	}
	if (store_begin(st))
		goto out;
	if (store_verdicts(st, exp_id, all, n, mem, cpus) ||
	    store_experiment_done(st, exp_id)) {
		store_rollback(st);
		goto out;
	}
	ret = store_commit(st);
out:
	free(all);
	free(mem);
	free(cpus);
	free(p);
	free(adj);
	return ret;
}

static void plan_opts(struct boot_opts *b, const struct ab_opts *o, int side, long mem,
		      long cpus, long long exp_id, long long vid)
{
	*b = o->boot;
	b->kernel = o->v[side].kernel;
	b->cmdline = o->v[side].cmdline;
	b->mem_mib = mem;
	b->cpus = cpus;
	b->experiment_id = exp_id;
	b->variant_id = vid;
}

/* Boots for one sweep point until the schedule is satisfied. */
static int run_point(struct lab_context *ctx, const struct ab_opts *o, long long exp_id,
		     const long long vid[2], long mem, long cpus, double alpha)
{
	struct boot_plan plan[2];
	struct decision *dec = NULL;
	struct progress pr;
	size_t ndec = 0;
	long ok[2], failed[2], limit = o->boots ? o->boots : o->max_boots;
	long long last_failed = 0;
	int ret = -1, prepared = 0;

	memset(plan, 0, sizeof(plan));
	for (int s = 0; s < 2; s++) {
		struct boot_opts b;
		int rc;
		plan_opts(&b, o, s, mem, cpus, exp_id, vid[s]);
		/* released even when it failed half-way: it may hold an initramfs */
		rc = boot_plan_prepare(&plan[s], ctx, &b);
		prepared++;
		if (rc || count_boots(&ctx->st, vid[s], mem, cpus, &ok[s], &failed[s]))
			goto out;
	}
	progress_start(&pr, 2 * limit);
	for (;;) {
		/* ABBA: the order alternates with each round, so drift cancels */
		long round = ok[0] < ok[1] ? ok[0] : ok[1];
		int first = (int)(round % 2);

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
			more = want_more(&dec, &ndec, r, nr);
			free(r);
			if (!more || ok[0] >= o->max_boots)
				break;
		}
		for (int k = 0; k < 2; k++) {
			int s = k ? 1 - first : first;
			struct run_result res;
			long long run_id;

			if (ok[s] > round)
				continue;
			/* a variant that keeps failing ends the experiment, not the machine */
			if (failed[s] >= 3 && failed[s] > ok[s]) {
				error("variant %c failed %ld boots; last one: 'lab show %lld'",
				      'A' + s, failed[s], last_failed);
				goto out;
			}
			progress_update(&pr, ok[0] + ok[1] + 1, s ? "(B)" : "(A)");
			if (boot_plan_run(&plan[s], ctx, &run_id, &res)) {
				run_result_release(&res);
				goto out;
			}
			progress_boot_done(&pr, ok[0] + ok[1] + 1, run_id, &res, plan[s].log_path.buf);
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
	for (int s = 0; s < prepared; s++)
		boot_plan_release(&plan[s]);
	free(dec);
	return ret;
}

enum ab_outcome ab_run(long long *exp_id, struct lab_context *ctx, const struct ab_opts *o)
{
	struct stats_schedule sched = STATS_SCHEDULE_INIT;
	struct strbuf workloads = STRBUF_INIT;
	long long kid[2] = { 0, 0 }, vid[2];
	double alpha = o->alpha;

	if (!ctx->st.db && context_open_store(ctx))
		return AB_ERROR;
	for (size_t i = 0; i < o->boot.workloads->nr; i++)
		strbuf_addf(&workloads, "%s%s", i ? "," : "", o->boot.workloads->v[i]);
	for (int s = 0; s < 2; s++) {
		const char *arch = host_arch();
		const char *runner = o->boot.runner ? o->boot.runner : config_runner_name(ctx->cfg.runner);
		if (!o->v[s].kernel)
			continue;
		if ((!strcmp(runner, "qemu") || !strcmp(runner, "libvirt")) &&
		    kernel_image_arch(&arch, o->v[s].kernel))
			goto fail;
		if (store_kernel(&ctx->st, &kid[s], o->v[s].kernel, arch))
			goto fail;
	}
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
		if (resume_experiment(vid, &ctx->st, *exp_id, o, kid, workloads.buf))
			goto fail;
	} else if (create_experiment(exp_id, vid, &ctx->st, o, kid, workloads.buf) ||
		   experiment_lock(ctx, *exp_id)) {
		goto fail;
	}
	fprintf(stderr, "experiment E%lld: %s\n", *exp_id, o->resume ? "resumed" : "started");
	if (!o->boots) {
		/* several looks at the data: each look gets a smaller alpha */
		sched.alpha = o->alpha;
		alpha = stats_schedule_alpha(&sched);
	}
	for (size_t i = 0; i < o->nmems; i++)
		for (size_t j = 0; j < o->ncpus; j++)
			if (run_point(ctx, o, *exp_id, vid, o->mems[i], o->cpus[j], alpha))
				goto fail;
	if (check_provenance(&ctx->st, *exp_id, o->force))
		goto fail;
	if (evaluate(&ctx->st, *exp_id, vid, o, alpha))
		goto fail;
	strbuf_release(&workloads);
	return ab_outcome_of(&ctx->st, *exp_id);
fail:
	strbuf_release(&workloads);
	return AB_ERROR;
}

enum ab_outcome ab_outcome_of(struct store *st, long long exp_id)
{
	sqlite3_stmt *q = NULL;
	enum ab_outcome out = AB_ERROR;

	if (sqlite3_prepare_v2(st->db, "SELECT count(*) FROM verdicts WHERE experiment_id = ?1 "
			       "AND verdict = 'REGRESSION'", -1, &q, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(q, 1, exp_id);
		if (sqlite3_step(q) == SQLITE_ROW)
			out = sqlite3_column_int(q, 0) ? AB_REGRESSION : AB_NO_REGRESSION;
	}
	if (out == AB_ERROR)
		store_error(st, "cannot read verdicts");
	sqlite3_finalize(q);
	return out;
}
