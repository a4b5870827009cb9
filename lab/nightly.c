/* One night of a nightly: fetch, measure, find changes, confirm, bisect, notify (nightly.h). */
#include <errno.h>
#include <git2.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ab.h"
#include "bisect-run.h"
#include "boot.h"
#include "changepoint.h"
#include "escape.h"
#include "gitutil.h"
#include "host.h"
#include "lock.h"
#include "log.h"
#include "nightly.h"
#include "notify.h"
#include "refbuild.h"
#include "stats.h"
#include "store-bisect.h"
#include "store-experiment.h"
#include "store-nightly.h"
#include "store-verdict.h"
#include "strbuf.h"
#include "strvec.h"
#include "xalloc.h"

/* E-divisive looks at this many newest points of a series each night. */
#define NIGHTLY_TAIL 100
/* A confirming A/B stops at this many boots a side (the adaptive schedule's cap). */
#define CONFIRM_MAX_BOOTS 20

struct night {
	struct lab_context *ctx;
	const struct lab_nightly *n;
	FILE *out;
	long long id;
	struct strvec workloads, params, cmdlines;
	long *mems;
	size_t nmems;
	struct strbuf mirror;
	char head[GIT_OID_HEXSZ + 1];
	struct strvec infra;		/* what failed on the lab's side, for the summary */
	int measured, regressions, improvements;
};

/* Names become file names: anything but [A-Za-z0-9._-] is '_'. */
static void add_safe_name(struct strbuf *sb, const char *name)
{
	for (; *name; name++)
		strbuf_addch(sb, strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					"0123456789._-", *name) ? *name : '_');
}

static void infra(struct night *nt, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void infra(struct night *nt, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	fprintf(nt->out, "infrastructure: %s\n", strbuf_str(&sb));
	strvec_push(&nt->infra, strbuf_str(&sb));
	strbuf_release(&sb);
}

/*
 * One lab per nightly: 1 when another lab holds the lock (said so), 0 with
 * *fd locked, -1 on error.
 */
static int nightly_lock(int *fd, struct lab_context *ctx, const char *name)
{
	struct strbuf path = STRBUF_INIT;
	long holder;
	int ret = -1;

	strbuf_addf(&path, "%s.nightly-", ctx->cfg.db);
	add_safe_name(&path, name);
	strbuf_addstr(&path, ".lock");
	*fd = lock_open(path.buf);
	if (*fd < 0)
		goto out;
	if (flock(*fd, LOCK_EX | LOCK_NB)) {
		if (errno != EWOULDBLOCK) {
			error("cannot lock '%s': %s", path.buf, strerror(errno));
		} else if ((holder = lock_wait_holder(*fd))) {
			error("nightly '%s' is being run by another lab (pid %ld): not starting a second",
			      name, holder);
			ret = 1;
		} else {
			error("nightly '%s' is being run by another lab: not starting a second", name);
			ret = 1;
		}
		close(*fd);
		*fd = -1;
		goto out;
	}
	if (lock_claim(*fd, path.buf)) {
		close(*fd);
		*fd = -1;
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&path);
	return ret;
}

static const char *git_why(void)
{
	const git_error *e = git_error_last();

	return e && e->message ? e->message : "unknown error";
}

/*
 * Fetch the branch into the mirror; *head its commit. A failure is the
 * infrastructure's: said in the summary, and tried again next night.
 */
static int fetch(struct night *nt, git_oid *head)
{
	const struct lab_nightly *n = nt->n;
	git_repository *repo = NULL;
	git_remote *remote = NULL;
	git_fetch_options fo;
	struct strbuf spec = STRBUF_INIT, ref = STRBUF_INIT;
	char *mirrors = NULL, *spec_s, resolved[PATH_MAX];
	const char *url = n->repository;
	git_strarray specs;
	struct stat st;
	int ret = -1;

	if (!(mirrors = context_subdir(nt->ctx, "mirrors")))
		goto out;
	strbuf_addf(&nt->mirror, "%s/", mirrors);
	add_safe_name(&nt->mirror, n->name);
	strbuf_addstr(&nt->mirror, ".git");
	/* a local path is fetched as itself, wherever the lab runs from */
	if (!stat(url, &st) && realpath(url, resolved))
		url = resolved;
	if (git_repository_open_bare(&repo, nt->mirror.buf) &&
	    git_repository_init(&repo, nt->mirror.buf, 1)) {
		infra(nt, "cannot make mirror '%s': %s", nt->mirror.buf, git_why());
		goto out;
	}
	strbuf_addf(&ref, "refs/heads/%s", n->branch);
	strbuf_addf(&spec, "+%s:%s", ref.buf, ref.buf);
	spec_s = spec.buf;
	specs.strings = &spec_s;
	specs.count = 1;
	git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
	fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	if (git_remote_create_anonymous(&remote, repo, url) ||
	    git_remote_fetch(remote, &specs, &fo, "lab nightly")) {
		infra(nt, "cannot fetch branch '%s' of '%s': %s", n->branch, n->repository,
		      git_why());
		goto out;
	}
	if (git_reference_name_to_id(head, repo, ref.buf)) {
		infra(nt, "no branch '%s' in '%s' after fetching it: %s", n->branch, n->repository,
		      git_why());
		goto out;
	}
	ret = 0;
out:
	git_remote_free(remote);
	git_repository_free(repo);
	free(mirrors);
	strbuf_release(&spec);
	strbuf_release(&ref);
	return ret;
}

/* Queue what the policy takes of the commits new since the last night. */
static int queue(struct night *nt, struct kernel_tree *t, const git_oid *head)
{
	struct strbuf last = STRBUF_INIT;
	struct strvec fresh = STRVEC_INIT;
	git_revwalk *walk = NULL;
	git_oid last_oid, oid;
	size_t i, from, take;
	int ret = -1;

	if (store_nightly_commit_last(&nt->ctx->st, &last, nt->n->name))
		goto out;
	git_oid_tostr(nt->head, sizeof(nt->head), head);
	if (!strcmp(strbuf_str(&last), nt->head)) {
		fprintf(nt->out, "branch %s at %.12s: nothing new since the last night\n",
			nt->n->branch, nt->head);
		ret = 0;
		goto out;
	}
	/*
	 * The first night, and a last commit the branch no longer has (a
	 * rebased branch), start from the head alone.
	 */
	if (last.len && !git_oid_fromstr(&last_oid, last.buf) &&
	    git_graph_descendant_of(t->repo, head, &last_oid) == 1) {
		if (git_revwalk_new(&walk, t->repo) ||
		    git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE) ||
		    git_revwalk_push(walk, head) || git_revwalk_hide(walk, &last_oid)) {
			lab_git_error("cannot walk the new commits");
			goto out;
		}
		git_revwalk_simplify_first_parent(walk);
		while (!git_revwalk_next(&oid, walk)) {
			char hex[GIT_OID_HEXSZ + 1];

			strvec_push(&fresh, git_oid_tostr(hex, sizeof(hex), &oid));
		}
	} else {
		strvec_push(&fresh, nt->head);
	}
	take = nt->n->policy == NIGHTLY_HEAD ? 1 : (size_t)nt->n->max_commits;
	from = fresh.nr > take ? fresh.nr - take : 0;
	fprintf(nt->out, "branch %s at %.12s: %zu new commit%s, %zu to measure\n", nt->n->branch,
		nt->head, fresh.nr, fresh.nr == 1 ? "" : "s", fresh.nr - from);
	for (i = from; i < fresh.nr; i++)
		if (store_nightly_commit_add(&nt->ctx->st, nt->n->name, fresh.v[i], nt->id))
			goto out;
	ret = 0;
out:
	git_revwalk_free(walk);
	strbuf_release(&last);
	strvec_release(&fresh);
	return ret;
}

