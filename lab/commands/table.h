#ifndef TABLE_H
#define TABLE_H
/*
 * Text tables of stored samples within 100 columns: one row per
 * (workload, metric) with n, median, the standard deviation relative to
 * the mean, min and max over the given runs. Warm-up samples are
 * stored but left out here, and the table says how many were left out.
 */
#include <stdio.h>

#include "store.h"

int table_print_runs(FILE *f, struct store *st, const long long *run_ids, size_t nr);
/* The same of a run's event counts, under title: nothing when it has none. */
int table_print_run_events(FILE *f, struct store *st, long long run_id, const char *title);

#endif
