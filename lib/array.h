#ifndef ARRAY_H
#define ARRAY_H
/*
 * Arrays: how many elements a fixed one holds, and room in a growable one.
 *
 * A growable array is three things of the caller's: a pointer, the count
 * of elements in use and alloc, the count there is room for (all zero
 * before the first element). ALLOC_GROW(items, n, alloc) makes room for
 * at least n elements: alloc doubles, from ALLOC_GROW_MIN, so that adding
 * one element at a time takes amortised constant time, and is n when
 * doubling is not enough. The array may move, so pointers into it do not
 * last across the call; items, n and alloc are evaluated more than once.
 * The memory is xreallocarray()'s (the lab aborts with a message when it
 * runs out or the size overflows); the caller frees items.
 *
 *	ALLOC_GROW(l->v, l->nr + 1, l->alloc);
 *	l->v[l->nr++] = x;
 *
 * Parallel arrays keep one alloc each.
 */
#include <stddef.h>
#include <stdint.h>

#include "xalloc.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
/* -1, 0 or 1 as a is below, equal to or above b: a sort's comparison of two numbers. */
#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

#define ALLOC_GROW_MIN 16

/* The room ALLOC_GROW() makes when alloc is not enough for n. */
static inline size_t alloc_grow_nr(size_t alloc, size_t n)
{
	size_t nr = !alloc ? ALLOC_GROW_MIN : alloc <= SIZE_MAX / 2 ? 2 * alloc : SIZE_MAX;

	return nr < n ? n : nr;
}

#define ALLOC_GROW(items, n, alloc) \
	do { \
		if ((n) > (alloc)) { \
			(alloc) = alloc_grow_nr((alloc), (n)); \
			(items) = xreallocarray((items), (alloc), sizeof(*(items))); \
		} \
	} while (0)

#endif
