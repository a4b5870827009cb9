/* lab target: the targets of lab.conf, and what one lacks to boot there. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "config.h"
#include "context.h"
#include "escape.h"
#include "host-drivers.h"
#include "host.h"
#include "kconfig.h"
#include "log.h"
#include "parse-options.h"
#include "regfile.h"
#include "runner.h"
#include "strbuf.h"
#include "strvec.h"
#include "textfmt.h"

static const char *const target_usage[] = {
	"usage: lab target list [--config FILE]",
	"   or: lab target check [NAME...] [--fragment FILE]... [--config FILE]",
	"",
	"list: each [target \"NAME\"] of lab.conf, its class, runner, arch and where",
	"it boots. check: what each target named (default: every one) lacks to boot",
	"there, in one line: an ssh host is asked for its connection (host key",
	"checked), root, kexec-tools, a free directory and its arch; a qemu target",
	"for its QEMU binary and accelerator; a libvirt target for its connection.",
	"Nothing is booted. Under an ssh target, it names the drivers of its root and",
	"network that the config fragments (--fragment; an arm64 target's default:",
	"kernels/configs/arm64-server.config) would not build.",
	"",
	parse_options_here,
	"",
	"exit status: 0 nothing missing, 1 something missing, 2 an error (a bad name)",
	NULL,
};

/* What the target's runner is told of it: its QEMU binary, accelerator, connection, host. */
static void target_spec(struct run_spec *spec, const struct lab_target *t,
			const struct lab_config *cfg, const char *cache)
{
	memset(spec, 0, sizeof(*spec));
	spec->cache = cache;
	spec->arch = t->arch;
	spec->qemu = config_qemu_binary(cfg, t->arch ? t->arch : host_arch());
	spec->accel = t->accel ? t->accel : config_accel_name(cfg->accel);
	spec->libvirt_uri = t->uri ? t->uri : cfg->libvirt_uri;
	spec->ssh = &t->ssh;
	spec->lava = &t->lava;
}

/* Where the target boots, in a word: the ssh host, the libvirt connection. */
static void target_where(struct strbuf *sb, const struct lab_target *t,
			 const struct lab_config *cfg)
{
	struct run_spec spec;

	target_spec(&spec, t, cfg, NULL);
	runner_where(t->ops, &spec, sb);
}

static int target_list(const struct lab_config *cfg)
{
	int wn = 4, wc = 5;

	if (!cfg->ntargets) {
		error("no target in %s: add [target \"NAME\"] sections",
		      cfg->path ? cfg->path : "the configuration (no lab.conf)");
		return 2;
	}
	for (size_t i = 0; i < cfg->ntargets; i++) {
		int n = (int)strlen(cfg->targets[i].name), c = (int)strlen(cfg->targets[i].class);
		wn = n > wn ? n : wn;
		wc = c > wc ? c : wc;
	}
	printf("%-*s  %-*s  %-7s  %-7s  %s\n", wn, "NAME", wc, "CLASS", "RUNNER", "ARCH", "WHERE");
	for (size_t i = 0; i < cfg->ntargets; i++) {
		const struct lab_target *t = &cfg->targets[i];
		struct strbuf where = STRBUF_INIT, row = STRBUF_INIT;

		target_where(&where, t, cfg);
		strbuf_addf(&row, "%-*s  %-*s  %-7s  %-7s  %s", wn, term_safe(t->name), wc,
			    term_safe(t->class), t->ops->name,
			    t->arch ? term_safe(t->arch) : "any", term_safe(where.buf));
		/* a long binary path or URI goes on under its row */
		textfmt_wrap(stdout, "", "    ", row.buf);
		strbuf_release(&where);
		strbuf_release(&row);
	}
	return 0;
}

/* The fragments a kernel for these targets is built with, one after another. */
struct target_fragments {
	struct strbuf text;
	struct strbuf names;	/* their file names, for the line */
};

static int fragments_read(struct target_fragments *f, const struct strvec *paths)
{
	for (size_t i = 0; i < paths->nr; i++) {
		const char *base = strrchr(paths->v[i], '/');

		if (strbuf_read_file(&f->text, paths->v[i], 1 << 20))
			return error("cannot read fragment '%s': %s", paths->v[i], strerror(errno));
		strbuf_addch(&f->text, '\n');
		strbuf_addf(&f->names, "%s%s", f->names.len ? ", " : "", base ? base + 1 : paths->v[i]);
	}
	return 0;
}

