#include <stdlib.h>

#include "array.h"
#include "dvec.h"

void dvec_push(struct dvec *d, double x)
{
	ALLOC_GROW(d->v, d->nr + 1, d->alloc);
	d->v[d->nr++] = x;
}

void dvec_release(struct dvec *d)
{
	free(d->v);
	d->v = NULL;
	d->nr = d->alloc = 0;
}