static int cmp_double(const void *pa, const void *pb)
{
	double x = *(const double *)pa, y = *(const double *)pb;
	return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return stats_quantile(v, n, 0.5);
}

/* The series key: every part that must match for two points to compare. */
static void series_key(struct strbuf *sb, const char *workload, const char *metric,
		       const char *target, long mem, const char *clock, const char *cmdline)
{
	strbuf_addf(sb, "%s.%s %s %ldM %s cmdline='%s'", workload, metric, target, mem, clock,
		    cmdline);
}

/* Samples of one commit at one (mem, cmdline), folded into points as they come. */
struct points {
	struct night *nt;
	const char *commit, *cmdline;
	long mem;
	struct strbuf workload, metric, unit, target, clock;
	long long run;
	double *vals, *medians;
	size_t nvals, nmedians, alloc_vals, alloc_medians;
	int ret;
};

static void points_end_run(struct points *p)
{
	if (!p->nvals)
		return;
	if (p->nmedians == p->alloc_medians) {
		p->alloc_medians = p->alloc_medians ? 2 * p->alloc_medians : 8;
		p->medians = xrealloc(p->medians, p->alloc_medians * sizeof(*p->medians));
	}
	p->medians[p->nmedians++] = median(p->vals, p->nvals);
	p->nvals = 0;
}

static int points_end_series(struct points *p)
{
	struct strbuf key = STRBUF_INIT;
	struct nightly_series s;
	double v;
	int ret;

	points_end_run(p);
	if (!p->nmedians)
		return 0;
	v = median(p->medians, p->nmedians);
	series_key(&key, p->workload.buf, p->metric.buf, p->target.buf, p->mem, p->clock.buf,
		   p->cmdline);
	s = (struct nightly_series){ key.buf, p->workload.buf, p->metric.buf, p->unit.buf,
				     p->target.buf, p->cmdline, p->clock.buf, p->mem };
	ret = store_nightly_point_add(&p->nt->ctx->st, p->nt->n->name, &s, p->commit, v,
				      (long)p->nmedians);
	if (!ret)
		fprintf(p->nt->out, "  %s.%s %ldM: %g %s (%zu boot%s)\n", p->workload.buf,
			p->metric.buf, p->mem, v, p->unit.buf, p->nmedians,
			p->nmedians == 1 ? "" : "s");
	p->nmedians = 0;
	strbuf_release(&key);
	return ret;
}

