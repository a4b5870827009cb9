/*
 * The site's folder and its marker (sitedir.h): who owns it, what the
 * report wrote there, and every file touched relative to a descriptor.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomicfile.h"
#include "escape.h"
#include "log.h"
#include "sitedir.h"
#include "strbuf.h"
#include "xalloc.h"

/* A marker is a few lines a page: one of a million pages is far below this. */
#define MARKER_MAX (64u << 20)

/* Digits from 1 on, no leading zero, then exactly suffix: the report's own page numbers. */
static int number_then(const char *p, const char *suffix)
{
	if (*p < '1' || *p > '9')
		return 0;
	while (*p >= '0' && *p <= '9')
		p++;
	return !strcmp(p, suffix);
}

/* A name the report writes, and so the only kind a manifest may list. */
static int page_name(const char *name)
{
	if (!strcmp(name, "index.html") || !strcmp(name, "style.css"))
		return 1;
	if (!strncmp(name, "logs/r", 6))
		return number_then(name + 6, ".txt");
	return *name && strchr("ebnr", *name) && number_then(name + 1, ".html");
}

/* The descriptor name lies in, and its last part. */
static int dir_of(struct sitedir *sd, const char *name, const char **base)
{
	if (!strncmp(name, "logs/", 5)) {
		*base = name + 5;
		return sd->logs_fd;
	}
	*base = name;
	return sd->fd;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void sort_unique(struct strvec *sv)
{
	size_t j = 0;

	if (!sv->nr)
		return;
	qsort(sv->v, sv->nr, sizeof(*sv->v), cmp_str);
	for (size_t i = 0; i < sv->nr; i++) {
		if (j && !strcmp(sv->v[j - 1], sv->v[i]))
			free(sv->v[i]);
		else
			sv->v[j++] = sv->v[i];
	}
	sv->nr = j;
	sv->v[j] = NULL;
}

static int listed(const struct strvec *sorted, const char *name)
{
	return sorted->nr && bsearch(&name, sorted->v, sorted->nr, sizeof(*sorted->v), cmp_str);
}

/* 1 when base in dirfd is a regular file of exactly these bytes; never follows a symlink. */
static int same_bytes(int dirfd, const char *base, const char *data, size_t len)
{
	char chunk[65536];
	struct stat st;
	size_t at = 0;
	int fd, same = 0;

	fd = openat(dirfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (size_t)st.st_size != len)
		goto out;
	while (at < len) {
		ssize_t n = read(fd, chunk, len - at < sizeof(chunk) ? len - at : sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || memcmp(chunk, data + at, (size_t)n))
			goto out;
		at += (size_t)n;
	}
	same = 1;
out:
	close(fd);
	return same;
}

static void keep(struct sitedir *sd, const char *name)
{
	pthread_mutex_lock(&sd->lock);
	strvec_push(&sd->kept, name);
	pthread_mutex_unlock(&sd->lock);
}

int sitedir_unchanged(struct sitedir *sd, const char *name, const void *data, size_t len)
{
	const char *base;
	int dirfd = dir_of(sd, name, &base);

	if (!same_bytes(dirfd, base, data, len))
		return 0;
	keep(sd, name);
	return 1;
}

int sitedir_write(struct sitedir *sd, const char *name, const void *data, size_t len)
{
	struct strbuf shown = STRBUF_INIT;
	const char *base;
	int dirfd = dir_of(sd, name, &base), ret;

	strbuf_addf(&shown, "%s/%s", sd->path, name);
	ret = atomic_write_at(dirfd, base, shown.buf, 0644, 0, NULL, data, len);
	if (!ret)
		keep(sd, name);
	strbuf_release(&shown);
	return ret;
}

/* The database as the marker writes it: one line whatever its path holds. */
static void db_line(struct strbuf *sb, const struct sitedir *sd)
{
	escape_term(sb, sd->db, 0);
}

static int write_marker(struct sitedir *sd, const struct strvec *files)
{
	struct strbuf sb = STRBUF_INIT, shown = STRBUF_INIT;
	int ret = 0;

	strbuf_addstr(&sb, "lab-site 1\ndatabase ");
	db_line(&sb, sd);
	strbuf_addch(&sb, '\n');
	if (sd->db_ino)
		strbuf_addf(&sb, "identity %llu:%llu\n", (unsigned long long)sd->db_dev,
			    (unsigned long long)sd->db_ino);
	for (size_t i = 0; i < files->nr; i++)
		strbuf_addf(&sb, "file %s\n", files->v[i]);
	if (!same_bytes(sd->fd, SITEDIR_MARKER, sb.buf, sb.len)) {
		strbuf_addf(&shown, "%s/%s", sd->path, SITEDIR_MARKER);
		ret = atomic_write_at(sd->fd, SITEDIR_MARKER, shown.buf, 0644, 0, "site marker",
				      sb.buf, sb.len);
	}
	strbuf_release_all(&sb, &shown);
	return ret;
}

enum marker_state {
	MARKER_NONE,		/* no marker */
	MARKER_FOREIGN,		/* something there that is no marker the report wrote */
	MARKER_READ,		/* read: db, dev, ino and old set */
};

struct marker {
	enum marker_state state;
	struct strbuf db;
	unsigned long long dev, ino;
};

static void marker_parse(struct sitedir *sd, struct marker *m, char *text)
{
	char *line = text, *next;

	if (strncmp(text, "lab-site 1\n", 11)) {
		m->state = MARKER_FOREIGN;
		return;
	}
	m->state = MARKER_READ;
	for (; *line; line = next) {
		next = strchr(line, '\n');
		if (!next)
			break;		/* a last line cut short is no line */
		*next++ = '\0';
		if (!strncmp(line, "database ", 9)) {
			strbuf_reset(&m->db);
			strbuf_addstr(&m->db, line + 9);
		} else if (!strncmp(line, "identity ", 9)) {
			if (sscanf(line + 9, "%llu:%llu", &m->dev, &m->ino) != 2)
				m->dev = m->ino = 0;
		} else if (!strncmp(line, "file ", 5) && page_name(line + 5)) {
			strvec_push(&sd->old, line + 5);
		}
	}
	sort_unique(&sd->old);
}

static void marker_read(struct sitedir *sd, struct marker *m)
{
	struct strbuf text = STRBUF_INIT;
	struct stat st;
	int fd;

	fd = openat(sd->fd, SITEDIR_MARKER, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
		    O_CLOEXEC);
	if (fd < 0) {
		m->state = errno == ENOENT ? MARKER_NONE : MARKER_FOREIGN;
		return;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (size_t)st.st_size > MARKER_MAX ||
	    strbuf_read_fd(&text, fd, MARKER_MAX + 1) || text.len > MARKER_MAX ||
	    memchr(text.buf, '\0', text.len))
		m->state = MARKER_FOREIGN;
	else
		marker_parse(sd, m, text.buf);
	close(fd);
	strbuf_release(&text);
}

/* Anything but . and .. in the folder; an unreadable folder counts as full. */
static int dir_has_files(int fd)
{
	int copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	struct dirent *de;
	DIR *d;
	int full = 0;

	if (copy < 0)
		return 1;
	d = fdopendir(copy);
	if (!d) {
		close(copy);
		return 1;
	}
	while (!full && (de = readdir(d)))
		full = strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return full;
}

static int open_logs(struct sitedir *sd)
{
	struct stat st;

	if (fstatat(sd->fd, "logs", &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno != ENOENT)
			return error("cannot read '%s/logs': %s", sd->path, strerror(errno));
		if (mkdirat(sd->fd, "logs", 0755) && errno != EEXIST)
			return error("cannot create directory '%s/logs': %s", sd->path,
				     strerror(errno));
	} else if (S_ISLNK(st.st_mode)) {
		return error("site '%s': logs is a symbolic link: not followed", sd->path);
	} else if (!S_ISDIR(st.st_mode)) {
		return error("site '%s': logs is not a directory", sd->path);
	}
	sd->logs_fd = openat(sd->fd, "logs", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sd->logs_fd < 0)
		return error("cannot open '%s/logs': %s", sd->path, strerror(errno));
	return 0;
}

int sitedir_open(struct sitedir *sd, const char *path, const char *db_path, int force)
{
	struct marker m = { .db = STRBUF_INIT };
	struct strbuf ours = STRBUF_INIT;
	struct stat st;
	int ret = -1;

	memset(sd, 0, sizeof(*sd));
	sd->fd = sd->logs_fd = -1;
	sd->path = path;
	pthread_mutex_init(&sd->lock, NULL);
	sd->db = realpath(db_path, NULL);
	if (!sd->db)
		sd->db = xstrdup(db_path);
	else if (!stat(sd->db, &st)) {
		sd->db_dev = st.st_dev;
		sd->db_ino = st.st_ino;
	}

	/* the folder itself is the user's to name, a symlink too; nothing inside it is */
	sd->fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sd->fd < 0 && errno == ENOENT) {
		if (mkdir(path, 0755) && errno != EEXIST) {
			error("cannot create directory '%s': %s", path, strerror(errno));
			goto out;
		}
		sd->fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (sd->fd < 0) {
		error("cannot open site '%s': %s", path, strerror(errno));
		goto out;
	}
	/* a nightly's report and a hand-run one take turns */
	while (flock(sd->fd, LOCK_EX)) {
		if (errno != EINTR) {
			error("cannot lock site '%s': %s", path, strerror(errno));
			goto out;
		}
	}

	marker_read(sd, &m);
	db_line(&ours, sd);
	if (m.state == MARKER_READ && strcmp(m.db.buf, ours.buf) &&
	    !(sd->db_ino && m.ino == (unsigned long long)sd->db_ino &&
	      m.dev == (unsigned long long)sd->db_dev) && !force) {
		/* the marker is whatever the folder holds: its bytes never reach a terminal raw */
		error("site '%s' was written from database '%s', not '%s'; use --force or --out",
		      term_safe(path), term_safe(m.db.buf), term_safe(ours.buf));
		goto out;
	}
	if (m.state != MARKER_READ && (m.state == MARKER_FOREIGN || dir_has_files(sd->fd)) &&
	    !force) {
		error("site '%s' is not empty and lab report did not make it; use --force or --out",
		      path);
		goto out;
	}
	if (open_logs(sd))
		goto out;
	/* marked before any page is written: a report cut short leaves a folder it owns */
	if (write_marker(sd, &sd->old))
		goto out;
	ret = 0;
out:
	strbuf_release_all(&m.db, &ours);
	return ret;
}

/* 1: removed; 0: not a regular file any more (no longer the report's); -1: failed. */
static int remove_listed(struct sitedir *sd, const char *name)
{
	const char *base;
	int dirfd = dir_of(sd, name, &base);
	struct stat st;

	if (fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
		return 0;
	if (unlinkat(dirfd, base, 0)) {
		if (errno == ENOENT)
			return 0;
		return error("cannot remove '%s/%s': %s", sd->path, name, strerror(errno));
	}
	return 1;
}

int sitedir_finish(struct sitedir *sd, int *removed, int prune)
{
	struct strvec files = STRVEC_INIT;
	int ret = 0;

	*removed = 0;
	sort_unique(&sd->kept);
	for (size_t i = 0; i < sd->old.nr; i++) {
		const char *name = sd->old.v[i];
		int r;

		if (listed(&sd->kept, name))
			continue;
		r = prune ? remove_listed(sd, name) : -1;
		if (r < 0) {
			if (prune)
				ret = -1;
			strvec_push(&files, name);
		} else {
			*removed += r;
		}
	}
	strvec_push_all(&files, &sd->kept);
	sort_unique(&files);
	if (write_marker(sd, &files))
		ret = -1;
	strvec_release(&files);
	return ret;
}

void sitedir_release(struct sitedir *sd)
{
	if (sd->logs_fd >= 0)
		close(sd->logs_fd);
	if (sd->fd >= 0)
		close(sd->fd);
	free(sd->db);
	strvec_release(&sd->old);
	strvec_release(&sd->kept);
	pthread_mutex_destroy(&sd->lock);
	sd->fd = sd->logs_fd = -1;
	sd->db = NULL;
}
