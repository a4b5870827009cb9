/* What a killed kernel build left cut off, found and removed (build-sweep.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build-sweep.h"
#include "log.h"
#include "strbuf.h"

#define KBUILD_MARKER ".lab-building"

struct kbuild_sweep {
	struct timespec since;
	size_t removed;
};

static int newer_or_same(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec >= b->tv_nsec);
}

static int has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* Does the file end with a newline? */
static int ends_line(const char *path)
{
	char c = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ok;

	if (fd < 0)
		return 0;
	ok = lseek(fd, -1, SEEK_END) >= 0 && read(fd, &c, 1) == 1 && c == '\n';
	close(fd);
	return ok;
}

static void sweep_remove(struct kbuild_sweep *sw, const char *path)
{
	if (!unlink(path))
		sw->removed++;
	else if (errno != ENOENT)
		warning("cannot remove '%s': %s", path, strerror(errno));
}

/* A target in dir (name) and its .cmd file, unless the pair is whole. */
static void sweep_target(struct kbuild_sweep *sw, const char *dir, const char *name)
{
	struct strbuf target = STRBUF_INIT, cmd = STRBUF_INIT;
	struct stat ts, cs;

	strbuf_addf(&target, "%s/%s", dir, name);
	strbuf_addf(&cmd, "%s/.%s.cmd", dir, name);
	if (!stat(target.buf, &ts) && !stat(cmd.buf, &cs) &&
	    newer_or_same(&cs.st_mtim, &ts.st_mtim) && ends_line(cmd.buf))
		goto out;
	sweep_remove(sw, target.buf);
	sweep_remove(sw, cmd.buf);
out:
	strbuf_release(&target);
	strbuf_release(&cmd);
}

static void sweep_dir(struct kbuild_sweep *sw, const char *dir)
{
	struct strbuf path = STRBUF_INIT, name = STRBUF_INIT;
	struct dirent *e;
	struct stat st;
	DIR *d = opendir(dir);

	if (!d) {
		warning("cannot read '%s': %s", dir, strerror(errno));
		return;
	}
	while ((e = readdir(d))) {
		const char *n = e->d_name;

		if (!strcmp(n, ".") || !strcmp(n, ".."))
			continue;
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", dir, n);
		if (lstat(path.buf, &st))
			continue;
		if (S_ISDIR(st.st_mode)) {
			sweep_dir(sw, path.buf);
			continue;
		}
		if (!S_ISREG(st.st_mode) || !newer_or_same(&st.st_mtim, &sw->since))
			continue;
		strbuf_reset(&name);
		if (n[0] == '.' && has_suffix(n, ".cmd") && strlen(n) > 5)
			strbuf_add(&name, n + 1, strlen(n) - 5);	/* .foo.o.cmd: foo.o */
		else if (has_suffix(n, ".o") || has_suffix(n, ".a"))
			strbuf_addstr(&name, n);
		if (name.len)
			sweep_target(sw, dir, name.buf);
	}
	closedir(d);
	strbuf_release(&path);
	strbuf_release(&name);
}

/* What a killed make left in obj is removed; then the marker for this build is set. */
int kbuild_begin(const char *obj)
{
	struct strbuf marker = STRBUF_INIT;
	struct stat st;
	int fd, ret;

	strbuf_addf(&marker, "%s/" KBUILD_MARKER, obj);
	if (!stat(marker.buf, &st)) {
		struct kbuild_sweep sw = { st.st_mtim, 0 };

		sweep_dir(&sw, obj);
		warning("the last build in '%s' did not finish: removed %zu unfinished files", obj,
			sw.removed);
	}
	/* O_TRUNC: an old marker's time becomes this build's */
	fd = open(marker.buf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || futimens(fd, NULL))
		ret = error("cannot write '%s': %s", marker.buf, strerror(errno));
	else
		ret = 0;
	if (fd >= 0)
		close(fd);
	strbuf_release(&marker);
	return ret;
}

/*
 * The make ended by itself (status 0, or its own failure): its files are
 * whole. A deadline or a signal leaves the marker for the next build.
 */
void kbuild_end(const char *obj, int status)
{
	struct strbuf marker = STRBUF_INIT;

	if (status < 0 || status >= 128)
		return;
	strbuf_addf(&marker, "%s/" KBUILD_MARKER, obj);
	if (unlink(marker.buf) && errno != ENOENT)
		warning("cannot remove '%s': %s", marker.buf, strerror(errno));
	strbuf_release(&marker);
}