static int points_sample(const struct nightly_sample *s, void *data)
{
	struct points *p = data;

	if (!p->workload.buf || strcmp(p->workload.buf, s->workload) ||
	    strcmp(p->metric.buf, s->metric) || strcmp(p->unit.buf, s->unit)) {
		if (p->workload.buf && points_end_series(p))
			return -1;
		strbuf_reset(&p->workload);
		strbuf_addstr(&p->workload, s->workload);
		strbuf_reset(&p->metric);
		strbuf_addstr(&p->metric, s->metric);
		strbuf_reset(&p->unit);
		strbuf_addstr(&p->unit, s->unit);
		strbuf_reset(&p->target);
		strbuf_addstr(&p->target, s->target);
		strbuf_reset(&p->clock);
		strbuf_addstr(&p->clock, *s->clock ? s->clock : "wall");
		p->run = s->run_id;
	} else if (s->run_id != p->run) {
		points_end_run(p);
		p->run = s->run_id;
	}
	if (!(s->value > 0))
		return 0;	/* a ratio needs positive values: such a metric has no series */
	if (p->nvals == p->alloc_vals) {
		p->alloc_vals = p->alloc_vals ? 2 * p->alloc_vals : 64;
		p->vals = xrealloc(p->vals, p->alloc_vals * sizeof(*p->vals));
	}
	p->vals[p->nvals++] = s->value;
	return 0;
}

static int store_points(struct night *nt, const char *commit, long mem, const char *cmdline)
{
	struct points p;
	int ret;

	memset(&p, 0, sizeof(p));
	p.nt = nt;
	p.commit = commit;
	p.mem = mem;
	p.cmdline = cmdline;
	ret = store_nightly_samples(&nt->ctx->st, nt->n->name, commit, mem, cmdline,
				    points_sample, &p);
	if (!ret && p.workload.buf)
		ret = points_end_series(&p);
	strbuf_release(&p.workload);
	strbuf_release(&p.metric);
	strbuf_release(&p.unit);
	strbuf_release(&p.target);
	strbuf_release(&p.clock);
	free(p.vals);
	free(p.medians);
	return ret;
}

static void boot_opts_fill(struct boot_opts *o, struct night *nt, const struct strvec *workloads,
			   const char *kernel, const char *cmdline, long mem)
{
	memset(o, 0, sizeof(*o));
	o->kernel = kernel;
	o->cmdline = cmdline;
	o->clock = nt->n->clock;
	o->workloads = workloads;
	o->params = &nt->params;
	o->iters = nt->n->iters;
	o->mem_mib = mem;
}

/*
 * Build commit: 0 with *image, 1 when it does not build (the commit's
 * problem, said), -1 when the lab failed (infrastructure, said).
 */
static int build(struct night *nt, char **image, const char *commit)
{
	struct strvec none = STRVEC_INIT;
	struct build_spec spec = { host_arch(), &none, &none };
	struct kernel_tree t;
	long long kernel_id;
	git_oid oid;
	enum refbuild_outcome r;

	*image = NULL;
	memset(&t, 0, sizeof(t));
	if (git_oid_fromstr(&oid, commit))
		return error("bad commit id '%s'", commit);
	if (kernel_tree_open_for(&t, nt->ctx, nt->mirror.buf)) {
		infra(nt, "cannot open the mirror '%s'", nt->mirror.buf);
		return -1;
	}
	r = refbuild_commit(image, &kernel_id, nt->ctx, &t, &oid, &spec);
	kernel_tree_close(&t);
	if (r == REFBUILD_OK)
		return 0;
	if (r == REFBUILD_FAILED)
		return 1;
	infra(nt, "build of %.12s failed on the lab's side (the build's messages are above)",
	      commit);
	return -1;
}

/*
 * Measure a queued commit: the boots it still lacks at every (mem,
 * cmdline), then its points. 0 done (measured, or not buildable or
 * bootable: recorded), 1 stopped by the infrastructure (it stays queued),
 * -1 error.
 */
