/* lab nightly: one night of each [nightly "NAME"] of lab.conf, or of the one named. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "context.h"
#include "escape.h"
#include "log.h"
#include "nightly.h"
#include "parse-options.h"
#include "strbuf.h"
#include "tempfile.h"

static const char *const nightly_usage[] = {
	"usage: lab nightly [NAME] [--db PATH] [--config FILE]",
	"",
	"One night of the nightly NAME ([nightly \"NAME\"] in lab.conf), or of each one",
	"configured: fetch its branch, measure the new commits, look for changes in every",
	"series, confirm each with an interleaved A/B, bisect a confirmed regression,",
	"mail and POST what was confirmed. For cron or a systemd timer.",
	"",
	parse_options_here,
	"",
	"exit status: 0 no confirmed regression, 1 a confirmed regression,",
	"             2 an error or an infrastructure failure (retried next night),",
	"             75 another lab is running this nightly,",
	"             130 or 143 stopped by SIGINT or SIGTERM (the next night goes on)",
	NULL,
};

int cmd_nightly(int argc, char **argv)
{
	struct lab_context ctx;
	const char *db = NULL, *config = NULL, *name = NULL;
	const struct parse_option options[] = {
		CONTEXT_OPTIONS(&db, &config),
		OPT_END(),
	};
	struct option_parser parser = { "lab nightly", nightly_usage, options, NULL };
	struct strbuf command = STRBUF_INIT;
	int nargs, ret = 2;

	memset(&ctx, 0, sizeof(ctx));
	/* stored with the night's A/Bs and bisections: as given, before parsing reorders argv */
	strbuf_addstr(&command, "lab ");
	escape_shell_words(&command, argc, argv);
	/* one night, or every one */
	nargs = parse_command_options(&parser, argc, argv, 1);
	if (nargs < 0)
		goto out;
	if (nargs)
		name = argv[0];
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
	/*
	 * Ctrl-C or SIGTERM: the boot under way ends INFRA "interrupted", the
	 * night INTERRUPTED with what the next one goes on with, and the lab
	 * dies of the signal
	 */
	fatal_signal_defer(1);
	for (size_t i = 0; i < ctx.cfg.nnightlies; i++) {
		const struct lab_nightly *n = &ctx.cfg.nightlies[i];
		enum nightly_status r;

		if (name && strcmp(n->name, name))
			continue;
		r = nightly_run(&ctx, n, command.buf, stdout);
		fflush(stdout);
		if (fatal_signal_pending()) {
			context_release(&ctx);
			strbuf_release(&command);
			fatal_signal_die();
		}
		/* the worst of the nights: an error, then busy, then a regression */
		if (r == NIGHTLY_ERROR || (r == NIGHTLY_BUSY && ret != NIGHTLY_ERROR) ||
		    (r == NIGHTLY_REGRESSION && !ret))
			ret = (int)r;
	}
out:
	context_release(&ctx);
	strbuf_release(&command);
	return ret;
}
