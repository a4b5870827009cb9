/* lab report: the static HTML site of the database's results. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "context.h"
#include "host.h"
#include "log.h"
#include "parse-options.h"
#include "report.h"
#include "strbuf.h"

static const char *const report_usage[] = {
	"usage: lab report [--out DIR] [--db PATH] [--config FILE]",
	"  writes a static HTML site of the database's experiments, bisections and runs",
	"  (default DIR: site/ under core.state); pages that did not change are left alone,",
	"  pages of experiments, bisections and runs no longer in the database are removed",
	"",
	parse_options_here,
	NULL,
};

int cmd_report(int argc, char **argv)
{
	struct lab_context ctx;
	struct report_options opt;
	struct report_stats stats;
	struct strbuf out_dir = STRBUF_INIT, css = STRBUF_INIT;
	const char *db_path = NULL, *config = NULL, *out = NULL;
	const struct parse_option options[] = {
		OPT_STRING(0, "out", &out, "DIR", "where the site goes (default: site/ under core.state)"),
		CONTEXT_OPTIONS(&db_path, &config),
		OPT_END(),
	};
	struct option_parser parser = { "lab report", report_usage, options, NULL };
	int n, ret = 2;

	memset(&ctx, 0, sizeof(ctx));
	memset(&opt, 0, sizeof(opt));
	n = parse_options(&parser, argc, argv);
	if (n == PARSE_OPT_HELP)
		return 0;
	if (n < 0)
		return 2;
	if (n) {
		error("'lab report' takes no arguments (see 'lab report --help')");
		return 2;
	}
	/* read-only, so that it can run while another lab writes */
	if (context_load_config(&ctx, config, db_path) || context_open_store_read(&ctx))
		goto out;
	if (out)
		strbuf_addstr(&out_dir, out);
	else
		strbuf_addf(&out_dir, "%s/site", ctx.cfg.state);
	strbuf_addf(&css, "%s/web/style.css", lab_source_dir());
	opt.out_dir = out_dir.buf;
	opt.css_path = css.buf;
	opt.recent = 50;
	if (report_write_site(&stats, &ctx.st, &opt))
		goto out;
	printf("%s/index.html: %d file(s) written, %d unchanged, %d removed\n", out_dir.buf,
	       stats.written, stats.unchanged, stats.removed);
	ret = 0;
out:
	strbuf_release(&out_dir);
	strbuf_release(&css);
	context_release(&ctx);
	return ret;
}
