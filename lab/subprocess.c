#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "strbuf.h"
#include "subprocess.h"

extern char **environ;

/*
 * Children run in their own process groups, so a ^C or kill of the lab
 * would leave them running: the lab kills the groups it started, then
 * dies of the same signal.
 */
#define MAX_LIVE 16
static volatile sig_atomic_t live[MAX_LIVE];

static void on_fatal_signal(int sig)
{
	for (int i = 0; i < MAX_LIVE; i++)
		if (live[i] > 0)
			kill(-(pid_t)live[i], SIGKILL);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void track(pid_t pid, int add)
{
	static int installed;
	if (!installed) {
		signal(SIGINT, on_fatal_signal);
		signal(SIGTERM, on_fatal_signal);
		signal(SIGHUP, on_fatal_signal);
		installed = 1;
	}
	for (int i = 0; i < MAX_LIVE; i++) {
		if (add && live[i] == 0) {
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

int subprocess_start(struct child *c, char *const *argv, const char *cwd,
		     unsigned flags)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	int pipefd[2] = { -1, -1 };
	int ret = -1, err;

	c->pid = -1;
	c->out_fd = -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);

	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (flags & SUBPROCESS_CAPTURE) {
		if (pipe2(pipefd, O_CLOEXEC)) {
			error("cannot create pipe for '%s': %s", argv[0], strerror(errno));
			goto out;
		}
		posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
		posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
	} else if (flags & SUBPROCESS_SILENT) {
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
		posix_spawn_file_actions_adddup2(&fa, 1, 2);
	}
	if (cwd)
		posix_spawn_file_actions_addchdir_np(&fa, cwd);

	err = posix_spawnp(&c->pid, argv[0], &fa, &attr, argv, environ);
	if (err) {
		error("cannot start '%s': %s", argv[0], strerror(err));
		c->pid = -1;
		goto out;
	}
	track(c->pid, 1);
	if (pipefd[1] >= 0) {
		close(pipefd[1]);
		pipefd[1] = -1;
		c->out_fd = pipefd[0];
		pipefd[0] = -1;
	}
	ret = 0;
out:
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	return ret;
}

void subprocess_kill(struct child *c)
{
	if (c->pid > 0)
		kill(-c->pid, SIGKILL);
}

int subprocess_finish(struct child *c)
{
	int status;

	if (c->out_fd >= 0) {
		close(c->out_fd);
		c->out_fd = -1;
	}
	if (c->pid <= 0)
		return -1;
	while (waitpid(c->pid, &status, 0) < 0) {
		if (errno != EINTR) {
			c->pid = -1;
			return -1;
		}
	}
	/* Whatever the child left behind in its group goes with it. */
	kill(-c->pid, SIGKILL);
	track(c->pid, 0);
	c->pid = -1;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return -1;
}

int subprocess_run(char *const *argv, const char *cwd, struct strbuf *out,
		   double timeout_s)
{
	struct child c;
	double deadline = timeout_s > 0 ? now_monotonic() + timeout_s : 0;
	int timed_out = 0, status;

	if (subprocess_start(&c, argv, cwd, SUBPROCESS_CAPTURE))
		return -1;
	for (;;) {
		char buf[8192];
		struct pollfd pfd = { .fd = c.out_fd, .events = POLLIN };
		int wait_ms = -1, n;
		ssize_t got;

		if (deadline) {
			double left = deadline - now_monotonic();
			if (left <= 0) {
				timed_out = 1;
				break;
			}
			wait_ms = (int)(left * 1000) + 1;
		}
		n = poll(&pfd, 1, wait_ms);
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			continue;
		got = read(c.out_fd, buf, sizeof(buf));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		if (out)
			strbuf_add(out, buf, (size_t)got);
	}
	if (timed_out)
		subprocess_kill(&c);
	status = subprocess_finish(&c);
	return timed_out ? SUBPROCESS_TIMED_OUT : status;
}
