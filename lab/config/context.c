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
#include "lock.h"
#include "xalloc.h"
#include "log.h"
#include "meter.h"
#include "regfile.h"
#include "store-spool.h"
#include "strbuf.h"
#include "tempfile.h"

static int path_exists(const char *path)
{
	return !access(path, F_OK);
}

/*
 * The state root and the database, settled once: core.state, else the
 * folder of the database that core.db or --db names, else ./state; the
 * database is <state>/lab.db unless named. A lab of before core.state kept
 * both in ./results: its database is still found, with a word on moving it.
 */
static int resolve_state(struct lab_config *cfg)
{
	struct strbuf sb = STRBUF_INIT;

	if (!cfg->state && cfg->db) {
		char *copy = xstrdup(cfg->db);
		cfg->state = xstrdup(dirname(copy));
		free(copy);
	}
	if (!cfg->state) {
		if (!path_exists("state/lab.db") && path_exists("results/lab.db")) {
			warning("using results/lab.db, where labs before core.state kept it: "
				"move results/{lab.db*,trees,kbuild,artifacts,cache,logs,fixtures} "
				"to state/ to silence this");
			cfg->state = xstrdup("results");
		} else {
			cfg->state = xstrdup("state");
		}
	}
	if (!cfg->db) {
		strbuf_addf(&sb, "%s/lab.db", cfg->state);
		cfg->db = strbuf_detach(&sb);
	}
	return 0;
}

/*
 * The database is a regular file (or a symlink to one), or nothing yet.
 * Decided by stat alone: sqlite opening a fifo would block for a writer
 * that never comes. A database named by --db must be in a folder that
 * exists: the lab creates only the folders lab.conf names (core.state,
 * core.db's) or ./state, never one a typo on the command line made up.
 */
static int check_db_path(const char *path, int named)
{
	struct stat st;
	char *copy, *dir;
	int ret = 0;

	if (!lstat(path, &st)) {
		if (stat(path, &st))
			return error("database '%s' is a symlink to nothing", path);
		if (!S_ISREG(st.st_mode))
			return error("database '%s' is not a regular file but %s", path,
				     file_kind(st.st_mode));
		return 0;
	}
	if (errno != ENOENT)
		return error("cannot use database '%s': %s", path, strerror(errno));
	if (!named)
		return 0;
	copy = xstrdup(path);
	dir = dirname(copy);
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		ret = error("no database at '%s': no directory '%s'", path, dir);
	free(copy);
	return ret;
}

int context_load_config(struct lab_context *ctx, const char *config_path,
			const char *db_path)
{
	memset(ctx, 0, sizeof(*ctx));
	if (config_load(&ctx->cfg, config_path))
		return -1;
	if (db_path) {
		free(ctx->cfg.db);
		ctx->cfg.db = xstrdup(db_path);
	}
	if (resolve_state(&ctx->cfg))
		return -1;
	return check_db_path(ctx->cfg.db, !!db_path);
}

int context_start(struct lab_context *ctx, const struct option_parser *p, int argc,
		  char **argv, const char *const *db, const char *const *config,
		  enum context_store store)
{
	memset(ctx, 0, sizeof(*ctx));
	if (parse_command_options(p, argc, argv, 0) < 0 ||
	    context_load_config(ctx, *config, *db))
		return -1;
	if (store == CONTEXT_STORE_READ)
		return context_open_store_read(ctx);
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
	free(ctx->dir);
	ctx->dir = xstrdup(ctx->cfg.state);
	return 0;
}

int context_open_store(struct lab_context *ctx)
{
	struct strbuf cache = STRBUF_INIT;
	char *dbdir = xstrdup(ctx->cfg.db), *real, *logdir;
	int bad = set_dir(ctx) || mkdir_p(ctx->dir) || mkdir_p(dirname(dbdir));

	free(dbdir);
	if (bad)
		return -1;
	real = realpath(ctx->dir, NULL);
	if (real) {
		free(ctx->dir);
		ctx->dir = real;
	}
	if (store_open(&ctx->st, ctx->cfg.db))
		return -1;
	/* runs that an earlier lab could not store, kept beside their console logs */
	logdir = context_logdir(ctx);
	if (logdir)
		store_spool_import(&ctx->st, logdir);
	free(logdir);
	/* initramfs images of labs killed by SIGKILL: nobody else removes them */
	strbuf_addf(&cache, "%s/cache", ctx->dir);
	tempfile_remove_stale(cache.buf, "initramfs-");
	strbuf_release(&cache);
	return 0;
}

int context_need_store(struct lab_context *ctx)
{
	return store_is_open(&ctx->st) ? 0 : context_open_store(ctx);
}

int context_open_store_read(struct lab_context *ctx)
{
	if (set_dir(ctx))
		return -1;
	return store_open_read(&ctx->st, ctx->cfg.db);
}

int experiment_lock(struct lab_context *ctx, long long exp_id)
{
	struct strbuf path = STRBUF_INIT;
	long holder;
	int fd = -1, ret = -1, r;

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
	r = lock_try(path.buf, &fd, &holder);
	if (r > 0 && holder)
		ret = error("experiment E%lld is being run by another lab (pid %ld)", exp_id, holder);
	else if (r > 0)
		ret = error("experiment E%lld is being run by another lab", exp_id);
	if (r)
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
	if (store_is_open(&ctx->st))
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

void format_time(char *out, size_t size, double epoch)
{
	time_t t = (time_t)epoch;
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(out, size, "%Y-%m-%d %H:%M:%S", &tm);
}

int context_opt_progress(const struct parse_option *opt, const char *arg)
{
	(void)arg;
	meter_mode = !strcmp(opt->long_name, "quiet") ? METER_QUIET : METER_ALWAYS;
	return 0;
}