/* Each driver of found's "drivers ..." words, once, into *drivers. */
static void found_drivers(struct strvec *drivers, const char *found)
{
	for (const char *p = found; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		const char *d = strstr(p, ", drivers "), *nl = strchrnul(p, '\n');
		struct strvec words = STRVEC_INIT;
		struct strbuf line = STRBUF_INIT;

		if (!d || d > nl)
			continue;
		strbuf_add(&line, d + 10, (size_t)(nl - d - 10));
		strvec_split(&words, line.buf);
		for (size_t i = 0; i < words.nr; i++) {
			size_t j = 0;

			while (j < drivers->nr && strcmp(drivers->v[j], words.v[i]))
				j++;
			if (j == drivers->nr)
				strvec_push(drivers, words.v[i]);
		}
		strvec_release(&words);
		strbuf_release(&line);
	}
}

/*
 * A line under the target: the drivers its root and network run on that
 * the fragments would not build, each with the options it lacks; those
 * the lab cannot name an option for; or that the fragments build them all.
 */
static void drivers_line(struct strbuf *sb, const struct target_fragments *f, const char *found)
{
	struct strvec drivers = STRVEC_INIT;
	struct strbuf lacks = STRBUF_INIT, unknown = STRBUF_INIT, opts = STRBUF_INIT;

	found_drivers(&drivers, found);
	for (size_t i = 0; i < drivers.nr; i++) {
		const char *const *o = host_driver_options(drivers.v[i]);

		if (!o) {
			strbuf_addf(&unknown, "%s%s", unknown.len ? " " : "", drivers.v[i]);
			continue;
		}
		strbuf_reset(&opts);
		for (; *o; o++)
			if (!kconfig_builds(f->text.buf, *o))
				strbuf_addf(&opts, "%sCONFIG_%s", opts.len ? " " : "", *o);
		if (opts.len)
			strbuf_addf(&lacks, "%s%s (%s)", lacks.len ? ", " : "", drivers.v[i], opts.buf);
	}
	if (lacks.len)
		strbuf_addf(sb, "\nnot built by %s: %s", f->names.buf, lacks.buf);
	if (unknown.len)
		strbuf_addf(sb, "\ndrivers the lab knows no option of (check %s by hand): %s",
			    f->names.buf, unknown.buf);
	strbuf_reset(&opts);
	if (drivers.nr && !lacks.len && !unknown.len) {
		for (size_t i = 0; i < drivers.nr; i++)
			strbuf_addf(&opts, "%s%s", i ? " " : "", drivers.v[i]);
		strbuf_addf(sb, "\nbuilt by %s: %s", f->names.buf, opts.buf);
	}
	strvec_release(&drivers);
	strbuf_release(&lacks);
	strbuf_release(&unknown);
	strbuf_release(&opts);
}

/*
 * The fragments given, or an arm64 target's default, the server fragment,
 * against the drivers in found: their lines added to found.
 */
static void check_drivers(struct strbuf *found, const struct lab_target *t,
			  const struct target_fragments *given)
{
	struct strbuf lines = STRBUF_INIT;
	struct target_fragments dflt = { STRBUF_INIT, STRBUF_INIT };
	struct strvec path = STRVEC_INIT;

	if (given->names.len) {
		drivers_line(&lines, given, found->buf);
	} else if (t->arch && !strcmp(t->arch, "aarch64")) {
		strvec_pushf(&path, "%s/kernels/configs/arm64-server.config", lab_source_dir());
		if (!fragments_read(&dflt, &path))
			drivers_line(&lines, &dflt, found->buf);
	}
	if (lines.len)
		strbuf_add(found, lines.buf, lines.len);
	strbuf_release(&lines);
	strvec_release(&path);
	strbuf_release(&dflt.text);
	strbuf_release(&dflt.names);
}

