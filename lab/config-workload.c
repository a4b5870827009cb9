/*
 * [workload "NAME"] sections, of lab.conf and of recipes (config.h): a
 * user's program, its arguments and settings under a name of its own.
 */
#include <stdlib.h>
#include <string.h>

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
				  size_t len)
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
	return w;
}

int config_workload_apply(struct lab_workload **all, size_t *n, const struct config_entry *e)
{
	const char *name = e->name + strlen("workload."), *key = strrchr(e->name, '.') + 1;
	const char *v = e->value, *expected = NULL;
	size_t len = (size_t)(key - 1 - name);
	struct lab_workload *w;

	if (key <= name + 1)
		return error("a workload section needs a name: [workload \"NAME\"] in %s %s line %d",
			     e->kind, e->path, e->line);
	if (!name_ok(name, len))
		return error("bad workload name '%.*s' in %s %s line %d: expected at most %d "
			     "letters, digits, '-' and '_'", (int)len, name, e->kind, e->path,
			     e->line, NAME_MAX_LEN);
	w = named(all, n, name, len);
	if (workload_known(w->name))
		return error("workload section '%s' in %s %s line %d has the name of a built-in "
			     "workload: rename it", w->name, e->kind, e->path, e->line);
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
		if (!*v || !strcmp(v, "stress-ng:") || strchr(v, '\n'))
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
		if (!metric_ok(v))
			expected = "a metric name the program prints";
		else
			strvec_push(!strcmp(key, "higher") ? &w->higher : &w->lower, v);
	} else {
		return error("unknown key '%s' in %s %s line %d (known: " WORKLOAD_KEYS ")",
			     e->name, e->kind, e->path, e->line);
	}
	if (expected)
		return error("bad value '%s' for '%s' in %s %s line %d: expected %s", v, e->name,
			     e->kind, e->path, e->line, expected);
	return 0;
}

int config_workloads_check(const struct lab_workload *all, size_t n, const char *kind,
			   const char *path)
{
	for (size_t i = 0; i < n; i++) {
		const struct lab_workload *w = &all[i];

		if (!w->program)
			return error("workload section '%s' in %s %s has no program "
				     "(program = PATH or stress-ng:STRESSOR)", w->name, kind, path);
		for (size_t k = 0; k < w->higher.nr; k++)
			for (size_t j = 0; j < w->lower.nr; j++)
				if (!strcmp(w->higher.v[k], w->lower.v[j]))
					return error("metric '%s' of workload section '%s' in %s %s "
						     "is both higher and lower", w->higher.v[k],
						     w->name, kind, path);
	}
	return 0;
}

void config_workloads_release(struct lab_workload **all, size_t *n)
{
	for (size_t i = 0; i < *n; i++) {
		struct lab_workload *w = &(*all)[i];
		free(w->name);
		free(w->program);
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
