/* lab report: the static HTML site of the database's results. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "context.h"
#include "escape.h"
#include "parse-options.h"
#include "site.h"
#include "strbuf.h"

static const char *const report_usage[] = {
	"usage: lab report [--out DIR] [--force] [--db PATH] [--config FILE]",
	"  writes a static HTML site of the database's experiments, bisections and runs",
	"  (default DIR: site/ under core.state, site-NAME/ for a database NAME.db); pages",
	"  that did not change are left alone, pages it wrote of experiments, bisections",
	"  and runs no longer in the database are removed; a DIR another database or",
	"  someone else wrote is refused unless --force",
	"",
	parse_options_here,
	NULL,
};

int cmd_report(int argc, char **argv)
{
	struct lab_context ctx;
	struct report_stats stats;
	struct strbuf out_dir = STRBUF_INIT;
	const char *db_path = NULL, *config = NULL, *out = NULL;
	int force = 0;
	const struct parse_option options[] = {
		OPT_STRING(0, "out", &out, "DIR", "where the site goes (default: site/ under core.state)"),
		OPT_BOOL(0, "force", &force, "write DIR though another database or someone else wrote it"),
		CONTEXT_OPTIONS(&db_path, &config),
		OPT_END(),
	};
	struct option_parser parser = { "lab report", report_usage, options, NULL };
	int ret = 2;

	/* read-only, so that it can run while another lab writes */
	if (context_start(&ctx, &parser, argc, argv, &db_path, &config, CONTEXT_STORE_READ))
		goto out;
	if (site_write_forced(&ctx, out, force, &stats, &out_dir))
		goto out;
	printf("%s/index.html: %d file%s written, %d unchanged, %d removed\n",
	       term_safe(out_dir.buf), stats.written, stats.written == 1 ? "" : "s",
	       stats.unchanged, stats.removed);
	ret = 0;
out:
	strbuf_release(&out_dir);
	context_release(&ctx);
	return ret;
}
