#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <unistd.h>

#include "kmsg.h"

#define SYSLOG_ACTION_READ_ALL 3
#define SYSLOG_ACTION_SIZE_BUFFER 10

/* Returns the number of records delivered, or -errno when reading failed. */
static int scan_devkmsg(int fd, int (*fn)(const struct kmsg_record *, void *),
			void *ctx, int *count)
{
	/* One record per read; 8 KiB is the kernel's largest (CONSOLE_EXT_LOG_MAX). */
	static char buf[8192];
	static struct kmsg_record rec;

	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0) {
			/* EPIPE: the record we were at was overwritten; go on. */
			if (errno == EINTR || errno == EPIPE)
				continue;
			if (errno == EAGAIN)
				return 0;
			return -errno;
		}
		if (!n)
			return 0;
		if (parse_kmsg_record(&rec, buf, (size_t)n))
			continue;
		(*count)++;
		if (fn(&rec, ctx))
			return 0;
	}
}

static int scan_syslog(int (*fn)(const struct kmsg_record *, void *), void *ctx,
		       char *why, size_t whysize)
{
	static struct kmsg_record rec;
	int size = klogctl(SYSLOG_ACTION_SIZE_BUFFER, NULL, 0), n, ret = 0;
	char *buf = NULL, *p, *end;

	if (size <= 0) {
		snprintf(why, whysize, "cannot get the kernel log size: %s",
			 strerror(errno));
		return -1;
	}
	buf = malloc((size_t)size);
	if (!buf) {
		snprintf(why, whysize, "out of memory for the kernel log");
		return -1;
	}
	n = klogctl(SYSLOG_ACTION_READ_ALL, buf, size);
	if (n < 0) {
		snprintf(why, whysize, "cannot read the kernel log: %s", strerror(errno));
		ret = -1;
		goto out;
	}
	for (p = buf, end = buf + n; p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((nl ? nl : end) - p);
		if (!parse_syslog_line(&rec, p, len) && fn(&rec, ctx))
			break;
		p += len + 1;
	}
out:
	free(buf);
	return ret;
}

int kmsg_scan(int (*fn)(const struct kmsg_record *rec, void *ctx), void *ctx,
	      char *why, size_t whysize)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC), ret, count = 0;
	char first[128], second[128];

	if (fd < 0) {
		snprintf(first, sizeof(first), "/dev/kmsg: %s", strerror(errno));
	} else {
		ret = scan_devkmsg(fd, fn, ctx, &count);
		close(fd);
		if (!ret)
			return 0;
		snprintf(first, sizeof(first), "reading /dev/kmsg: %s", strerror(-ret));
		/* Starting over from syslog(2) would deliver records twice. */
		if (count) {
			snprintf(why, whysize, "%s", first);
			return -1;
		}
	}
	if (!scan_syslog(fn, ctx, second, sizeof(second)))
		return 0;
	snprintf(why, whysize, "%s; %s", first, second);
	return -1;
}
