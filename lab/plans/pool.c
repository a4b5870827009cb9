#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "pool.h"
#include "progress.h"
#include "say.h"
#include "tempfile.h"
#include "xalloc.h"

int pool_init(struct pool *p, const struct lab_config *cfg, const char *class, long mem_mib,
	      long cpus)
{
	const struct lab_target **all;
	size_t n;

	memset(p, 0, sizeof(*p));
	if (config_target_class(cfg, class, &all, &n))
		return -1;
	p->t = xreallocarray(NULL, n, sizeof(*p->t));
	for (size_t i = 0; i < n; i++) {
		if (target_fits(all[i], mem_mib, cpus)) {
			say("target '%s' left out of class '%s' for this guest",
				all[i]->name, class);
			continue;
		}
		memset(&p->t[p->n], 0, sizeof(p->t[p->n]));
		p->t[p->n].t = all[i];
		p->t[p->n].pid = -1;
		p->t[p->n].cmd_fd = -1;
		p->t[p->n].res_fd = -1;
		p->n++;
	}
	free(all);
	p->class = xstrdup(class);
	if (!p->n)
		return error("no target of class '%s' takes a guest of %ldM and %ld CPUs", class,
			     mem_mib, cpus);
	return 0;
}

/* What a worker says after each boot; status -1: it could not store it. */
struct answer {
	int side, status;
	long long run_id;
	double wall_s;
	char error[256];
};

/* The worker's life: boot what is asked, store it, answer; end at EOF. */
__attribute__((noreturn))
static void worker(struct pool_target *pt, struct lab_context *ctx, const char *db, int cmd_fd,
		   int res_fd, pid_t lab)
{
	struct lab_context w = *ctx;
	unsigned char side;
	int code = 0;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != lab)
		_exit(1);
	if (store_open(&w.st, db))
		_exit(1);
	while (read(cmd_fd, &side, 1) == 1) {
		struct answer a;
		struct run_result res;

		memset(&a, 0, sizeof(a));
		a.side = side;
		if (side >= pt->nplans || boot_plan_run(&pt->plan[side], &w, &a.run_id, &res)) {
			a.status = -1;
		} else {
			a.status = (int)res.status;
			a.wall_s = res.wall_s;
			snprintf(a.error, sizeof(a.error), "%s", strbuf_str(&res.error));
		}
		if (side < pt->nplans)
			run_result_release(&res);
		if (write(res_fd, &a, sizeof(a)) != (ssize_t)sizeof(a) || a.status < 0) {
			code = 1;
			break;
		}
	}
	store_close(&w.st);
	/* not exit(): the lab's temp files and handlers are the lab's */
	_exit(code);
}

static int start_worker(struct pool *p, size_t i, struct lab_context *ctx, const char *db)
{
	struct pool_target *pt = &p->t[i];
	int cmd[2], res[2];
	pid_t lab = getpid();

	if (pipe2(cmd, O_CLOEXEC))
		return error("cannot create pipe for target '%s': %s", pt->t->name, strerror(errno));
	if (pipe2(res, O_CLOEXEC)) {
		close(cmd[0]);
		close(cmd[1]);
		return error("cannot create pipe for target '%s': %s", pt->t->name, strerror(errno));
	}
	fflush(stdout);
	fflush(stderr);
	pt->pid = fork();
	if (pt->pid == 0) {
		close(cmd[1]);
		close(res[0]);
		/* the other workers' pipes: each must see EOF when the lab closes its end */
		for (size_t j = 0; j < i; j++) {
			close(p->t[j].cmd_fd);
			close(p->t[j].res_fd);
		}
		worker(pt, ctx, db, cmd[0], res[1], lab);
	}
	close(cmd[0]);
	close(res[1]);
	if (pt->pid < 0) {
		close(cmd[1]);
		close(res[0]);
		return error("cannot start the worker of target '%s': %s", pt->t->name,
			     strerror(errno));
	}
	pt->cmd_fd = cmd[1];
	pt->res_fd = res[0];
	return 0;
}

