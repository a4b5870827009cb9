#ifndef ATOMICFILE_H
#define ATOMICFILE_H
/*
 * Replacing a file all at once: a reader sees the old contents or the new,
 * never part of them, and so does the next lab after a crash.
 *
 * The new contents go to a temporary file, <path>.tmp.XXXXXX in path's own
 * directory (a rename is atomic only within one file system), which gets
 * exactly mode (the umask does not apply), and is renamed over path. With
 * ATOMIC_DURABLE the file is fsync()ed before the rename and the directory
 * after it, so that the new contents survive a crash too (a file system
 * that cannot sync a directory, EINVAL, is not an error). Without it a
 * crash may leave the old contents or an empty file, never a mix: for files
 * that the next run writes again anyway (report pages, thousands of them,
 * where two syncs a page cost 20x the time of writing the site).
 *
 * On failure one line is said, "cannot write <what> '<path>': <reason>"
 * (or "cannot write '<path>': <reason>" when what is NULL), the temporary
 * file is removed, and -1 is returned. path keeps its old contents, unless
 * only the sync of the directory failed: then the new file is in place.
 */
#include <stddef.h>
#include <sys/types.h>

/* Writes the new contents to fd: 0, or -1 with errno set (said by the caller of fill). */
typedef int atomic_fill_fn(int fd, void *data);

#define ATOMIC_DURABLE 1u

int atomic_write(const char *path, mode_t mode, unsigned flags, const char *what,
		 atomic_fill_fn *fill, void *data);
/* The same with len bytes at buf as the contents. */
int atomic_write_buf(const char *path, mode_t mode, unsigned flags, const char *what,
		     const void *buf, size_t len);
/*
 * The same for name, a file of the directory open at dirfd (no slash in
 * it): nothing on the way is looked up again, and no symlink is followed,
 * the temporary file's included; a symlink at name is replaced, never
 * written through. shown is the path said in messages.
 */
int atomic_write_at(int dirfd, const char *name, const char *shown, mode_t mode,
		    unsigned flags, const char *what, const void *buf, size_t len);

#endif
