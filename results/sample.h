#ifndef SAMPLE_H
#define SAMPLE_H
/*
 * Samples and metadata as a run produces them, before and after storage.
 * A sample_set owns its arrays; sample_set_release() frees them.
 */
#include <stddef.h>

struct sample {
	char workload[32];
	char metric[64];
	char unit[16];
	long iteration;
	double value;
	unsigned flags;		/* enum sample_flags (protocol.h) */
};

struct meta_entry {
	char *key;
	char *value;
};

struct sample_set {
	struct sample *v;
	size_t nr, alloc;
	struct meta_entry *meta;
	size_t meta_nr, meta_alloc;
};

#define SAMPLE_SET_INIT { 0 }

void sample_set_add(struct sample_set *set, const struct sample *s);
/* Set key to value, replacing an earlier value of the same key. */
void sample_set_meta(struct sample_set *set, const char *key, const char *value);
const char *sample_set_meta_get(const struct sample_set *set, const char *key);
void sample_set_release(struct sample_set *set);

#endif
