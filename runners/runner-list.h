#ifndef RUNNER_LIST_H
#define RUNNER_LIST_H
/*
 * Every runner, the one list of their names; lab.conf's enum lab_runner
 * (config-values.h) numbers them in this order. Apart from runner.c,
 * which each runner calls: the list is the one thing that calls the
 * runners by name.
 */
#include <stddef.h>

struct runner;

extern const struct runner *const runner_all[];
extern const size_t runner_nr;
/* NULL when there is no runner of that name. */
const struct runner *runner_find(const char *name);

#endif
