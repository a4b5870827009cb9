#ifndef CPIO_H
#define CPIO_H
/*
 * A writer for "newc" (SVR4, magic 070701) cpio archives: the format the
 * kernel unpacks as an initramfs. The lab writes its own so that booting a
 * kernel needs no cpio or busybox on the host.
 *
 * Archives are reproducible: the same calls give the same bytes. Every
 * entry has mtime 0 and uid/gid 0; inode numbers count up from 1 in the
 * order entries are added.
 *
 * Names are relative to the archive root ("dev/console"); leading slashes
 * are dropped, and empty names, "." and ".." components are refused. A
 * directory must be added before the entries inside it, because the kernel
 * creates entries in archive order.
 *
 * A struct cpio writes to a sink it does not own: an fd, a FILE* or a
 * struct strbuf (which must not be size-capped). Functions return 0, or -1
 * with errno set and print nothing; the caller names the archive in its
 * message. The first failure sticks: later calls return -1 with the same
 * errno, so a sequence of adds may be checked once, at cpio_finish().
 */
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

struct strbuf;

struct cpio {
	int fd;			/* sink: fd >= 0, else fp, else sb */
	FILE *fp;
	struct strbuf *sb;
	unsigned long next_ino;
	unsigned long long offset;	/* bytes written so far */
	int err;		/* errno of the first failure, 0 if none */
	int finished;
};

void cpio_init_fd(struct cpio *c, int fd);
void cpio_init_file(struct cpio *c, FILE *fp);
void cpio_init_strbuf(struct cpio *c, struct strbuf *sb);

/* perm: permission bits only (0755); the type bits are implied. */
int cpio_add_dir(struct cpio *c, const char *name, mode_t perm);
int cpio_add_file(struct cpio *c, const char *name, mode_t perm,
		  const void *data, size_t len);
/* Copies a regular file's contents; symlinks in path are followed. */
int cpio_add_file_from_path(struct cpio *c, const char *name, mode_t perm,
			    const char *path);
int cpio_add_symlink(struct cpio *c, const char *name, const char *target);
/*
 * Each directory above path not yet in made, parents first, each pushed
 * onto made as it is added: made lists what the archive already has.
 */
struct strvec;
int cpio_add_parents(struct cpio *c, struct strvec *made, const char *path);
/* mode: S_IFCHR, S_IFBLK, S_IFIFO or S_IFSOCK with permission bits. */
int cpio_add_node(struct cpio *c, const char *name, mode_t mode,
		  unsigned major, unsigned minor);

/*
 * Write the TRAILER!!! entry and pad the archive to a multiple of 512
 * bytes; a FILE* sink is flushed, an fd is neither synced nor closed.
 */
int cpio_finish(struct cpio *c);

/*
 * Write a complete initramfs to out_path: directories dev, proc, sys and
 * tmp, the nodes dev/console, dev/null and dev/kmsg, and init_binary as
 * /init, mode 0644. It is written with atomic_write() (lib/atomicfile.h):
 * a reader sees the old file or the whole new one. Returns 0, or -1 after
 * an error naming out_path.
 */
int initramfs_write(const char *out_path, const char *init_binary);
/*
 * The same with more entries: extra(c, data) adds them after /init (a
 * user's workload and what it needs); a -1 from it, said by it, writes
 * nothing.
 */
typedef int initramfs_extra_fn(struct cpio *c, void *data);
/* The directories initramfs_write() adds, for an extra's cpio_add_parents(). */
void initramfs_dirs(struct strvec *made);
int initramfs_write_with(const char *out_path, const char *init_binary,
			 initramfs_extra_fn *extra, void *data);
/*
 * out_path: the initramfs at base followed by a second archive holding only
 * name with len bytes of contents, written as above. Linux unpacks the
 * archives of an initramfs one after the other, so a boot can be given a
 * file of its own without the common archive being written again.
 */
int initramfs_write_appended(const char *out_path, const char *base, const char *name,
			     const void *contents, size_t len);

#endif