/* One line for the target; 1 when it lacks something. */
static int target_check_one(const struct lab_target *t, const struct lab_config *cfg,
			    const char *kvm_note, const char *cache,
			    const struct target_fragments *frags)
{
	const struct runner *r = t->ops;
	struct strbuf missing = STRBUF_INIT, where = STRBUF_INIT, found = STRBUF_INIT;
	struct strbuf line = STRBUF_INIT;
	struct run_spec spec;
	int ret;

	target_spec(&spec, t, cfg, cache);
	spec.kvm_note = kvm_note;
	if (r->check)
		r->check(&spec, &missing, &found);
	/* a kernel kexec'd there must drive what the host runs on */
	if ((r->flags & RUNNER_KEXECS_HOST) && found.len)
		check_drivers(&found, t, frags);
	runner_where(r, &spec, &where);
	strbuf_addf(&line, "target '%s' (%s, %s): %s%s", term_safe(t->name), r->name,
		    term_safe(where.buf), missing.len ? "missing " : "ready",
		    missing.len ? term_safe(missing.buf) : "");
	/* its further lines indented deeper than the found lines under it */
	textfmt_wrap(stdout, "", "    ", line.buf);
	/* a line each, under the target's, wrapped within the columns */
	for (char *p = found.len ? found.buf : "", *nl; *p; p = nl ? nl + 1 : p + strlen(p)) {
		if ((nl = strchr(p, '\n')))
			*nl = '\0';
		textfmt_wrap(stdout, "  ", "    ", term_safe(p));
	}
	fflush(stdout);
	ret = missing.len ? 1 : 0;
	strbuf_release(&missing);
	strbuf_release(&where);
	strbuf_release(&found);
	strbuf_release(&line);
	return ret;
}

static int target_check(const struct lab_config *cfg, int argc, char **argv,
			const struct target_fragments *frags)
{
	struct strbuf note = STRBUF_INIT, cache = STRBUF_INIT;
	int ret = 0;

	if (!cfg->ntargets) {
		error("no target in %s: add [target \"NAME\"] sections",
		      cfg->path ? cfg->path : "the configuration (no lab.conf)");
		return 2;
	}
	/* every name first: a bad one checks nothing */
	for (int i = 0; i < argc; i++)
		if (!config_target(cfg, argv[i]))
			return 2;
	/* where a boot notes what outlives it: KVM failing here (lab/plans/boot.c), a host out of service */
	strbuf_addf(&cache, "%s/cache", cfg->state ? cfg->state : "state");
	strbuf_addf(&note, "%s/kvm-verdict", cache.buf);
	for (size_t i = 0; i < cfg->ntargets; i++) {
		const struct lab_target *t = &cfg->targets[i];
		int named = !argc;

		for (int j = 0; j < argc && !named; j++)
			named = !strcmp(argv[j], t->name);
		if (named && target_check_one(t, cfg, note.buf, cache.buf, frags))
			ret = 1;
	}
	strbuf_release(&note);
	strbuf_release(&cache);
	return ret;
}

int cmd_target(int argc, char **argv)
{
	struct lab_context ctx;
	const char *db = NULL, *config = NULL;
	struct strvec fragments = STRVEC_INIT;
	struct target_fragments frags = { STRBUF_INIT, STRBUF_INIT };
	const struct parse_option options[] = {
		CONTEXT_OPTIONS(&db, &config),
		OPT_STRVEC(0, "fragment", &fragments, "FILE",
			   "config fragment a kernel for the targets is built with (repeatable)"),
		OPT_END(),
	};
	struct option_parser parser = { "lab target", target_usage, options, NULL };
	int nargs, ret = 2;

	memset(&ctx, 0, sizeof(ctx));
	/* a subcommand and its own arguments, checked here */
	nargs = parse_command_options(&parser, argc, argv, PARSE_OPT_ANY_ARGS);
	if (nargs < 0)
		goto out;
	if (!nargs || (strcmp(argv[0], "list") && strcmp(argv[0], "check"))) {
		error("'lab target' takes list or check%s%s%s (see 'lab target --help')",
		      nargs ? ", not '" : "", nargs ? argv[0] : "", nargs ? "'" : "");
		goto out;
	}
	if (!strcmp(argv[0], "list") && nargs > 1) {
		error("unexpected argument '%s' for 'lab target list'", argv[1]);
		goto out;
	}
	if (!strcmp(argv[0], "list") && fragments.nr) {
		error("--fragment is for 'lab target check', not 'lab target list'");
		goto out;
	}
	if (fragments_read(&frags, &fragments) || context_load_config(&ctx, config, db))
		goto out;
	ret = !strcmp(argv[0], "list") ? target_list(&ctx.cfg) :
	      target_check(&ctx.cfg, nargs - 1, argv + 1, &frags);
out:
	context_release(&ctx);
	strvec_release(&fragments);
	strbuf_release(&frags.text);
	strbuf_release(&frags.names);
	return ret;
}
