/*
 * lab.conf (config.h): a key table per section, applied by the one loop of
 * config-keys.c; [workload "NAME"]'s is config-workload.c's.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "array.h"
#include "config-keys.h"
#include "config-values.h"
#include "config.h"
#include "curlutil.h"
#include "escape.h"
#include "log.h"
#include "notify.h"
#include "runner-list.h"
#include "strbuf.h"
#include "xalloc.h"

#define DEFAULT_CONFIG "lab.conf"

/* Setters of config_key.set for the fields below: -1 for a bad value, nothing printed. */

static int set_accel(void *field, const char *v)
{
	return parse_accel(v, field);
}

static int set_runner(void *field, const char *v)
{
	return parse_runner(v, field);
}

static int set_clock(void *field, const char *v)
{
	return parse_clock(v, field);
}

static int set_icount_shift(void *field, const char *v)
{
	return parse_icount_shift(v, field);
}

/* A [target] or [nightly] keeps these as written, once parse_*() took them. */
static int set_accel_name(void *field, const char *v)
{
	enum lab_accel a;
	return parse_accel(v, &a) ? -1 : config_set_string(field, v);
}

static int set_runner_name(void *field, const char *v)
{
	enum lab_runner r;
	return parse_runner(v, &r) ? -1 : config_set_string(field, v);
}

static int set_clock_name(void *field, const char *v)
{
	enum lab_clock c;
	return parse_clock(v, &c) ? -1 : config_set_string(field, v);
}

static int set_arch(void *field, const char *v)
{
	return parse_arch(v) ? -1 : config_set_string(field, v);
}

/* An http(s) address with one %H, where the report puts a commit's full id. */
static int set_commit_url(void *field, const char *v)
{
	const char *h = strstr(v, "%H");

	if (!lab_url_scheme(v, "http") || !h || strstr(h + 2, "%H"))
		return -1;
	return config_set_string(field, v);
}

