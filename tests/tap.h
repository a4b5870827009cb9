#ifndef TAP_H
#define TAP_H
/*
 * A minimal TAP producer for C unit tests run by prove.
 *   ok(cond, "name"), is_int(got, want, "name"), is_double(got, want, tol, "name"),
 *   is_str(got, want, "name"), then `return done_testing();` from main.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

static inline int tap_ok(int cond, const char *name)
{
	tap_n++;
	printf("%sok %d - %s\n", cond ? "" : "not ", tap_n, name);
	if (!cond)
		tap_failed++;
	return cond;
}

#define ok(cond, name) tap_ok(!!(cond), (name))

#define is_int(got, want, name) do { \
	long long g_ = (long long)(got), w_ = (long long)(want); \
	if (!tap_ok(g_ == w_, (name))) \
		printf("#   got %lld, want %lld\n", g_, w_); \
} while (0)

#define is_double(got, want, tol, name) do { \
	double g_ = (got), w_ = (want); \
	if (!tap_ok(fabs(g_ - w_) <= (tol), (name))) \
		printf("#   got %.17g, want %.17g (tolerance %g)\n", g_, w_, (double)(tol)); \
} while (0)

#define is_str(got, want, name) do { \
	const char *g_ = (got), *w_ = (want); \
	if (!tap_ok(g_ && w_ && !strcmp(g_, w_), (name))) \
		printf("#   got '%s', want '%s'\n", g_ ? g_ : "(null)", w_ ? w_ : "(null)"); \
} while (0)

/* A test that cannot run here, said as TAP's skip directive. */
static inline void skip(const char *why)
{
	tap_n++;
	printf("ok %d # skip %s\n", tap_n, why);
}

static inline int done_testing(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
