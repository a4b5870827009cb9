#ifndef GUEST_EXEC_H
#define GUEST_EXEC_H
/*
 * A user's workload: a program the lab staged in lab.workdir (in the VM,
 * /lab/work from the initramfs) as <workdir>/<name>/:
 *
 *   run      the program (a static or dynamic binary, or a script)
 *   args     its arguments, one per line
 *   format   "plain" (userwork.h's name value unit lines on stdout) or
 *            "stress-ng STRESSOR" (its --yaml output, to a file the guest
 *            names with --yaml)
 *
 * and, for a [workload] section's settings (lab/config/workload.h), each only
 * when the section says it:
 *
 *   iters       runs of the program, instead of lab.iters
 *   deadline    seconds a run may take, instead of lab.exec_timeout
 *   directions  "metric higher" or "metric lower" lines: the direction of
 *               a metric whose line gives none
 *
 * The program runs lab.iters times, each in its own process group and,
 * where the host allows, PID namespace and pids cgroup of lab.exec_pids
 * tasks (contain.h), with stdout and stderr read into memory and read only after it exited, so
 * that writing samples to a serial console never overlaps a measured
 * run; with lab.exec_timeout=S a run past S seconds is killed and
 * reported. A run that exits non-zero, is killed or prints no sample is an
 * error naming the iteration and the end of its stderr; bad lines are
 * counted (meta <name>.dropped_lines) and the first few shown, never used.
 * A "higher" metric is announced once as meta direction.<name>.<metric>.
 */
#include "params.h"

/* 1 when <workdir>/<name>/run exists: name is a user's workload. */
int exec_known(const struct params *p, const char *name);
int exec_run(const struct params *p, const char *name);

#endif
