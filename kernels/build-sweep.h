#ifndef BUILD_SWEEP_H
#define BUILD_SWEEP_H
/*
 * A make that is killed (the lab by SIGKILL, the build's deadline, the
 * machine going down) can leave files cut off in its build directory: a
 * .cmd file that every later make there includes and stops at
 * ("unterminated variable reference"), an object the linker reads. The
 * marker is in the build directory from before configuring until a make
 * that ended by itself. The next build that finds it looks at what was
 * written since: kbuild writes a target's .cmd file after the target, so
 * a target is whole when its .cmd is there, newer, and ends its last line;
 * any other target (an object, an archive) and its .cmd are removed, and
 * make writes them again. What the killed make finished is kept.
 */

/* What a killed make left in obj is removed; then the marker for this build is set. 0 or -1. */
int kbuild_begin(const char *obj);
/* After make, its exit status (or -1, 128 + signal): a make that ended by itself clears the marker. */
void kbuild_end(const char *obj, int status);

#endif