static int measure(struct night *nt, const char *commit)
{
	long boots, ok;
	struct strbuf subject = STRBUF_INIT, author = STRBUF_INIT;
	char *image = NULL;
	long ok_all = 0;
	int ret = -1, r;

	r = build(nt, &image, commit);
	if (r >= 0 && store_nightly_commit_info(&nt->ctx->st, &subject, &author, commit))
		goto out;
	fprintf(nt->out, "commit %.12s%s%s%s:\n", commit, subject.len ? " (\"" : "",
		strbuf_str(&subject), subject.len ? "\")" : "");
	if (r < 0) {
		ret = 1;
		goto out;
	}
	if (r > 0) {
		fprintf(nt->out, "  BUILD_FAILED: not a point of any series\n");
		ret = store_nightly_commit_status(&nt->ctx->st, nt->n->name, commit, "BUILD_FAILED",
						  NULL);
		goto out;
	}
	for (size_t m = 0; m < nt->nmems; m++) {
		for (size_t k = 0; k < nt->cmdlines.nr; k++) {
			const char *cmdline = nt->cmdlines.v[k];
			struct boot_plan plan;
			struct boot_opts o;
			long need;

			if (store_nightly_run_count(&nt->ctx->st, &boots, &ok, nt->n->name, commit,
						    nt->mems[m], cmdline))
				goto out;
			need = nt->n->boots - boots;
			if (need > 0) {
				memset(&plan, 0, sizeof(plan));
				boot_opts_fill(&o, nt, &nt->workloads, image, cmdline, nt->mems[m]);
				if (boot_plan_prepare(&plan, nt->ctx, &o)) {
					boot_plan_release(&plan);
					infra(nt, "cannot boot %.12s (the reason is above)", commit);
					ret = 1;
					goto out;
				}
				for (long b = 0; b < need; b++) {
					struct run_result res;
					long long run_id;
					int stop;

					if (boot_plan_run(&plan, nt->ctx, &run_id, &res) ||
					    store_nightly_run_add(&nt->ctx->st, run_id, nt->n->name,
								  commit, nt->mems[m], cmdline)) {
						run_result_release(&res);
						boot_plan_release(&plan);
						goto out;
					}
					fprintf(nt->out, "  boot %ld/%ld, %ldM: run %lld %s\n",
						boots + b + 1, nt->n->boots, nt->mems[m], run_id,
						run_status_name(res.status));
					stop = res.status == RUN_INFRA;
					if (stop)
						infra(nt, "boot of %.12s (run %lld): %s", commit, run_id,
						      strbuf_str(&res.error));
					run_result_release(&res);
					if (stop) {
						boot_plan_release(&plan);
						ret = 1;
						goto out;
					}
				}
				boot_plan_release(&plan);
			}
			if (store_nightly_run_count(&nt->ctx->st, &boots, &ok, nt->n->name, commit,
						    nt->mems[m], cmdline))
				goto out;
			ok_all += ok;
		}
	}
	if (store_begin(&nt->ctx->st))
		goto out;
	for (size_t m = 0; m < nt->nmems; m++)
		for (size_t k = 0; k < nt->cmdlines.nr; k++)
			if (store_points(nt, commit, nt->mems[m], nt->cmdlines.v[k])) {
				store_rollback(&nt->ctx->st);
				goto out;
			}
	if (store_nightly_commit_status(&nt->ctx->st, nt->n->name, commit,
					ok_all ? "MEASURED" : "BOOT_FAILED", image) ||
	    store_commit(&nt->ctx->st)) {
		store_rollback(&nt->ctx->st);
		goto out;
	}
	if (!ok_all)
		fprintf(nt->out, "  BOOT_FAILED: no boot ended OK\n");
	nt->measured += ok_all > 0;
	ret = 0;
out:
	free(image);
	strbuf_release(&subject);
	strbuf_release(&author);
	return ret;
}

/* The commands that name a confirmation and a bisection, to find them again after a kill. */
static void confirm_command(struct strbuf *sb, struct night *nt, const struct nightly_series *s,
			    const struct nightly_change *c)
{
	strbuf_addf(sb, "lab nightly %s: confirm %s %ldM cmdline='%s' %.12s..%.12s", nt->n->name,
		    s->workload, s->mem_mib, s->cmdline, c->before, c->after);
}

static void bisect_command(struct strbuf *sb, struct night *nt, const struct nightly_series *s,
			   const struct nightly_change *c)
{
	strbuf_addf(sb, "lab nightly %s: bisect %s %.12s..%.12s", nt->n->name, s->series,
		    c->before, c->after);
}

/*
 * The confirming A/B: before against after on the same host, interleaved,
 * with lab ab's schedule. 0 with the verdict stored, 1 infrastructure, -1 error.
 */
static int confirm(struct night *nt, const struct nightly_series *s, struct nightly_change *c)
{
	struct strbuf cmd = STRBUF_INIT;
	struct strvec wl = STRVEC_INIT;
	struct verdict_row v;
	char *image[2] = { NULL, NULL };
	long long exp_id = 0;
	long mem = s->mem_mib, cpus = nt->ctx->cfg.cpus;
	int done = 0, found, ret = -1, r;

	confirm_command(&cmd, nt, s, c);
	if (store_experiment_by_command(&nt->ctx->st, &exp_id, &done, cmd.buf))
		goto out;
	if (!done) {
		struct ab_opts o;

		for (int side = 0; side < 2; side++) {
			r = build(nt, &image[side], side ? c->after : c->before);
			if (r) {
				if (r > 0)
					infra(nt, "%.12s built last night and does not now",
					      side ? c->after : c->before);
				ret = 1;
				goto out;
			}
		}
		strvec_push(&wl, s->workload);
		memset(&o, 0, sizeof(o));
		o.v[0] = (struct ab_variant){ image[0], s->cmdline, c->before };
		o.v[1] = (struct ab_variant){ image[1], s->cmdline, c->after };
		boot_opts_fill(&o.boot, nt, &wl, NULL, NULL, 0);
		o.mems = &mem;
		o.nmems = 1;
		o.cpus = &cpus;
		o.ncpus = 1;
		o.max_boots = CONFIRM_MAX_BOOTS;
		o.alpha = 0.05;
		o.delta = 0.02;
		o.resume = exp_id;
		o.command = cmd.buf;
		fprintf(nt->out, "confirming %s: %.12s against %.12s, interleaved\n", s->series,
			c->before, c->after);
		fflush(nt->out);
		r = ab_run(&exp_id, nt->ctx, &o);
		experiment_unlock(nt->ctx);
		if (r == AB_ERROR) {
			infra(nt, "the confirming A/B of %.12s..%.12s stopped (the reason is above)",
			      c->before, c->after);
			ret = 1;
			goto out;
		}
	}
	if (store_verdict_get(&nt->ctx->st, &v, &found, exp_id, s->workload, s->metric, mem, cpus))
		goto out;
	if (!found)
		snprintf(v.verdict, sizeof(v.verdict), "INCONCLUSIVE");
	if (store_nightly_change_confirmed(&nt->ctx->st, c->id, exp_id, v.verdict))
		goto out;
	snprintf(c->verdict, sizeof(c->verdict), "%s", v.verdict);
	c->ab_experiment = exp_id;
	if (found)
		fprintf(nt->out, "  E%lld: %s %+.1f %% [%+.1f, %+.1f]\n", exp_id, v.verdict,
			100 * (v.ratio - 1), 100 * (v.ci_low - 1), 100 * (v.ci_high - 1));
	else
		fprintf(nt->out, "  E%lld: no verdict for %s.%s\n", exp_id, s->workload, s->metric);
	ret = 0;
out:
	free(image[0]);
	free(image[1]);
	strbuf_release(&cmd);
	strvec_release(&wl);
	return ret;
}

