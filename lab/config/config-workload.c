/*
 * [workload "NAME"] sections, of lab.conf and of recipes (config.h): a
 * user's program, its arguments and settings under a name of its own.
 */
#include <stdlib.h>
#include <string.h>

#include "config-values.h"
#include "config.h"
#include "log.h"
#include "runner.h"
#include "strbuf.h"
#include "xalloc.h"

#define WORKLOAD_KEYS "program, arg, iters, deadline, higher, lower"
/* a stored workload name is a protocol word of at most 31 bytes (workload.c) */
#define NAME_MAX_LEN 31

static int name_ok(const char *s, size_t len)
{
	if (!len || len > NAME_MAX_LEN)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-", s[i]))
			return 0;
	return 1;
}

/* a metric name, as the plain format allows it (runners/userwork.h) */
static int metric_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 63)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.", s[i]))
			return 0;
	return 1;
}

static struct lab_workload *named(struct lab_workload **all, size_t *n, const char *name,
				  size_t len, const struct config_entry *e)
{
	struct lab_workload *w;

	for (size_t i = 0; i < *n; i++)
		if (strlen((*all)[i].name) == len && !memcmp((*all)[i].name, name, len))
			return &(*all)[i];
	*all = xrealloc(*all, (*n + 1) * sizeof(**all));
	w = &(*all)[(*n)++];
	memset(w, 0, sizeof(*w));
	w->name = xrealloc(NULL, len + 1);
	memcpy(w->name, name, len);
	w->name[len] = '\0';
	strvec_init(&w->args);
	strvec_init(&w->higher);
	strvec_init(&w->lower);
	w->file = xstrdup(e->path);
	w->kind = e->kind;
	w->line = e->section_line;
	return w;
}

/* The section of e (a key or a header), its name checked; NULL after one line. */
static struct lab_workload *section_of(struct lab_workload **all, size_t *n,
				       const struct config_entry *e)
{
	const char *name = e->name + strlen("workload");
	const char *end = e->value ? strrchr(e->name, '.') : e->name + strlen(e->name);
	size_t len = end > name ? (size_t)(end - name - 1) : 0;
	struct lab_workload *w;

	name += *name == '.';
	if (!len) {
		error("a workload section needs a name: [workload \"NAME\"] in %s %s line %d",
		      e->kind, e->path, e->line);
		return NULL;
	}
	if (!name_ok(name, len)) {
		error("bad workload name '%.*s' in %s %s line %d: expected at most %d "
		      "letters, digits, '-' and '_'", (int)len, name, e->kind, e->path,
		      e->line, NAME_MAX_LEN);
		return NULL;
	}
	w = named(all, n, name, len, e);
	if (workload_known(w->name)) {
		error("workload section '%s' in %s %s line %d has the name of a built-in "
		      "workload: rename it", w->name, e->kind, e->path, e->line);
		return NULL;
	}
	return w;
}

/* Text for a path: no control character (the guest reads a line, a message prints it). */
static int plain_text(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

int config_workload_apply(struct lab_workload **all, size_t *n, const struct config_entry *e)
{
	const char *key = strrchr(e->name, '.') + 1, *v = e->value, *expected = NULL;
	struct lab_workload *w = section_of(all, n, e);

	if (!w)
		return -1;
	if (!v)
		return 0;
	if (!strcmp(key, "program")) {
		struct strbuf p = STRBUF_INIT;

		const char *slash = strrchr(e->path, '/');

		/* a path is the file's own: as a recipe's exec: is the recipe's */
		if (!strncmp(v, "stress-ng:", 10) || v[0] == '/' || !slash || !*v)
			strbuf_addstr(&p, v);
		else
			strbuf_addf(&p, "%.*s/%s", (int)(slash - e->path), e->path, v);
		free(w->program);
		w->program = strbuf_detach(&p);
		w->program_line = e->line;
		if (!*v || !strcmp(v, "stress-ng:") || !plain_text(v))
			expected = "a program's path or stress-ng:STRESSOR";
	} else if (!strcmp(key, "arg")) {
		strvec_push(&w->args, v);
	} else if (!strcmp(key, "iters")) {
		if (parse_positive_int(v, &w->iters))
			expected = "a positive integer";
	} else if (!strcmp(key, "deadline")) {
		if (parse_seconds(v, &w->deadline_s))
			expected = SECONDS_EXPECTED;
	} else if (!strcmp(key, "higher") || !strcmp(key, "lower")) {
		int higher = !strcmp(key, "higher");
		const struct strvec *other = higher ? &w->lower : &w->higher;

		if (!metric_ok(v))
			expected = "a metric name the program prints";
		for (size_t i = 0; !expected && i < other->nr; i++)
			if (!strcmp(other->v[i], v))
				return error("metric '%s' of workload section '%s' is both higher "
					     "and lower in %s %s line %d", v, w->name, e->kind,
					     e->path, e->line);
		if (!expected)
			strvec_push(higher ? &w->higher : &w->lower, v);
	} else {
		return error("unknown key '%s' in %s %s line %d (known: " WORKLOAD_KEYS ")",
			     e->name, e->kind, e->path, e->line);
	}
	if (expected)
		return error("bad value '%s' for '%s' in %s %s line %d: expected %s", v, e->name,
			     e->kind, e->path, e->line, expected);
	return 0;
}

int config_workloads_check(const struct lab_workload *all, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!all[i].program)
			return error("workload section '%s' in %s %s line %d has no program "
				     "(program = PATH or stress-ng:STRESSOR)", all[i].name,
				     all[i].kind, all[i].file, all[i].line);
	return 0;
}

void config_workloads_release(struct lab_workload **all, size_t *n)
{
	for (size_t i = 0; i < *n; i++) {
		struct lab_workload *w = &(*all)[i];
		free(w->name);
		free(w->program);
		free(w->file);
		strvec_release(&w->args);
		strvec_release(&w->higher);
		strvec_release(&w->lower);
	}
	free(*all);
	*all = NULL;
	*n = 0;
}

const struct lab_workload *config_workload_find(const struct lab_workload *all, size_t n,
						const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(all[i].name, name))
			return &all[i];
	return NULL;
}
