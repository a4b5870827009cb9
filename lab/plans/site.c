/* The report site of the open database (site.h). */
#include <libgen.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"
#include "site.h"
#include "xalloc.h"

/*
 * site/ for lab.db, site-<name>/ for any other <name>.db: two databases in
 * one folder share <state>, and each site belongs to one database (a
 * marker says which), so each gets a folder of its own, as their console
 * logs do (context_logdir()).
 */
static void default_dir(struct strbuf *dir, struct lab_context *ctx)
{
	char *copy = xstrdup(ctx->cfg.db), *base = basename(copy), *dot = strrchr(base, '.');

	if (dot && dot != base)
		*dot = '\0';
	strbuf_addf(dir, "%s/site", ctx->cfg.state);
	if (strcmp(base, "lab") && *base && strcmp(base, "/"))
		strbuf_addf(dir, "-%s", base);
	free(copy);
}

int site_write_forced(struct lab_context *ctx, const char *out, int force,
		      struct report_stats *stats, struct strbuf *dir)
{
	struct report_options opt;
	struct strbuf css = STRBUF_INIT, logs = STRBUF_INIT;
	int ret;

	memset(&opt, 0, sizeof(opt));
	if (out)
		strbuf_addstr(dir, out);
	else
		default_dir(dir, ctx);
	strbuf_addf(&css, "%s/web/style.css", lab_source_dir());
	/* where boot plans put them (context_logdir()), whichever database this is */
	strbuf_addf(&logs, "%s/logs", ctx->cfg.state);
	opt.out_dir = dir->buf;
	opt.force = force;
	opt.css_path = css.buf;
	opt.log_dir = logs.buf;
	opt.recent = 50;
	opt.commit_url = ctx->cfg.report_commit_url;
	ret = report_write_site(stats, &ctx->st, &opt);
	strbuf_release_all(&css, &logs);
	return ret;
}

int site_write(struct lab_context *ctx, const char *out, struct report_stats *stats,
	       struct strbuf *dir)
{
	return site_write_forced(ctx, out, 0, stats, dir);
}
