#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "array.h"
#include "log.h"
#include "strbuf.h"
#include "subprocess.h"
#include "tempfile.h"
#include "xalloc.h"

/*
 * Children run in their own process groups, so a ^C or kill of the lab
 * would leave them running: the lab kills the groups it started, then
 * dies of the same signal. SIGKILL cannot be caught; for that each group
 * has a watcher (see watch()).
 */
#define MAX_LIVE 16
static volatile sig_atomic_t live[MAX_LIVE], live_contained[MAX_LIVE];

static void kill_live_groups(void)
{
	/* a contained child's watcher kills what is below it, then its group */
	for (int i = 0; i < MAX_LIVE; i++)
		if (live[i] > 0)
			kill(live_contained[i] ? (pid_t)live[i] : -(pid_t)live[i],
			     live_contained[i] ? SIGTERM : SIGKILL);
}

static void track(pid_t pid, int add, int contained)
{
	for (int i = 0; i < MAX_LIVE; i++) {
		if (add && live[i] == 0) {
			live_contained[i] = contained;
			live[i] = pid;
			return;
		}
		if (!add && live[i] == pid) {
			live[i] = 0;
			return;
		}
	}
}

double now_monotonic(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double now_wall(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The watcher's answer to its parent's death: the whole group, itself included. */
static void kill_own_group(int sig)
{
	(void)sig;
	kill(0, SIGKILL);
}

/* The parent's pid in a /proc/PID/stat line: the field after the state, after the last ')'. */
static pid_t stat_ppid(const char *stat)
{
	const char *p = NULL;
	pid_t ppid = 0;

	for (const char *c = stat; *c; c++)
		if (*c == ')')
			p = c;
	if (!p || p[1] != ' ' || !p[2] || p[3] != ' ')
		return -1;
	for (p += 4; *p >= '0' && *p <= '9'; p++)
		ppid = ppid * 10 + (*p - '0');
	return ppid;
}

/*
 * SIGKILL every process whose parent is self, found in /proc: how many
 * took the signal (a child of another user, setuid, refuses it). Only
 * async-signal-safe calls: the watcher's SIGTERM handler makes them.
 */
static int kill_children(pid_t self)
{
	char buf[4096], path[32], stat[512];
	int dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	long got;
	int killed = 0;

	if (dir < 0)
		return 0;
	while ((got = syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < got;) {
			/* struct linux_dirent64: ino, off, reclen, type, name */
			const char *name = buf + off + 19;
			unsigned short reclen;
			pid_t pid = 0;
			size_t n = 0;
			ssize_t len;
			int fd;

			memcpy(&reclen, buf + off + 16, sizeof(reclen));
			off += reclen;
			for (const char *c = name; *c; c++) {
				if (*c < '0' || *c > '9') {
					pid = 0;
					break;
				}
				pid = pid * 10 + (*c - '0');
			}
			if (pid <= 0 || pid == self)
				continue;
			memcpy(path, "/proc/", 6);
			n = 6;
			for (const char *c = name; *c && n < sizeof(path) - 6; c++)
				path[n++] = *c;
			memcpy(path + n, "/stat", 6);
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				continue;
			len = read(fd, stat, sizeof(stat) - 1);
			close(fd);
			if (len <= 0)
				continue;
			stat[len] = '\0';
			if (stat_ppid(stat) == self && !kill(pid, SIGKILL))
				killed++;
		}
	}
	close(dir);
	return killed;
}

/*
 * A subreaper's end: kill its children until none is left. A child's
 * own children come to the subreaper as it dies, and are killed in the
 * next round. Bounded: a child that refuses the signal (another user's)
 * or cannot take it yet (in uninterruptible sleep, a zombie a tracer
 * holds) would keep the rounds going for ever, and the status, or the
 * kill of the group after a SIGTERM, would never come.
 */
#define CONTAIN_PATIENCE_S 5

static void kill_descendants(void)
{
	const struct timespec pause_ms = { 0, 1000000 };
	struct timespec begun, now;
	pid_t self = getpid();

	clock_gettime(CLOCK_MONOTONIC, &begun);
	for (;;) {
		pid_t r;
		int killed = kill_children(self);

		while ((r = waitpid(-1, NULL, WNOHANG)) > 0)
			;
		if (r < 0 && errno == ECHILD)
			break;
		/* children left, and none of them would take the signal */
		if (!killed && r == 0)
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - begun.tv_sec >= CONTAIN_PATIENCE_S)
			break;
		nanosleep(&pause_ms, NULL);
	}
}

/* A contained child's watcher told to end: what is below it first. */
static void kill_contained(int sig)
{
	(void)sig;
	kill_descendants();
	kill(0, SIGKILL);
}

static void report_errno(int fd)
{
	int e = errno;
	ssize_t n = write(fd, &e, sizeof(e));
	(void)n;
}

/* Close every descriptor above stderr but the n in keep (-1: none). */
static void close_other_fds(int *keep, int n)
{
	unsigned from = 3;

	/* ascending, so that the gaps between them can be closed in order */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && keep[j] < keep[j - 1]; j--) {
			int t = keep[j];
			keep[j] = keep[j - 1];
			keep[j - 1] = t;
		}
	for (int i = 0; i < n; i++) {
		if (keep[i] < (int)from)
			continue;
		if ((unsigned)keep[i] > from)
			close_range(from, (unsigned)keep[i] - 1, 0);
		from = (unsigned)keep[i] + 1;
	}
	close_range(from, ~0U, 0);
}

