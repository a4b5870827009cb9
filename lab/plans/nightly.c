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
#include "array.h"
#include "bisect-run.h"
#include "boot.h"
#include "changepoint.h"
#include "gitutil.h"
#include "host.h"
#include "lock.h"
#include "log.h"
#include "nightly.h"
#include "nightly-changes.h"
#include "nightly-night.h"
#include "nightly-notify.h"
#include "say.h"
#include "workload.h"
#include "notify.h"
#include "redact.h"
#include "refbuild.h"
#include "site.h"
#include "stats.h"
#include "store-bisect.h"
#include "store-experiment.h"
#include "store-nightly.h"
#include "store-verdict.h"
#include "strbuf.h"
#include "strvec.h"
#include "tempfile.h"
#include "textfmt.h"
#include "xalloc.h"

/* Names become file names: anything but [A-Za-z0-9._-] is '_'. */
static void add_safe_name(struct strbuf *sb, const char *name)
{
	for (; *name; name++)
		strbuf_addch(sb, strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					"0123456789._-", *name) ? *name : '_');
}

static int count_resumed(const struct nightly_change *c, const char *series, void *data)
{
	(void)series;
	night_count(data, c->id, c->verdict);
	return 0;
}

/*
 * One lab per nightly: 1 when another lab holds the lock (said so), 0 with
 * *fd locked, -1 on error.
 */
static int nightly_lock(int *fd, struct lab_context *ctx, const char *name)
{
	struct strbuf path = STRBUF_INIT;
	long holder;
	int r;

	strbuf_addf(&path, "%s.nightly-", ctx->cfg.db);
	add_safe_name(&path, name);
	strbuf_addstr(&path, ".lock");
	r = lock_try(path.buf, fd, &holder);
	if (r > 0 && holder)
		error("nightly '%s' is being run by another lab (pid %ld): not starting a second",
		      name, holder);
	else if (r > 0)
		error("nightly '%s' is being run by another lab: not starting a second", name);
	strbuf_release(&path);
	return r;
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
		night_infra(nt, "cannot make mirror '%s': %s", nt->mirror.buf, lab_git_message("unknown error"));
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
		night_infra(nt, "cannot fetch branch '%s' of '%s': %s", n->branch, n->repository,
		      lab_git_message("unknown error"));
		goto out;
	}
	if (git_reference_name_to_id(head, repo, ref.buf)) {
		night_infra(nt, "no branch '%s' in '%s' after fetching it: %s", n->branch, n->repository,
		      lab_git_message("unknown error"));
		goto out;
	}
	ret = 0;
