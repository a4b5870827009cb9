/* The report site of the open database (site.h). */
#include <string.h>

#include "host.h"
#include "site.h"

int site_write(struct lab_context *ctx, const char *out, struct report_stats *stats,
	       struct strbuf *dir)
{
	struct report_options opt;
	struct strbuf css = STRBUF_INIT, logs = STRBUF_INIT;
	int ret;

	memset(&opt, 0, sizeof(opt));
	if (out)
		strbuf_addstr(dir, out);
	else
		strbuf_addf(dir, "%s/site", ctx->cfg.state);
	strbuf_addf(&css, "%s/web/style.css", lab_source_dir());
	/* where boot plans put them (context_logdir()), whichever database this is */
	strbuf_addf(&logs, "%s/logs", ctx->cfg.state);
	opt.out_dir = dir->buf;
	opt.css_path = css.buf;
	opt.log_dir = logs.buf;
	opt.recent = 50;
	opt.commit_url = ctx->cfg.report_commit_url;
	ret = report_write_site(stats, &ctx->st, &opt);
	strbuf_release(&css);
	strbuf_release(&logs);
	return ret;
}