/* A confirmed regression, bisected within the budget. 0, 1 infrastructure, -1 error. */
static int bisect(struct night *nt, const struct nightly_series *s, struct nightly_change *c)
{
	struct bisect_spec spec = BISECT_SPEC_INIT;
	struct bisect_outcome out;
	struct strbuf cmd = STRBUF_INIT;
	struct strvec wl = STRVEC_INIT;
	long long id = 0, bid = 0;
	int ret = -1, done;

	bisect_command(&cmd, nt, s, c);
	/* the driver stores its spec with the bisection: a resume needs only its id */
	if (store_experiment_by_command(&nt->ctx->st, &id, &done, cmd.buf)) {
		strbuf_release(&cmd);
		return -1;
	}
	strvec_push(&wl, s->workload);
	spec.good = c->before;
	spec.bad = c->after;
	spec.repo = nt->mirror.buf;
	spec.metric = s->metric;
	boot_opts_fill(&spec.boot, nt, &wl, NULL, s->cmdline, s->mem_mib);
	spec.max_boots = nt->n->bisect_budget;
	spec.resume = id;
	spec.command = cmd.buf;
	fprintf(nt->out, "bisecting %s between %.12s and %.12s\n", s->series, c->before, c->after);
	fflush(nt->out);
	if (bisect_run(nt->ctx, &spec, &bid, &out)) {
		infra(nt, "the bisection of %.12s..%.12s stopped (the reason is above); it resumes "
		      "next night", c->before, c->after);
		ret = 1;
		goto out;
	}
	if (store_nightly_change_bisected(&nt->ctx->st, c->id, bid, out.culprit,
					  bisect_verdict_name(out.verdict)))
		goto out;
	c->bisection = bid;
	snprintf(c->culprit, sizeof(c->culprit), "%s", out.culprit);
	snprintf(c->outcome, sizeof(c->outcome), "%s", bisect_verdict_name(out.verdict));
	if (*out.culprit)
		fprintf(nt->out, "  E%lld: %s, culprit %s\n  subject: %s\n  author: %s\n", bid,
			c->outcome, out.culprit, strbuf_str(&out.subject), strbuf_str(&out.author));
	else
		fprintf(nt->out, "  E%lld: %s, no culprit\n", bid, c->outcome);
	ret = 0;
out:
	bisect_outcome_release(&out);
	strbuf_release(&cmd);
	strvec_release(&wl);
	return ret;
}

struct candidate {
	size_t before, after;
	const char *kind;
	double ratio;
};

/* Change points and a suspect of one series; each new one confirmed, a regression bisected. */
static int analyse(const struct nightly_series *s, void *data)
{
	struct night *nt = data;
	struct changepoint_opts opt = CHANGEPOINT_OPTS_INIT;
	struct changepoint *cps = NULL, sus;
	struct strvec commits = STRVEC_INIT;
	struct strbuf last = STRBUF_INIT, last_refuted = STRBUF_INIT;
	struct candidate *cand = NULL;
	size_t n = 0, ncps = 0, ncand = 0, start = 0, refuted = 0, from, i;
	double *x = NULL;
	int ret = -1, r;

	if (store_nightly_points(&nt->ctx->st, &x, &n, &commits, nt->n->name, s->series) ||
	    store_nightly_change_last(&nt->ctx->st, &last, nt->n->name, s->series, 1) ||
	    store_nightly_change_last(&nt->ctx->st, &last_refuted, nt->n->name, s->series, 0))
		goto out;
	for (i = 0; i < n; i++) {
		if (last.len && !strcmp(commits.v[i], last.buf))
			start = i;
		if (last_refuted.len && !strcmp(commits.v[i], last_refuted.buf))
			refuted = i;
	}
	from = n > NIGHTLY_TAIL && n - NIGHTLY_TAIL > start ? n - NIGHTLY_TAIL : start;
	if (changepoints_find(&cps, &ncps, x + from, n - from, &opt)) {
		error("cannot look for change points in %s: %s", s->series, strerror(errno));
		goto out;
	}
	cand = xcalloc(ncps + 1, sizeof(*cand));
	for (i = 0; i < ncps; i++)
		cand[ncand++] = (struct candidate){ from + cps[i].before, from + cps[i].index,
						    "CHANGEPOINT", cps[i].ratio };
	r = changepoint_suspect(&sus, x, n, start, refuted, &opt);
	if (r < 0) {
		error("cannot look for a step in %s: %s", s->series, strerror(errno));
		goto out;
	}
	if (r)
		cand[ncand++] = (struct candidate){ sus.before, sus.index, "SUSPECT", sus.ratio };
	for (i = 0; i < ncand; i++) {
		struct nightly_change c;
		int found;

		if (cand[i].after <= start)
			continue;
		if (store_nightly_change_get(&nt->ctx->st, &c, &found, nt->n->name, s->series,
					     commits.v[cand[i].after]))
			goto out;
		if (!found) {
			memset(&c, 0, sizeof(c));
			snprintf(c.before, sizeof(c.before), "%s", commits.v[cand[i].before]);
			snprintf(c.after, sizeof(c.after), "%s", commits.v[cand[i].after]);
			snprintf(c.kind, sizeof(c.kind), "%s", cand[i].kind);
			c.ratio = cand[i].ratio;
			if (store_nightly_change_add(&nt->ctx->st, &c, nt->n->name, s->series, nt->id))
				goto out;
			fprintf(nt->out, "%s: %s %.12s..%.12s, %+.1f %% in the series\n", s->series,
				!strcmp(c.kind, "SUSPECT") ? "a step at" : "a change point at", c.before, c.after, 100 * (c.ratio - 1));
		}
		if (!*c.verdict) {
			r = confirm(nt, s, &c);
			if (r) {
				ret = r < 0 ? -1 : 0;
				goto out;
			}
			nt->regressions += !strcmp(c.verdict, "REGRESSION");
			nt->improvements += !strcmp(c.verdict, "IMPROVEMENT");
		}
		if (!strcmp(c.verdict, "REGRESSION") && !*c.outcome) {
			r = bisect(nt, s, &c);
			if (r) {
				ret = r < 0 ? -1 : 0;
				goto out;
			}
		}
		if (!strcmp(c.verdict, "REGRESSION") || !strcmp(c.verdict, "IMPROVEMENT"))
			start = cand[i].after;
	}
	ret = 0;
out:
	free(cps);
	free(cand);
	free(x);
	strvec_release(&commits);
	strbuf_release(&last);
	strbuf_release(&last_refuted);
	return ret;
}

