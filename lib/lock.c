#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "lock.h"
#include "log.h"

/* The pid written in a lock file, 0 if none yet. */
static long lock_holder(int fd)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

int lock_open(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	if (fd >= 0 && fd < 3) {
		int high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		close(fd);
		fd = high;
	}
	if (fd < 0)
		error("cannot open lock file '%s': %s", path, strerror(errno));
	return fd;
}

int lock_claim(int fd, const char *path)
{
	char pid[32];
	int len = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());

	if (ftruncate(fd, 0) || pwrite(fd, pid, (size_t)len, 0) != len)
		return error("cannot write lock file '%s': %s", path, strerror(errno));
	return 0;
}

long lock_wait_holder(int fd)
{
	long holder = 0;

	for (int i = 0; i < 20 && !holder; i++) {
		holder = lock_holder(fd);
		if (!holder)
			usleep(5000);
	}
	return holder;
}

int lock_try(const char *path, int *fd, long *holder)
{
	*holder = 0;
	if ((*fd = lock_open(path)) < 0)
		return -1;
	if (flock(*fd, LOCK_EX | LOCK_NB)) {
		int busy = errno == EWOULDBLOCK;

		if (busy)
			*holder = lock_wait_holder(*fd);
		else
			error("cannot lock '%s': %s", path, strerror(errno));
		close(*fd);
		*fd = -1;
		return busy ? 1 : -1;
	}
	if (lock_claim(*fd, path)) {
		close(*fd);
		*fd = -1;
		return -1;
	}
	return 0;
}

int lock_wait(const char *path, const char *what)
{
	long holder;
	int fd, r = lock_try(path, &fd, &holder);

	if (r <= 0)
		return r ? -1 : fd;
	if (holder)
		info("waiting for another lab (pid %ld): %s", holder, what);
	else
		info("waiting for another lab: %s", what);
	if ((fd = lock_open(path)) < 0)
		return -1;
	while (flock(fd, LOCK_EX)) {
		if (errno != EINTR) {
			error("cannot lock '%s': %s", path, strerror(errno));
			close(fd);
			return -1;
		}
	}
	if (lock_claim(fd, path)) {
		close(fd);
		return -1;
	}
	return fd;
}
