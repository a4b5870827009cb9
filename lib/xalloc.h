#ifndef XALLOC_H
#define XALLOC_H
/*
 * Allocation that cannot fail: on exhaustion the lab says so and aborts,
 * rather than every caller carrying a path for a case it cannot recover
 * from. The caller owns what these return.
 */
#include <stddef.h>

void *xrealloc(void *p, size_t n);
/*
 * xrealloc() of nmemb elements of size bytes each: a product that does
 * not fit in a size_t aborts with a message, as exhaustion does, rather
 * than wrapping round to a small block written past its end.
 */
void *xreallocarray(void *p, size_t nmemb, size_t size);
void *xcalloc(size_t n, size_t size);
char *xstrdup(const char *s);
/* *field, a string it owns, replaced by a copy of value (value may be *field; NULL: none). */
void xstrset(char **field, const char *value);
/*
 * free() of each pointer named, for a struct's release: free_all(c->host,
 * c->port, c->identity). The caller clears the pointers, if they are kept.
 */
#define free_all(...) free_list((void *[]){ __VA_ARGS__ }, \
	sizeof((void *[]){ __VA_ARGS__ }) / sizeof(void *))
void free_list(void *const *p, size_t n);

#endif