int pool_start(struct pool *p, struct lab_context *ctx, const struct boot_opts *opts,
	       int nsides)
{
	char *db;
	int ret = -1;

	for (size_t i = 0; i < p->n; i++) {
		for (int s = 0; s < nsides && !p->t[i].out; s++) {
			struct boot_opts o = opts[s];
			int rc;

			o.target = p->t[i].t->name;
			o.targets = NULL;
			if (!o.guests)
				o.guests = &p->guests;
			rc = boot_plan_prepare(&p->t[i].plan[s], ctx, &o);
			/* released even when it failed half-way: it may hold an initramfs */
			p->t[i].nplans++;
			/* a host out of service or unreachable: the others boot without it */
			if (rc)
				p->t[i].out = 1;
		}
	}
	if (!pool_live(p))
		return error("no target of class '%s' can boot", p->class);
	for (size_t i = 0; i < p->n; i++)
		if (p->t[i].out)
			say("target '%s' left out of the pool: it cannot boot (above); the "
			    "others of class '%s' go on", p->t[i].t->name, p->class);
	/* the workers open their own connection: none may be open across fork() */
	db = xstrdup(ctx->st.path);
	store_close(&ctx->st);
	for (size_t i = 0; i < p->n; i++)
		if (!p->t[i].out && start_worker(p, i, ctx, db))
			goto out;
	ret = 0;
out:
	if (store_open(&ctx->st, db))
		ret = -1;
	free(db);
	return ret;
}

int pool_boot(struct pool *p, size_t i, int side)
{
	unsigned char c = (unsigned char)side;
	struct pool_target *pt = &p->t[i];

	if (write(pt->cmd_fd, &c, 1) != 1)
		return error("cannot reach the worker of target '%s': %s", pt->t->name,
			     strerror(errno));
	pt->busy = 1;
	pt->side = side;
	return 0;
}

size_t pool_busy(const struct pool *p)
{
	size_t n = 0;
	for (size_t i = 0; i < p->n; i++)
		n += p->t[i].busy;
	return n;
}

size_t pool_live(const struct pool *p)
{
	size_t n = 0;
	for (size_t i = 0; i < p->n; i++)
		n += !p->t[i].out;
	return n;
}

static int read_answer(struct pool *p, size_t i, struct pool_done *d, int *taken_out)
{
	struct pool_target *pt = &p->t[i];
	struct answer a;
	ssize_t got;

	do
		got = read(pt->res_fd, &a, sizeof(a));
	while (got < 0 && errno == EINTR);
	pt->busy = 0;
	if (got != (ssize_t)sizeof(a))
		return error("the worker of target '%s' died during a boot", pt->t->name);
	if (a.status < 0)
		return error("the worker of target '%s' could not store its boot", pt->t->name);
	memset(d, 0, sizeof(*d));
	d->target = i;
	d->side = a.side;
	d->run_id = a.run_id;
	d->status = (enum run_status)a.status;
	d->wall_s = a.wall_s;
	memcpy(d->error, a.error, sizeof(d->error));
	d->error[sizeof(d->error) - 1] = '\0';
	if (d->status == RUN_OK) {
		pt->ok[a.side]++;
		pt->infra_row = 0;
	} else if (d->status == RUN_INFRA && ++pt->infra_row >= POOL_MAX_INFRA) {
		pt->out = 1;
		*taken_out = 1;
		say("target '%s' taken out of the pool: %d INFRA boots in a row, "
		    "the last 'lab show %lld': %s", pt->t->name, POOL_MAX_INFRA,
		    d->run_id, d->error);
	}
	return 0;
}

int pool_wait(struct pool *p, struct pool_done *d, int *taken_out)
{
	struct pollfd *fds = xreallocarray(NULL, p->n + 1, sizeof(*fds));
	size_t *which = xreallocarray(NULL, p->n + 1, sizeof(*which));
	size_t n = 0;
	int ret = -1;

	*taken_out = 0;
	for (size_t i = 0; i < p->n; i++) {
		if (!p->t[i].busy)
			continue;
		fds[n].fd = p->t[i].res_fd;
		fds[n].events = POLLIN;
		which[n++] = i;
	}
	if (!n) {
		error("no boot is running on the targets of class '%s'", p->class);
		goto out;
	}
	for (;;) {
		if (poll(fds, n, -1) < 0) {
			/* a signal the command defers: it stops, pool_release() ends the boots */
			if (errno == EINTR && fatal_signal_pending())
				goto out;
			if (errno == EINTR)
				continue;
			error("cannot wait for the targets of class '%s': %s", p->class,
			      strerror(errno));
			goto out;
		}
		for (size_t k = 0; k < n; k++)
			if (fds[k].revents) {
				ret = read_answer(p, which[k], d, taken_out);
				goto out;
			}
	}
out:
	free(fds);
	free(which);
	return ret;
}

