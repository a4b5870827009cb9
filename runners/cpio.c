#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomicfile.h"
#include "cpio.h"
#include "log.h"
#include "regfile.h"
#include "strbuf.h"
#include "strvec.h"

/*
 * newc layout, as read by the kernel's init/initramfs.c: a 110-byte header
 * (magic and 13 fields of 8 hex digits), the name with its NUL, padding to
 * 4 bytes, the data, padding to 4 bytes. The archive ends with an entry
 * named TRAILER!!!.
 */
#define CPIO_MAGIC "070701"
#define CPIO_HEADER_LEN 110
#define CPIO_TRAILER "TRAILER!!!"
#define CPIO_FIELD_MAX 0xffffffffUL
/* Linux dev_t: 12 bits of major, 20 of minor (MKDEV would truncate). */
#define DEV_MAJOR_MAX 0xfffU
#define DEV_MINOR_MAX 0xfffffU

static const char zeros[512];

static void cpio_init(struct cpio *c)
{
	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->next_ino = 1;
}

void cpio_init_fd(struct cpio *c, int fd)
{
	cpio_init(c);
	c->fd = fd;
}

void cpio_init_file(struct cpio *c, FILE *fp)
{
	cpio_init(c);
	c->fp = fp;
}

void cpio_init_strbuf(struct cpio *c, struct strbuf *sb)
{
	cpio_init(c);
	c->sb = sb;
}

static int fail(struct cpio *c, int err)
{
	if (!c->err)
		c->err = err;
	errno = c->err;
	return -1;
}

static int check(struct cpio *c)
{
	if (c->err)
		return fail(c, c->err);
	if (c->finished)
		return fail(c, EINVAL);
	return 0;
}

