#ifndef DRIVE_H
#define DRIVE_H
/*
 * The read loop every process-based runner shares: read the child's
 * merged output into a console until the child is done or the deadline
 * passes. Kills the child's process group at the deadline, and a little
 * after the guest said done or the kernel failed (a guest that halts
 * instead of powering off must not hold the run).
 */
#include "console.h"
#include "subprocess.h"

enum drive_end {
	DRIVE_EXITED,		/* the child closed its output */
	DRIVE_FINISHED,		/* done or failure seen; the child was stopped */
	DRIVE_TIMEOUT,
};

enum drive_end drive_child(struct child *c, struct console *con, double deadline);

#endif