/* The series, copied: analysing one writes to the store the list is read from. */
struct series_copy {
	struct strvec key, workload, metric, unit, target, cmdline, clock;
	long *mem;
	size_t nr;
};

static int copy_series(const struct nightly_series *s, void *data)
{
	struct series_copy *sc = data;

	strvec_push(&sc->key, s->series);
	strvec_push(&sc->workload, s->workload);
	strvec_push(&sc->metric, s->metric);
	strvec_push(&sc->unit, s->unit);
	strvec_push(&sc->target, s->target);
	strvec_push(&sc->cmdline, s->cmdline);
	strvec_push(&sc->clock, s->clock);
	sc->mem = xrealloc(sc->mem, (sc->nr + 1) * sizeof(*sc->mem));
	sc->mem[sc->nr++] = s->mem_mib;
	return 0;
}

static void series_copy_release(struct series_copy *sc)
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

static struct nightly_series series_at(const struct series_copy *sc, size_t i)
{
	return (struct nightly_series){ sc->key.v[i], sc->workload.v[i], sc->metric.v[i],
					sc->unit.v[i], sc->target.v[i], sc->cmdline.v[i],
					sc->clock.v[i], sc->mem[i] };
}

/* What the notifications carry, gathered before anything is sent. */
struct outbox {
	struct night *nt;
	const struct series_copy *sc;
	struct strbuf mail, subject;
	FILE *json;
	char *json_buf;
	size_t json_len;
	long long *ids;
	size_t nids, nreg, nimp;
};

static void json_str(FILE *f, const char *key, const char *value)
{
	fprintf(f, ",\"%s\":", key);
	escape_json(f, value);
}

