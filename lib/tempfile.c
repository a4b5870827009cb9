#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "log.h"
#include "strbuf.h"
#include "tempfile.h"

/*
 * The handler reads these while the lab may be changing them: a slot's
 * path is written before it is marked active and cleared only after it is
 * marked inactive, and neither array is ever reallocated.
 */
#define MAX_TEMPFILES 32
#define MAX_HOOKS 4

static struct {
	char *volatile path;
	volatile sig_atomic_t active;
} files[MAX_TEMPFILES];

static void (*volatile hooks[MAX_HOOKS])(void);
static pid_t owner;
static volatile sig_atomic_t deferring, pending;

static const int fatal_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };

static void remove_all(void)
{
	/* a forked child that has not exec'd yet is not the lab */
	if (getpid() != owner)
		return;
	for (int i = 0; i < MAX_TEMPFILES; i++)
		if (files[i].active)
			unlink(files[i].path);
}

static void fatal_handler(int sig)
{
	for (int i = 0; i < MAX_HOOKS; i++)
		if (hooks[i])
			hooks[i]();
	/* a forked child of the lab (a pool's worker) is not the one to stop */
	if (deferring && !pending && (sig == SIGINT || sig == SIGTERM) && getpid() == owner) {
		pending = sig;
		return;
	}
	remove_all();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void install(void)
{
	struct sigaction sa, old;

	if (owner == getpid())
		return;
	owner = getpid();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fatal_handler;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < ARRAY_SIZE(fatal_signals); i++) {
		/* a signal the lab was started with ignored (nohup) stays ignored */
		if (sigaction(fatal_signals[i], NULL, &old) || old.sa_handler != SIG_DFL)
			continue;
		sigaction(fatal_signals[i], &sa, NULL);
	}
	atexit(remove_all);
}

void fatal_signal_defer(int on)
{
	install();
	deferring = on;
}

int fatal_signal_pending(void)
{
	return pending;
}

void fatal_signal_die(void)
{
	int sig = pending ? pending : SIGTERM;

	remove_all();
	signal(sig, SIG_DFL);
	raise(sig);
	_exit(128 + sig);
}

void on_fatal_signal(void (*fn)(void))
{
	install();
	for (int i = 0; i < MAX_HOOKS; i++) {
		if (hooks[i] == fn)
			return;
		if (!hooks[i]) {
			hooks[i] = fn;
			return;
		}
	}
	warning("too many cleanup handlers: one is left out");
}

int tempfile_register(const char *path)
{
	install();
	for (int i = 0; i < MAX_TEMPFILES; i++) {
		char *copy;
		if (files[i].active || files[i].path)
			continue;
		copy = strdup(path);
		if (!copy)
			return error("out of memory");
		files[i].path = copy;
		files[i].active = 1;
		return 0;
	}
	return error("too many temporary files: cannot register '%s'", path);
}

void tempfile_delete(const char *path)
{
	for (int i = 0; i < MAX_TEMPFILES; i++) {
		if (!files[i].active || strcmp(files[i].path, path))
			continue;
		unlink(files[i].path);
		files[i].active = 0;
		free((char *)files[i].path);
		files[i].path = NULL;
		return;
	}
	unlink(path);
}

/* The pid in "<anything>-<pid>-<anything>", the second field from the end; 0 if none. */
static pid_t name_pid(const char *name)
{
	const char *last = strrchr(name, '-'), *p;
	long pid = 0;

	if (!last || last == name)
		return 0;
	for (p = last - 1; p > name && *p != '-'; p--)
		;
	if (*p != '-' || p + 1 == last)
		return 0;
	for (p++; p < last; p++) {
		if (*p < '0' || *p > '9' || pid > 1 << 22)
			return 0;
		pid = pid * 10 + (*p - '0');
	}
	return (pid_t)pid;
}

int tempfile_remove_stale(const char *dir, const char *prefix)
{
	struct strbuf path = STRBUF_INIT;
	struct dirent *e;
	DIR *d = opendir(dir);
	size_t plen = strlen(prefix);
	int removed = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		pid_t pid;
		if (strncmp(e->d_name, prefix, plen))
			continue;
		pid = name_pid(e->d_name + plen);
		/* EPERM: alive, someone else's */
		if (pid <= 0 || !kill(pid, 0) || errno != ESRCH)
			continue;
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", dir, e->d_name);
		if (!unlink(path.buf))
			removed++;
	}
	closedir(d);
	strbuf_release(&path);
	return removed;
}
