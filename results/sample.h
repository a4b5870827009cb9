#ifndef SAMPLE_H
#define SAMPLE_H
/*
 * Samples and metadata as a run produces them, before and after storage.
 * A sample_set owns its arrays; sample_set_release() frees them.
 *
 * A boot can send millions of samples of a few metrics, so the names are
 * kept once per series (workload and metric, with its unit) and a stored
 * sample is a series index and its numbers: 24 bytes.
 */
#include <stddef.h>

/*
 * What a sample is besides its value, stored with it. Also on the wire: a
 * guest's sample line says "warmup" (runners/protocol.h), so the static
 * guest program includes this header too, and uses nothing else of it.
 */
enum sample_flags {
	SAMPLE_WARMUP = 1 << 0,	/* measured, stored, left out of verdicts */
};

/* A sample as it is added and read back; the names belong to the caller or the set. */
struct sample {
	const char *workload;
	const char *metric;
	const char *unit;
	long iteration;
	double value;
	unsigned flags;		/* enum sample_flags */
};

struct sample_series {
	char *workload, *metric, *unit;
	long last;		/* highest iteration so far */
	struct iter_set *seen;	/* every iteration, once they came out of order */
};

struct sample_rec {
	unsigned series;
	unsigned flags;
	long iteration;
	double value;
};

struct meta_entry {
	char *key;
	char *value;
};

struct sample_set {
	struct sample_rec *v;
	size_t nr, alloc;
	struct sample_series *series;
	size_t series_nr, series_alloc;
	size_t hint;		/* the series of the last sample added */
	struct meta_entry *meta;
	size_t meta_nr, meta_alloc;
};

#define SAMPLE_SET_INIT { 0 }

enum sample_added {
	SAMPLE_ADDED = 0,
	SAMPLE_REPEATED,	/* that iteration of that metric is in the set already */
	SAMPLE_OTHER_UNIT,	/* the metric's earlier samples have another unit */
};

/*
 * Add a copy of s, unless it repeats an iteration of its metric or
 * changes the metric's unit: then the set is left alone and the reason
 * returned.
 */
enum sample_added sample_set_add(struct sample_set *set, const struct sample *s);
/* The i-th sample; its names live as long as the set. */
void sample_set_get(const struct sample_set *set, size_t i, struct sample *out);
/* The unit earlier samples of workload.metric have; NULL when there are none. */
const char *sample_set_unit(const struct sample_set *set, const char *workload,
			    const char *metric);
/* Set key to value, replacing an earlier value of the same key. */
void sample_set_meta(struct sample_set *set, const char *key, const char *value);
const char *sample_set_meta_get(const struct sample_set *set, const char *key);
void sample_set_release(struct sample_set *set);

#endif
