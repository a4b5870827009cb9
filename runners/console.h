#ifndef CONSOLE_H
#define CONSOLE_H
/*
 * Reading a console as it arrives: bytes in, protocol messages and kernel
 * failure signs out, into a run_result. Shared by every runner. The
 * console does not own the result; it writes the raw bytes to log_fd when
 * that is >= 0.
 */
#include <stddef.h>

#include "runner.h"

struct console {
	struct run_result *res;
	int log_fd;
	unsigned proto_flags;		/* enum protocol_flags */
	struct strbuf line;		/* the current partial line */
	double start;			/* monotonic time the run started */
	int saw_hello, saw_done, saw_kernel, kernel_failed;
	int halted;			/* the kernel said it stopped */
};

void console_init(struct console *c, struct run_result *res, int log_fd,
		  unsigned proto_flags, double start);
void console_feed(struct console *c, const char *buf, size_t len);
/* Flush a final unterminated line. */
void console_end(struct console *c);
void console_release(struct console *c);

/*
 * Decide the outcome once the console is over: done ok → OK, done error →
 * FAILED, kernel failure or no done → BOOT_FAILED; timed_out wins.
 */
void console_conclude(struct console *c, int timed_out);

#endif
