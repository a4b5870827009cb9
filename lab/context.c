#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "context.h"
#include "xalloc.h"
#include "log.h"
#include "strbuf.h"

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

int context_open_store(struct lab_context *ctx)
{
	char *copy = strdup(ctx->cfg.db);

	if (!copy)
		return error("out of memory");
	ctx->dir = strdup(dirname(copy));
	free(copy);
	if (!ctx->dir)
		return error("out of memory");
	if (mkdir_p(ctx->dir))
		return -1;
	copy = realpath(ctx->dir, NULL);
	if (copy) {
		free(ctx->dir);
		ctx->dir = copy;
	}
	return store_open(&ctx->st, ctx->cfg.db);
}

void context_release(struct lab_context *ctx)
{
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
