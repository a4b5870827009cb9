#ifndef SAY_H
#define SAY_H
/*
 * The lab's voice to the person watching it work: every line a plan has
 * to say while it runs (a step taken, a boot ended, a hint, a command to
 * paste) goes through here, never through a printf of its own. Each line
 * clears the progress meter first (lib/meter.h), is made safe for a
 * terminal as error()'s lines are (lib/escape.h), and goes where the
 * command chose: say_stream, stderr unless it said otherwise. What the
 * command is run for (its tables, JSON, CSV) is the command's to print.
 *
 * Every line keeps within TEXTFMT_COLUMNS: prose is broken at its spaces,
 * say(), say_more() and say_to() beginning each further line with four
 * spaces (what a test joins back to read the line whole), say_wrap() with
 * the indent it is given; a word wider than a line (a path, a URL) is
 * alone on its line, whole, so that it can be pasted. A shell command goes
 * through say_command(), broken between its words with backslash
 * continuations, so that pasted it is still one command. A newline in a
 * format begins a line of its own, wrapped alike. Formats are without the
 * final newline: the voice ends each line.
 */
#include <stdio.h>

#include "strbuf.h"

/* Where the voice goes; NULL: stderr. */
extern FILE *say_stream;

/* A line of news: a plan started, a step's mark, a boot that failed. Said under --quiet too. */
__attribute__((format(printf, 1, 2))) void say(const char *fmt, ...);
/* A line of how the work goes (a boot that ended OK): not said under --quiet. */
__attribute__((format(printf, 1, 2))) void say_more(const char *fmt, ...);
/* A line to f, a stream the command chose for a plan's log (the nightly's, on stdout). */
__attribute__((format(printf, 2, 3))) void say_to(FILE *f, const char *fmt, ...);
/* A line of prose as say() says it, each further line begun with indent ("  ") instead. */
__attribute__((format(printf, 2, 3))) void say_wrap(const char *indent, const char *fmt, ...);

/*
 * Append lead, then cmd, a shell command line, within TEXTFMT_COLUMNS:
 * broken between words, each line but the last ending in a backslash and
 * the next indented, so that pasted it is still one command. A word wider
 * than a line is single-quoted in pieces, each line of it but the last
 * closing the quote before its backslash and the next reopening it at
 * column 0: pasted, the shell joins them into the word. A word holding a
 * byte a terminal acts on (ESC, a tab) is written as bash's $'...', that
 * byte as \xHH. A line the shell cannot split is appended as it is. Ends
 * with a newline.
 */
void say_add_command(struct strbuf *sb, const char *lead, const char *cmd);
/* Say lead and cmd as say_add_command() appends them, on the voice's stream. */
void say_command(const char *lead, const char *cmd);
/*
 * A command stopped by a signal it deferred (lib/tempfile.h): the
 * headline formatted from fmt, wrapped as say_wrap("  ") wraps, then
 * command, the one that goes on, as say_command("  ") says it. The
 * command then lets go of what it holds and dies of the signal
 * (fatal_signal_die()).
 */
__attribute__((format(printf, 2, 3)))
void say_stopped(const char *command, const char *fmt, ...);
/* say_stopped() with the headline "<what>: interrupted, its finished boots kept; resume it with:". */
__attribute__((format(printf, 2, 3)))
void say_interrupted(const char *command, const char *fmt, ...);

#endif
