#ifndef GUEST_KMSG_H
#define GUEST_KMSG_H
/*
 * The kernel log, read from its oldest record to the newest: /dev/kmsg
 * (opened non-blocking, so reading stops at the end instead of waiting),
 * or syslog(2) READ_ALL where /dev/kmsg cannot be opened. Shared by the
 * workloads that learn from kernel messages (demote, boot).
 */
#include <stddef.h>

#include "parse.h"

/*
 * Call fn for each record, oldest first, until it returns nonzero.
 * Records the kernel already overwrote are skipped silently. Returns 0,
 * or -1 with a reason in why when the log cannot be read at all.
 */
int kmsg_scan(int (*fn)(const struct kmsg_record *rec, void *ctx), void *ctx,
	      char *why, size_t whysize);

#endif
