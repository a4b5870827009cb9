#ifndef METER_H
#define METER_H
/*
 * A progress meter on stderr for work that takes more than a few seconds:
 * what is being done, how far (k of n, or a state in words), the time it
 * has taken and, when it can be told, the time left.
 *
 * On a terminal the meter is one line rewritten in place, at most once a
 * second between changes of state, cut to the terminal's width (its
 * columns, else $COLUMNS, else 80) so that it never wraps; the line
 * is cleared before anything else is printed (meter_clear(), or
 * meter_done()). Anywhere else (a pipe, cron, CI) it prints a plain line
 * when a new thing begins and then at least every METER_QUIET_S seconds
 * while it goes on, so a log never falls silent for long. It never writes
 * to stdout, where tables and data go.
 *
 *   build 6e1c2f0 (x86_64):  38% (412/1075 objects), 2:31, ~4:05 left
 *   boot 3 of 10 (B): zeroing 4/10, 0:12, ~0:09 left
 *
 * The time left comes from the fraction done (done/total) when a total is
 * known, else from how long the same work took before (expected_s).
 */
#include <stdio.h>

#include "strbuf.h"

enum meter_mode {
	METER_AUTO,		/* in place on a terminal, plain lines elsewhere */
	METER_ALWAYS,		/* --progress: in place even when not a terminal */
	METER_QUIET,		/* --quiet: nothing but meter_done()'s final line */
};

/* Plain lines: at least one every this many seconds while work goes on. */
#define METER_QUIET_S 30.0

struct meter {
	FILE *out;
	int in_place;		/* rewrite one line, else plain lines */
	int quiet;
	int shown;		/* an in-place line is on the screen */
	double start, last;	/* when begun, when last printed */
	double count_start;	/* when the count began: the rate for the time left */
	double expected_s;	/* how long the same work took before; 0: unknown */
	/* the time left in words: before "~2:31" and after it; NULL: "" and "left" */
	const char *left_before, *left_after;
	long done, total;	/* total 0: unknown */
	struct strbuf title, state, line;
	double (*now)(void);	/* the clock: now_monotonic(), or a test's */
};

/* The mode of every meter the process makes: commands set it from --quiet / --progress. */
extern enum meter_mode meter_mode;

void meter_init(struct meter *m, FILE *out);
void meter_release(struct meter *m);
/*
 * A new piece of work: its total (0: unknown), how long it took last
 * time (0: unknown), and its title. The title is text for a terminal:
 * the caller escapes what came from outside. Nothing is drawn until the
 * first phase, count or tick: work that ends at once shows only its end.
 */
__attribute__((format(printf, 4, 5)))
void meter_begin(struct meter *m, long total, double expected_s, const char *fmt, ...);
/* How far: done of total, and a state in words ("" for none). Redraws when due. */
__attribute__((format(printf, 3, 4)))
void meter_set(struct meter *m, long done, const char *fmt, ...);
/* A count of total (0: unknown) begins now, within the same work. */
void meter_set_total(struct meter *m, long total);
/*
 * A new phase of the work, in words ("configuring"): drawn at once, and
 * in a log too, where counts only show every METER_QUIET_S.
 */
__attribute__((format(printf, 2, 3)))
void meter_phase(struct meter *m, const char *fmt, ...);
/* Nothing new, time passed: redraws the elapsed time when due. */
void meter_tick(struct meter *m);
/* Clear the in-place line before printing something else. */
void meter_clear(struct meter *m);
/* Clear whichever meter is on the terminal: error() and warning() do, before they print. */
void meter_clear_showing(void);
/* The work ended: clear the meter and print its last line (printed even when quiet). */
__attribute__((format(printf, 2, 3)))
void meter_done(struct meter *m, const char *fmt, ...);

/* "0:07", "2:31", "1:02:03": a duration as a meter writes it. */
void meter_add_duration(struct strbuf *sb, double s);

#endif
