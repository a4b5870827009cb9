#ifndef DRIVE_H
#define DRIVE_H
/*
 * The read loop every runner shares: read a guest's console into a
 * console until it ends or the deadline passes. Stops the guest at the
 * deadline, and a little after the guest said done or the kernel failed (a
 * guest that halts instead of powering off must not hold the run), or
 * QEMU said KVM failed (it then stops the guest and waits for ever).
 */
#include <sys/types.h>

#include "console.h"
#include "subprocess.h"

enum drive_end {
	DRIVE_EXITED,		/* the console ended (the child closed its output) */
	DRIVE_FINISHED,		/* done or failure seen; the guest was stopped */
	DRIVE_TIMEOUT,
};

/* Where a console comes from, for runners that are not a child process. */
struct drive_source {
	/*
	 * Wait at most timeout_ms for console bytes: returns how many were
	 * read, 0 when the console ended, -1 when none came (yet).
	 */
	ssize_t (*read)(struct drive_source *src, char *buf, size_t len, int timeout_ms);
	/* Stop the guest for good: the deadline or its grace passed. */
	void (*stop)(struct drive_source *src);
};

enum drive_end drive_source(struct drive_source *src, struct console *con, double deadline);
/* drive_source() on a child's merged output; stopping kills its process group. */
enum drive_end drive_child(struct child *c, struct console *con, double deadline);

#endif
