#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config.h"
#include "log.h"
#include "strbuf.h"
#include "xalloc.h"

#define DEFAULT_CONFIG "lab.conf"

static void set_string(char **field, const char *value)
{
	char *p = xstrdup(value);
	free(*field);
	*field = p;
}

/*
 * Leading digits only: strtol() alone would also take leading spaces and a
 * sign, so " 5", "+5" and "-5" would slip through.
 */
static int parse_digits(const char **s, long *out)
{
	const char *p = *s;
	char *end;
	long v;

	if (!isdigit((unsigned char)*p))
		return -1;
	errno = 0;
	v = strtol(p, &end, 10);
	if (errno == ERANGE)
		return -1;
	*out = v;
	*s = end;
	return 0;
}

static int parse_scaled(const char *s, long *out, const char *suffixes,
			const long *multipliers, long max)
{
	long v, mult = 1;

	if (!s || parse_digits(&s, &v) < 0)
		return -1;
	if (*s) {
		const char *hit = strchr(suffixes, tolower((unsigned char)*s));
		if (!hit || s[1])
			return -1;
		mult = multipliers[hit - suffixes];
	}
	if (v < 1 || v > max / mult)
		return -1;
	*out = v * mult;
	return 0;
}

int parse_size_mib(const char *s, long *out_mib)
{
	static const long mult[] = { 1, 1024, 1024L * 1024 };
	return parse_scaled(s, out_mib, "mgt", mult, LAB_MAX_MEM_MIB);
}

int parse_positive_int(const char *s, long *out)
{
	static const long mult[] = { 1 };
	return parse_scaled(s, out, "", mult, INT_MAX);
}

int parse_cpus(const char *s, long *out)
{
	static const long mult[] = { 1 };
	return parse_scaled(s, out, "", mult, LAB_MAX_CPUS);
}

int parse_seconds(const char *s, long *out_s)
{
	static const long mult[] = { 1, 60, 3600 };
	return parse_scaled(s, out_s, "smh", mult, LAB_MAX_SECONDS);
}

static const char *accel_names[] = {
	[LAB_ACCEL_AUTO] = "auto",
	[LAB_ACCEL_KVM] = "kvm",
	[LAB_ACCEL_TCG] = "tcg",
};

static const char *clock_names[] = {
	[LAB_CLOCK_AUTO] = "auto",
	[LAB_CLOCK_WALL] = "wall",
	[LAB_CLOCK_ICOUNT] = "icount",
};

static const char *runner_names[] = {
	[LAB_RUNNER_QEMU] = "qemu",
	[LAB_RUNNER_LOCAL] = "local",
	[LAB_RUNNER_LIBVIRT] = "libvirt",
	[LAB_RUNNER_SSH] = "ssh",
};

const char *config_accel_name(enum lab_accel accel)
{
	if ((unsigned)accel >= sizeof(accel_names) / sizeof(*accel_names))
		return "unknown";
	return accel_names[accel];
}

const char *config_runner_name(enum lab_runner runner)
{
	if ((unsigned)runner >= sizeof(runner_names) / sizeof(*runner_names))
		return "unknown";
	return runner_names[runner];
}

static int lookup_name(const char *const *names, size_t nr, const char *value)
{
	size_t i;
	for (i = 0; i < nr; i++)
		if (!strcmp(names[i], value))
			return (int)i;
	return -1;
}

const char *config_clock_name(enum lab_clock clock)
{
	if ((unsigned)clock >= sizeof(clock_names) / sizeof(*clock_names))
		return "unknown";
	return clock_names[clock];
}

int parse_clock(const char *s, enum lab_clock *out)
{
	int i = s ? lookup_name(clock_names, sizeof(clock_names) / sizeof(*clock_names), s) : -1;
	if (i < 0)
		return -1;
	*out = (enum lab_clock)i;
	return 0;
}

int parse_icount_shift(const char *s, long *out)
{
	long v;

	/* not parse_scaled(): 0 is a good shift */
	if (!s || parse_digits(&s, &v) < 0 || *s || v > LAB_MAX_ICOUNT_SHIFT)
		return -1;
	*out = v;
	return 0;
}

/* Setters validate and store one value; they return -1 without printing. */

/* A non-empty string stored at a field of struct lab_config. */
#define STRING_SETTER(field) \
static int set_##field(struct lab_config *cfg, const char *v) \
{ \
	if (!*v) \
		return -1; \
	set_string(&cfg->field, v); \
	return 0; \
}
STRING_SETTER(db)
STRING_SETTER(state)
STRING_SETTER(qemu_x86_64)
STRING_SETTER(qemu_aarch64)
STRING_SETTER(repo)
STRING_SETTER(build_command)
STRING_SETTER(build_artifact)
STRING_SETTER(build_config)
STRING_SETTER(libvirt_uri)

