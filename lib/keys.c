/* Values of keys their owners check (keys.h). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "keys.h"
#include "xalloc.h"

int key_set_string(char **field, const char *value)
{
	xstrset(field, value);
	return 0;
}

int key_parse_long(long *out, const char *value, long lo, long hi, int seconds)
{
	static const char units[] = "smh";
	static const long per[] = { 1, 60, 3600 };
	const char *unit;
	char *end;
	long n, mult = 1;

	if (!value || !isdigit((unsigned char)*value))
		return -1;
	errno = 0;
	n = strtol(value, &end, 10);
	if (errno)
		return -1;
	if (*end) {
		unit = seconds ? strchr(units, tolower((unsigned char)*end)) : NULL;
		if (!unit || end[1])
			return -1;
		mult = per[unit - units];
	}
	if (n > hi / mult || n * mult < lo)
		return -1;
	*out = n * mult;
	return 0;
}
