#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomicfile.h"
#include "log.h"
#include "strbuf.h"

static int fail(const char *path, const char *what, int err)
{
	if (what)
		return error("cannot write %s '%s': %s", what, path, strerror(err));
	return error("cannot write '%s': %s", path, strerror(err));
}

/* The rename is an entry of the directory: without this a crash may undo it. */
static int sync_dir(const char *path)
{
	char *copy = strdup(path);
	int fd, ret = 0;

	if (!copy)
		return -1;
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || (fsync(fd) && errno != EINVAL))
		ret = -1;
	if (fd >= 0) {
		int err = errno;
		close(fd);
		errno = err;
	}
	free(copy);
	return ret;
}

int atomic_write(const char *path, mode_t mode, unsigned flags, const char *what,
		 atomic_fill_fn *fill, void *data)
{
	struct strbuf tmp = STRBUF_INIT;
	int fd, ret = -1;

	strbuf_addf(&tmp, "%s.tmp.XXXXXX", path);
	fd = mkostemp(tmp.buf, O_CLOEXEC);
	if (fd < 0) {
		fail(path, what, errno);
		strbuf_reset(&tmp);
		goto out;
	}
	errno = 0;
	if (fill(fd, data) < 0 || fchmod(fd, mode) < 0 ||
	    ((flags & ATOMIC_DURABLE) && fsync(fd) < 0)) {
		fail(path, what, errno ? errno : EIO);
		goto out;
	}
	ret = close(fd);
	fd = -1;
	if (ret < 0 || rename(tmp.buf, path) < 0) {
		ret = fail(path, what, errno);
		goto out;
	}
	strbuf_reset(&tmp);
	if ((flags & ATOMIC_DURABLE) && sync_dir(path) < 0)
		ret = fail(path, what, errno);
out:
	if (fd >= 0)
		close(fd);
	if (tmp.len)
		unlink(tmp.buf);
	strbuf_release(&tmp);
	return ret;
}

struct buf {
	const char *p;
	size_t len;
};

static int fill_buf(int fd, void *data)
{
	struct buf *b = data;
	const char *p = b->p;
	size_t left = b->len;

	while (left) {
		ssize_t n = write(fd, p, left);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!n)
				errno = EIO;
			return -1;
		}
		p += n;
		left -= (size_t)n;
	}
	return 0;
}

int atomic_write_buf(const char *path, mode_t mode, unsigned flags, const char *what,
		     const void *buf, size_t len)
{
	struct buf b = { buf, len };

	return atomic_write(path, mode, flags, what, fill_buf, &b);
}

int atomic_write_at(int dirfd, const char *name, const char *shown, mode_t mode,
		    unsigned flags, const char *what, const void *buf, size_t len)
{
	struct strbuf tmp = STRBUF_INIT;
	struct buf b = { buf, len };
	int fd = -1, ret = -1;

	if (strchr(name, '/')) {
		fail(shown, what, EINVAL);
		goto out;
	}
	/* mkostemp() takes a path: the name's random part is made here */
	for (int tries = 0; fd < 0 && tries < 100; tries++) {
		unsigned int r;

		if (getentropy(&r, sizeof(r)))
			r = (unsigned int)getpid() * 2654435761u + (unsigned int)tries;
		strbuf_reset(&tmp);
		strbuf_addf(&tmp, "%s.tmp.%08x", name, r);
		fd = openat(dirfd, tmp.buf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		fail(shown, what, errno);
		strbuf_reset(&tmp);
		goto out;
	}
	errno = 0;
	if (fill_buf(fd, &b) < 0 || fchmod(fd, mode) < 0 ||
	    ((flags & ATOMIC_DURABLE) && fsync(fd) < 0)) {
		fail(shown, what, errno ? errno : EIO);
		goto out;
	}
	ret = close(fd);
	fd = -1;
	if (ret < 0 || renameat(dirfd, tmp.buf, dirfd, name) < 0) {
		ret = fail(shown, what, errno);
		goto out;
	}
	strbuf_reset(&tmp);
	if ((flags & ATOMIC_DURABLE) && fsync(dirfd) < 0 && errno != EINVAL)
		ret = fail(shown, what, errno);
out:
	if (fd >= 0)
		close(fd);
	if (tmp.len)
		unlinkat(dirfd, tmp.buf, 0);
	strbuf_release(&tmp);
	return ret;
}
