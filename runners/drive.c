#include <errno.h>
#include <poll.h>
#include <unistd.h>

#include "drive.h"

/* How long a child may linger after done (or after a panic message). */
#define GRACE_AFTER_DONE_S 10.0
#define GRACE_AFTER_FAILURE_S 5.0

enum drive_end drive_child(struct child *c, struct console *con, double deadline)
{
	double grace_until = 0;
	enum drive_end end = DRIVE_EXITED;

	for (;;) {
		char buf[16384];
		struct pollfd pfd = { .fd = c->out_fd, .events = POLLIN };
		double now = now_monotonic(), until = deadline;
		ssize_t got;
		int n;

		if (!grace_until && (con->saw_done || con->kernel_failed))
			grace_until = now + (con->saw_done ? GRACE_AFTER_DONE_S :
					     GRACE_AFTER_FAILURE_S);
		if (con->halted && con->saw_done && grace_until > now + 0.2)
			grace_until = now + 0.2;
		if (grace_until && grace_until < until)
			until = grace_until;
		if (now >= until) {
			if (grace_until && now >= grace_until)
				end = DRIVE_FINISHED;
			else
				end = DRIVE_TIMEOUT;
			subprocess_kill(c);
			break;
		}
		n = poll(&pfd, 1, (int)((until - now) * 1000) + 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			continue;
		got = read(c->out_fd, buf, sizeof(buf));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		console_feed(con, buf, (size_t)got);
	}
	console_end(con);
	return end;
}