/* An address of scheme (or its secure form), with no blank or control character in it. */
static int set_url(void *field, const char *v, const char *scheme)
{
	for (const char *p = v; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return -1;
	return lab_url_scheme(v, scheme) ? config_set_string(field, v) : -1;
}

static int set_smtp(void *field, const char *v)
{
	return set_url(field, v, "smtp");
}

static int set_webhook(void *field, const struct config_entry *e, const char **expected)
{
	if (!set_url(field, e->value, "http"))
		return 0;
	/* a chat service's webhook holds its secret in the path (.../services/T0/B0/KEY) */
	config_bad_value(e, *expected, URL_REDACT_PATH);
	*expected = NULL;
	return -1;
}

/* Addresses go into the SMTP dialogue and a mail's header as they are: plain ones only. */
static int set_mail_to(void *field, const char *v)
{
	return notify_address_list_ok(v) ? config_set_string(field, v) : -1;
}

static int set_mail_from(void *field, const char *v)
{
	return notify_address_ok(v) ? config_set_string(field, v) : -1;
}

/* baseUrl: where the report is served, or "" for nowhere said */
static int set_base_url(void *field, const char *v)
{
	return *v ? set_url(field, v, "http") : config_set_string(field, v);
}

/* A branch name as git takes it after refs/heads/ (git check-ref-format's rules, the simple ones). */
static int set_branch(void *field, const char *v)
{
	size_t n = strlen(v);

	for (const char *p = v; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f || strchr("~^:?*[\\", *p))
			return -1;
	if (!n || *v == '-' || *v == '/' || v[n - 1] == '/' || v[n - 1] == '.' ||
	    strstr(v, "..") || strstr(v, "//") || strstr(v, "@{") || strstr(v, "/.") || *v == '.' ||
	    (n >= 5 && !strcmp(v + n - 5, ".lock")) || !strcmp(v, "@"))
		return -1;
	return config_set_string(field, v);
}

static int set_path(void *field, const char *v)
{
	return *v && !strpbrk(v, "\r\n") ? config_set_string(field, v) : -1;
}

#define CFG(field) offsetof(struct lab_config, field)

static const struct config_key core_keys[] = {
	{ "db", CFG(db), config_set_text, NULL, "a path" },
	{ "state", CFG(state), config_set_text, NULL, "a path" },
	{ "repo", CFG(repo), config_set_text, NULL, "a path to a git repository" },
};

static const struct config_key qemu_keys[] = {
	{ "x86_64.binary", CFG(qemu_x86_64), config_set_text, NULL, "a program name or path" },
	{ "aarch64.binary", CFG(qemu_aarch64), config_set_text, NULL, "a program name or path" },
	{ "accel", CFG(accel), set_accel, NULL, "kvm, tcg or auto" },
	/* git config keys have no '_': qemu.icountShift, read case-insensitively */
	{ "icountshift", CFG(icount_shift), set_icount_shift, NULL,
	  "a shift from 0 to 10 (2^N ns per instruction)" },
};

static const struct config_key run_keys[] = {
	{ "mem", CFG(mem_mib), config_set_size, NULL, SIZE_EXPECTED },
	{ "cpus", CFG(cpus), config_set_cpus, NULL, CPUS_EXPECTED },
	{ "timeout", CFG(timeout_s), config_set_seconds, NULL,
	  SECONDS_EXPECTED " such as 300, 300s or 5m" },
	{ "runner", CFG(runner), set_runner, NULL, "qemu, local, libvirt, ssh or lava" },
	{ "iters", CFG(iters), config_set_positive, NULL, "a positive integer" },
	{ "clock", CFG(clock), set_clock, NULL, "wall, icount or auto" },
};

static const struct config_key build_keys[] = {
	{ "command", CFG(build_command), config_set_text, NULL, "a command line" },
	{ "artifact", CFG(build_artifact), config_set_text, NULL, "a path inside the work tree" },
	{ "config", CFG(build_config), config_set_text, NULL,
	  "tinyconfig, defconfig or a config file" },
	{ "jobs", CFG(build_jobs), config_set_positive, NULL, "a positive integer" },
	{ "timeout", CFG(build_timeout_s), config_set_seconds, NULL,
	  SECONDS_EXPECTED " such as 3600 or 1h" },
	{ "ccachesize", CFG(build_ccache_mib), config_set_size, NULL, SIZE_EXPECTED },
};

static const struct config_key libvirt_keys[] = {
	{ "uri", CFG(libvirt_uri), config_set_text, NULL,
	  "a libvirt connection URI such as qemu:///system" },
};

static const struct config_key report_keys[] = {
	{ "commiturl", CFG(report_commit_url), set_commit_url, NULL,
	  "an http(s) address with %H for the commit, such as https://git.kernel.org/linus/%H" },
};

/* the ssh runner's keys, as runners/ssh.c names and checks them */
static const struct config_borrowed ssh_keys[] = {
	{ CFG(ssh), ssh_config_keys, &ssh_config_nkeys },
};

static int set_cmdline(void *nightly, const char *v)
{
	struct lab_nightly *n = nightly;

	ALLOC_GROW(n->cmdlines, n->ncmdlines + 1, n->cmdlines_alloc);
	n->cmdlines[n->ncmdlines++] = xstrdup(v);
	return 0;
}

static int set_policy(void *field, const char *v)
{
	enum nightly_policy *p = field;

	if (!strcmp(v, "head"))
		*p = NIGHTLY_HEAD;
	else if (!strcmp(v, "new"))
		*p = NIGHTLY_NEW;
	else
		return -1;
	return 0;
}

#define NIGHTLY(field) offsetof(struct lab_nightly, field)

static const struct config_key nightly_keys[] = {
	{ "repository", NIGHTLY(repository), set_path, NULL,
	  "a path or URL of a git repository" },
	{ "branch", NIGHTLY(branch), set_branch, NULL, "a branch name such as master" },
	{ "workloads", NIGHTLY(workloads), config_set_text, NULL,
	  "workloads such as zeroing,demote" },
	{ "mem", NIGHTLY(mem), config_set_size_list, NULL, "sizes such as 2G or 1G,4G" },
	{ "cmdline", 0, set_cmdline, NULL, NULL },
	{ "clock", NIGHTLY(clock), set_clock_name, NULL, "wall, icount or auto" },
	{ "boots", NIGHTLY(boots), config_set_positive, NULL, "a positive integer" },
	{ "iters", NIGHTLY(iters), config_set_positive, NULL, "a positive integer" },
	{ "policy", NIGHTLY(policy), set_policy, NULL, "head or new" },
	{ "maxcommits", NIGHTLY(max_commits), config_set_positive, NULL, "a positive integer" },
	{ "bisectbudget", NIGHTLY(bisect_budget), config_set_positive, NULL,
	  "a positive number of boots" },
	{ "delta", NIGHTLY(delta), config_set_fraction, NULL, "a fraction such as 0.5% or 0.005" },
	{ "mailto", NIGHTLY(mail_to), set_mail_to, NULL, NOTIFY_ADDRESSES_EXPECTED },
	{ "mailfrom", NIGHTLY(mail_from), set_mail_from, NULL,
	  "one plain address such as lab@example.org (no name, no <>)" },
	{ "smtp", NIGHTLY(smtp), set_smtp, NULL, "an smtp:// or smtps:// URL" },
	{ "webhook", NIGHTLY(webhook), NULL, set_webhook, "an http:// or https:// URL" },
	{ "credentials", NIGHTLY(credentials), set_path, NULL, "a path" },
	{ "baseurl", NIGHTLY(base_url), set_base_url, NULL, "an http:// or https:// URL" },
};

static void nightly_init(void *nightly, const struct config_entry *e)
{
	struct lab_nightly *n = nightly;

	(void)e;
	n->branch = xstrdup("master");
	n->workloads = xstrdup("zeroing");
	n->boots = 3;
	n->max_commits = 10;
}

static void nightly_release(struct lab_nightly *n)
{
	free(n->name);
	free(n->repository);
	free(n->branch);
	free(n->workloads);
	free(n->mem);
	for (size_t i = 0; i < n->ncmdlines; i++)
		free(n->cmdlines[i]);
	free(n->cmdlines);
	free(n->clock);
	free(n->mail_to);
	free(n->mail_from);
	free(n->smtp);
	free(n->webhook);
	free(n->credentials);
	free(n->base_url);
}

const struct lab_nightly *config_nightly(const struct lab_config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->nnightlies; i++)
		if (!strcmp(cfg->nightlies[i].name, name))
			return &cfg->nightlies[i];
	return NULL;
}

