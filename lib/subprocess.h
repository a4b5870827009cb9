#ifndef SUBPROCESS_H
#define SUBPROCESS_H
/*
 * Running other programs: the one place the lab starts a process.
 *
 * Children get an argv vector (never a shell), their own process group,
 * and stdin from /dev/null. With SUBPROCESS_CAPTURE their stdout and
 * stderr arrive merged on child.out_fd, which the caller reads (and
 * subprocess_finish closes). A deadline kills the whole group.
 *
 * A child's group dies with the lab, however the lab dies: on a fatal
 * signal the lab kills it, and on SIGKILL the group's first process, a
 * small watcher forked from the lab that starts the program and passes
 * on its exit status, is told by the kernel and kills the group. child.pid
 * is the watcher's, which is also the group's id; the watcher lives until
 * subprocess_finish() or subprocess_kill() kills the group.
 *
 * Results: subprocess_start() returns -1 only when the program could not be
 * started (missing binary, fork failure) and says so, or, silently with
 * errno EINTR, when the lab is stopping on a signal (fatal_signal_pending(),
 * tempfile.h); once started, the outcome is an exit status: the exit code,
 * or 128 + signal number.
 */
#include <stddef.h>
#include <sys/types.h>

struct strbuf;

enum subprocess_flags {
	SUBPROCESS_CAPTURE = 1 << 0,	/* stdout+stderr to out_fd */
	SUBPROCESS_SILENT = 1 << 1,	/* stdout+stderr to /dev/null */
	/*
	 * Whatever the program starts ends with it, even what left its
	 * process group (setsid, a double fork): the watcher is their
	 * subreaper (PR_SET_CHILD_SUBREAPER), and when the program ends or
	 * the child is killed it kills every process below it before it
	 * passes on the status. Not for programs that leave a daemon on
	 * purpose (ssh's ControlPersist master).
	 */
	SUBPROCESS_CONTAIN = 1 << 2,
};

struct child {
	pid_t pid;
	int out_fd;
	int status_fd;		/* the program's wait status, from the watcher */
	int contained;		/* started with SUBPROCESS_CONTAIN */
};

#define SUBPROCESS_TIMED_OUT (-2)

int subprocess_start(struct child *c, char *const *argv, const char *cwd,
		     unsigned flags);
/* SIGKILL the child's whole process group (and, contained, all below it). */
void subprocess_kill(struct child *c);
/*
 * What a SUBPROCESS_CAPTURE child printed next, waiting timeout_ms at most
 * (-1: as long as it takes): the count of bytes put in buf, 0 at the end of
 * its output (or when it cannot be read), -1 when nothing came in time, a
 * signal came first or poll failed (the caller looks at its deadline and
 * asks again).
 */
ssize_t subprocess_read(const struct child *c, char *buf, size_t len, int timeout_ms);
/* 1 once the program has ended (subprocess_finish() then does not wait), else 0. */
int subprocess_ended(struct child *c);
/* Close out_fd, reap the child, return its exit status. */
int subprocess_finish(struct child *c);

/*
 * Run argv to completion, appending its merged output to *out (may be
 * NULL: output discarded). timeout_s <= 0 means none. Returns the exit
 * status, -1 when it could not start, SUBPROCESS_TIMED_OUT when the deadline
 * passed (the group is killed and reaped first).
 */
int subprocess_run(char *const *argv, const char *cwd, struct strbuf *out,
		   double timeout_s);

/*
 * Whoever watches a subprocess_run_watched(): given each piece of output as
 * it arrives, and ticked about once a second while the program is quiet.
 */
struct subprocess_watch {
	void (*output)(struct subprocess_watch *w, const char *buf, size_t len);
	void (*tick)(struct subprocess_watch *w);
};

/* subprocess_run() with a watch (NULL: none), for a progress line. */
int subprocess_run_watched(char *const *argv, const char *cwd, struct strbuf *out,
			   double timeout_s, struct subprocess_watch *watch);

/*
 * subprocess_run_watched() with env, "NAME=VALUE" strings up to a NULL, set
 * in the program's environment over the lab's own (NULL: the lab's alone).
 * The lab's environment is never changed.
 */
int subprocess_run_env(char *const *argv, char *const *env, const char *cwd, struct strbuf *out,
		       double timeout_s, struct subprocess_watch *watch);

/* Seconds on a monotonic clock. */
double now_monotonic(void);
/* Seconds since the epoch. */
double now_wall(void);

#endif