static int write_fd(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int write_raw(struct cpio *c, const void *data, size_t len)
{
	if (c->err)
		return fail(c, c->err);
	if (!len)
		return 0;
	if (c->fd >= 0) {
		if (write_fd(c->fd, data, len) < 0)
			return fail(c, errno);
	} else if (c->fp) {
		errno = 0;
		if (fwrite(data, 1, len, c->fp) != len)
			return fail(c, errno ? errno : EIO);
	} else if (c->sb) {
		/* A capped buffer would drop the archive's head. */
		if (c->sb->cap)
			return fail(c, EINVAL);
		strbuf_add(c->sb, data, len);
	} else {
		return fail(c, EBADF);
	}
	c->offset += len;
	return 0;
}

static int pad_to(struct cpio *c, size_t align)
{
	size_t n = (size_t)(-c->offset & (align - 1));
	return write_raw(c, zeros, n);
}

/* Drop leading slashes; refuse what the kernel would resolve elsewhere. */
static const char *clean_name(const char *name)
{
	const char *p;

	while (*name == '/')
		name++;
	if (!*name)
		return NULL;
	for (p = name; *p; ) {
		size_t len = strcspn(p, "/");
		if (!len || (len == 1 && p[0] == '.') ||
		    (len == 2 && p[0] == '.' && p[1] == '.'))
			return NULL;
		p += len;
		if (*p == '/' && !*++p)
			return NULL;
	}
	return name;
}

static int write_header(struct cpio *c, const char *name, unsigned long ino,
			unsigned long mode, unsigned long nlink,
			unsigned long long filesize,
			unsigned long rmajor, unsigned long rminor)
{
	char hdr[CPIO_HEADER_LEN + 1];
	size_t namesize = strlen(name) + 1;
	int n;

	if (namesize > PATH_MAX)
		return fail(c, ENAMETOOLONG);
	if (filesize > CPIO_FIELD_MAX)
		return fail(c, EFBIG);
	if (ino > CPIO_FIELD_MAX)
		return fail(c, EOVERFLOW);
	n = snprintf(hdr, sizeof(hdr),
		     CPIO_MAGIC "%08lX%08lX%08lX%08lX%08lX%08lX%08lX"
		     "%08lX%08lX%08lX%08lX%08lX%08lX",
		     ino, mode, 0UL, 0UL, nlink, 0UL, (unsigned long)filesize,
		     0UL, 0UL, rmajor, rminor, (unsigned long)namesize, 0UL);
	if (n != CPIO_HEADER_LEN)
		return fail(c, EOVERFLOW);
	if (write_raw(c, hdr, CPIO_HEADER_LEN) < 0 ||
	    write_raw(c, name, namesize) < 0 ||
	    pad_to(c, 4) < 0)
		return -1;
	return 0;
}

static int add_entry(struct cpio *c, const char *name, unsigned long mode,
		     unsigned long nlink, const void *data, size_t len,
		     unsigned rmajor, unsigned rminor)
{
	const char *clean;

	if (check(c) < 0)
		return -1;
	clean = clean_name(name);
	if (!clean)
		return fail(c, EINVAL);
	if (write_header(c, clean, c->next_ino, mode, nlink, len, rmajor, rminor) < 0 ||
	    write_raw(c, data, len) < 0 ||
	    pad_to(c, 4) < 0)
		return -1;
	c->next_ino++;
	return 0;
}

static int check_perm(struct cpio *c, mode_t perm)
{
	if (perm & ~(mode_t)07777)
		return fail(c, EINVAL);
	return 0;
}

int cpio_add_dir(struct cpio *c, const char *name, mode_t perm)
{
	if (check_perm(c, perm) < 0)
		return -1;
	return add_entry(c, name, S_IFDIR | perm, 2, NULL, 0, 0, 0);
}

int cpio_add_file(struct cpio *c, const char *name, mode_t perm,
		  const void *data, size_t len)
{
	if (check_perm(c, perm) < 0)
		return -1;
	return add_entry(c, name, S_IFREG | perm, 1, data, len, 0, 0);
}

int cpio_add_symlink(struct cpio *c, const char *name, const char *target)
{
	if (!*target)
		return fail(c, EINVAL);
	/* The target is the data, without a NUL. */
	return add_entry(c, name, S_IFLNK | 0777, 1, target, strlen(target), 0, 0);
}

int cpio_add_node(struct cpio *c, const char *name, mode_t mode,
		  unsigned major, unsigned minor)
{
	mode_t type = mode & S_IFMT;

	if (type != S_IFCHR && type != S_IFBLK && type != S_IFIFO && type != S_IFSOCK)
		return fail(c, EINVAL);
	if (major > DEV_MAJOR_MAX || minor > DEV_MINOR_MAX)
		return fail(c, EINVAL);
	if (check_perm(c, mode & ~S_IFMT) < 0)
		return -1;
	return add_entry(c, name, mode, 1, NULL, 0, major, minor);
}

/* Streamed, so that a large file never has to fit in memory. */
int cpio_add_file_from_path(struct cpio *c, const char *name, mode_t perm,
			    const char *path)
{
	char buf[16384];
	const char *clean;
	struct stat st;
	off_t left;
	int fd = -1, ret = -1;

	if (check(c) < 0 || check_perm(c, perm) < 0)
		return -1;
	clean = clean_name(name);
	if (!clean)
		return fail(c, EINVAL);
	/* a fifo put where a program was is refused (EINVAL), not waited on */
	fd = regfile_open(path, 0, &st, NULL, NULL);
	if (fd < 0) {
		fail(c, errno);
		goto out;
	}
	if (write_header(c, clean, c->next_ino, S_IFREG | perm, 1,
			 (unsigned long long)st.st_size, 0, 0) < 0)
		goto out;
	for (left = st.st_size; left > 0; ) {
		size_t want = left < (off_t)sizeof(buf) ? (size_t)left : sizeof(buf);
		ssize_t n = read(fd, buf, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fail(c, errno);
			goto out;
		}
		/* Shrunk under us: the header already promised st_size bytes. */
		if (!n) {
			fail(c, EIO);
			goto out;
		}
		if (write_raw(c, buf, (size_t)n) < 0)
			goto out;
		left -= n;
	}
	if (pad_to(c, 4) < 0)
		goto out;
	c->next_ino++;
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	return ret;
}

/* Each directory above path, once, parents first. */
int cpio_add_parents(struct cpio *c, struct strvec *made, const char *path)
{
	struct strbuf dir = STRBUF_INIT;
	const char *p = path;
	int ret = 0;

	while (*p == '/')
		p++;
	for (const char *slash = strchr(p, '/'); slash && !ret; slash = strchr(slash + 1, '/')) {
		int seen = 0;
		strbuf_reset(&dir);
		strbuf_add(&dir, p, (size_t)(slash - p));
		for (size_t i = 0; i < made->nr && !seen; i++)
			seen = !strcmp(made->v[i], dir.buf);
		if (seen)
			continue;
		strvec_push(made, dir.buf);
		ret = cpio_add_dir(c, dir.buf, 0755);
	}
	strbuf_release(&dir);
	return ret;
}

int cpio_finish(struct cpio *c)
{
	if (check(c) < 0)
		return -1;
	if (write_header(c, CPIO_TRAILER, 0, 0, 1, 0, 0, 0) < 0 ||
	    pad_to(c, 512) < 0)
		return -1;
	if (c->fp && fflush(c->fp))
		return fail(c, errno ? errno : EIO);
	c->finished = 1;
	return 0;
}

struct archive {
	struct strbuf init;
	initramfs_extra_fn *extra;
	void *data;
	int extra_failed;
};

void initramfs_dirs(struct strvec *made)
{
	strvec_pushl(made, "dev", "proc", "sys", "tmp", NULL);
}

static int write_archive(int fd, void *data)
{
	struct archive *a = data;
	struct cpio c;

	cpio_init_fd(&c, fd);
	cpio_add_dir(&c, "dev", 0755);
	cpio_add_dir(&c, "proc", 0555);
	cpio_add_dir(&c, "sys", 0555);
	cpio_add_dir(&c, "tmp", 01777);
	cpio_add_node(&c, "dev/console", S_IFCHR | 0600, 5, 1);
	cpio_add_node(&c, "dev/null", S_IFCHR | 0666, 1, 3);
	cpio_add_node(&c, "dev/kmsg", S_IFCHR | 0644, 1, 11);
	cpio_add_file(&c, "init", 0755, a->init.buf, a->init.len);
	if (a->extra && !c.err && a->extra(&c, a->data)) {
		a->extra_failed = 1;
		return -1;
	}
	/* Errors stick, so the last call reports the first failure. */
	return cpio_finish(&c);
}

int initramfs_write_with(const char *out_path, const char *init_binary,
			 initramfs_extra_fn *extra, void *data)
{
	struct archive a = { STRBUF_INIT, extra, data, 0 };
	int ret = -1;

	/* Read first: a missing guest program should leave nothing behind. */
	if (strbuf_read_file(&a.init, init_binary, 0) < 0)
		error("cannot write initramfs '%s': cannot read '%s': %s",
		      out_path, init_binary, strerror(errno));
	else
		/* 0644, not 0600: QEMU may run as another user (libvirt) */
		ret = atomic_write(out_path, 0644, ATOMIC_DURABLE, "initramfs", write_archive, &a);
	strbuf_release(&a.init);
	return ret;
}

int initramfs_write(const char *out_path, const char *init_binary)
{
	return initramfs_write_with(out_path, init_binary, NULL, NULL);
}

struct appended {
	struct strbuf base, tail;
};

static int write_appended(int fd, void *data)
{
	struct appended *a = data;

	if (write_fd(fd, a->base.buf, a->base.len) || write_fd(fd, a->tail.buf, a->tail.len))
		return -1;
	return 0;
}

int initramfs_write_appended(const char *out_path, const char *base, const char *name,
			     const void *contents, size_t len)
{
	struct appended a = { STRBUF_INIT, STRBUF_INIT };
	struct cpio c;
	int ret = -1;

	if (strbuf_read_file(&a.base, base, 0) < 0) {
		error("cannot write initramfs '%s': cannot read '%s': %s", out_path, base,
		      strerror(errno));
		goto out;
	}
	/* the kernel looks for the next archive's magic at a multiple of 4, past zeros */
	while (a.base.len % 4)
		strbuf_addch(&a.base, '\0');
	cpio_init_strbuf(&c, &a.tail);
	if (cpio_add_file(&c, name, 0644, contents, len) || cpio_finish(&c)) {
		error("cannot write initramfs '%s': %s", out_path, strerror(errno));
		goto out;
	}
	/* written for one boot and removed after it: no need to survive a crash */
	ret = atomic_write(out_path, 0644, 0, "initramfs", write_appended, &a);
out:
	strbuf_release(&a.base);
	strbuf_release(&a.tail);
	return ret;
}
