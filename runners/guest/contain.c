#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "contain.h"
#include "sysfs.h"

static void kill_own_group(int sig)
{
	(void)sig;
	kill(0, SIGKILL);
	_exit(128 + SIGKILL);
}

/* Map this process's ids to themselves in the user namespace it just made. */
static int map_ids(uid_t uid, gid_t gid)
{
	char map[64];
	int ret;

	snprintf(map, sizeof(map), "%u %u 1", (unsigned)uid, (unsigned)uid);
	ret = sysfs_write("/proc/self/uid_map", map);
	/* an unprivileged gid_map needs setgroups denied first; no such file before 3.19 */
	if (!ret) {
		ret = sysfs_write("/proc/self/setgroups", "deny");
		if (ret == -ENOENT)
			ret = 0;
	}
	if (!ret) {
		snprintf(map, sizeof(map), "%u %u 1", (unsigned)gid, (unsigned)gid);
		ret = sysfs_write("/proc/self/gid_map", map);
	}
	errno = -ret;
	return ret ? -1 : 0;
}

/* Make the namespaces the program's processes will be born in; -1 with errno. */
static int unshare_for(const struct contain *c)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();

	if (!c->userns)
		return unshare(CLONE_NEWPID);
	if (unshare(CLONE_NEWUSER | CLONE_NEWPID) || map_ids(uid, gid))
		return -1;
	/* in a user namespace of its own this counts the run's tasks only */
	if (c->nproc) {
		struct rlimit rl = { (rlim_t)c->pids_max, (rlim_t)c->pids_max };
		if (setrlimit(RLIMIT_NPROC, &rl))
			return -1;
	}
	return 0;
}

/* The namespaces work here: 0, or the errno of what failed. */
static int try_pidns(const struct contain *c)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return errno;
	if (!pid) {
		pid_t init;
		if (unshare_for(c))
			_exit(errno & 0xff);
		init = fork();
		if (init < 0)
			_exit(errno & 0xff);
		if (!init)
			_exit(getpid() == 1 ? 0 : EINVAL);
		while (waitpid(init, &status, 0) < 0)
			if (errno != EINTR)
				_exit(ECHILD);
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : EINVAL);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return ECHILD;
	return WIFEXITED(status) ? WEXITSTATUS(status) : EINVAL;
}

/* word is one of list's words, separated by any of seps */
static int has_word_in(const char *list, const char *word, const char *seps)
{
	size_t n = strlen(word);

	for (const char *p = list; *p; p += strcspn(p, seps), p += !!*p)
		if (!strncmp(p, word, n) && (!p[n] || strchr(seps, p[n])))
			return 1;
	return 0;
}

static int has_word(const char *list, const char *word)
{
	return has_word_in(list, word, ",");
}

/* This process's cgroup in hierarchy want ("" for v2, else a v1 controller); 0 when found. */
static int own_cgroup(char *path, size_t size, const char *want)
{
	char buf[4096], *line, *save = NULL;

	if (sysfs_read("/proc/self/cgroup", buf, sizeof(buf)) < 0)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *ctl = strchr(line, ':'), *p;
		if (!ctl || !(p = strchr(++ctl, ':')))
			continue;
		*p++ = '\0';
		if (*want ? has_word(ctl, want) : !*ctl && !strncmp(line, "0:", 2)) {
			snprintf(path, size, "%s", p);
			return 0;
		}
	}
	return -1;
}

/*
 * Where a cgroup hierarchy is mounted: type "cgroup2", or "cgroup" with
 * option opt; *root is the cgroup seen there (not "/" in a container that
 * was given a part of the hierarchy without a cgroup namespace).
 */
static int cgroup_mount(char *dir, size_t size, char root[400], const char *type,
			const char *opt)
{
	struct lines r;
	const char *line;
	int found = -1;

	if (lines_open(&r, "/proc/self/mountinfo") < 0)
		return -1;
	while (found && lines_next(&r, &line) > 0) {
		char mnt[400], fstype[32], super[512];
		const char *dash = strstr(line, " - ");

		if (!dash || sscanf(line, "%*s %*s %*s %399s %399s", root, mnt) != 2 ||
		    sscanf(dash + 3, "%31s %*s %511s", fstype, super) != 2 || strcmp(fstype, type))
			continue;
		if (!opt)
			found = 0;
		if (opt && has_word(super, opt))
			found = 0;
		if (!found)
			snprintf(dir, size, "%s", mnt);
	}
	lines_close(&r);
	return found;
}

/* dir: the directory of this process's cgroup (own) in a hierarchy mounted at mnt. */
static int cgroup_dir(char *dir, size_t size, const char *mnt, const char *root,
		      const char *own, const char *file)
{
	size_t n = strlen(root);
	int len;

	if (!strcmp(root, "/"))
		n = 0;
	else if (strncmp(own, root, n) || (own[n] && own[n] != '/'))
		return -1;
	own += n;
	len = snprintf(dir, size, "%s%s%s", mnt, strcmp(own, "/") ? own : "", file);
	return len > 0 && (size_t)len < size ? 0 : -1;
}

