/* lab nightly: one night of each [nightly "NAME"] of lab.conf, or of the one named. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "context.h"
#include "log.h"
#include "nightly.h"
#include "options.h"
#include "strbuf.h"

static const char nightly_usage[] =
"usage: lab nightly [NAME] [--db PATH] [--config FILE]\n"
"\n"
"One night of the nightly NAME ([nightly \"NAME\"] in lab.conf), or of each one\n"
"configured: fetch its branch, measure the new commits, look for changes in every\n"
"series, confirm each with an interleaved A/B, bisect a confirmed regression,\n"
"mail and POST what was confirmed. For cron or a systemd timer.\n"
"\n"
"exit status: 0 no confirmed regression, 1 a confirmed regression,\n"
"             2 an error or an infrastructure failure (retried next night),\n"
"             75 another lab is running this nightly\n";

int cmd_nightly(int argc, char **argv)
{
	enum { O_DB = 256, O_CONFIG };
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, O_DB },
		{ "config", required_argument, NULL, O_CONFIG },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct lab_context ctx;
	const char *db = NULL, *config = NULL, *name = NULL;
	int c, ret = 2;

	memset(&ctx, 0, sizeof(ctx));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case O_DB: db = optarg; break;
		case O_CONFIG: config = optarg; break;
		case 'h':
			fputs(nightly_usage, stdout);
			return 0;
		default:
			option_error("lab nightly", "h", longopts, argv);
			return 2;
		}
	}
	if (optind < argc)
		name = argv[optind++];
	if (optind < argc) {
		error("unexpected argument '%s' for 'lab nightly'", argv[optind]);
		return 2;
	}
	if (context_load_config(&ctx, config, db))
		goto out;
	if (!ctx.cfg.nnightlies) {
		error("no nightly in %s: add a [nightly \"NAME\"] section with its repository",
		      ctx.cfg.path ? ctx.cfg.path : "the configuration (no lab.conf)");
		goto out;
	}
	if (name && !config_nightly(&ctx.cfg, name)) {
		struct strbuf known = STRBUF_INIT;

		for (size_t i = 0; i < ctx.cfg.nnightlies; i++)
			strbuf_addf(&known, "%s%s", i ? ", " : "", ctx.cfg.nightlies[i].name);
		error("unknown nightly '%s' in %s (known: %s)", name, ctx.cfg.path, known.buf);
		strbuf_release(&known);
		goto out;
	}
	ret = 0;
	for (size_t i = 0; i < ctx.cfg.nnightlies; i++) {
		const struct lab_nightly *n = &ctx.cfg.nightlies[i];
		enum nightly_status r;

		if (name && strcmp(n->name, name))
			continue;
		r = nightly_run(&ctx, n, stdout);
		fflush(stdout);
		/* the worst of the nights: an error, then busy, then a regression */
		if (r == NIGHTLY_ERROR || (r == NIGHTLY_BUSY && ret != NIGHTLY_ERROR) ||
		    (r == NIGHTLY_REGRESSION && !ret))
			ret = (int)r;
	}
out:
	context_release(&ctx);
	return ret;
}