void pool_release(struct pool *p)
{
	for (size_t i = 0; i < p->n; i++) {
		struct pool_target *pt = &p->t[i];

		if (pt->cmd_fd >= 0)
			close(pt->cmd_fd);
		/* a boot still running was not asked for any more: its run ends INFRA */
		if (pt->pid > 0 && pt->busy)
			kill(pt->pid, SIGTERM);
		if (pt->pid > 0)
			while (waitpid(pt->pid, NULL, 0) < 0 && errno == EINTR)
				;
		if (pt->res_fd >= 0)
			close(pt->res_fd);
		for (int s = 0; s < pt->nplans; s++)
			boot_plan_release(&pt->plan[s]);
	}
	boot_guests_release(&p->guests);
	free(p->t);
	free(p->class);
	memset(p, 0, sizeof(*p));
}

int pool_run_boots(struct lab_context *ctx, const struct boot_opts *o, long boots,
		   long long *run_ids, long *bad_boots)
{
	struct pool pool;
	long started = 0, done = 0;
	int ret = -1;

	if (boot_opts_check_targets(o, &ctx->cfg) ||
	    pool_init(&pool, &ctx->cfg, o->targets, o->mem_mib ? o->mem_mib : ctx->cfg.mem_mib,
		      o->cpus ? o->cpus : ctx->cfg.cpus))
		return -1;
	if ((context_need_store(ctx)) || pool_start(&pool, ctx, o, 1))
		goto out;
	*bad_boots = 0;
	for (;;) {
		struct pool_done d;
		int taken_out;

		/* a boot that failed is a boot: lab run counts boots, not samples */
		for (size_t i = 0; i < pool.n && started < boots && !fatal_signal_pending(); i++)
			if (!pool.t[i].busy && !pool.t[i].out) {
				if (pool_boot(&pool, i, 0))
					goto out;
				started++;
			}
		if (!pool_busy(&pool) || fatal_signal_pending())
			break;
		if (pool_wait(&pool, &d, &taken_out))
			goto out;
		/* stored as interrupted, it is none of the boots asked for (as in boots_run) */
		if (d.status != RUN_OK && fatal_signal_pending())
			break;
		run_ids[done++] = d.run_id;
		*bad_boots += d.status != RUN_OK;
		/* --quiet: only what went wrong */
		if (d.status == RUN_OK)
			say_more("  %s: boot %ld of %ld OK (run %lld, %.1f s)",
				 pool.t[d.target].t->name, done, boots, d.run_id, d.wall_s);
		else
			say("  %s: boot %ld of %ld %s (run %lld, %.1f s): %s",
			    pool.t[d.target].t->name, done, boots,
			    run_status_name(d.status), d.run_id, d.wall_s, d.error);
		/* the boots of a target taken out go to the others */
		if (taken_out && !pool_live(&pool)) {
			error("no target of class '%s' is left", pool.class);
			goto out;
		}
	}
	ret = fatal_signal_pending() ? -1 : 0;
out:
	pool_release(&pool);
	return ret;
}

int boots_run(struct lab_context *ctx, const struct boot_opts *o, long boots,
	      long long *run_ids, long *bad_boots)
{
	struct boot_plan plan;
	struct progress pr = { 0 };
	long k = 0;
	int ret = -1;

	*bad_boots = 0;
	if (o->targets)
		return pool_run_boots(ctx, o, boots, run_ids, bad_boots);
	memset(&plan, 0, sizeof(plan));
	if (boot_plan_prepare(&plan, ctx, o))
		goto out;
	progress_start(&pr, boots, 0);
	plan.spec.watch = progress_watch(&pr);
	/* a signal the command defers stops it between boots: what ended is stored */
	for (k = 0; k < boots && !fatal_signal_pending(); k++) {
		struct run_result res;

		progress_update(&pr, k + 1, NULL);
		if (boot_plan_run(&plan, ctx, &run_ids[k], &res)) {
			run_result_release(&res);
			goto out;
		}
		progress_boot_done(&pr, k + 1, run_ids[k], &res, plan.log_path.buf);
		/* stored as interrupted, it is none of the boots asked for */
		if (res.status != RUN_OK && fatal_signal_pending()) {
			run_ids[k] = 0;
			run_result_release(&res);
			break;
		}
		*bad_boots += res.status != RUN_OK;
		run_result_release(&res);
	}
	ret = k < boots ? -1 : 0;
out:
	progress_release(&pr);
	boot_plan_release(&plan);
	return ret;
}
