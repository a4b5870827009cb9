#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sample.h"
#include "xalloc.h"

static void *grow(void *p, size_t *alloc, size_t need, size_t size)
{
	if (need <= *alloc)
		return p;
	*alloc = *alloc ? *alloc * 2 : 16;
	if (*alloc < need)
		*alloc = need;
	return xrealloc(p, *alloc * size);
}

void sample_set_add(struct sample_set *set, const struct sample *s)
{
	set->v = grow(set->v, &set->alloc, set->nr + 1, sizeof(*set->v));
	set->v[set->nr++] = *s;
}

void sample_set_meta(struct sample_set *set, const char *key, const char *value)
{
	for (size_t i = 0; i < set->meta_nr; i++) {
		if (!strcmp(set->meta[i].key, key)) {
			free(set->meta[i].value);
			set->meta[i].value = xstrdup(value);
			return;
		}
	}
	set->meta = grow(set->meta, &set->meta_alloc, set->meta_nr + 1,
			 sizeof(*set->meta));
	set->meta[set->meta_nr].key = xstrdup(key);
	set->meta[set->meta_nr].value = xstrdup(value);
	set->meta_nr++;
}

const char *sample_set_meta_get(const struct sample_set *set, const char *key)
{
	for (size_t i = 0; i < set->meta_nr; i++)
		if (!strcmp(set->meta[i].key, key))
			return set->meta[i].value;
	return NULL;
}

void sample_set_release(struct sample_set *set)
{
	for (size_t i = 0; i < set->meta_nr; i++) {
		free(set->meta[i].key);
		free(set->meta[i].value);
	}
	free(set->meta);
	free(set->v);
	memset(set, 0, sizeof(*set));
}
