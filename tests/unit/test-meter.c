/*
 * lib/meter.c on a clock the test turns: what a terminal and a log see,
 * byte for byte, and when.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "meter.h"
#include "strbuf.h"
#include "tap.h"

static double clock_s;

static double fake_now(void)
{
	return clock_s;
}

/* What the meter wrote to its file since the last call. */
static const char *written(FILE *f, struct strbuf *sb)
{
	char buf[512];
	size_t n;

	strbuf_reset(sb);
	rewind(f);
	while ((n = fread(buf, 1, sizeof(buf), f)))
		strbuf_add(sb, buf, n);
	rewind(f);
	if (ftruncate(fileno(f), 0))
		abort();
	return strbuf_str(sb);
}

static void start(struct meter *m, FILE *f, int in_place)
{
	meter_init(m, f);
	m->now = fake_now;
	m->in_place = in_place;
	clock_s = 100;
}

static void test_plain(void)
{
	struct strbuf out = STRBUF_INIT;
	FILE *f = tmpfile();
	struct meter m;

	start(&m, f, 0);
	meter_begin(&m, 1075, 0, "build %s (%s)", "6e1c2f0", "x86_64");
	is_str(written(f, &out), "", "nothing drawn when the work begins");
	meter_phase(&m, "compiling");
	is_str(written(f, &out), "build 6e1c2f0 (x86_64):   0% (0/1075) compiling, 0:00\n",
	       "a plain line for its first phase");
	clock_s += 10;
	meter_set(&m, 100, "objects");
	meter_tick(&m);
	is_str(written(f, &out), "", "nothing more within 30 s");
	clock_s += 21;
	meter_set(&m, 412, "objects");
	is_str(written(f, &out),
	       "build 6e1c2f0 (x86_64):  38% (412/1075) objects, 0:31, ~0:50 left\n",
	       "a line after 30 s of silence, with the time left from the fraction done");
	clock_s += 31;
	meter_tick(&m);
	is_str(written(f, &out),
	       "build 6e1c2f0 (x86_64):  38% (412/1075) objects, 1:02, ~1:40 left\n",
	       "the clock alone prints again 30 s later");
	clock_s += 1;
	meter_phase(&m, "linking");
	is_str(written(f, &out), "build 6e1c2f0 (x86_64):  38% (412/1075) linking, 1:03, ~1:41 left\n",
	       "a new phase is a line of its own in a log");
	clock_s += 9;
	meter_set_total(&m, 200);
	clock_s += 60;
	meter_set(&m, 50, "lines");
	is_str(written(f, &out),
	       "build 6e1c2f0 (x86_64):  25% (50/200) lines, 2:12, ~3:00 left\n",
	       "a new count: the time left from its own rate, the time elapsed from the start");
	meter_done(&m, "build 6e1c2f0: done in %s", "1:05");
	is_str(written(f, &out), "build 6e1c2f0: done in 1:05\n", "the last line");
	meter_release(&m);
	fclose(f);
	strbuf_release(&out);
}

static void test_in_place(void)
{
	struct strbuf out = STRBUF_INIT;
	FILE *f = tmpfile();
	struct meter m;

	start(&m, f, 1);
	meter_begin(&m, 0, 20, "boot 3 of 10 (B)");
	meter_phase(&m, "starting");
	is_str(written(f, &out), "\rboot 3 of 10 (B): starting, 0:00, ~0:20 left\033[K",
	       "in place, the time left from the last boot of this kernel");
	clock_s += 0.1;
	meter_set(&m, 0, "zeroing 3/10");
	is_str(written(f, &out), "", "a new count within 0.2 s waits");
	meter_phase(&m, "kernel booting");
	is_str(written(f, &out), "\rboot 3 of 10 (B): kernel booting, 0:00, ~0:20 left\033[K",
	       "a new phase does not");
	clock_s += 0.2;
	meter_set(&m, 0, "zeroing 4/10");
	is_str(written(f, &out), "\rboot 3 of 10 (B): zeroing 4/10, 0:00, ~0:20 left\033[K",
	       "then it is drawn");
	clock_s += 0.5;
	meter_tick(&m);
	is_str(written(f, &out), "", "the clock redraws once a second");
	clock_s += 25;
	meter_tick(&m);
	is_str(written(f, &out), "\rboot 3 of 10 (B): zeroing 4/10, 0:26\033[K",
	       "past the expected time, no time left is guessed");
	meter_clear_showing();
	is_str(written(f, &out), "\r\033[K", "the meter on the terminal is cleared before a message");
	meter_clear(&m);
	is_str(written(f, &out), "", "cleared once");
	meter_release(&m);
	fclose(f);
	strbuf_release(&out);
}

static void test_quiet(void)
{
	struct strbuf out = STRBUF_INIT;
	FILE *f = tmpfile();
	struct meter m;

	meter_mode = METER_QUIET;
	start(&m, f, 0);
	meter_begin(&m, 10, 0, "boot 1 of 10");
	clock_s += 100;
	meter_set(&m, 5, "x");
	meter_tick(&m);
	is_str(written(f, &out), "", "quiet: no meter at all");
	meter_done(&m, "boot 1 of 10: OK");
	is_str(written(f, &out), "boot 1 of 10: OK\n", "quiet: the result line stays");
	meter_release(&m);
	meter_mode = METER_AUTO;
	fclose(f);
	strbuf_release(&out);
}

static void test_width(void)
{
	struct strbuf out = STRBUF_INIT;
	FILE *f = tmpfile();
	struct meter m;

	/* a file is no terminal: $COLUMNS, else 80 */
	setenv("COLUMNS", "30", 1);
	start(&m, f, 1);
	meter_begin(&m, 0, 100, "boot 3 of at most 40 (µ)");
	m.left_before = "at most ";
	m.left_after = "left in all";
	meter_phase(&m, "zeroing: 4 samples");
	is_str(written(f, &out), "\rboot 3 of at most 40 (µ): ze…\033[K",
	       "cut to 29 columns, not bytes, an ellipsis where it was cut");
	unsetenv("COLUMNS");
	meter_phase(&m, "zeroing: 4 samples");
	is_str(written(f, &out),
	       "\rboot 3 of at most 40 (µ): zeroing: 4 samples, 0:00, at most ~1:40 left in "
	       "all\033[K", "within 79 columns when the width is unknown, the time left worded");
	clock_s += 70;
	meter_tick(&m);
	is_str(written(f, &out), "\rboot 3 of at most 40 (µ): zeroing: 4 samples, 1:10, at most "
	       "~0:30 left in all\033[K", "the time left counts down");
	meter_release(&m);
	fclose(f);
	strbuf_release(&out);
}

static void test_durations(void)
{
	struct strbuf sb = STRBUF_INIT;

	meter_add_duration(&sb, 7.4);
	is_str(strbuf_str(&sb), "0:07", "seconds");
	strbuf_reset(&sb);
	meter_add_duration(&sb, 151);
	is_str(strbuf_str(&sb), "2:31", "minutes");
	strbuf_reset(&sb);
	meter_add_duration(&sb, 3723);
	is_str(strbuf_str(&sb), "1:02:03", "hours");
	strbuf_reset(&sb);
	meter_add_duration(&sb, -3);
	is_str(strbuf_str(&sb), "0:00", "a negative time is none");
	strbuf_release(&sb);
}

int main(void)
{
	test_plain();
	test_in_place();
	test_quiet();
	test_width();
	test_durations();
	return done_testing();
}
