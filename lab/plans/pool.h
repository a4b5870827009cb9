#ifndef POOL_H
#define POOL_H
/*
 * Several targets booting at the same time (--targets CLASS): one worker
 * process per target, each with its own database connection and its own
 * boot plans (one per variant), booting what the lab asks, one boot at a
 * time, and answering with the run and its status. Every decision (which
 * variant next, when to stop, which target leaves the pool) is the lab's,
 * taken in one place; a worker only boots and stores, each boot in its
 * own transactions as boot_plan_run() does, so no sample is lost or
 * stored twice whichever process dies.
 *
 * Workers die with the lab (PR_SET_PDEATHSIG, kill -9 included) and their
 * boots' children with them; a run a dead worker left RUNNING is closed
 * as INFRA by the next lab that opens the database (its owner is the
 * worker's pid). A target whose boots end INFRA POOL_MAX_INFRA times in a
 * row is taken out of the pool, with one line on stderr.
 */
#include <sys/types.h>

#include "boot.h"
#include "config.h"
#include "context.h"

#define POOL_MAX_INFRA 3
/* Plans a target holds at once: an A/B's two sides, a bisection's batch of commits. */
#define POOL_MAX_SIDES 10

struct pool_target {
	const struct lab_target *t;
	struct boot_plan plan[POOL_MAX_SIDES];
	int nplans;
	pid_t pid;
	int cmd_fd, res_fd;
	int busy, side;		/* the side it is booting */
	long ok[POOL_MAX_SIDES];	/* boots that ended OK here, per side */
	long infra_row;		/* INFRA boots in a row */
	int out;		/* taken out of the pool */
};

struct pool {
	struct pool_target *t;
	size_t n;
	char *class;
	struct boot_guests guests;	/* the targets' guests when the caller shares none */
};

struct pool_done {
	size_t target;
	int side;
	long long run_id;
	enum run_status status;
	double wall_s;
	char error[256];
};

/*
 * The targets of class that take a guest of mem_mib and cpus; a target
 * too small is named on stderr and left out. -1 when none is left.
 */
int pool_init(struct pool *p, const struct lab_config *cfg, const char *class, long mem_mib,
	      long cpus);
/*
 * Prepare nsides plans on each target (opts[s] on that target) and start
 * the workers. A target whose plan cannot be prepared (a host out of
 * service, unreachable) is left out of the pool with one line on stderr
 * after the reason; -1 when none is left. The database is closed and
 * opened again around the fork: a sqlite connection must not cross one.
 */
int pool_start(struct pool *p, struct lab_context *ctx, const struct boot_opts *opts,
	       int nsides);
/* Ask target i, idle and in the pool, to boot side. */
int pool_boot(struct pool *p, size_t i, int side);
/* Targets booting now. */
size_t pool_busy(const struct pool *p);
/* Targets still in the pool. */
size_t pool_live(const struct pool *p);
/*
 * Wait for a boot to end and fill d; its target is idle again. Counts
 * its OK boots and its INFRA boots in a row, and takes it out of the pool
 * at POOL_MAX_INFRA (*taken_out 1). -1 when a worker died or could not
 * store the run: the plan stops there.
 */
int pool_wait(struct pool *p, struct pool_done *d, int *taken_out);
/*
 * lab run --targets: boots boots of o on the targets of o->targets, each
 * target booting as soon as it is idle; run_ids gets them in the order
 * they ended, *bad_boots those that did not end OK.
 */
int pool_run_boots(struct lab_context *ctx, const struct boot_opts *o, long boots,
		   long long *run_ids, long *bad_boots);
/*
 * lab run's boots: on the targets of o->targets at once (pool_run_boots()),
 * else boots of one plan in turn, each shown on stderr as it goes. Stopped
 * by a signal the command defers (fatal_signal_pending()): -1 without a
 * message, run_ids holding the boots stored so far (the rest 0).
 */
int boots_run(struct lab_context *ctx, const struct boot_opts *o, long boots,
	      long long *run_ids, long *bad_boots);
/* Stop the workers (a busy one is killed) and release the plans. */
void pool_release(struct pool *p);

#endif
