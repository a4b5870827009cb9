#ifndef GUEST_SYSFS_H
#define GUEST_SYSFS_H
/*
 * Small helpers for the kernel's pseudo-files (sysfs, procfs, tracefs):
 * read or write one short value, or read a long file line by line
 * without holding it all in memory (a trace or available_filter_functions
 * can be megabytes).
 *
 * Functions return 0 (or a length) on success and -errno on failure, so
 * callers can name the reason with strerror(-ret).
 */
#include <stddef.h>

/* Read up to size - 1 bytes, NUL-terminate, drop trailing newlines. Returns the length. */
int sysfs_read(const char *path, char *buf, size_t size);
int sysfs_read_long(const char *path, long *out);

/* Open with O_TRUNC (which is what clears a tracefs list), write value in one call. */
int sysfs_write(const char *path, const char *value);
int sysfs_write_long(const char *path, long value);

int sysfs_exists(const char *path);

/* Reads a file line by line; lines longer than the line buffer are cut. */
struct lines {
	int fd;
	size_t start, end;
	int eof;
	char buf[16384];
	char line[1024];
};

int lines_open(struct lines *r, const char *path);
/* Returns 1 with *line set (valid until the next call), 0 at the end, -errno. */
int lines_next(struct lines *r, const char **line);
void lines_close(struct lines *r);

#endif
