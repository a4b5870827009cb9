#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "context.h"
#include "xalloc.h"
#include "log.h"
#include "strbuf.h"
#include "tempfile.h"

int context_load_config(struct lab_context *ctx, const char *config_path,
			const char *db_path)
{
	memset(ctx, 0, sizeof(*ctx));
	if (config_load(&ctx->cfg, config_path))
		return -1;
	if (db_path) {
		char *db = strdup(db_path);
		if (!db)
			return error("out of memory");
		free(ctx->cfg.db);
		ctx->cfg.db = db;
	}
	return 0;
}

static int mkdir_p(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = 0;

	strbuf_addstr(&sb, path);
	for (size_t i = 1; i <= sb.len; i++) {
		if (sb.buf[i] != '/' && sb.buf[i] != '\0')
			continue;
		sb.buf[i] = '\0';
		if (mkdir(sb.buf, 0755) && errno != EEXIST) {
			ret = error("cannot create directory '%s': %s", sb.buf, strerror(errno));
			break;
		}
		if (i < sb.len)
			sb.buf[i] = '/';
	}
	strbuf_release(&sb);
	return ret;
}

static int set_dir(struct lab_context *ctx)
{
	char *copy = strdup(ctx->cfg.db);

	if (!copy)
		return error("out of memory");
	free(ctx->dir);
	ctx->dir = strdup(dirname(copy));
	free(copy);
	if (!ctx->dir)
		return error("out of memory");
	return 0;
}

int context_open_store(struct lab_context *ctx)
{
	struct strbuf cache = STRBUF_INIT;
	char *real;

	if (set_dir(ctx) || mkdir_p(ctx->dir))
		return -1;
	real = realpath(ctx->dir, NULL);
	if (real) {
		free(ctx->dir);
		ctx->dir = real;
	}
	if (store_open(&ctx->st, ctx->cfg.db))
		return -1;
	/* initramfs images of labs killed by SIGKILL: nobody else removes them */
	strbuf_addf(&cache, "%s/cache", ctx->dir);
	tempfile_remove_stale(cache.buf, "initramfs-");
	strbuf_release(&cache);
	return 0;
}

int context_open_store_read(struct lab_context *ctx)
{
	if (set_dir(ctx))
		return -1;
	return store_open_read(&ctx->st, ctx->cfg.db);
}

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

/*
 * The lock file at path, opened above stdin so that 0 can mean none; -1
 * after saying why.
 */
static int lock_open(const char *path)
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

/* Locked: write our pid for the labs that find the lock taken. */
static int lock_claim(int fd, const char *path)
{
	char pid[32];
	int len = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());

	if (ftruncate(fd, 0) || pwrite(fd, pid, (size_t)len, 0) != len)
		return error("cannot write lock file '%s': %s", path, strerror(errno));
	return 0;
}

/* The holder of a lock we could not take: it writes its pid just after it locks. */
static long lock_wait_holder(int fd)
{
	long holder = 0;

	for (int i = 0; i < 20 && !holder; i++) {
		holder = lock_holder(fd);
		if (!holder)
			usleep(5000);
	}
	return holder;
}

int experiment_lock(struct lab_context *ctx, long long exp_id)
{
	struct strbuf path = STRBUF_INIT;
	int fd = -1, ret = -1;

	if (ctx->lock_fd > 0) {
		ret = error("this lab already owns experiment E%lld", ctx->lock_exp);
		goto out;
	}
	strbuf_addf(&path, "%s.locks", ctx->cfg.db);
	if (mkdir(path.buf, 0755) && errno != EEXIST) {
		ret = error("cannot create directory '%s': %s", path.buf, strerror(errno));
		goto out;
	}
	strbuf_addf(&path, "/E%lld", exp_id);
	if ((fd = lock_open(path.buf)) < 0)
		goto out;
	/* the kernel drops the lock when its holder dies, however it dies */
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		long holder;
		if (errno != EWOULDBLOCK) {
			ret = error("cannot lock '%s': %s", path.buf, strerror(errno));
			goto out;
		}
		if ((holder = lock_wait_holder(fd)))
			ret = error("experiment E%lld is being run by another lab (pid %ld)",
				    exp_id, holder);
		else
			ret = error("experiment E%lld is being run by another lab", exp_id);
		goto out;
	}
	if (lock_claim(fd, path.buf))
		goto out;
	ctx->lock_fd = fd;
	ctx->lock_exp = exp_id;
	fd = -1;
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	strbuf_release(&path);
	return ret;
}

int lock_wait(const char *path, const char *what)
{
	int fd = lock_open(path);

	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		long holder;
		if (errno != EWOULDBLOCK) {
			error("cannot lock '%s': %s", path, strerror(errno));
			close(fd);
			return -1;
		}
		if ((holder = lock_wait_holder(fd)))
			info("waiting for another lab (pid %ld): %s", holder, what);
		else
			info("waiting for another lab: %s", what);
		while (flock(fd, LOCK_EX)) {
			if (errno != EINTR) {
				error("cannot lock '%s': %s", path, strerror(errno));
				close(fd);
				return -1;
			}
		}
	}
	if (lock_claim(fd, path)) {
		close(fd);
		return -1;
	}
	return fd;
}

void experiment_unlock(struct lab_context *ctx)
{
	if (ctx->lock_fd <= 0)
		return;
	/* the file stays: removing it would race with a lab opening it to lock */
	close(ctx->lock_fd);
	ctx->lock_fd = 0;
	ctx->lock_exp = 0;
}

void context_release(struct lab_context *ctx)
{
	experiment_unlock(ctx);
	if (ctx->st.db)
		store_close(&ctx->st);
	config_release(&ctx->cfg);
	free(ctx->dir);
	ctx->dir = NULL;
}

char *context_subdir(struct lab_context *ctx, const char *sub)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%s/%s", ctx->dir ? ctx->dir : ".", sub);
	if (mkdir_p(sb.buf)) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb);
}

char *context_logdir(struct lab_context *ctx)
{
	struct strbuf sb = STRBUF_INIT;
	char *copy = xstrdup(ctx->cfg.db), *base = basename(copy), *dot = strrchr(base, '.');
	char *dir;

	/* run ids are per database: two databases side by side keep apart */
	if (dot && dot != base)
		*dot = '\0';
	strbuf_addf(&sb, "logs/%s", base);
	dir = context_subdir(ctx, sb.buf);
	strbuf_release(&sb);
	free(copy);
	return dir;
}

const char *lab_source_dir(void)
{
	static char dir[PATH_MAX];
	char exe[PATH_MAX];
	ssize_t n;

	if (dir[0])
		return dir;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0) {
		snprintf(dir, sizeof(dir), ".");
		return dir;
	}
	exe[n] = '\0';
	/* the binary is <checkout>/lab/lab */
	snprintf(dir, sizeof(dir), "%s", dirname(dirname(exe)));
	return dir;
}

void format_time(char *out, size_t size, double epoch)
{
	time_t t = (time_t)epoch;
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(out, size, "%Y-%m-%d %H:%M:%S", &tm);
}