#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"

static int set_class(void *field, const char *v)
{
	if (!*v || v[strspn(v, NAME_CHARS ".")])
		return -1;
	return config_set_string(field, v);
}

static int target_name_ok(const char *name, size_t len, const struct config_entry *e)
{
	for (size_t i = 0; i < len; i++)
		if (!strchr(NAME_CHARS, name[i]))
			return error("bad target name '%.*s' in %s %s line %d: expected letters, "
				     "digits, '-' and '_'", (int)len, name, e->kind, e->path, e->line);
	return 0;
}

/* A nightly's name is in its mail's subject and its summary line: one line of text. */
static int nightly_name_ok(const char *name, size_t len, const struct config_entry *e)
{
	struct strbuf shown = STRBUF_INIT;
	int ret = 0;

	for (size_t i = 0; i < len && !ret; i++)
		if ((unsigned char)name[i] < ' ' || name[i] == 0x7f) {
			strbuf_add(&shown, name, len);
			ret = error("bad nightly name '%s' in %s %s line %d: a control character in it",
				    term_safe(shown.buf), e->kind, e->path, e->line);
		}
	strbuf_release(&shown);
	return ret;
}

#define TARGET(field) offsetof(struct lab_target, field)

static const struct config_key target_keys[] = {
	{ "runner", TARGET(runner), set_runner_name, NULL, "qemu, local, libvirt, ssh or lava" },
	{ "uri", TARGET(uri), config_set_text, NULL,
	  "a libvirt connection URI such as qemu+ssh://host/system" },
	{ "arch", TARGET(arch), set_arch, NULL, "x86_64 or aarch64" },
	{ "cpus", TARGET(cpus), config_set_cpus, NULL, CPUS_EXPECTED },
	{ "mem", TARGET(mem_mib), config_set_size, NULL, SIZE_EXPECTED },
	{ "accel", TARGET(accel), set_accel_name, NULL, "kvm, tcg or auto" },
	{ "clock", TARGET(clock), set_clock_name, NULL, "wall, icount or auto" },
	{ "class", TARGET(class), set_class, NULL, "a name of letters, digits, '-', '_' and '.'" },
};

/* an ssh or lava target's keys, as their runners name and check them */
static const struct config_borrowed target_borrowed[] = {
	{ TARGET(ssh), ssh_config_keys, &ssh_config_nkeys },
	{ TARGET(lava), lava_config_keys, &lava_config_nkeys },
};

