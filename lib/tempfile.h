#ifndef TEMPFILE_H
#define TEMPFILE_H
/*
 * Files that must not outlive the lab (the initramfs of a boot), and work
 * to do when a fatal signal ends it.
 *
 * A registered temp file is removed by tempfile_delete(), at exit, and on
 * SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGPIPE; then the signal takes its
 * default action, so the lab still dies of it. Only kill -9 escapes: the
 * next lab removes what a dead one left (tempfile_remove_stale()).
 *
 * Work done on a fatal signal runs inside a signal handler: it may only
 * call async-signal-safe functions (kill, unlink) on data it does not
 * change while the signal can arrive.
 */

/* Run fn (async-signal-safe) when a fatal signal arrives; at most a few. */
void on_fatal_signal(void (*fn)(void));

/*
 * For a command that can stop between two boots with all it measured
 * stored (lab ab, lab run): while on, SIGINT and SIGTERM run the work of
 * on_fatal_signal() (the children die at once) but do not end the lab;
 * fatal_signal_pending() then names the signal, no new child starts
 * (subprocess.h), and the command stops at the next point it can, says
 * how to go on and calls fatal_signal_die(). A second signal ends the lab
 * at once.
 */
void fatal_signal_defer(int on);
/* The signal that came while deferred, 0 when none. */
int fatal_signal_pending(void);
/* Remove the temp files and die of the pending signal (SIGTERM when none). */
__attribute__((noreturn)) void fatal_signal_die(void);

/* Remove path on every exit. Returns 0, or -1 when out of slots (said). */
int tempfile_register(const char *path);
/* Unlink a registered temp file now and forget it. */
void tempfile_delete(const char *path);

/*
 * In dir, remove files named <prefix><anything>-<pid>-<anything> whose
 * pid is not a live process: what a lab killed by SIGKILL left behind.
 * Returns the number removed.
 */
int tempfile_remove_stale(const char *dir, const char *prefix);

#endif
