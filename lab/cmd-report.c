/* lab report: the static HTML site of the database's results. */
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "context.h"
#include "host.h"
#include "log.h"
#include "options.h"
#include "report.h"
#include "strbuf.h"

static const char report_usage[] =
"usage: lab report [--out DIR] [--db PATH] [--config FILE]\n"
"  writes a static HTML site of the database's experiments, bisections and runs\n"
"  (default DIR: site/ beside the database); pages that did not change are left alone,\n"
"  pages of experiments, bisections and runs no longer in the database are removed\n";

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "db", required_argument, NULL, 'd' },
		{ "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct lab_context ctx;
	struct report_options opt;
	struct report_stats stats;
	struct strbuf out_dir = STRBUF_INIT, css = STRBUF_INIT;
	const char *db_path = NULL, *config = NULL, *out = NULL;
	char *copy = NULL;
	int c, ret = 2;

	memset(&ctx, 0, sizeof(ctx));
	memset(&opt, 0, sizeof(opt));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'd': db_path = optarg; break;
		case 'c': config = optarg; break;
		case 'h': fputs(report_usage, stdout); return 0;
		default:
			option_error("lab report", "h", longopts, argv);
			return 2;
		}
	}
	if (optind != argc) {
		error("'lab report' takes no arguments (see 'lab report --help')");
		return 2;
	}
	/* read-only, so that it can run while another lab writes */
	if (context_load_config(&ctx, config, db_path) || context_open_store_read(&ctx))
		goto out;
	if (out) {
		strbuf_addstr(&out_dir, out);
	} else {
		copy = strdup(ctx.cfg.db);
		if (!copy) {
			error("out of memory");
			goto out;
		}
		strbuf_addf(&out_dir, "%s/site", dirname(copy));
	}
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
	free(copy);
	strbuf_release(&out_dir);
	strbuf_release(&css);
	context_release(&ctx);
	return ret;
}
