#ifndef DVEC_H
#define DVEC_H
/*
 * A growable array of doubles: the samples of one metric, one side's
 * values, a plot's coordinates. v, nr and alloc are the caller's to read
 * (v is NULL until the first push); dvec_release() frees v and leaves
 * the dvec empty, ready for use again.
 */
#include <stddef.h>

struct dvec {
	double *v;
	size_t nr, alloc;
};

#define DVEC_INIT { NULL, 0, 0 }

void dvec_push(struct dvec *d, double x);
void dvec_release(struct dvec *d);

#endif
