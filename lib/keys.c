/* Values of keys their owners check (keys.h). */
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
	char *end;
	long n;

	errno = 0;
	n = strtol(value, &end, 10);
	if (errno || end == value || (*end && (!seconds || strcmp(end, "s"))) || n < lo || n > hi)
		return -1;
	*out = n;
	return 0;
}
