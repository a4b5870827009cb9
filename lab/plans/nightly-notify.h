#ifndef NIGHTLY_NOTIFY_H
#define NIGHTLY_NOTIFY_H
/*
 * What a night tells (lab/plans/nightly-notify.c): its changes and
 * bisections by mail and webhook, each once.
 */
#include "nightly-night.h"

/*
 * One mail for the confirmed regressions not yet told, one for the
 * bisections that ended after their regression was told, one POST for
 * every confirmed change and follow-up not yet told; 0, or -1 on error (a
 * channel that failed is an infrastructure failure of the night, said
 * with night_infra()).
 */
int night_notify(struct night *nt, const struct series_copy *sc);

#endif