#define SSH_SETTER(key) \
static int set_ssh_##key(struct lab_config *cfg, const char *v) \
{ \
	const char *expected; \
	return ssh_config_set(&cfg->ssh, #key, v, &expected); \
}
SSH_SETTER(host)
SSH_SETTER(port)
SSH_SETTER(identity)
SSH_SETTER(knownhosts)
SSH_SETTER(reset)
SSH_SETTER(restore)
SSH_SETTER(deadline)

/* An http(s) address with one %H, where the report puts a commit's full id. */
static int set_report_commit_url(struct lab_config *cfg, const char *v)
{
	const char *h = strstr(v, "%H");

	if ((strncmp(v, "https://", 8) && strncmp(v, "http://", 7)) || !h || strstr(h + 2, "%H"))
		return -1;
	set_string(&cfg->report_commit_url, v);
	return 0;
}

static int set_build_jobs(struct lab_config *cfg, const char *v)
{
	return parse_positive_int(v, &cfg->build_jobs);
}

static int set_build_timeout(struct lab_config *cfg, const char *v)
{
	return parse_seconds(v, &cfg->build_timeout_s);
}

static int set_build_ccache_size(struct lab_config *cfg, const char *v)
{
	return parse_size_mib(v, &cfg->build_ccache_mib);
}

static int set_accel(struct lab_config *cfg, const char *v)
{
	int i = lookup_name(accel_names, sizeof(accel_names) / sizeof(*accel_names), v);
	if (i < 0)
		return -1;
	cfg->accel = (enum lab_accel)i;
	return 0;
}

static int set_clock(struct lab_config *cfg, const char *v)
{
	return parse_clock(v, &cfg->clock);
}

static int set_icount_shift(struct lab_config *cfg, const char *v)
{
	return parse_icount_shift(v, &cfg->icount_shift);
}

static int set_runner(struct lab_config *cfg, const char *v)
{
	int i = lookup_name(runner_names, sizeof(runner_names) / sizeof(*runner_names), v);
	if (i < 0)
		return -1;
	cfg->runner = (enum lab_runner)i;
	return 0;
}

static int set_mem(struct lab_config *cfg, const char *v)
{
	return parse_size_mib(v, &cfg->mem_mib);
}

static int set_cpus(struct lab_config *cfg, const char *v)
{
	return parse_cpus(v, &cfg->cpus);
}

static int set_timeout(struct lab_config *cfg, const char *v)
{
	return parse_seconds(v, &cfg->timeout_s);
}

static int set_iters(struct lab_config *cfg, const char *v)
{
	return parse_positive_int(v, &cfg->iters);
}

static const struct config_key {
	const char *name;	/* as libgit2 reports it: section and key lower case */
	int (*set)(struct lab_config *cfg, const char *value);
	const char *expected;
} keys[] = {
	{ "core.db", set_db, "a path" },
	{ "core.state", set_state, "a path" },
	{ "core.repo", set_repo, "a path to a git repository" },
	{ "build.command", set_build_command, "a command line" },
	{ "build.artifact", set_build_artifact, "a path inside the work tree" },
	{ "build.config", set_build_config, "tinyconfig, defconfig or a config file" },
	{ "build.jobs", set_build_jobs, "a positive integer" },
	{ "build.timeout", set_build_timeout, SECONDS_EXPECTED " such as 3600 or 1h" },
	{ "build.ccachesize", set_build_ccache_size, SIZE_EXPECTED },
	{ "qemu.x86_64.binary", set_qemu_x86_64, "a program name or path" },
	{ "qemu.aarch64.binary", set_qemu_aarch64, "a program name or path" },
	{ "qemu.accel", set_accel, "kvm, tcg or auto" },
	/* git config keys have no '_': qemu.icountShift, read case-insensitively */
	{ "qemu.icountshift", set_icount_shift, "a shift from 0 to 10 (2^N ns per instruction)" },
	{ "run.mem", set_mem, SIZE_EXPECTED },
	{ "run.cpus", set_cpus, CPUS_EXPECTED },
	{ "run.timeout", set_timeout, SECONDS_EXPECTED " such as 300, 300s or 5m" },
	{ "run.runner", set_runner, "qemu, local, libvirt or ssh" },
	{ "run.iters", set_iters, "a positive integer" },
	{ "run.clock", set_clock, "wall, icount or auto" },
	{ "libvirt.uri", set_libvirt_uri, "a libvirt connection URI such as qemu:///system" },
	{ "report.commiturl", set_report_commit_url,
	  "an http(s) address with %H for the commit, such as https://git.kernel.org/linus/%H" },
	{ "ssh.host", set_ssh_host, "an ssh destination such as root@arm1" },
	{ "ssh.port", set_ssh_port, "a port number from 1 to 65535" },
	{ "ssh.identity", set_ssh_identity, "a path" },
	{ "ssh.knownhosts", set_ssh_knownhosts, "a path" },
	{ "ssh.reset", set_ssh_reset, "a shell command" },
	{ "ssh.restore", set_ssh_restore, "reboot or kexec:IMAGE[,INITRD] (paths on the host)" },
	{ "ssh.deadline", set_ssh_deadline, "seconds from 1 to 86400" },
};

static const char *const config_sections[] = { "core", "qemu", "run", "build", "libvirt",
						 "report", "nightly", "ssh", "target", "workload",
						 NULL };
/* keys that add one more of something each time; every other is set once */
static const char *const config_repeatable[] = { "nightly.cmdline", CONFIG_WORKLOAD_REPEATABLE,
						   NULL };

static struct lab_nightly *nightly_get(struct lab_config *cfg, const char *name, size_t len)
{
	struct lab_nightly *n;

	for (size_t i = 0; i < cfg->nnightlies; i++)
		if (strlen(cfg->nightlies[i].name) == len && !strncmp(cfg->nightlies[i].name, name, len))
			return &cfg->nightlies[i];
	cfg->nightlies = xrealloc(cfg->nightlies, (cfg->nnightlies + 1) * sizeof(*cfg->nightlies));
	n = &cfg->nightlies[cfg->nnightlies++];
	memset(n, 0, sizeof(*n));
	n->name = xcalloc(len + 1, 1);
	memcpy(n->name, name, len);
	n->branch = xstrdup("master");
	n->workloads = xstrdup("zeroing");
	n->boots = 3;
	n->max_commits = 10;
	return n;
}

static void nightly_release(struct lab_nightly *n)
{
	free(n->name);
	free(n->repository);
	free(n->branch);
	free(n->workloads);
	free(n->mems);
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

static const char nightly_keys[] = "repository, branch, workloads, mem, cmdline, clock, boots, "
	"iters, policy, maxcommits, bisectbudget, mailto, mailfrom, smtp, webhook, credentials, "
	"baseurl";

/* nightly.NAME.key: NAME may hold dots, the key cannot. */
static int apply_nightly(struct lab_config *cfg, const struct config_entry *e)
{
	const char *sub = e->name + strlen("nightly."), *key = strrchr(e->name, '.') + 1;
	const char *v = e->value, *expected = NULL;
	struct lab_nightly *n;
	enum lab_clock clock;

	if (key <= sub)
		return error("a nightly needs a name: [nightly \"NAME\"] in %s %s line %d",
			     e->kind, e->path, e->line);
	n = nightly_get(cfg, sub, (size_t)(key - 1 - sub));
	if (!strcmp(key, "repository")) {
		set_string(&n->repository, v);
		expected = *v ? NULL : "a path or URL of a git repository";
	} else if (!strcmp(key, "branch")) {
		set_string(&n->branch, v);
		expected = *v ? NULL : "a branch name";
	} else if (!strcmp(key, "workloads")) {
		set_string(&n->workloads, v);
		expected = *v ? NULL : "workloads such as zeroing,demote";
	} else if (!strcmp(key, "mem")) {
		if (parse_list(&n->mems, &n->nmems, v, parse_size_mib))
			expected = "sizes such as 2G or 1G,4G";
	} else if (!strcmp(key, "cmdline")) {
		n->cmdlines = xrealloc(n->cmdlines, (n->ncmdlines + 1) * sizeof(*n->cmdlines));
		n->cmdlines[n->ncmdlines++] = xstrdup(v);
	} else if (!strcmp(key, "clock")) {
		if (parse_clock(v, &clock))
			expected = "wall, icount or auto";
		else
			set_string(&n->clock, v);
	} else if (!strcmp(key, "boots")) {
		if (parse_positive_int(v, &n->boots))
			expected = "a positive integer";
	} else if (!strcmp(key, "iters")) {
		if (parse_positive_int(v, &n->iters))
			expected = "a positive integer";
	} else if (!strcmp(key, "policy")) {
		if (!strcmp(v, "head"))
			n->policy = NIGHTLY_HEAD;
		else if (!strcmp(v, "new"))
			n->policy = NIGHTLY_NEW;
		else
			expected = "head or new";
	} else if (!strcmp(key, "maxcommits")) {
		if (parse_positive_int(v, &n->max_commits))
			expected = "a positive integer";
	} else if (!strcmp(key, "bisectbudget")) {
		if (parse_positive_int(v, &n->bisect_budget))
			expected = "a positive number of boots";
	} else if (!strcmp(key, "mailto")) {
		set_string(&n->mail_to, v);
	} else if (!strcmp(key, "mailfrom")) {
		set_string(&n->mail_from, v);
	} else if (!strcmp(key, "smtp")) {
		set_string(&n->smtp, v);
		if (strncmp(v, "smtp://", 7) && strncmp(v, "smtps://", 8))
			expected = "an smtp:// or smtps:// URL";
	} else if (!strcmp(key, "webhook")) {
		set_string(&n->webhook, v);
		if (strncmp(v, "http://", 7) && strncmp(v, "https://", 8))
			expected = "an http:// or https:// URL";
	} else if (!strcmp(key, "credentials")) {
		set_string(&n->credentials, v);
	} else if (!strcmp(key, "baseurl")) {
		set_string(&n->base_url, v);
	} else {
		return error("unknown key '%s' in %s %s line %d (known: %s)", e->name, e->kind,
			     e->path, e->line, nightly_keys);
	}
	if (expected)
		return error("bad value '%s' for '%s' in %s %s line %d: expected %s", v, e->name,
			     e->kind, e->path, e->line, expected);
	return 0;
}


static struct lab_target *target_named(struct lab_config *cfg, const char *name, size_t len)
{
	struct lab_target *t;

	for (size_t i = 0; i < cfg->ntargets; i++)
		if (strlen(cfg->targets[i].name) == len && !memcmp(cfg->targets[i].name, name, len))
			return &cfg->targets[i];
	cfg->targets = xrealloc(cfg->targets, (cfg->ntargets + 1) * sizeof(*cfg->targets));
	t = &cfg->targets[cfg->ntargets++];
	memset(t, 0, sizeof(*t));
	t->name = xrealloc(NULL, len + 1);
	memcpy(t->name, name, len);
	t->name[len] = '\0';
	return t;
}

static int set_target_name(char **field, const char *v)
{
	if (!*v || v[strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")])
		return -1;
	set_string(field, v);
	return 0;
}

#define LAB_NAMES(a) (sizeof(a) / sizeof(*(a)))
static const char *const arch_names[] = { "x86_64", "aarch64" };

static int set_choice(char **field, const char *v, const char *const *names, size_t n)
{
	if (lookup_name(names, n, v) < 0)
		return -1;
	set_string(field, v);
	return 0;
}

#define TARGET_KEYS "runner, uri, arch, cpus, mem, accel, clock, class, " \
	"host, port, identity, knownhosts, reset, restore, deadline"

/* "target.<name>.<key>": a target's key; its name is as written, the key lower case. */
static int apply_target(struct lab_config *cfg, const struct config_entry *e)
{
	const char *name = e->name + strlen("target."), *key = strrchr(e->name, '.') + 1;
	const char *expected = NULL, *v = e->value;
	struct lab_target *t;
	int bad = 0;

	if (key <= name + 1)
		return error("a target needs a name: [target \"NAME\"] in %s %s line %d",
			     e->kind, e->path, e->line);
	if (name[strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")] != '.')
		return error("bad target name '%.*s' in %s %s line %d: expected letters, digits, '-' and '_'",
			     (int)(key - 1 - name), name, e->kind, e->path, e->line);
	t = target_named(cfg, name, (size_t)(key - 1 - name));
	if (!strcmp(key, "runner")) {
		bad = set_choice(&t->runner, v, runner_names, LAB_NAMES(runner_names));
		expected = "qemu, local, libvirt or ssh";
	} else if (!strcmp(key, "uri")) {
		bad = !*v;
		if (!bad)
			set_string(&t->uri, v);
		expected = "a libvirt connection URI such as qemu+ssh://host/system";
	} else if (!strcmp(key, "arch")) {
		bad = set_choice(&t->arch, v, arch_names, LAB_NAMES(arch_names));
		expected = "x86_64 or aarch64";
	} else if (!strcmp(key, "cpus")) {
		bad = parse_cpus(v, &t->cpus);
		expected = CPUS_EXPECTED;
	} else if (!strcmp(key, "mem")) {
		bad = parse_size_mib(v, &t->mem_mib);
		expected = SIZE_EXPECTED;
	} else if (!strcmp(key, "accel")) {
		bad = set_choice(&t->accel, v, accel_names, LAB_NAMES(accel_names));
		expected = "kvm, tcg or auto";
	} else if (!strcmp(key, "clock")) {
		bad = set_choice(&t->clock, v, clock_names, LAB_NAMES(clock_names));
		expected = "wall, icount or auto";
	} else if (!strcmp(key, "class")) {
		bad = set_target_name(&t->class, v);
		expected = "a name of letters, digits, '-', '_' and '.'";
	} else {
		/* the ssh runner's keys, as in [ssh] */
		bad = ssh_config_set(&t->ssh, key, v, &expected);
		if (bad && !expected)
			return error("unknown key '%s' in %s %s line %d (known: " TARGET_KEYS ")",
				     e->name, e->kind, e->path, e->line);
	}
	if (bad)
		return error("bad value '%s' for '%s' in %s %s line %d: expected %s",
			     v, e->name, e->kind, e->path, e->line, expected);
	return 0;
}

static int apply_entry(struct lab_config *cfg, const struct config_entry *e)
{
	struct strbuf known = STRBUF_INIT;
	size_t i, section = strcspn(e->name, ".");

	/* a workload is made by its header, so that one without a key is refused too */
	if (section == 8 && !strncmp(e->name, "workload", 8))
		return config_workload_apply(&cfg->workloads, &cfg->nworkloads, e);
	/* no other header says anything: git keeps no empty sections */
	if (!e->value)
		return 0;
	if (!strncmp(e->name, "nightly.", 8))
		return apply_nightly(cfg, e);
	if (!strncmp(e->name, "target.", 7))
		return apply_target(cfg, e);

	for (i = 0; i < sizeof(keys) / sizeof(*keys); i++) {
		if (strcmp(keys[i].name, e->name))
			continue;
		if (keys[i].set(cfg, e->value) < 0)
			return error("bad value '%s' for '%s' in %s %s line %d: expected %s",
				     e->value, e->name, e->kind, e->path, e->line,
				     keys[i].expected);
		return 0;
	}
	for (i = 0; i < sizeof(keys) / sizeof(*keys); i++)
		if (!strncmp(keys[i].name, e->name, section + 1))
			strbuf_addf(&known, "%s%s", known.len ? ", " : "", keys[i].name);
	error("unknown key '%s' in %s %s line %d (known: %s)", e->name, e->kind, e->path,
	      e->line, known.buf);
	strbuf_release(&known);
	return -1;
}

int parse_list(long **out, size_t *n, const char *arg, int (*parse)(const char *, long *))
{
	struct strbuf sb = STRBUF_INIT;
	char *save = NULL, *w;
	int ret = 0;

	free(*out);
	*out = NULL;
	*n = 0;
	strbuf_addstr(&sb, arg);
	for (w = strtok_r(sb.buf, ",", &save); w && !ret; w = strtok_r(NULL, ",", &save)) {
		*out = xrealloc(*out, (*n + 1) * sizeof(**out));
		ret = parse(w, &(*out)[*n]);
		*n += !ret;
	}
	strbuf_release(&sb);
	return ret || !*n ? -1 : 0;
}

static int read_entry(const struct config_entry *e, void *data)
{
	return apply_entry(data, e);
}

static int read_file(struct lab_config *cfg, const char *path)
{
	if (config_file_foreach(path, "config", config_sections, config_repeatable, read_entry,
				cfg))
		return -1;
	set_string(&cfg->path, path);
	return 0;
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
	if (S_ISDIR(st.st_mode))
		return error("cannot read config '%s': %s", path, strerror(EISDIR));
	if (read_file(cfg, path) < 0 ||
	    config_workloads_check(cfg->workloads, cfg->nworkloads)) {
		config_release(cfg);
		config_init(cfg);
		return -1;
	}
	/* a target without a class is a class of its own; [ssh] fills its ssh keys */
	for (size_t i = 0; i < cfg->ntargets; i++) {
		if (!cfg->targets[i].class)
			cfg->targets[i].class = xstrdup(cfg->targets[i].name);
		ssh_config_default(&cfg->targets[i].ssh, &cfg->ssh);
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

	*out = NULL;
	*n = 0;
	for (size_t i = 0; i < cfg->ntargets; i++) {
		if (strcmp(cfg->targets[i].class, class))
			continue;
		*out = xrealloc(*out, (*n + 1) * sizeof(**out));
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
