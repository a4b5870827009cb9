#ifndef LOG_H
#define LOG_H
/*
 * Messages to the user. error() prints "lab: <message>" on stderr and
 * returns -1 so that a failing function can `return error(...)`.
 * Messages are lower case without a full stop and name the object:
 *   error("cannot open database '%s': %s", path, why)
 * Each line is said as say_to() says it (lib/say.h): made safe for a
 * terminal keeping newline and tab (a quoted ref, file name or guest's
 * text cannot drive it), and broken at spaces within 100 columns, each
 * further line indented four spaces.
 */
__attribute__((format(printf, 1, 2))) int error(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void warning(const char *fmt, ...);
/* Informational line on stderr, suppressed by log_quiet. */
__attribute__((format(printf, 1, 2))) void info(const char *fmt, ...);
extern int log_quiet;
/*
 * "lab: debug: ..." on stderr when LAB_DEBUG is set in the environment:
 * what the lab read, wrote or reused on its way to a boot, for whoever
 * checks that it does each once.
 */
__attribute__((format(printf, 1, 2))) void debug(const char *fmt, ...);

#endif
