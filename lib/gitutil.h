#ifndef GITUTIL_H
#define GITUTIL_H
/*
 * The one place where libgit2's errors become lab messages, and where the
 * library is started and stopped.
 *
 * lab_git_init() and lab_git_shutdown() wrap git_libgit2_init() and
 * git_libgit2_shutdown(), which count: every successful lab_git_init() needs
 * exactly one lab_git_shutdown(). A module that uses libgit2 for one call
 * (config_load()) may bracket that call with them; a long-lived user (a
 * checkout) does it once around all its calls.
 *
 * lab_git_error() reads the calling thread's last libgit2 error, so call it
 * straight after the failing libgit2 function and before lab_git_shutdown().
 */

/* 0, or -1 after an error message. */
int lab_git_init(void);
void lab_git_shutdown(void);

/*
 * Print "lab: <what>: <libgit2's message>" and return -1, so that callers can
 * write `return lab_git_error("cannot resolve 'v6.10-rc1'");`.
 */
int lab_git_error(const char *what);
/* lab_git_error() of what formatted: lab_git_errorf("cannot resolve '%s'", ref). */
__attribute__((format(printf, 1, 2)))
int lab_git_errorf(const char *fmt, ...);
/*
 * libgit2's last message on this thread without its full stop, or
 * fallback when it has none; valid until this thread's next call here.
 */
const char *lab_git_message(const char *fallback);

#endif
