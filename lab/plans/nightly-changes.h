#ifndef NIGHTLY_CHANGES_H
#define NIGHTLY_CHANGES_H
/*
 * What a night finds in its series (lab/plans/nightly-changes.c): change
 * points, each new one confirmed by an A/B, a confirmed regression
 * bisected.
 */
#include "store-nightly.h"

/*
 * A store_nightly_series_each() callback, data the struct night
 * (nightly-night.h): change points and a suspect of one series, each new
 * one confirmed, a confirmed regression bisected.
 */
int night_analyse(const struct nightly_series *s, void *data);

#endif
