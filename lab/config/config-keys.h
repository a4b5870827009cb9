#ifndef CONFIG_KEYS_H
#define CONFIG_KEYS_H
/*
 * A section of lab.conf or of a recipe as a table of its keys, and the one
 * loop that applies an entry of the reader (config.h) to it: the key found
 * and its value set, or one error line naming the entry:
 *
 *   lab: bad value '0' for 'run.cpus' in config lab.conf line 2: expected a CPU count ...
 *   lab: unknown key 'run.cpu' in config lab.conf line 2 (known: run.mem, run.cpus, ...)
 *
 * A plain section ([run], [qemu "x86_64"]) sets fields of one struct; its
 * keys are named past the section ("mem", "x86_64.binary") and listed
 * with it ("run.mem"). A named one ([nightly "NAME"]) is an array of
 * structs, one per name, found or appended by its name; its keys are the
 * last word of the entry and listed alone ("branch").
 */
#include <stddef.h>

#include "keys.h"
#include "redact.h"

struct config_entry;

struct config_key {
	const char *name;	/* lower case, as the reader gives it */
	size_t offset;		/* of the field set() is given, in the section's struct */
	/* 0, or -1 for a bad value: "expected <expected>" */
	int (*set)(void *field, const char *value);
	/*
	 * Instead of set(), for a key that needs its entry: 0, or -1 for a bad
	 * value, named with *expected (expected below unless changed), or after
	 * a line of its own when *expected is made NULL.
	 */
	int (*set_entry)(void *field, const struct config_entry *e, const char **expected);
	const char *expected;
};

/* A table of keys a lower floor names and checks (a runner's), for the struct at offset. */
struct config_borrowed {
	size_t offset;
	const struct key_setter *keys;
	const size_t *nkeys;
};

struct config_section {
	const char *name;		/* "run", "nightly" */
	const struct config_key *keys;	/* in the order "known: ..." lists them */
	size_t nkeys;
	/* A named section's, NULL and 0 for a plain one: */
	const char *what;		/* "a nightly": "... needs a name: [nightly \"NAME\"]" */
	size_t size;			/* of its struct, which starts with its char *name */
	int by_header;			/* its header alone makes one ([workload "x"] does) */
	/* NULL: any name; else -1 after one line for a bad one */
	int (*name_ok)(const char *name, size_t len, const struct config_entry *e);
	/* NULL: all zero but the name; else a new one's defaults */
	void (*init)(void *one, const struct config_entry *e);
	/* keys after its own, named, set and checked by their owners */
	const struct config_borrowed *borrowed;
	size_t nborrowed;
};

/*
 * The line "bad value ... expected <expected>" for e, its value escaped and
 * its addresses redacted with flags: for a set_entry() whose value's
 * secrets need more than the usual masking (a webhook's path); -1.
 */
int config_bad_value(const struct config_entry *e, const char *expected,
		     enum url_redact_flags flags);

/* e, of the plain section s, into obj; a header is nothing. 0, or -1 after one line. */
int config_section_apply(const struct config_section *s, void *obj,
			 const struct config_entry *e);

/*
 * e, of the named section s, into the struct of its name in the array
 * *(T **)array of *n, appended when there is none (the array is
 * reallocated: pointers into it do not last). 0, or -1 after one line.
 */
int config_section_apply_named(const struct config_section *s, void *array, size_t *n,
			       const struct config_entry *e);

/*
 * Setters for config_key.set, each of the field's type: a string (a copy,
 * freeing the one before), a non-empty string, a long by parse_*() of
 * config-values.h, one more string of a strvec.
 */
int config_set_string(void *field, const char *value);
int config_set_text(void *field, const char *value);
int config_set_positive(void *field, const char *value);
int config_set_seconds(void *field, const char *value);
int config_set_size(void *field, const char *value);
int config_set_cpus(void *field, const char *value);
int config_set_strvec(void *field, const char *value);
/*
 * A list of sizes ("4G,16G,64G") or of CPU counts ("1,2,4"), each item
 * checked, kept as written (a string, parse_list() takes it when it is
 * used); a fraction above 0 and below 1 ("0.5%" or "0.005"), a double.
 */
int config_set_size_list(void *field, const char *value);
int config_set_cpus_list(void *field, const char *value);
int config_set_fraction(void *field, const char *value);

#endif
