#include <stddef.h>
#include <unistd.h>

#include "drive.h"

/* A watch is ticked about this often while the console is quiet. */
#define TICK_MS 1000

/* How long a child may linger after done (or after a panic message). */
#define GRACE_AFTER_DONE_S 10.0
#define GRACE_AFTER_FAILURE_S 5.0
/* QEMU stopped a KVM guest and waits: only the rest of its register dump is worth reading. */
#define GRACE_AFTER_KVM_FATAL_S 0.5

enum drive_end drive_source(struct drive_source *src, struct console *con, double deadline)
{
	double grace_until = 0;
	enum drive_end end = DRIVE_EXITED;

	for (;;) {
		char buf[16384];
		double now = now_monotonic(), until = deadline;
		ssize_t got;
		int wait_ms;

		if (!grace_until && (con->saw_done || con->kernel_failed))
			grace_until = now + (con->saw_done ? GRACE_AFTER_DONE_S :
					     GRACE_AFTER_FAILURE_S);
		if (con->halted && con->saw_done && grace_until > now + 0.2)
			grace_until = now + 0.2;
		if (con->kvm_fatal && (!grace_until || grace_until > now + GRACE_AFTER_KVM_FATAL_S))
			grace_until = now + GRACE_AFTER_KVM_FATAL_S;
		if (grace_until && grace_until < until)
			until = grace_until;
		if (now >= until) {
			if (grace_until && now >= grace_until)
				end = DRIVE_FINISHED;
			else
				end = DRIVE_TIMEOUT;
			src->stop(src);
			break;
		}
		wait_ms = (int)((until - now) * 1000) + 1;
		if (con->watch && wait_ms > TICK_MS)
			wait_ms = TICK_MS;
		got = src->read(src, buf, sizeof(buf), wait_ms);
		if (con->watch && con->watch->tick)
			con->watch->tick(con->watch);
		if (got < 0)
			continue;
		if (got == 0)
			break;
		console_feed(con, buf, (size_t)got);
	}
	console_end(con);
	return end;
}

struct child_source {
	struct drive_source src;
	struct child *c;
};

static ssize_t child_read(struct drive_source *src, char *buf, size_t len, int timeout_ms)
{
	return subprocess_read(((struct child_source *)src)->c, buf, len, timeout_ms);
}

static void child_stop(struct drive_source *src)
{
	subprocess_kill(((struct child_source *)src)->c);
}

enum drive_end drive_child(struct child *c, struct console *con, double deadline)
{
	struct child_source cs = { { child_read, child_stop }, c };

	return drive_source(&cs.src, con, deadline);
}