/* In the program's process, between fork and exec. */
__attribute__((noreturn))
static void exec_program(char *const *argv, char *const *envp, const char *cwd, unsigned flags,
			 int out_fd, int err_fd, pid_t watcher)
{
	int null_fd;

	/* a watcher that died before this took effect is seen in getppid() */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != watcher)
		_exit(127);
	signal(SIGTERM, SIG_DFL);
	null_fd = open("/dev/null", O_RDWR);
	if (null_fd < 0 || dup2(null_fd, 0) < 0)
		goto fail;
	if (out_fd >= 0 && (dup2(out_fd, 1) < 0 || dup2(out_fd, 2) < 0))
		goto fail;
	if ((flags & SUBPROCESS_SILENT) && (dup2(null_fd, 1) < 0 || dup2(null_fd, 2) < 0))
		goto fail;
	if (cwd && chdir(cwd))
		goto fail;
	execvpe(argv[0], argv, envp);
fail:
	report_errno(err_fd);
	_exit(127);
}

/*
 * The first process of a child's group: it starts the program and waits
 * for it, and when the lab dies (even of SIGKILL) the kernel tells it
 * (PR_SET_PDEATHSIG) and it kills the group, the program's own children
 * included, which PR_SET_PDEATHSIG on the program alone would miss. When
 * the program ends, the watcher sends its status on status_fd and waits
 * to be killed with the group: it never leaves the group without a
 * watcher while the lab lives.
 */
__attribute__((noreturn))
static void watch(char *const *argv, char *const *envp, const char *cwd, unsigned flags,
		  int out_fd, int err_fd, int status_fd, pid_t lab)
{
	static const int lab_signals[] = { SIGINT, SIGHUP, SIGQUIT, SIGPIPE };
	int keep[] = { out_fd, err_fd, status_fd };
	struct sigaction sa;
	sigset_t all;
	pid_t self = getpid(), prog;
	int status;
	ssize_t n;

	setpgid(0, 0);
	/* the lab's files (its database, its experiment's lock) are not the watcher's to hold */
	close_other_fds(keep, 3);
	/* the lab's handlers are the lab's; what it was started ignoring stays ignored */
	for (size_t i = 0; i < ARRAY_SIZE(lab_signals); i++) {
		struct sigaction old;
		if (!sigaction(lab_signals[i], NULL, &old) && old.sa_handler != SIG_IGN)
			signal(lab_signals[i], SIG_DFL);
	}
	/* before the handler: what the program orphans must come here from the start */
	if ((flags & SUBPROCESS_CONTAIN) && prctl(PR_SET_CHILD_SUBREAPER, 1))
		kill_own_group(0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = flags & SUBPROCESS_CONTAIN ? kill_contained : kill_own_group;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) || getppid() != lab)
		kill_own_group(0);

	prog = fork();
	if (prog == 0) {
		close(status_fd);
		exec_program(argv, envp, cwd, flags, out_fd, err_fd, self);
	}
	if (prog < 0) {
		report_errno(err_fd);
		kill_own_group(0);
	}
	/* the lab sees EOF on the program's output when the program is done */
	close(err_fd);
	if (out_fd >= 0)
		close(out_fd);
	while (waitpid(prog, &status, 0) < 0)
		if (errno != EINTR)
			kill_own_group(0);
	/* before the status: the lab reads the program's output until nothing holds it */
	if (flags & SUBPROCESS_CONTAIN)
		kill_descendants();
	n = write(status_fd, &status, sizeof(status));
	(void)n;
	for (;;)
		pause();
}

