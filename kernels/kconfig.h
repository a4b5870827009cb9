#ifndef KCONFIG_H
#define KCONFIG_H
/*
 * What a kernel's .config text holds. A line is "CONFIG_X=v" or
 * "# CONFIG_X is not set"; any other line is no option.
 */
#include <stddef.h>

struct strbuf;

/* Does .config text cfg hold line ("is not set": no assignment at all)? */
int kconfig_has(const char *cfg, const char *line);

/*
 * Does .config or fragment text build option (named without CONFIG_):
 * does the last line that sets it set it y or m? A fragment after another
 * (text holding both) overrides it, as the lab's merge does.
 */
int kconfig_builds(const char *text, const char *option);

/*
 * The options olddefconfig did not keep: the lines of required that no
 * fragment sets, and each line of each of the n fragments that no later
 * fragment sets again (a fragment making a driver of the one before a
 * module), each named in why after "options did not stick after
 * olddefconfig: ". Returns their count. The texts of required and of
 * the fragments are split in place.
 */
int kconfig_unstuck(struct strbuf *why, const char *cfg, struct strbuf *required,
		    struct strbuf *fragments, size_t n);

#endif