out:
	git_remote_free(remote);
	git_repository_free(repo);
	free(mirrors);
	strbuf_release_all(&spec, &ref);
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
		say_to(nt->out, "branch %s at %.12s: nothing new since the last night",
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
	say_to(nt->out, "branch %s at %.12s: %zu new commit%s, %zu to measure",
		nt->n->branch,
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
	double *vals;		/* the series' samples, boot after boot */
	size_t *len;		/* of each boot with one */
	size_t nvals, nboots, run_start, alloc_vals, alloc_boots;
	int ret;
};

static void points_end_run(struct points *p)
{
	if (p->nvals == p->run_start)
		return;
	ALLOC_GROW(p->len, p->nboots + 1, p->alloc_boots);
	p->len[p->nboots++] = p->nvals - p->run_start;
	p->run_start = p->nvals;
}

static int points_end_series(struct points *p)
{
	struct strbuf key = STRBUF_INIT;
	struct nightly_series s;
	double v;
	int ret;

	points_end_run(p);
	if (!p->nboots)
		return 0;
	/* a night's point: the median of its boots' medians */
	if (stats_boot_median(&v, p->vals, p->len, p->nboots))
		return error("cannot take the median of %zu boots", p->nboots);
	series_key(&key, p->workload.buf, p->metric.buf, p->target.buf, p->mem, p->clock.buf,
		   p->cmdline);
	s = (struct nightly_series){ key.buf, p->workload.buf, p->metric.buf, p->unit.buf,
				     p->target.buf, p->cmdline, p->clock.buf, p->mem };
	ret = store_nightly_point_add(&p->nt->ctx->st, p->nt->n->name, &s, p->commit, v,
				      (long)p->nboots);
	if (!ret) {
		char point[64];

		textfmt_quantity(point, sizeof(point), v, p->unit.buf, v);
		say_to(p->nt->out, "  %s.%s %ldM: %s (%zu boot%s)", p->workload.buf,
		       p->metric.buf, p->mem, point, p->nboots, p->nboots == 1 ? "" : "s");
	}
	p->nvals = p->run_start = p->nboots = 0;
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
	ALLOC_GROW(p->vals, p->nvals + 1, p->alloc_vals);
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
	strbuf_release_all(&p.workload, &p.metric, &p.unit, &p.target, &p.clock);
	free(p.vals);
	free(p.len);
	return ret;
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
	struct kernel_image image;
	long ok_all = 0;
	int ret = -1, r;

	kernel_image_init(&image);
	r = night_build(nt, &image, commit);
	if (r >= 0 && store_nightly_commit_info(&nt->ctx->st, &subject, &author, commit))
		goto out;
	say_to(nt->out, "commit %.12s%s%s%s:", commit, subject.len ? " (\"" : "",
		strbuf_str(&subject), subject.len ? "\")" : "");
	if (r < 0) {
		ret = 1;
		goto out;
	}
	if (r > 0) {
		say_to(nt->out, "  BUILD_FAILED: not a point of any series");
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
				night_boot_opts(&o, nt, &nt->workloads, &image, cmdline, nt->mems[m]);
				if (boot_plan_prepare(&plan, nt->ctx, &o)) {
					boot_plan_release(&plan);
					night_infra(nt, "cannot boot %.12s (the reason is above)", commit);
					ret = 1;
					goto out;
				}
				for (long b = 0; b < need; b++) {
					struct run_result res;
					long long run_id;
					int stop;

					if (fatal_signal_pending()) {
						boot_plan_release(&plan);
						ret = 1;
						goto out;
					}
					if (boot_plan_run(&plan, nt->ctx, &run_id, &res) ||
					    store_nightly_run_add(&nt->ctx->st, run_id, nt->n->name,
								  commit, nt->mems[m], cmdline)) {
						run_result_release(&res);
						boot_plan_release(&plan);
						goto out;
					}
					say_to(nt->out, "  boot %ld/%ld, %ldM: run %lld %s",
						boots + b + 1, nt->n->boots, nt->mems[m], run_id,
						run_status_name(res.status));
					stop = res.status == RUN_INFRA;
					if (stop)
						night_infra(nt, "boot of %.12s (run %lld): %s", commit, run_id,
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
					ok_all ? "MEASURED" : "BOOT_FAILED", image.path) ||
	    store_commit(&nt->ctx->st)) {
		store_rollback(&nt->ctx->st);
		goto out;
	}
	if (!ok_all)
		say_to(nt->out, "  BOOT_FAILED: no boot ended OK");
	nt->measured += ok_all > 0;
	ret = 0;
out:
	kernel_image_release(&image);
	strbuf_release_all(&subject, &author);
	return ret;
}

static int prepare(struct night *nt)
{
	const struct lab_nightly *n = nt->n;

	if (!n->repository)
		return error("nightly '%s' has no repository (nightly.%s.repository in %s)", n->name,
			     n->name, nt->ctx->cfg.path ? nt->ctx->cfg.path : "lab.conf");
	if (workloads_parse(&nt->workloads, n->workloads) ||
	    workloads_resolve(&nt->workloads, NULL, NULL, 0, nt->ctx->cfg.workloads,
			      nt->ctx->cfg.nworkloads))
		return -1;
	if (n->mem) {
		/* lab.conf's reader checked the list */
		if (parse_list(&nt->mems, &nt->nmems, n->mem, parse_size_mib))
			return error("bad nightly.%s.mem in lab.conf", n->name);
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
	/*
	 * Read now, not on the night a regression needs it: a file missing,
	 * open to others or unreadable is found before anything boots.
	 */
	if (n->credentials) {
		struct notify_creds creds;
		int r;

		notify_creds_init(&creds);
		r = notify_creds_read(&creds, n->credentials);
		notify_creds_release(&creds);
		if (r)
			return -1;
	}
	return 0;
}

enum nightly_status nightly_run(struct lab_context *ctx, const struct lab_nightly *n,
				const char *command, FILE *out)
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
	boot_guests_init(&nt.guests);
	memset(&sc, 0, sizeof(sc));
	memset(&t, 0, sizeof(t));
	nt.ctx = ctx;
	nt.n = n;
	nt.command = command;
	nt.out = out;
	if (prepare(&nt) || (context_need_store(ctx)))
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
	say_to(out, "nightly %s: night %lld, branch %s of %s", n->name, nt.id,
		n->branch, url_redacted(n->repository));
	if (interrupted)
		say_to(out, "resuming what an interrupted night left");

	if (!fetch(&nt, &head)) {
		if (kernel_tree_open_for(&t, ctx, nt.mirror.buf)) {
			night_infra(&nt, "cannot open the mirror '%s'", nt.mirror.buf);
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
		/* a commit measured whole (0) is not pending any more: the next one is */
		size_t next;

		r = measure(&nt, pending.v[i]);
		next = i + !r;
		if (fatal_signal_pending() && next + 1 < pending.nr)
			night_stopped(&nt, "measures %.12s and the %zu commit%s queued after it",
				      pending.v[next], pending.nr - next - 1,
				      pending.nr - next == 2 ? "" : "s");
		else if (fatal_signal_pending() && next < pending.nr)
			night_stopped(&nt, "measures %.12s", pending.v[next]);
		if (r < 0 || fatal_signal_pending())
			goto end;
		if (r > 0)
			break;
	}
	if (store_nightly_series_each(&ctx->st, n->name, series_copy_add, &sc))
		goto end;
	for (size_t i = 0; i < sc.nr && !fatal_signal_pending(); i++) {
		struct nightly_series s = series_at(&sc, i);

		if (night_analyse(&s, &nt))
			goto end;
	}
	/* what a stop left undone is the next night's: nothing is told before it */
	if (fatal_signal_pending())
		goto end;
	/* a killed or stopped night never said what it found: this one, which resumes it, does */
	if (store_nightly_changes_resumed(&ctx->st, n->name, nt.id, count_resumed, &nt))
		goto end;
	if (night_notify(&nt, &sc))
		goto end;
	ret = nt.regressions ? NIGHTLY_REGRESSION : nt.infra.nr ? NIGHTLY_ERROR : NIGHTLY_OK;
end:
	status = fatal_signal_pending() ? "INTERRUPTED" :
		 ret == NIGHTLY_REGRESSION ? "REGRESSION" : nt.infra.nr ? "INFRA" :
		 ret == NIGHTLY_OK ? "OK" : "FAILED";
	strbuf_addf(&summary, "nightly %s, night %lld: %d commit%s measured, %d regression%s, "
		    "%d improvement%s, %zu infrastructure failure%s", n->name, nt.id, nt.measured,
		    nt.measured == 1 ? "" : "s", nt.regressions, nt.regressions == 1 ? "" : "s",
		    nt.improvements, nt.improvements == 1 ? "" : "s", nt.infra.nr,
		    nt.infra.nr == 1 ? "" : "s");
	for (size_t i = 0; i < nt.infra.nr; i++)
		strbuf_addf(&summary, "\ninfrastructure: %s", nt.infra.v[i]);
	if (fatal_signal_pending())
		strbuf_addf(&summary, "\ninterrupted: the next lab nightly %s",
			    nt.next.len ? nt.next.buf : "starts where this one stopped");
	/* the voice makes it safe for a terminal: the stored summary keeps its words */
	say_to(out, "%s", summary.buf);
	if (nt.id && store_nightly_night_end(&ctx->st, nt.id, status, *nt.head ? nt.head : NULL,
					     summary.buf))
		ret = NIGHTLY_ERROR;
	if (ret == NIGHTLY_OK && nt.infra.nr)
		ret = NIGHTLY_ERROR;
	/* the night's A/Bs and bisection are browsable the morning after */
	if (nt.id && !fatal_signal_pending()) {
		struct report_stats rs;
		struct strbuf site = STRBUF_INIT;

		if (site_write(ctx, NULL, &rs, &site))
			ret = NIGHTLY_ERROR;
		else
			say_to(out, "report: %s/index.html", site.buf);
		strbuf_release(&site);
	}
out:
	if (git)
		lab_git_shutdown();
	if (lock_fd >= 0)
		close(lock_fd);
	series_copy_release(&sc);
	strvec_release(&pending);
	workload_list_release(&nt.workloads);
	strvec_release(&nt.params);
	strvec_release(&nt.cmdlines);
	strvec_release(&nt.infra);
	boot_guests_release(&nt.guests);
	strbuf_release_all(&nt.mirror, &nt.next, &summary);
	free(nt.mems);
	free(nt.counted);
	return ret;
}
