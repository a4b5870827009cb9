/*
 * [workload "NAME"] sections, of lab.conf and of recipes (config.h): a
 * user's program, its arguments and settings under a name of its own.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "config-keys.h"
#include "config-values.h"
#include "config.h"
#include "log.h"
#include "runner.h"
#include "strbuf.h"
#include "xalloc.h"

/* a stored workload name is a protocol word of at most 31 bytes (workload.c) */
#define NAME_MAX_LEN 31
#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"

static int name_ok(const char *name, size_t len, const struct config_entry *e)
{
	char copy[NAME_MAX_LEN + 1];
	size_t i;

	for (i = 0; i < len && i < NAME_MAX_LEN && strchr(NAME_CHARS, name[i]); i++)
		;
	if (i < len)
		return error("bad workload name '%.*s' in %s %s line %d: expected at most %d "
			     "letters, digits, '-' and '_'", (int)len, name, e->kind, e->path,
			     e->line, NAME_MAX_LEN);
	memcpy(copy, name, len);
	copy[len] = '\0';
	if (workload_known(copy))
		return error("workload section '%s' in %s %s line %d has the name of a built-in "
			     "workload: rename it", copy, e->kind, e->path, e->line);
	return 0;
}

static void init(void *one, const struct config_entry *e)
{
	struct lab_workload *w = one;

	strvec_init(&w->args);
	strvec_init(&w->higher);
	strvec_init(&w->lower);
	w->file = xstrdup(e->path);
	w->kind = e->kind;
	w->line = e->section_line;
}

/* Text for a path: no control character (the guest reads a line, a message prints it). */
static int plain_text(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

static int set_program(void *workload, const struct config_entry *e, const char **expected)
{
	struct lab_workload *w = workload;
	struct strbuf p = STRBUF_INIT;
	const char *v = e->value, *slash = strrchr(e->path, '/');

	(void)expected;
	/* a path is the file's own: as a recipe's exec: is the recipe's */
	if (!strncmp(v, "stress-ng:", 10) || v[0] == '/' || !slash || !*v)
		strbuf_addstr(&p, v);
	else
		strbuf_addf(&p, "%.*s/%s", (int)(slash - e->path), e->path, v);
	free(w->program);
	w->program = strbuf_detach(&p);
	w->program_line = e->line;
	return !*v || !strcmp(v, "stress-ng:") || !plain_text(v) ? -1 : 0;
}

/* a metric name, as the plain format allows it (runners/userwork.h) */
static int metric_ok(const char *s)
{
	size_t n = strlen(s);

	return n && n <= 63 && !s[strspn(s, NAME_CHARS ".")];
}

/* higher or lower: a metric on one side only */
static int set_direction(void *workload, const struct config_entry *e, const char **expected)
{
	struct lab_workload *w = workload;
	int higher = !strcmp(strrchr(e->name, '.') + 1, "higher");
	const struct strvec *other = higher ? &w->lower : &w->higher;

	if (!metric_ok(e->value))
		return -1;
	for (size_t i = 0; i < other->nr; i++) {
		if (strcmp(other->v[i], e->value))
			continue;
		*expected = NULL;
		return error("metric '%s' of workload section '%s' is both higher and lower in "
			     "%s %s line %d", e->value, w->name, e->kind, e->path, e->line);
	}
	strvec_push(higher ? &w->higher : &w->lower, e->value);
	return 0;
}

#define WORKLOAD(field) offsetof(struct lab_workload, field)

static const struct config_key keys[] = {
	{ "program", 0, NULL, set_program, "a program's path or stress-ng:STRESSOR" },
	{ "arg", WORKLOAD(args), config_set_strvec, NULL, NULL },
	{ "iters", WORKLOAD(iters), config_set_positive, NULL, "a positive integer" },
	{ "deadline", WORKLOAD(deadline_s), config_set_seconds, NULL, SECONDS_EXPECTED },
	{ "higher", 0, NULL, set_direction, "a metric name the program prints" },
	{ "lower", 0, NULL, set_direction, "a metric name the program prints" },
};

_Static_assert(offsetof(struct lab_workload, name) == 0, "a workload section starts with its name");

const struct config_section config_workload_section = {
	"workload", keys, ARRAY_SIZE(keys), "a workload section", sizeof(struct lab_workload),
	1, name_ok, init, NULL, 0,
};

int config_workload_apply(struct lab_workload **all, size_t *n, const struct config_entry *e)
{
	return config_section_apply_named(&config_workload_section, all, n, e);
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
