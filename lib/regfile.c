#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "regfile.h"
#include "strbuf.h"

const char *file_kind(mode_t mode)
{
	return S_ISREG(mode) ? "a regular file" : S_ISDIR(mode) ? "a directory" :
	       S_ISFIFO(mode) ? "a fifo" : S_ISCHR(mode) ? "a character device" :
	       S_ISBLK(mode) ? "a block device" : S_ISSOCK(mode) ? "a socket" :
	       S_ISLNK(mode) ? "a symlink" : "something else";
}

static int refuse(int fd, int err, struct strbuf *why, const char *fmt, const char *what,
		  const char *path, const char *detail)
{
	if (fd >= 0)
		close(fd);
	if (why)
		strbuf_addf(why, fmt, what ? what : "file", path, detail);
	errno = err;
	return -1;
}

int regfile_open(const char *path, enum regfile_flags flags, struct stat *st,
		 const char *what, struct strbuf *why)
{
	int oflags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
	struct stat own;
	int fd, fl;

	if (!st)
		st = &own;
	if (flags & REGFILE_NOFOLLOW)
		oflags |= O_NOFOLLOW;
	fd = open(path, oflags);
	if (fd < 0 || fstat(fd, st))
		return refuse(fd, errno, why, "cannot read %s '%s': %s", what, path,
			      strerror(errno));
	if (S_ISFIFO(st->st_mode) && (flags & REGFILE_PIPE)) {
		/*
		 * Opened without blocking, a fifo with no writer yet reads
		 * as empty: wait for the writer, which is what the user who
		 * named it meant. On this descriptor, not a second open: a
		 * writer woken by the first may have written and gone
		 * before a second open, which would then wait forever. poll
		 * says POLLIN for its data, POLLHUP for a writer come and
		 * gone without any, and nothing while none has come.
		 */
		struct pollfd p = { .fd = fd, .events = POLLIN };

		while (poll(&p, 1, -1) < 0)
			if (errno != EINTR)
				return refuse(fd, errno, why, "cannot read %s '%s': %s", what,
					      path, strerror(errno));
	}
	if (!S_ISREG(st->st_mode) && !(S_ISFIFO(st->st_mode) && (flags & REGFILE_PIPE)))
		return refuse(fd, S_ISDIR(st->st_mode) ? EISDIR : EINVAL, why,
			      "%s '%s' is %s, not a regular file", what, path,
			      file_kind(st->st_mode));
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0)
		return refuse(fd, errno, why, "cannot read %s '%s': %s", what, path,
			      strerror(errno));
	return fd;
}

int regfile_read(struct strbuf *sb, const char *path, size_t max, enum regfile_flags flags,
		 const char *what, struct strbuf *why)
{
	int fd = regfile_open(path, flags, NULL, what, why), ret, saved;

	if (fd < 0)
		return -1;
	ret = strbuf_read_fd(sb, fd, max);
	saved = errno;
	close(fd);
	if (ret && why)
		strbuf_addf(why, "cannot read %s '%s': %s", what ? what : "file", path,
			    strerror(saved));
	errno = saved;
	return ret;
}

int strbuf_read_file(struct strbuf *sb, const char *path, size_t max)
{
	return regfile_read(sb, path, max, 0, NULL, NULL);
}