/* The directory under which runs' pids cgroups go: 0 with *v2 set, or -1. */
static int cgroup_base(char *dir, size_t size, int *v2)
{
	char mnt[400], root[400], own[512], ctl[1024], list[256];

	if (!cgroup_mount(mnt, sizeof(mnt), root, "cgroup2", NULL) &&
	    !own_cgroup(own, sizeof(own), "") &&
	    !cgroup_dir(ctl, sizeof(ctl), mnt, root, own, "/cgroup.subtree_control") &&
	    sysfs_read(ctl, list, sizeof(list)) >= 0 && has_word_in(list, "pids", " \n") &&
	    !cgroup_dir(dir, size, mnt, root, own, "")) {
		*v2 = 1;
		return 0;
	}
	if (!cgroup_mount(mnt, sizeof(mnt), root, "cgroup", "pids") &&
	    !own_cgroup(own, sizeof(own), "pids") &&
	    !cgroup_dir(dir, size, mnt, root, own, "")) {
		*v2 = 0;
		return 0;
	}
	return -1;
}

/* Make dir a pids cgroup of c->pids_max tasks: 0, or -errno. */
static int make_cgroup(const struct contain *c, const char *dir)
{
	char path[600];
	int ret;

	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	snprintf(path, sizeof(path), "%s/pids.max", dir);
	ret = sysfs_write_long(path, c->pids_max);
	if (ret)
		rmdir(dir);
	return ret;
}

/*
 * A guest killed in a run (the lab gone, its deadline) leaves that run's
 * cgroup behind, empty once the namespace is gone: remove those of guests
 * that are no longer alive.
 */
static void remove_stale(const char *base)
{
	DIR *d = opendir(base);
	struct dirent *e;
	char path[1024];

	if (!d)
		return;
	while ((e = readdir(d))) {
		long pid;
		char *end;

		if (strncmp(e->d_name, "lab-guest-", 10))
			continue;
		pid = strtol(e->d_name + 10, &end, 10);
		if (pid <= 0 || *end != '-' || !kill((pid_t)pid, 0) || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", base, e->d_name);
		rmdir(path);
	}
	closedir(d);
}

void contain_probe(struct contain *c, long pids_max)
{
	char why_ns[128] = "", why_cg[160] = "";
	int e;

	memset(c, 0, sizeof(*c));
	c->pids_max = pids_max;
	if (pids_max) {
		char probe[sizeof(c->base) + 32];

		if (cgroup_base(c->base, sizeof(c->base), &c->cgroup_v2)) {
			snprintf(why_cg, sizeof(why_cg), "no pids cgroup");
		} else {
			snprintf(probe, sizeof(probe), "%s/lab-guest-%d", c->base, (int)getpid());
			e = make_cgroup(c, probe);
			if (e)
				snprintf(why_cg, sizeof(why_cg), "cannot make a pids cgroup in %.100s: %s",
					 c->base, strerror(-e));
			else
				rmdir(probe);
		}
		if (!why_cg[0])
			remove_stale(c->base);
		if (why_cg[0])
			c->base[0] = '\0';
	}
	e = try_pidns(c);
	if (e) {
		snprintf(why_ns, sizeof(why_ns), "no PID namespace (%s)", strerror(e));
		c->userns = 1;
		c->pidns = !try_pidns(c);
		c->userns = c->pidns;
	} else {
		c->pidns = 1;
	}
	/* root's tasks are never held to RLIMIT_NPROC */
	c->nproc = c->userns && pids_max && !c->base[0] && getuid();
	snprintf(c->how, sizeof(c->how), "%s; %s",
		 c->userns ? "pid namespace in a user namespace" :
		 c->pidns ? "pid namespace" : "process group",
		 !pids_max ? "tasks not bounded (lab.exec_pids=0)" :
		 c->base[0] ? (c->cgroup_v2 ? "pids cgroup v2" : "pids cgroup v1") :
		 c->nproc ? "RLIMIT_NPROC" : "tasks not bounded");
	if (pids_max && (c->base[0] || c->nproc))
		snprintf(c->how + strlen(c->how), sizeof(c->how) - strlen(c->how), " of %ld",
			 pids_max);
	/* a VM's init ends with the run: nothing to warn about there */
	if (getpid() == 1)
		return;
	/* a pids cgroup ends the run's tasks too, if more slowly (contain_finish()) */
	if (!c->pidns && !c->base[0] && pids_max)
		snprintf(c->lacks, sizeof(c->lacks), "%s, %s: what a program starts with setsid "
			 "can outlive its run, and its tasks are not bounded", why_ns, why_cg);
	else if (!c->pidns && !c->base[0])
		snprintf(c->lacks, sizeof(c->lacks), "%s: what a program starts with setsid "
			 "can outlive its run (lab.exec_pids=0: no pids cgroup)", why_ns);
	else if (pids_max && !c->base[0] && !c->nproc)
		snprintf(c->lacks, sizeof(c->lacks), "%s: a program's tasks are not bounded",
			 why_cg);
}

void contain_prepare(struct contain *c, const char *name, long iteration)
{
	c->cgroup[0] = '\0';
	if (!c->base[0])
		return;
	snprintf(c->cgroup, sizeof(c->cgroup), "%s/lab-guest-%d-%.32s-%ld", c->base,
		 (int)getpid(), name, iteration);
	if (make_cgroup(c, c->cgroup))
		c->cgroup[0] = '\0';
}

/* Put the calling process into the run's cgroup (pid 0 is the writer). */
static void join_cgroup(const struct contain *c)
{
	char path[600];
	int ret;

	if (!c->cgroup[0])
		return;
	snprintf(path, sizeof(path), "%s/cgroup.procs", c->cgroup);
	ret = sysfs_write(path, "0");
	if (ret)
		dprintf(2, "lab-guest: cannot join %s: %s\n", c->cgroup, strerror(-ret));
}

/* End as status says the program ended: by its signal, or with its exit code. */
__attribute__((noreturn))
static void end_as(int status)
{
	if (WIFSIGNALED(status)) {
		signal(WTERMSIG(status), SIG_DFL);
		raise(WTERMSIG(status));
	}
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 127);
}

