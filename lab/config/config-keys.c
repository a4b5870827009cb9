/*
 * The one loop over a section's key table, and the one find-or-append of
 * named sections (config-keys.h).
 */
#include <stdlib.h>
#include <string.h>

#include "config-keys.h"
#include "config-values.h"
#include "config.h"
#include "escape.h"
#include "log.h"
#include "redact.h"
#include "strbuf.h"
#include "strvec.h"
#include "xalloc.h"

int config_bad_value(const struct config_entry *e, const char *expected,
		     enum url_redact_flags flags)
{
	struct strbuf value = STRBUF_INIT;
	int ret;

	/* one line whatever the value holds, an address's secrets masked (lib/redact.h) */
	url_redact(&value, e->value, flags);
	ret = error("bad value '%s' for '%s' in %s %s line %d: expected %s",
		    term_safe(value.buf), e->name, e->kind, e->path, e->line, expected);
	strbuf_release(&value);
	return ret;
}

static int bad_value(const struct config_entry *e, const char *expected)
{
	return config_bad_value(e, expected, 0);
}

/* The key of s called key, into obj (a plain section's struct or a named one's). */

static void add_known(struct strbuf *known, const struct config_section *s, const char *key)
{
	strbuf_addf(known, "%s%s%s%s", known->len ? ", " : "", s->what ? "" : s->name,
		    s->what ? "" : ".", key);
}

static int set_key(const struct config_section *s, void *obj, const char *key,
		   const struct config_entry *e)
{
	struct strbuf known = STRBUF_INIT;
	size_t i, j;

	for (i = 0; i < s->nkeys; i++) {
		const struct config_key *k = &s->keys[i];
		const char *expected = k->expected;
		void *field = (char *)obj + k->offset;

		if (strcmp(k->name, key))
			continue;
		if (!(k->set ? k->set(field, e->value) : k->set_entry(field, e, &expected)))
			return 0;
		return expected ? bad_value(e, expected) : -1;
	}
	for (i = 0; i < s->nborrowed; i++) {
		const struct config_borrowed *b = &s->borrowed[i];

		for (j = 0; j < *b->nkeys; j++)
			if (!strcmp(b->keys[j].name, key))
				return b->keys[j].set((char *)obj + b->offset, e->value) ?
				       bad_value(e, b->keys[j].expected) : 0;
	}
	for (i = 0; i < s->nkeys; i++)
		add_known(&known, s, s->keys[i].name);
	for (i = 0; i < s->nborrowed; i++)
		for (j = 0; j < *s->borrowed[i].nkeys; j++)
			add_known(&known, s, s->borrowed[i].keys[j].name);
	error("unknown key '%s' in %s %s line %d (known: %s)", e->name, e->kind, e->path,
	      e->line, known.buf);
	strbuf_release(&known);
	return -1;
}

int config_section_apply(const struct config_section *s, void *obj,
			 const struct config_entry *e)
{
	/* no header says anything: git keeps no empty sections */
	if (!e->value)
		return 0;
	return set_key(s, obj, e->name + strlen(s->name) + 1, e);
}

/*
 * The one of the array called name (len bytes), or a new one at its end:
 * zeroed, its name a copy, then s->init's. array is the address of the
 * array's pointer, whatever its type: copied through memcpy, never read
 * as a void *.
 */
static void *find_or_append(const struct config_section *s, void *array, size_t *n,
			    const char *name, size_t len, const struct config_entry *e)
{
	char *all, *one, *copy;

	memcpy(&all, array, sizeof(all));
	for (size_t i = 0; i < *n; i++) {
		one = all + i * s->size;
		/* each struct starts with its char *name */
		memcpy(&copy, one, sizeof(copy));
		if (strlen(copy) == len && !memcmp(copy, name, len))
			return one;
	}
	all = xreallocarray(all, *n + 1, s->size);
	memcpy(array, &all, sizeof(all));
	one = all + (*n)++ * s->size;
	memset(one, 0, s->size);
	copy = xcalloc(len + 1, 1);
	memcpy(copy, name, len);
	memcpy(one, &copy, sizeof(copy));
	if (s->init)
		s->init(one, e);
	return one;
}

/*
 * "nightly.NAME.key" or the header "nightly.NAME": NAME is what lies
 * between the section and the key, dots and all; a key right under the
 * section ("nightly.key") or an empty subsection has none.
 */
int config_section_apply_named(const struct config_section *s, void *array, size_t *n,
			       const struct config_entry *e)
{
	const char *name = e->name + strlen(s->name), *key;
	size_t len;
	void *one;

	if (!e->value && !s->by_header)
		return 0;
	name += *name == '.';
	key = e->value ? strrchr(e->name, '.') : name + strlen(name);
	len = key > name ? (size_t)(key - name) : 0;
	if (!len)
		return error("%s needs a name: [%s \"NAME\"] in %s %s line %d", s->what, s->name,
			     e->kind, e->path, e->section_line);
	if (s->name_ok && s->name_ok(name, len, e) < 0)
		return -1;
	one = find_or_append(s, array, n, name, len, e);
	if (!e->value)
		return 0;
	return set_key(s, one, key + 1, e);
}

int config_set_string(void *field, const char *value)
{
	return key_set_string(field, value);
}

int config_set_text(void *field, const char *value)
{
	return *value ? config_set_string(field, value) : -1;
}

int config_set_positive(void *field, const char *value)
{
	return parse_positive_int(value, field);
}

int config_set_seconds(void *field, const char *value)
{
	return parse_seconds(value, field);
}

int config_set_size(void *field, const char *value)
{
	return parse_size_mib(value, field);
}

int config_set_cpus(void *field, const char *value)
{
	return parse_cpus(value, field);
}

int config_set_strvec(void *field, const char *value)
{
	strvec_push(field, value);
	return 0;
}

static int set_list(void *field, const char *value, int (*parse)(const char *, long *))
{
	long *items = NULL;
	size_t n;
	int ret = parse_list(&items, &n, value, parse);

	free(items);
	return ret ? ret : config_set_string(field, value);
}

int config_set_size_list(void *field, const char *value)
{
	return set_list(field, value, parse_size_mib);
}

int config_set_cpus_list(void *field, const char *value)
{
	return set_list(field, value, parse_cpus);
}

int config_set_fraction(void *field, const char *value)
{
	double *d = field;

	return parse_fraction(value, d, 1) || !(*d > 0) ? -1 : 0;
}
