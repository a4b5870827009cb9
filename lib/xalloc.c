#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

static void *checked(void *p)
{
	if (!p) {
		fputs("lab: out of memory\n", stderr);
		abort();
	}
	return p;
}

void *xrealloc(void *p, size_t n)
{
	return checked(realloc(p, n ? n : 1));
}

void *xreallocarray(void *p, size_t nmemb, size_t size)
{
	if (size && nmemb > SIZE_MAX / size) {
		fprintf(stderr, "lab: size overflow: %zu * %zu bytes\n", nmemb, size);
		abort();
	}
	return xrealloc(p, nmemb * size);
}

void *xcalloc(size_t n, size_t size)
{
	return checked(calloc(n ? n : 1, size ? size : 1));
}

char *xstrdup(const char *s)
{
	return checked(strdup(s));
}

void xstrset(char **field, const char *value)
{
	char *copy = value ? xstrdup(value) : NULL;

	free(*field);
	*field = copy;
}

void free_list(void *const *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(p[i]);
}