/* config_section_apply_named() finds each by its name, first in its struct */
_Static_assert(offsetof(struct lab_nightly, name) == 0 && offsetof(struct lab_target, name) == 0,
	       "a named section's struct starts with its name");

#define PLAIN(name, keys) { name, keys, ARRAY_SIZE(keys), NULL, 0, 0, NULL, NULL, NULL, 0 }

static const struct config_section core = PLAIN("core", core_keys);
static const struct config_section qemu = PLAIN("qemu", qemu_keys);
static const struct config_section run = PLAIN("run", run_keys);
static const struct config_section build = PLAIN("build", build_keys);
static const struct config_section libvirt = PLAIN("libvirt", libvirt_keys);
static const struct config_section report = PLAIN("report", report_keys);
static const struct config_section ssh = {
	"ssh", NULL, 0, NULL, 0, 0, NULL, NULL, ssh_keys, ARRAY_SIZE(ssh_keys),
};
static const struct config_section nightly = {
	"nightly", nightly_keys, ARRAY_SIZE(nightly_keys), "a nightly",
	sizeof(struct lab_nightly), 0, nightly_name_ok, nightly_init, NULL, 0,
};
static const struct config_section target = {
	"target", target_keys, ARRAY_SIZE(target_keys), "a target",
	sizeof(struct lab_target), 0, target_name_ok, NULL, target_borrowed,
	ARRAY_SIZE(target_borrowed),
};

/*
 * The sections of lab.conf, in the order an unknown one's message lists
 * them; a named one with where its array and count are in struct lab_config.
 */
static const struct lab_section {
	const struct config_section *s;
	size_t array, count;
} sections[] = {
	{ &core, 0, 0 },
	{ &qemu, 0, 0 },
	{ &run, 0, 0 },
	{ &build, 0, 0 },
	{ &libvirt, 0, 0 },
	{ &report, 0, 0 },
	{ &nightly, CFG(nightlies), CFG(nnightlies) },
	{ &ssh, 0, 0 },
	{ &target, CFG(targets), CFG(ntargets) },
	{ &config_workload_section, CFG(workloads), CFG(nworkloads) },
};
/* keys that add one more of something each time; every other is set once */
static const char *const config_repeatable[] = { "nightly.cmdline", CONFIG_WORKLOAD_REPEATABLE,
						   NULL };

static int read_entry(const struct config_entry *e, void *data)
{
	struct lab_config *cfg = data;
	size_t len = strcspn(e->name, ".");

	for (size_t i = 0; i < ARRAY_SIZE(sections); i++) {
		const struct lab_section *ls = &sections[i];

		if (strlen(ls->s->name) != len || strncmp(ls->s->name, e->name, len))
			continue;
		if (!ls->s->what)
			return config_section_apply(ls->s, cfg, e);
		return config_section_apply_named(ls->s, (char *)cfg + ls->array,
						  (size_t *)((char *)cfg + ls->count), e);
	}
	return 0;	/* the reader passes no other section */
}

static int read_file(struct lab_config *cfg, const char *path)
{
	const char *names[ARRAY_SIZE(sections) + 1];

	for (size_t i = 0; i < ARRAY_SIZE(sections); i++)
		names[i] = sections[i].s->name;
	names[ARRAY_SIZE(sections)] = NULL;
	if (config_file_foreach(path, "config", names, config_repeatable, read_entry, cfg))
		return -1;
	return config_set_string(&cfg->path, path);
}

void config_init(struct lab_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->qemu_x86_64 = xstrdup("qemu-system-x86_64");
	cfg->qemu_aarch64 = xstrdup("qemu-system-aarch64");
	cfg->accel = LAB_ACCEL_AUTO;
	cfg->clock = LAB_CLOCK_AUTO;
	cfg->icount_shift = 0;
	cfg->mem_mib = 2048;
	cfg->cpus = 1;
	cfg->timeout_s = 900;
	cfg->runner = LAB_RUNNER_QEMU;
	cfg->iters = 100;
	cfg->build_config = xstrdup("tinyconfig");
	cfg->build_timeout_s = 3600;
	cfg->libvirt_uri = xstrdup("qemu:///system");
	ssh_config_init(&cfg->ssh);
}