static int outbox_add(const struct nightly_change *c, const char *series, void *data)
{
	struct outbox *ob = data;
	struct night *nt = ob->nt;
	struct strbuf subject = STRBUF_INIT, author = STRBUF_INIT;
	const struct lab_nightly *n = nt->n;
	const char *base = n->base_url && *n->base_url ? n->base_url : NULL;
	struct nightly_series s = { series, "", "", "", "", "", "", 0 };
	int reg = !strcmp(c->verdict, "REGRESSION");

	for (size_t i = 0; i < ob->sc->nr; i++)
		if (!strcmp(ob->sc->key.v[i], series))
			s = series_at(ob->sc, i);
	if (*c->culprit && store_nightly_commit_info(&nt->ctx->st, &subject, &author, c->culprit))
		return -1;
	ob->ids = xrealloc(ob->ids, (ob->nids + 1) * sizeof(*ob->ids));
	ob->ids[ob->nids++] = c->id;
	fprintf(ob->json, "%s{\"series\":", ob->nids > 1 ? "," : "");
	escape_json(ob->json, series);
	json_str(ob->json, "workload", s.workload);
	json_str(ob->json, "metric", s.metric);
	fprintf(ob->json, ",\"mem_mib\":%ld", s.mem_mib);
	json_str(ob->json, "cmdline", s.cmdline);
	json_str(ob->json, "clock", s.clock);
	json_str(ob->json, "verdict", c->verdict);
	json_str(ob->json, "before", c->before);
	json_str(ob->json, "after", c->after);
	fprintf(ob->json, ",\"ab_experiment\":%lld", c->ab_experiment);
	if (c->bisection)
		fprintf(ob->json, ",\"bisection\":%lld", c->bisection);
	if (*c->outcome)
		json_str(ob->json, "outcome", c->outcome);
	if (*c->culprit) {
		json_str(ob->json, "culprit", c->culprit);
		json_str(ob->json, "subject", strbuf_str(&subject));
		json_str(ob->json, "author", strbuf_str(&author));
	}
	if (base) {
		struct strbuf url = STRBUF_INIT;

		strbuf_addf(&url, "%s/e%lld.html", base, c->ab_experiment);
		json_str(ob->json, "ab_url", url.buf);
		if (c->bisection) {
			strbuf_reset(&url);
			strbuf_addf(&url, "%s/b%lld.html", base, c->bisection);
			json_str(ob->json, "bisection_url", url.buf);
		}
		strbuf_release(&url);
	}
	fputc('}', ob->json);

	ob->nimp += !reg;
	if (reg) {
		char *table = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&table, &len);

		ob->nreg++;
		if (!ob->subject.len) {
			strbuf_addf(&ob->subject, "[lab nightly %s] REGRESSION in %s.%s", n->name,
				    s.workload, s.metric);
			if (*c->culprit)
				strbuf_addf(&ob->subject, ": %.12s (\"%s\")", c->culprit,
					    strbuf_str(&subject));
		}
		strbuf_addf(&ob->mail, "%s.%s (%s, %ldM, %s, cmdline '%s') got worse between %.12s and "
			    "%.12s.\nConfirmed by an interleaved A/B of the two commits on one host "
			    "(E%lld):\n\n", s.workload, s.metric, s.target, s.mem_mib, s.clock,
			    s.cmdline, c->before, c->after, c->ab_experiment);
		if (f) {
			ab_report(f, &nt->ctx->st, c->ab_experiment, AB_TEXT);
			fclose(f);
			strbuf_addstr(&ob->mail, table ? table : "");
			free(table);
		}
		if (*c->culprit)
			strbuf_addf(&ob->mail, "\nculprit: %s\nsubject: %s\nauthor: %s\nbisection: E%lld, "
				    "%s\n", c->culprit, strbuf_str(&subject), strbuf_str(&author),
				    c->bisection, c->outcome);
		else if (c->bisection)
			strbuf_addf(&ob->mail, "\nbisection: E%lld, %s: no single culprit\n",
				    c->bisection, c->outcome);
		if (base) {
			strbuf_addf(&ob->mail, "\nA/B: %s/e%lld.html\n", base, c->ab_experiment);
			if (c->bisection)
				strbuf_addf(&ob->mail, "bisection: %s/b%lld.html\n", base, c->bisection);
		}
		strbuf_addstr(&ob->mail, "\n");
	}
	strbuf_release(&subject);
	strbuf_release(&author);
	return 0;
}

/*
 * One mail for the confirmed regressions not yet told, one POST for every
 * confirmed change not yet told (this night's, and those a killed or failed
 * night left); each is marked once every configured channel took it.
 */
static int notify(struct night *nt, const struct series_copy *sc)
{
	const struct lab_nightly *n = nt->n;
	struct notify_creds creds;
	struct outbox ob;
	int ret = -1, failed = 0;

	memset(&ob, 0, sizeof(ob));
	ob.nt = nt;
	ob.sc = sc;
	notify_creds_init(&creds);
	ob.json = open_memstream(&ob.json_buf, &ob.json_len);
	if (!ob.json) {
		error("out of memory");
		goto out;
	}
	fprintf(ob.json, "{\"nightly\":");
	escape_json(ob.json, n->name);
	json_str(ob.json, "repository", n->repository);
	json_str(ob.json, "branch", n->branch);
	json_str(ob.json, "head", nt->head);
	fprintf(ob.json, ",\"night\":%lld,\"changes\":[", nt->id);
	if (store_nightly_changes_unnotified(&nt->ctx->st, n->name, outbox_add, &ob))
		goto out;
	fprintf(ob.json, "]}");
	fclose(ob.json);
	ob.json = NULL;
	if (!ob.nids) {
		ret = 0;
		goto out;
	}
	if ((n->webhook || (ob.nreg && n->mail_to)) && notify_creds_read(&creds, n->credentials)) {
		infra(nt, "notifications not sent: the credentials file was refused");
		ret = 0;
		goto out;
	}
	if (ob.nreg && n->mail_to) {
		strbuf_addf(&ob.mail, "-- \nlab nightly %s, night %lld: branch %s of %s at %.12s\n",
			    n->name, nt->id, n->branch, n->repository, nt->head);
		if (notify_mail(n, &creds, ob.subject.buf, ob.mail.buf)) {
			infra(nt, "the regression mail to %s was not sent", n->mail_to);
			failed = 1;
		} else {
			fprintf(nt->out, "mail: sent to %s\n", n->mail_to);
		}
	}
	if (n->webhook) {
		if (notify_webhook(n, &creds, ob.json_buf)) {
			infra(nt, "the webhook POST was not sent");
			failed = 1;
		} else {
			fprintf(nt->out, "webhook: posted %zu change%s\n", ob.nids,
				ob.nids == 1 ? "" : "s");
		}
	}
	for (size_t i = 0; !failed && i < ob.nids; i++)
		if (store_nightly_change_notified(&nt->ctx->st, ob.ids[i]))
			goto out;
	ret = 0;
out:
	if (ob.json)
		fclose(ob.json);
	free(ob.json_buf);
	free(ob.ids);
	strbuf_release(&ob.mail);
	strbuf_release(&ob.subject);
	notify_creds_release(&creds);
	return ret;
}

