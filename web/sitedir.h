#ifndef SITEDIR_H
#define SITEDIR_H
/*
 * The folder a site is written to, owned by the database that wrote it.
 *
 * Its marker, .lab-site, names that database (its absolute path, and its
 * device and inode: a database renamed within its file system keeps its
 * site, and the marker follows it) and lists every file the report wrote
 * there, the manifest. A folder is used when it is missing or empty (it is
 * made and marked) or when its marker names this database. A folder marked
 * by another database, or holding files and no marker, is refused unless
 * forced. Forcing takes the folder over: its pages may be overwritten,
 * but a file is only ever removed when a manifest lists it.
 *
 * Nothing inside the folder is followed: files are compared, replaced and
 * removed relative to descriptors of the folder and of its logs/, never by
 * path; a symlink at a page's name is replaced, and a logs/ that is not a
 * directory is refused. The only names written or removed are the
 * report's own: index.html, style.css, [ebnr]<N>.html, logs/r<N>.txt and
 * the marker; a manifest line naming anything else is dropped.
 *
 * One report at a time writes a folder (a lock on it, waited for).
 * sitedir_unchanged() and sitedir_write() may be called from several
 * threads at once.
 */
#include <pthread.h>
#include <stddef.h>
#include <sys/types.h>

#include "strvec.h"

#define SITEDIR_MARKER ".lab-site"

struct sitedir {
	int fd, logs_fd;		/* the folder and its logs/; -1: not open */
	const char *path;		/* as given, for messages */
	char *db;			/* the database: its absolute path */
	dev_t db_dev;
	ino_t db_ino;			/* 0: unknown (no file) */
	struct strvec old;		/* the manifest found, sorted */
	struct strvec kept;		/* names written or found current this time */
	pthread_mutex_t lock;		/* kept */
};

/*
 * Open (making it when missing) and claim the folder at path for the
 * database at db_path, as said above; force takes over a folder that is
 * another's. Refusals say what to do: "site 'X' was written from
 * database 'A', not 'B'; use --force or --out". sd is set up for
 * sitedir_release() whatever happens.
 */
int sitedir_open(struct sitedir *sd, const char *path, const char *db_path, int force);
/*
 * 1 when name already holds exactly len bytes of data, as a regular
 * file: name is kept and nothing is written. 0 otherwise.
 */
int sitedir_unchanged(struct sitedir *sd, const char *name, const void *data, size_t len);
/* Replace name with data, at once (lib/atomicfile): it is kept. */
int sitedir_write(struct sitedir *sd, const char *name, const void *data, size_t len);
/*
 * Remove the regular files the old manifest lists and this report did not
 * keep (*removed their count), then write the marker listing what is
 * left. Without prune (a report that failed half way) nothing is removed
 * and the marker lists the old files too.
 */
int sitedir_finish(struct sitedir *sd, int *removed, int prune);
void sitedir_release(struct sitedir *sd);

#endif
