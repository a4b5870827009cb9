#ifndef KEYS_H
#define KEYS_H
/*
 * The keys of a configuration struct whose owner checks their values
 * itself (a runner's keys of a [target]): each key's name, the setter of
 * its value into the owner's struct, and what a good value looks like.
 * lab.conf's reader takes such a table as part of a section's own
 * (lab/config/config-keys.h), so a key is named and checked in one place.
 */
#include <stddef.h>

struct key_setter {
	const char *name;	/* lower case, as lab.conf's reader gives it */
	int (*set)(void *obj, const char *value);	/* 0, or -1 for a bad value */
	const char *expected;	/* "expected <expected>" after a bad value */
};

/* A key's string value: *field replaced by a copy of value; 0. */
int key_set_string(char **field, const char *value);
/*
 * A decimal integer from lo to hi into *out, digits only; with seconds, a
 * time whose unit may follow it: 300, 300s, 5m, 2h (lo and hi in
 * seconds). The one parser of every time a user writes. 0, or -1 with
 * *out unchanged.
 */
int key_parse_long(long *out, const char *value, long lo, long hi, int seconds);

#endif