/*
 * The lab's environment with env ("NAME=VALUE", NULL-terminated) set on top:
 * a name env sets is dropped from the lab's. Made before fork, so that the
 * child only reads it. The array is the caller's to free, not its strings.
 */
static char **merge_environ(char *const *env)
{
	size_t n = 0, extra = 0, k = 0;
	char **out;

	while (environ[n])
		n++;
	while (env && env[extra])
		extra++;
	out = xcalloc(n + extra + 1, sizeof(*out));
	for (size_t i = 0; i < n; i++) {
		size_t len = strcspn(environ[i], "=");
		int overridden = 0;

		for (size_t j = 0; j < extra && !overridden; j++)
			overridden = !strncmp(environ[i], env[j], len) && env[j][len] == '=';
		if (!overridden)
			out[k++] = environ[i];
	}
	for (size_t j = 0; j < extra; j++)
		out[k++] = env[j];
	return out;
}

/* Both ends of a pipe closed, those still open (-1: closed already). */
static void close_pipe(const int p[2])
{
	for (int i = 0; i < 2; i++)
		if (p[i] >= 0)
			close(p[i]);
}

static int start(struct child *c, char *const *argv, char *const *env, const char *cwd,
		 unsigned flags)
{
	int outp[2] = { -1, -1 }, errp[2] = { -1, -1 }, statusp[2] = { -1, -1 };
	int ret = -1, child_errno = 0;
	pid_t lab = getpid();
	char **envp = merge_environ(env);
	ssize_t got;

	c->pid = -1;
	c->out_fd = -1;
	c->status_fd = -1;
	c->contained = !!(flags & SUBPROCESS_CONTAIN);
	/* the lab is stopping (tempfile.h): nothing new, and nothing to say of it */
	if (fatal_signal_pending()) {
		free(envp);
		errno = EINTR;
		return -1;
	}
	if (pipe2(errp, O_CLOEXEC) || pipe2(statusp, O_CLOEXEC) ||
	    ((flags & SUBPROCESS_CAPTURE) && pipe2(outp, O_CLOEXEC))) {
		error("cannot create pipe for '%s': %s", argv[0], strerror(errno));
		goto out;
	}
	on_fatal_signal(kill_live_groups);
	c->pid = fork();
	if (c->pid < 0) {
		error("cannot start '%s': %s", argv[0], strerror(errno));
		goto out;
	}
	if (c->pid == 0)
		watch(argv, envp, cwd, flags, outp[1], errp[1], statusp[1], lab);
	/* either side may run first: the group exists before anyone signals it */
	setpgid(c->pid, c->pid);
	track(c->pid, 1, c->contained);
	close(errp[1]);
	errp[1] = -1;
	close(statusp[1]);
	statusp[1] = -1;
	c->status_fd = statusp[0];
	statusp[0] = -1;
	/* EOF: the program was exec'd; an errno: it was not */
	do
		got = read(errp[0], &child_errno, sizeof(child_errno));
	while (got < 0 && errno == EINTR);
	if (got == sizeof(child_errno)) {
		error("cannot start '%s': %s", argv[0], strerror(child_errno));
		subprocess_finish(c);
		goto out;
	}
	if (outp[1] >= 0) {
		close(outp[1]);
		outp[1] = -1;
		c->out_fd = outp[0];
		outp[0] = -1;
	}
	ret = 0;
out:
	close_pipe(outp);
	close_pipe(errp);
	close_pipe(statusp);
	free(envp);
	return ret;
}

