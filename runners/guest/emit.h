#ifndef GUEST_EMIT_H
#define GUEST_EMIT_H
/*
 * The guest's side of the console protocol (../protocol.h): every line is
 * formatted with its checksum and written to fd 1 by a single write(2),
 * so a kernel message printed meanwhile is less likely to cut into it.
 *
 * Text that would break a line (control characters, a value too long for
 * the reader's fields) is made printable and cut here, once. The module
 * counts the samples and errors it sent for the final "done" line.
 */
#include "protocol.h"

/*
 * The boot's nonce (lab.nonce=), put in every line from now on; a nonce
 * that is not one the lab draws is ignored (params.c reports it).
 */
void emit_set_nonce(const char *nonce);

void emit_hello(void);

__attribute__((format(printf, 2, 3)))
void emit_meta(const char *key, const char *fmt, ...);

/* flags: enum sample_flags */
void emit_sample(const char *workload, const char *metric, long iteration,
		 double value, const char *unit, unsigned flags);

/* One function of a workload's profile (profile.h); not a sample. */
void emit_profile(const char *workload, const char *function, unsigned long long calls,
		  double ns);

/* Report a failure; returns -1 so that callers can `return emit_error(...)`. */
__attribute__((format(printf, 2, 3)))
int emit_error(const char *workload, const char *fmt, ...);

/* "@lab done ok|error N": error when any error line was sent. */
void emit_done(void);

long emit_sample_count(void);
int emit_error_count(void);

#endif
