/*
 * lib/subprocess.c with real programs: exit statuses as the header says
 * them (the code, 128 + a signal, -1 when the program could not start, a
 * deadline), stdout and stderr merged, stdin from /dev/null, the cwd, an
 * environment set for one program, and the process group: killed at a deadline, at the end of the program,
 * and when the lab itself dies of SIGTERM or SIGKILL.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "strbuf.h"
#include "subprocess.h"
#include "tap.h"

/* Run argv, its output and what the lab said on stderr kept apart. */
static int run(char *const *argv, const char *cwd, double timeout_s, struct strbuf *out,
	       struct strbuf *err)
{
	char path[] = "/tmp/test-subprocess.XXXXXX";
	int fd = mkstemp(path), saved = dup(2), ret;
	char buf[512];
	ssize_t n;

	unlink(path);
	fflush(stderr);
	dup2(fd, 2);
	ret = subprocess_run(argv, cwd, out, timeout_s);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	lseek(fd, 0, SEEK_SET);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (err)
			strbuf_add(err, buf, (size_t)n);
	close(fd);
	return ret;
}

static int sh(const char *script, double timeout_s, struct strbuf *out)
{
	char *argv[] = { "sh", "-c", (char *)script, NULL };

	return run(argv, NULL, timeout_s, out, NULL);
}

/*
 * Gone: no process left in the group (or with the pid). Orphans come to
 * this process, a subreaper, and are reaped here, so that a zombie is not
 * taken for a live process.
 */
static int gone_within(pid_t who, double seconds)
{
	double until = now_monotonic() + seconds;

	do {
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (kill(who, 0) && errno == ESRCH)
			return 1;
		usleep(20000);
	} while (now_monotonic() < until);
	return 0;
}

static void test_statuses(void)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	char *missing[] = { "/nonexistent/program", NULL };
	char *pwd[] = { "pwd", NULL };

	is_int(sh("exit 3", 10, NULL), 3, "the program's exit code");
	is_int(sh("exit 0", 10, NULL), 0, "exit 0 is 0");
	is_int(sh("kill -TERM $$", 10, NULL), 128 + SIGTERM, "a death by SIGTERM is 128 + 15");
	is_int(sh("kill -KILL $$", 10, NULL), 128 + SIGKILL, "a death by SIGKILL is 128 + 9");

	is_int(run(missing, NULL, 10, &out, &err), -1, "a missing program could not start: -1");
	is_str(strbuf_str(&err), "lab: cannot start '/nonexistent/program': No such file or directory\n",
	       "... and it says so, naming the program and why");
	is_int(out.len, 0, "... with no output");
	strbuf_reset(&err);
	is_int(run(pwd, "/nonexistent/dir", 10, &out, &err), -1, "a cwd that does not exist: -1");
	is_str(strbuf_str(&err), "lab: cannot start 'pwd': No such file or directory\n",
	       "... said as the program's start failing");
	strbuf_reset(&err);

	is_int(run(pwd, "/tmp", 10, &out, &err), 0, "a program in a cwd");
	is_str(strbuf_str(&out), "/tmp\n", "... runs there");
	is_int(err.len, 0, "... and the lab says nothing");
	strbuf_release(&out);
	strbuf_release(&err);
}

static void test_output(void)
{
	struct strbuf out = STRBUF_INIT;

	is_int(sh("echo one; echo two >&2; echo three", 10, &out), 0, "stdout and stderr");
	is_str(strbuf_str(&out), "one\ntwo\nthree\n", "... arrive merged, in order");
	strbuf_reset(&out);
	/* cat would wait for input forever on a terminal or an open pipe */
	is_int(sh("cat; echo read $(cat | wc -c) bytes", 10, &out), 0, "stdin");
	is_str(strbuf_str(&out), "read 0 bytes\n", "... is /dev/null");
	strbuf_reset(&out);
	is_int(sh("head -c 300000 /dev/zero | tr '\\0' x", 10, &out), 0, "a large output");
	is_int(out.len, 300000, "... arrives whole");
	strbuf_release(&out);
}

static void test_deadline(void)
{
	struct strbuf out = STRBUF_INIT;
	double t0 = now_monotonic(), took;
	pid_t bg;

	/* the background sleep keeps the output open: only the deadline ends this */
	is_int(sh("sleep 100 & echo $!; sleep 100", 0.5, &out), SUBPROCESS_TIMED_OUT,
	       "past its deadline: SUBPROCESS_TIMED_OUT");
	took = now_monotonic() - t0;
	ok(took >= 0.5 && took < 5, "... at the deadline, not at the program's end");
	bg = (pid_t)atoi(strbuf_str(&out));
	ok(bg > 0, "... the output before it kept");
	ok(bg > 0 && gone_within(bg, 5), "... and the program's own child killed with its group");
	strbuf_reset(&out);

	t0 = now_monotonic();
	is_int(sh("sleep 100 >/dev/null 2>&1 & echo $!", 0, &out), 0,
	       "a program that leaves a child behind: its exit status");
	bg = (pid_t)atoi(strbuf_str(&out));
	ok(now_monotonic() - t0 < 5, "... as soon as it ends");
	ok(bg > 0 && gone_within(bg, 5), "... and what it left in its group is killed");
	strbuf_release(&out);
}

static void test_start_finish(void)
{
	char *quiet[] = { "sh", "-c", "echo not here; echo nor here >&2; exit 4", NULL };
	struct child c;

	ok(!subprocess_start(&c, quiet, NULL, SUBPROCESS_SILENT), "subprocess_start, silent");
	is_int(c.out_fd, -1, "... no output to read");
	ok(c.pid > 0 && getpgid(c.pid) == c.pid, "... a group of its own, its id child.pid");
	is_int(subprocess_finish(&c), 4, "subprocess_finish: the exit status");
	is_int(c.pid, -1, "... and the child is forgotten");
}

