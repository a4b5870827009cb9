#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sysfs.h"

int sysfs_read(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	int fd, ret = 0;

	if (!size)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (len < size - 1) {
		ssize_t n = read(fd, buf + len, size - 1 - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			goto out;
		}
		if (!n)
			break;
		len += (size_t)n;
	}
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		len--;
	ret = (int)len;
out:
	buf[len] = '\0';
	close(fd);
	return ret;
}

int sysfs_read_long(const char *path, long *out)
{
	char buf[64], *end;
	int ret = sysfs_read(path, buf, sizeof(buf));

	if (ret < 0)
		return ret;
	errno = 0;
	*out = strtol(buf, &end, 10);
	if (end == buf || errno || (*end && *end != ' ' && *end != '\n'))
		return -EINVAL;
	return 0;
}

int sysfs_write(const char *path, const char *value)
{
	size_t len = strlen(value), done = 0;
	ssize_t n = 0;
	int fd, ret = 0;

	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* a short write goes on: set_ftrace_filter takes one name a write */
	while (done < len) {
		n = write(fd, value + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	if (n < 0)
		ret = -errno;
	else if (done != len)
		ret = -EIO;
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

int sysfs_write_long(const char *path, long value)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%ld", value);

	if (n < 0 || (size_t)n >= sizeof(buf))
		return -EINVAL;
	return sysfs_write(path, buf);
}

int sysfs_exists(const char *path)
{
	return !access(path, F_OK);
}

int lines_open(struct lines *r, const char *path)
{
	r->start = r->end = 0;
	r->eof = 0;
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	return r->fd < 0 ? -errno : 0;
}

/* Top up the buffer; returns 0, or -errno. */
static int fill(struct lines *r)
{
	ssize_t n;

	if (r->start) {
		memmove(r->buf, r->buf + r->start, r->end - r->start);
		r->end -= r->start;
		r->start = 0;
	}
	do
		n = read(r->fd, r->buf + r->end, sizeof(r->buf) - r->end);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (!n)
		r->eof = 1;
	r->end += (size_t)n;
	return 0;
}

int lines_next(struct lines *r, const char **line)
{
	for (;;) {
		char *s = r->buf + r->start;
		size_t avail = r->end - r->start, n;
		char *nl = memchr(s, '\n', avail);
		int ret;

		if (nl || r->eof || avail == sizeof(r->buf)) {
			if (!avail && r->eof)
				return 0;
			n = nl ? (size_t)(nl - s) : avail;
			/* A line longer than the buffer: keep its head, skip the rest. */
			r->start += nl ? n + 1 : n;
			if (n >= sizeof(r->line))
				n = sizeof(r->line) - 1;
			memcpy(r->line, s, n);
			r->line[n] = '\0';
			if (!nl && !r->eof) {
				while (!(nl = memchr(r->buf + r->start, '\n', r->end - r->start))) {
					r->start = r->end;
					if ((ret = fill(r)) < 0)
						return ret;
					if (r->eof)
						break;
				}
				if (nl)
					r->start = (size_t)(nl - r->buf) + 1;
			}
			*line = r->line;
			return 1;
		}
		if ((ret = fill(r)) < 0)
			return ret;
	}
}

void lines_close(struct lines *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}
