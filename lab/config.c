#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <git2.h>

#include "config.h"
#include "gitutil.h"
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
			const long *multipliers)
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
	if (v < 1 || v > LONG_MAX / mult)
		return -1;
	*out = v * mult;
	return 0;
}

int parse_size_mib(const char *s, long *out_mib)
{
	static const long mult[] = { 1, 1024, 1024L * 1024 };
	return parse_scaled(s, out_mib, "mgt", mult);
}

int parse_positive_int(const char *s, long *out)
{
	static const long mult[] = { 1 };
	return parse_scaled(s, out, "", mult);
}

int parse_seconds(const char *s, long *out_s)
{
	static const long mult[] = { 1, 60, 3600 };
	return parse_scaled(s, out_s, "smh", mult);
}

static const char *accel_names[] = {
	[LAB_ACCEL_AUTO] = "auto",
	[LAB_ACCEL_KVM] = "kvm",
	[LAB_ACCEL_TCG] = "tcg",
};

static const char *runner_names[] = {
	[LAB_RUNNER_QEMU] = "qemu",
	[LAB_RUNNER_LOCAL] = "local",
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
STRING_SETTER(qemu_x86_64)
STRING_SETTER(qemu_aarch64)
STRING_SETTER(repo)
STRING_SETTER(build_command)
STRING_SETTER(build_artifact)
STRING_SETTER(build_config)

static int set_build_jobs(struct lab_config *cfg, const char *v)
{
	return parse_positive_int(v, &cfg->build_jobs);
}

static int set_build_timeout(struct lab_config *cfg, const char *v)
{
	return parse_seconds(v, &cfg->build_timeout_s);
}

static int set_accel(struct lab_config *cfg, const char *v)
{
	int i = lookup_name(accel_names, sizeof(accel_names) / sizeof(*accel_names), v);
	if (i < 0)
		return -1;
	cfg->accel = (enum lab_accel)i;
	return 0;
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
	return parse_positive_int(v, &cfg->cpus);
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
	{ "core.repo", set_repo, "a path to a git repository" },
	{ "build.command", set_build_command, "a command line" },
	{ "build.artifact", set_build_artifact, "a path inside the work tree" },
	{ "build.config", set_build_config, "tinyconfig, defconfig or a config file" },
	{ "build.jobs", set_build_jobs, "a positive integer" },
	{ "build.timeout", set_build_timeout, "a number of seconds such as 3600 or 1h" },
	{ "qemu.x86_64.binary", set_qemu_x86_64, "a program name or path" },
	{ "qemu.aarch64.binary", set_qemu_aarch64, "a program name or path" },
	{ "qemu.accel", set_accel, "kvm, tcg or auto" },
	{ "run.mem", set_mem, "a size such as 512M, 4G or 2048 (MiB)" },
	{ "run.cpus", set_cpus, "a positive integer" },
	{ "run.timeout", set_timeout, "a number of seconds such as 300, 300s or 5m" },
	{ "run.runner", set_runner, "qemu or local" },
	{ "run.iters", set_iters, "a positive integer" },
};

static int is_lab_section(const char *name)
{
	static const char *const sections[] = { "core", "qemu", "run", "build" };
	size_t len = strcspn(name, ".");
	size_t i;

	for (i = 0; i < sizeof(sections) / sizeof(*sections); i++)
		if (strlen(sections[i]) == len && !strncmp(sections[i], name, len))
			return 1;
	return 0;
}

static int apply_entry(struct lab_config *cfg, const char *path,
		       const char *name, const char *value)
{
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(*keys); i++) {
		if (strcmp(keys[i].name, name))
			continue;
		if (keys[i].set(cfg, value) < 0)
			return error("bad value '%s' for '%s' in %s: expected %s",
				     value, name, path, keys[i].expected);
		return 0;
	}
	if (is_lab_section(name))
		return error("unknown key '%s' in %s", name, path);
	return 0;
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

int config_file_foreach(const char *path, const char *kind,
			int (*fn)(const char *name, const char *value, void *data), void *data)
{
	git_config *gc = NULL;
	git_config_iterator *it = NULL;
	git_config_entry *entry;
	struct strbuf what = STRBUF_INIT;
	int ret = -1, rc;

	if (lab_git_init() < 0)
		return -1;
	strbuf_addf(&what, "cannot read %s '%s'", kind, path);
	if (git_config_new(&gc) < 0 ||
	    git_config_add_file_ondisk(gc, path, GIT_CONFIG_LEVEL_APP, NULL, 0) < 0 ||
	    git_config_iterator_new(&it, gc) < 0) {
		lab_git_error(what.buf);
		goto out;
	}
	while (!(rc = git_config_next(&entry, it)))
		if (fn(entry->name, entry->value ? entry->value : "", data) < 0)
			goto out;
	if (rc != GIT_ITEROVER) {
		lab_git_error(what.buf);
		goto out;
	}
	ret = 0;
out:
	if (it)
		git_config_iterator_free(it);
	if (gc)
		git_config_free(gc);
	lab_git_shutdown();
	strbuf_release(&what);
	return ret;
}

struct read_state {
	struct lab_config *cfg;
	const char *path;
};

static int read_entry(const char *name, const char *value, void *data)
{
	struct read_state *rs = data;
	return apply_entry(rs->cfg, rs->path, name, value);
}

static int read_file(struct lab_config *cfg, const char *path)
{
	struct read_state rs = { cfg, path };

	/* File order, so a key set twice ends with its last value, as in git. */
	if (config_file_foreach(path, "config", read_entry, &rs))
		return -1;
	set_string(&cfg->path, path);
	return 0;
}

void config_init(struct lab_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->db = xstrdup("results/lab.db");
	cfg->qemu_x86_64 = xstrdup("qemu-system-x86_64");
	cfg->qemu_aarch64 = xstrdup("qemu-system-aarch64");
	cfg->accel = LAB_ACCEL_AUTO;
	cfg->mem_mib = 2048;
	cfg->cpus = 1;
	cfg->timeout_s = 300;
	cfg->runner = LAB_RUNNER_QEMU;
	cfg->iters = 100;
	cfg->build_config = xstrdup("tinyconfig");
	cfg->build_timeout_s = 3600;
}

void config_release(struct lab_config *cfg)
{
	free(cfg->path);
	free(cfg->db);
	free(cfg->qemu_x86_64);
	free(cfg->qemu_aarch64);
	free(cfg->repo);
	free(cfg->build_command);
	free(cfg->build_artifact);
	free(cfg->build_config);
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
	if (read_file(cfg, path) < 0) {
		config_release(cfg);
		config_init(cfg);
		return -1;
	}
	return 0;
}

const char *config_qemu_binary(const struct lab_config *cfg, const char *arch)
{
	if (!strcmp(arch, "x86_64"))
		return cfg->qemu_x86_64;
	if (!strcmp(arch, "aarch64"))
		return cfg->qemu_aarch64;
	return NULL;
}
