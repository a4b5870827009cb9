#ifndef GUEST_CONTAIN_H
#define GUEST_CONTAIN_H
/*
 * Keeping a user's program in: whatever it starts (with setsid, a double
 * fork, a fork storm) ends when one run of it ends, and how many tasks it
 * may have at once is bounded. exec.c calls these around each run.
 *
 * What holds where, the first that the host allows:
 *
 *  - Ending: a PID namespace per run (CLONE_NEWPID as root; as another
 *    user inside a user namespace of its own, the ids mapped to
 *    themselves). Its first process is a small init that starts the
 *    program, reaps what it orphans and ends when the program does; the
 *    kernel then kills everything left in the namespace before that init
 *    is reaped, so nothing of the run is left when exec.c sees it end.
 *    Without one: the program's process group only, which setsid and job
 *    control escape (exec.c kills the group).
 *  - Bounding: a pids cgroup made for the run (cgroup v2 where the pids
 *    controller is enabled below this process's cgroup, else the v1 pids
 *    hierarchy) with pids.max = lab.exec_pids; else, in a user namespace
 *    and not as root, RLIMIT_NPROC, which there counts the run's tasks
 *    only; else nothing. Without a namespace, the cgroup's tasks are
 *    killed after the run too.
 *
 * In a VM the guest is init and the VM ends with the run; a kernel without
 * CONFIG_PID_NS keeps the process group only between its iterations.
 */
#include <sys/types.h>

struct contain {
	long pids_max;			/* 0: no bound asked for */
	int pidns;			/* runs get a PID namespace */
	int userns;			/* ... inside a user namespace */
	int nproc;			/* ... bounded there by RLIMIT_NPROC */
	int cgroup_v2;
	char base[448];			/* where runs' pids cgroups go, or "" */
	char cgroup[512];		/* this run's pids cgroup, or "" */
	char how[256];			/* what holds, for meta exec.containment */
	char lacks[256];		/* what does not, for meta exec.uncontained */
};

/*
 * Once per guest: find out what this host allows (a throwaway child tries
 * the namespaces). Fills c->how, and c->lacks when something does not hold.
 */
void contain_probe(struct contain *c, long pids_max);

/* Before each run: make its cgroup (name and iteration make it unique). */
void contain_prepare(struct contain *c, const char *name, long iteration);

/*
 * In the forked child that will become the program (already in its own
 * process group): returns in the process that must exec the program; the
 * processes above it never return (they wait and end as the program does).
 */
void contain_enter(const struct contain *c);

/* After the run's first process was reaped: kill what is left, remove the cgroup. */
void contain_finish(struct contain *c);

#endif
