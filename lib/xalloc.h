#ifndef XALLOC_H
#define XALLOC_H
/*
 * Allocation that cannot fail: on exhaustion the lab says so and aborts,
 * rather than every caller carrying a path for a case it cannot recover
 * from. The caller owns what these return.
 */
#include <stddef.h>

void *xrealloc(void *p, size_t n);
void *xcalloc(size_t n, size_t size);
char *xstrdup(const char *s);

#endif