/*
 * The namespace's init: starts the program, reaps whatever the program
 * orphans, and when the program has ended tells the keeper how (an init
 * cannot die of a signal to pass it on) and ends, which ends the rest.
 */
static void namespace_init(const struct contain *c, int sock)
{
	struct pollfd keeper = { sock, POLLIN, 0 };
	pid_t prog, pid;
	int status;
	ssize_t n;

	/* a keeper that died before this took effect shows as a hang-up */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || poll(&keeper, 1, 0) != 0)
		_exit(127);
	signal(SIGTERM, SIG_DFL);
	join_cgroup(c);
	prog = fork();
	if (prog < 0)
		_exit(127);
	if (!prog) {
		close(sock);
		return;
	}
	for (;;) {
		pid = waitpid(-1, &status, 0);
		if (pid == prog)
			break;
		if (pid < 0 && errno != EINTR)
			_exit(127);
	}
	n = write(sock, &status, sizeof(status));
	(void)n;
	_exit(0);
}

/*
 * The first process of the program's group, between the guest and the
 * program: it waits for the program and ends as the program did. Outside
 * a VM the guest is a process the lab can kill (a deadline, the lab
 * gone); the kernel then tells this one (PR_SET_PDEATHSIG) and it kills
 * the group, and with it the namespace's init and so the namespace.
 */
void contain_enter(const struct contain *c)
{
	pid_t guest = getppid(), prog;
	struct sigaction sa;
	int sock[2] = { -1, -1 }, status, in_ns = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = kill_own_group;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	/* a guest that died before this took effect is seen in getppid() */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) || getppid() != guest)
		kill_own_group(0);
	if (c->pidns && !socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sock)) {
		in_ns = !unshare_for(c);
		if (!in_ns)
			dprintf(2, "lab-guest: cannot make a PID namespace: %s\n", strerror(errno));
	}
	prog = fork();
	if (prog < 0)
		_exit(127);
	if (!prog) {
		signal(SIGTERM, SIG_DFL);
		if (in_ns) {
			close(sock[0]);
			namespace_init(c, sock[1]);
		} else {
			join_cgroup(c);
		}
		return;
	}
	while (waitpid(prog, &status, 0) < 0)
		if (errno != EINTR)
			_exit(127);
	if (in_ns) {
		int prog_status;
		ssize_t n;

		close(sock[1]);
		do
			n = read(sock[0], &prog_status, sizeof(prog_status));
		while (n < 0 && errno == EINTR);
		/* nothing: the init itself was killed, taking the program with it */
		if (n != sizeof(prog_status))
			prog_status = WIFSIGNALED(status) ? status : SIGKILL;
		status = prog_status;
	}
	end_as(status);
}

void contain_finish(struct contain *c)
{
	char path[600], buf[4096];
	struct timespec pause = { 0, 10 * 1000 * 1000 };

	if (!c->cgroup[0])
		return;
	/* with a namespace this finds nothing; without, what escaped the group */
	if (c->cgroup_v2) {
		snprintf(path, sizeof(path), "%s/cgroup.kill", c->cgroup);
		sysfs_write(path, "1");
	}
	snprintf(path, sizeof(path), "%s/cgroup.procs", c->cgroup);
	for (int round = 0; round < 200; round++) {
		char *line, *save = NULL;
		int any = 0;

		if (!rmdir(c->cgroup) || errno == ENOENT)
			break;
		if (sysfs_read(path, buf, sizeof(buf)) < 0)
			break;
		for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			kill((pid_t)atol(line), SIGKILL);
			any = 1;
		}
		/* left: zombies, until whoever they were orphaned to reaps them */
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (!any && round > 50)
			break;
		nanosleep(&pause, NULL);
	}
	c->cgroup[0] = '\0';
}