static int prepare(struct night *nt)
{
	const struct lab_nightly *n = nt->n;

	if (!n->repository)
		return error("nightly '%s' has no repository (nightly.%s.repository in %s)", n->name,
			     n->name, nt->ctx->cfg.path ? nt->ctx->cfg.path : "lab.conf");
	if (workloads_parse(&nt->workloads, n->workloads))
		return -1;
	if (n->nmems) {
		nt->mems = xcalloc(n->nmems, sizeof(*nt->mems));
		memcpy(nt->mems, n->mems, n->nmems * sizeof(*nt->mems));
		nt->nmems = n->nmems;
	} else {
		nt->mems = xcalloc(1, sizeof(*nt->mems));
		nt->mems[0] = nt->ctx->cfg.mem_mib;
		nt->nmems = 1;
	}
	for (size_t i = 0; i < n->ncmdlines; i++)
		strvec_push(&nt->cmdlines, n->cmdlines[i]);
	if (!nt->cmdlines.nr)
		strvec_push(&nt->cmdlines, "");
	if ((n->mail_to && !n->smtp) || (!n->mail_to && n->smtp))
		return error("nightly '%s' needs both mailTo and smtp to mail", n->name);
	return 0;
}

enum nightly_status nightly_run(struct lab_context *ctx, const struct lab_nightly *n, FILE *out)
{
	struct night nt;
	struct series_copy sc;
	struct strvec pending = STRVEC_INIT;
	struct strbuf summary = STRBUF_INIT;
	struct kernel_tree t;
	enum nightly_status ret = NIGHTLY_ERROR;
	const char *status;
	int lock_fd = -1, interrupted = 0, git = 0, r;
	git_oid head;

	memset(&nt, 0, sizeof(nt));
	memset(&sc, 0, sizeof(sc));
	memset(&t, 0, sizeof(t));
	nt.ctx = ctx;
	nt.n = n;
	nt.out = out;
	if (prepare(&nt) || (!ctx->st.db && context_open_store(ctx)))
		goto out;
	r = nightly_lock(&lock_fd, ctx, n->name);
	if (r) {
		ret = r > 0 ? NIGHTLY_BUSY : NIGHTLY_ERROR;
		goto out;
	}
	if (lab_git_init())
		goto out;
	git = 1;
	if (store_nightly_night_begin(&ctx->st, &nt.id, &interrupted, n->name))
		goto out;
	fprintf(out, "nightly %s: night %lld, branch %s of %s\n", n->name, nt.id, n->branch,
		n->repository);
	if (interrupted)
		fprintf(out, "resuming what an interrupted night left\n");

	if (!fetch(&nt, &head)) {
		if (kernel_tree_open_for(&t, ctx, nt.mirror.buf)) {
			infra(&nt, "cannot open the mirror '%s'", nt.mirror.buf);
		} else {
			r = queue(&nt, &t, &head);
			kernel_tree_close(&t);
			if (r)
				goto end;
		}
	}
	/* what is queued is measured even when the fetch failed: last night's leftovers */
	if (nt.mirror.len && store_nightly_commits_pending(&ctx->st, &pending, n->name))
		goto end;
	for (size_t i = 0; i < pending.nr; i++) {
		r = measure(&nt, pending.v[i]);
		if (r < 0)
			goto end;
		if (r > 0)
			break;
	}
	if (store_nightly_series_each(&ctx->st, n->name, copy_series, &sc))
		goto end;
	for (size_t i = 0; i < sc.nr; i++) {
		struct nightly_series s = series_at(&sc, i);

		if (analyse(&s, &nt))
			goto end;
	}
	if (notify(&nt, &sc))
		goto end;
	ret = nt.regressions ? NIGHTLY_REGRESSION : nt.infra.nr ? NIGHTLY_ERROR : NIGHTLY_OK;
end:
	status = ret == NIGHTLY_REGRESSION ? "REGRESSION" : nt.infra.nr ? "INFRA" :
		 ret == NIGHTLY_OK ? "OK" : "FAILED";
	strbuf_addf(&summary, "nightly %s, night %lld: %d commit%s measured, %d regression%s, "
		    "%d improvement%s, %zu infrastructure failure%s", n->name, nt.id, nt.measured,
		    nt.measured == 1 ? "" : "s", nt.regressions, nt.regressions == 1 ? "" : "s",
		    nt.improvements, nt.improvements == 1 ? "" : "s", nt.infra.nr,
		    nt.infra.nr == 1 ? "" : "s");
	for (size_t i = 0; i < nt.infra.nr; i++)
		strbuf_addf(&summary, "\ninfrastructure: %s", nt.infra.v[i]);
	fprintf(out, "%s\n", summary.buf);
	if (nt.id && store_nightly_night_end(&ctx->st, nt.id, status, *nt.head ? nt.head : NULL,
					     summary.buf))
		ret = NIGHTLY_ERROR;
	if (ret == NIGHTLY_OK && nt.infra.nr)
		ret = NIGHTLY_ERROR;
out:
	if (git)
		lab_git_shutdown();
	if (lock_fd >= 0)
		close(lock_fd);
	series_copy_release(&sc);
	strvec_release(&pending);
	strvec_release(&nt.workloads);
	strvec_release(&nt.params);
	strvec_release(&nt.cmdlines);
	strvec_release(&nt.infra);
	strbuf_release(&nt.mirror);
	strbuf_release(&summary);
	free(nt.mems);
	return ret;
}