/*
 * A lab that starts a long program and is then killed: the program's
 * group must go with it. The lab is a forked copy of this process; it
 * sends the group's id back and waits to die.
 */
static void test_lab_dies(int sig, const char *name)
{
	char *forever[] = { "sh", "-c", "sleep 100 & sleep 100", NULL };
	char what[128];
	int fds[2];
	pid_t lab, group = 0;

	if (pipe(fds))
		return;
	lab = fork();
	if (lab == 0) {
		struct child c;
		close(fds[0]);
		if (subprocess_start(&c, forever, NULL, SUBPROCESS_SILENT))
			_exit(1);
		if (write(fds[1], &c.pid, sizeof(c.pid)) != sizeof(c.pid))
			_exit(1);
		for (;;)
			pause();
	}
	close(fds[1]);
	if (read(fds[0], &group, sizeof(group)) != sizeof(group))
		group = 0;
	close(fds[0]);
	snprintf(what, sizeof(what), "the lab killed by %s: the program started", name);
	ok(group > 0 && !kill(-group, 0), what);
	usleep(100000);		/* sh has started its sleeps */
	kill(lab, sig);
	waitpid(lab, NULL, 0);
	snprintf(what, sizeof(what), "the lab killed by %s: the program's group dies with it", name);
	ok(group > 0 && gone_within(-group, 5), what);
}

static void test_environment(void)
{
	struct strbuf out = STRBUF_INIT;
	char *argv[] = { "sh", "-c", "echo \"$LAB_T_A|$LAB_T_B|$LAB_T_C\"", NULL };
	char *env[] = { "LAB_T_A=set", "LAB_T_B=over", "LAB_T_C=", NULL };

	setenv("LAB_T_B", "lab's", 1);
	setenv("LAB_T_D", "kept", 1);
	is_int(subprocess_run_env(argv, env, NULL, &out, 10, NULL), 0, "a program with an environment");
	is_str(strbuf_str(&out), "set|over|\n", "... gets its names, over the lab's own");
	ok(!strcmp(getenv("LAB_T_B"), "lab's") && !getenv("LAB_T_A"), "... and the lab's is unchanged");
	strbuf_reset(&out);
	argv[2] = "echo \"$LAB_T_B $LAB_T_D\"";
	is_int(subprocess_run_env(argv, NULL, NULL, &out, 10, NULL), 0, "no environment given");
	is_str(strbuf_str(&out), "lab's kept\n", "... is the lab's");
	unsetenv("LAB_T_B");
	unsetenv("LAB_T_D");
	strbuf_release(&out);
}

/* The pid the program wrote to path, once it has: 0 after 5 s without. */
static pid_t pid_in(const char *path)
{
	double until = now_monotonic() + 5;
	long pid = 0;

	while (now_monotonic() < until) {
		FILE *f = fopen(path, "r");
		int got = f && fscanf(f, "%ld\n", &pid) == 1;

		if (f)
			fclose(f);
		if (got && pid > 0)
			return (pid_t)pid;
		usleep(10000);
	}
	return 0;
}

/*
 * SUBPROCESS_CONTAIN: what the program left in a session of its own
 * goes with it; a descendant that cannot be got rid of (here a zombie
 * its tracer, this process, keeps from its parent) delays the status by
 * a bounded time, not for ever.
 */
static void test_contain(void)
{
	char pidfile[] = "/tmp/test-subprocess-pid.XXXXXX";
	char script[256];
	char *argv[] = { "sh", "-c", script, NULL };
	struct child c;
	double t0;
	pid_t pid;
	int fd = mkstemp(pidfile);

	if (fd >= 0)
		close(fd);
	unlink(pidfile);
	snprintf(script, sizeof(script), "setsid sleep 100 & echo $! >%s.tmp && mv %s.tmp %s",
		 pidfile, pidfile, pidfile);
	ok(!subprocess_start(&c, argv, NULL, SUBPROCESS_SILENT | SUBPROCESS_CONTAIN),
	   "contained: a program that leaves a process in a session of its own");
	is_int(subprocess_finish(&c), 0, "... ends");
	pid = pid_in(pidfile);
	ok(pid > 0 && gone_within(pid, 5), "... and what it left is killed");
	unlink(pidfile);

	snprintf(script, sizeof(script), "setsid sleep 100 & echo $! >%s.tmp && mv %s.tmp %s; "
		 "sleep 1", pidfile, pidfile, pidfile);
	ok(!subprocess_start(&c, argv, NULL, SUBPROCESS_SILENT | SUBPROCESS_CONTAIN),
	   "contained: a program that leaves a process the watcher cannot reap");
	pid = pid_in(pidfile);
	ok(pid > 0 && !ptrace(PTRACE_SEIZE, pid, NULL, NULL), "... held by a tracer");
	t0 = now_monotonic();
	alarm(60);	/* the test fails, rather than hangs, on an unbounded wait */
	is_int(subprocess_finish(&c), 0, "... ends all the same");
	alarm(0);
	ok(now_monotonic() - t0 < 15, "... within the watcher's bound");
	if (pid > 0)
		waitpid(pid, NULL, __WALL);
	ok(pid > 0 && gone_within(pid, 5), "... and what it left is killed");
	unlink(pidfile);
}

int main(void)
{
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	test_statuses();
	test_output();
	test_environment();
	test_deadline();
	test_start_finish();
	test_contain();
	test_lab_dies(SIGTERM, "SIGTERM");
	test_lab_dies(SIGKILL, "SIGKILL");
	return done_testing();
}
