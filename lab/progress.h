#ifndef PROGRESS_H
#define PROGRESS_H
/*
 * Progress of a series of boots on stderr: a line rewritten in place on a
 * terminal ("boot 3 of 10, 42 s"), plain lines otherwise, and one line per
 * finished boot with its status, and the reason when it failed.
 */
#include "runner.h"

struct progress {
	long total;
	double start;
	int tty;
};

void progress_start(struct progress *pr, long total);
/* label: what is being booted (a variant name), or NULL. */
void progress_update(struct progress *pr, long k, const char *label);
void progress_boot_done(struct progress *pr, long k, long long run_id,
			const struct run_result *res, const char *console_log);

#endif