int subprocess_start(struct child *c, char *const *argv, const char *cwd,
		     unsigned flags)
{
	return start(c, argv, NULL, cwd, flags);
}

ssize_t subprocess_read(const struct child *c, char *buf, size_t len, int timeout_ms)
{
	struct pollfd pfd = { .fd = c->out_fd, .events = POLLIN };
	int ready = poll(&pfd, 1, timeout_ms);
	ssize_t got;

	/*
	 * A poll that fails (ENOMEM) says nothing of the child: the caller
	 * asks again until its deadline, and kills it then, rather than
	 * taking it for an end and waiting on a child that may never end.
	 */
	if (ready <= 0)
		return -1;
	got = read(c->out_fd, buf, len);
	if (got < 0 && (errno == EINTR || errno == EAGAIN))
		return -1;
	return got < 0 ? 0 : got;
}

void subprocess_kill(struct child *c)
{
	/* the watcher of a contained child kills what is below it, then its group */
	if (c->pid > 0)
		kill(c->contained ? c->pid : -c->pid, c->contained ? SIGTERM : SIGKILL);
}

int subprocess_ended(struct child *c)
{
	struct pollfd p = { .fd = c->status_fd, .events = POLLIN };

	if (c->pid <= 0)
		return 1;
	return poll(&p, 1, 0) > 0;
}

int subprocess_finish(struct child *c)
{
	int status = -1, wstatus;
	ssize_t got;

	if (c->out_fd >= 0) {
		close(c->out_fd);
		c->out_fd = -1;
	}
	if (c->pid <= 0)
		return -1;
	/* nothing: the watcher was killed (a deadline) before the program ended */
	do
		got = read(c->status_fd, &status, sizeof(status));
	while (got < 0 && errno == EINTR);
	close(c->status_fd);
	c->status_fd = -1;
	/* whatever the program left behind in its group goes with the watcher */
	kill(-c->pid, SIGKILL);
	while (waitpid(c->pid, &wstatus, 0) < 0) {
		if (errno != EINTR) {
			wstatus = -1;
			break;
		}
	}
	track(c->pid, 0, 0);
	c->pid = -1;
	if (got != sizeof(status))
		status = wstatus;
	if (status == -1)
		return -1;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return -1;
}

int subprocess_run(char *const *argv, const char *cwd, struct strbuf *out,
		   double timeout_s)
{
	return subprocess_run_watched(argv, cwd, out, timeout_s, NULL);
}

int subprocess_run_watched(char *const *argv, const char *cwd, struct strbuf *out,
			   double timeout_s, struct subprocess_watch *watch)
{
	return subprocess_run_env(argv, NULL, cwd, out, timeout_s, watch);
}

int subprocess_run_env(char *const *argv, char *const *env, const char *cwd, struct strbuf *out,
		       double timeout_s, struct subprocess_watch *watch)
{
	struct child c;
	double deadline = timeout_s > 0 ? now_monotonic() + timeout_s : 0;
	int timed_out = 0, status;

	if (start(&c, argv, env, cwd, SUBPROCESS_CAPTURE))
		return -1;
	for (;;) {
		char buf[8192];
		int wait_ms = -1;
		ssize_t got;

		if (deadline) {
			double left = deadline - now_monotonic();
			if (left <= 0) {
				timed_out = 1;
				break;
			}
			wait_ms = (int)(left * 1000) + 1;
		}
		if (watch && (wait_ms < 0 || wait_ms > 1000))
			wait_ms = 1000;
		got = subprocess_read(&c, buf, sizeof(buf), wait_ms);
		if (watch && watch->tick)
			watch->tick(watch);
		if (got < 0)
			continue;
		if (!got)
			break;
		if (out)
			strbuf_add(out, buf, (size_t)got);
		if (watch && watch->output)
			watch->output(watch, buf, (size_t)got);
	}
	if (timed_out)
		subprocess_kill(&c);
	status = subprocess_finish(&c);
	return timed_out ? SUBPROCESS_TIMED_OUT : status;
}