void config_release(struct lab_config *cfg)
{
	free(cfg->path);
	free(cfg->db);
	free(cfg->state);
	free(cfg->qemu_x86_64);
	free(cfg->qemu_aarch64);
	free(cfg->repo);
	free(cfg->build_command);
	free(cfg->build_artifact);
	free(cfg->build_config);
	free(cfg->libvirt_uri);
	free(cfg->report_commit_url);
	for (size_t i = 0; i < cfg->nnightlies; i++)
		nightly_release(&cfg->nightlies[i]);
	free(cfg->nightlies);
	ssh_config_release(&cfg->ssh);
	for (size_t i = 0; i < cfg->ntargets; i++) {
		struct lab_target *t = &cfg->targets[i];
		free(t->name);
		free(t->class);
		free(t->runner);
		free(t->uri);
		free(t->arch);
		free(t->accel);
		free(t->clock);
		ssh_config_release(&t->ssh);
		lava_config_release(&t->lava);
	}
	free(cfg->targets);
	config_workloads_release(&cfg->workloads, &cfg->nworkloads);
	memset(cfg, 0, sizeof(*cfg));
}

int config_load(struct lab_config *cfg, const char *path)
{
	struct stat st;

	config_init(cfg);
	if (!path) {
		const char *env = getenv("LAB_CONFIG");
		if (env && *env)
			path = env;
		else if (!stat(DEFAULT_CONFIG, &st))
			path = DEFAULT_CONFIG;
		else if (errno == ENOENT)
			return 0;
		else
			return error("cannot read config '%s': %s", DEFAULT_CONFIG,
				     strerror(errno));
	}
	/* libgit2 takes a missing file for an empty one; a named file must exist. */
	if (stat(path, &st) < 0)
		return error("cannot read config '%s': %s", path, strerror(errno));
	if (read_file(cfg, path) < 0 ||
	    config_workloads_check(cfg->workloads, cfg->nworkloads)) {
		config_release(cfg);
		config_init(cfg);
		return -1;
	}
	/*
	 * a target without a class is a class of its own; [ssh] fills its ssh
	 * keys; its runner is decided here, once (both names were checked)
	 */
	for (size_t i = 0; i < cfg->ntargets; i++) {
		struct lab_target *t = &cfg->targets[i];

		if (!t->class)
			t->class = xstrdup(t->name);
		ssh_config_default(&t->ssh, &cfg->ssh);
		t->ops = runner_find(t->runner ? t->runner : config_runner_name(cfg->runner));
	}
	return 0;
}

static void targets_known(struct strbuf *sb, const struct lab_config *cfg, int classes)
{
	for (size_t i = 0; i < cfg->ntargets; i++) {
		const char *w = classes ? cfg->targets[i].class : cfg->targets[i].name;
		size_t j;
		for (j = 0; j < i && strcmp(w, classes ? cfg->targets[j].class :
					    cfg->targets[j].name); j++)
			;
		if (j == i)
			strbuf_addf(sb, "%s%s", sb->len ? ", " : "", w);
	}
	if (!sb->len)
		strbuf_addstr(sb, "none: add [target \"NAME\"] sections to lab.conf");
}

const struct lab_target *config_target(const struct lab_config *cfg, const char *name)
{
	struct strbuf known = STRBUF_INIT;

	for (size_t i = 0; i < cfg->ntargets; i++)
		if (!strcmp(cfg->targets[i].name, name))
			return &cfg->targets[i];
	targets_known(&known, cfg, 0);
	error("unknown target '%s' (known: %s)", name, known.buf);
	strbuf_release(&known);
	return NULL;
}

int config_target_class(const struct lab_config *cfg, const char *class,
			const struct lab_target ***out, size_t *n)
{
	struct strbuf known = STRBUF_INIT;
	size_t alloc = 0;

	*out = NULL;
	*n = 0;
	for (size_t i = 0; i < cfg->ntargets; i++) {
		if (strcmp(cfg->targets[i].class, class))
			continue;
		ALLOC_GROW(*out, *n + 1, alloc);
		(*out)[(*n)++] = &cfg->targets[i];
	}
	if (*n)
		return 0;
	targets_known(&known, cfg, 1);
	error("no target of class '%s' (known classes: %s)", class, known.buf);
	strbuf_release(&known);
	return -1;
}

const char *config_qemu_binary(const struct lab_config *cfg, const char *arch)
{
	if (!strcmp(arch, "x86_64"))
		return cfg->qemu_x86_64;
	if (!strcmp(arch, "aarch64"))
		return cfg->qemu_aarch64;
	return NULL;
}
