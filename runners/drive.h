#ifndef DRIVE_H
#define DRIVE_H
/*
 * The read loop every process-based runner shares: read the child's
 * merged output into a console until the child is done, a deadline passes,
 * or (probe_deadline > 0) no kernel output has appeared by then. Kills the
 * child's process group in the last two cases, and a little after the
 * guest said done or the kernel failed (a guest that halts instead of
 * powering off must not hold the run).
 */
#include "console.h"
#include "subprocess.h"

enum drive_end {
	DRIVE_EXITED,		/* the child closed its output */
	DRIVE_FINISHED,		/* done or failure seen; the child was stopped */
	DRIVE_TIMEOUT,
	DRIVE_PROBE_FAILED,	/* no kernel output by probe_deadline */
};

enum drive_end drive_child(struct child *c, struct console *con,
			   double deadline, double probe_deadline);

#endif
