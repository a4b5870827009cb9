#include <string.h>

#include "log.h"
#include "options.h"

int option_error(const char *cmd, const char *optstring, const struct option *longopts,
		 char *const argv[])
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	const char *spec;

	/*
	 * glibc leaves in optopt the val of a long option it recognised (0 for
	 * one it did not), or the character of a short one; only the argument
	 * tells which of the two it was, as a val may be a letter.
	 */
	if (optopt && !strncmp(arg, "--", 2)) {
		for (const struct option *lo = longopts; lo->name; lo++) {
			if (lo->val != optopt || lo->flag)
				continue;
			if (lo->has_arg == required_argument)
				return error("option '--%s' needs a value (see '%s --help')",
					     lo->name, cmd);
			if (lo->has_arg == no_argument)
				return error("option '--%s' takes no value (see '%s --help')",
					     lo->name, cmd);
		}
	} else if (optopt > 0 && optopt < 128 && optopt != ':' &&
		   (spec = strchr(optstring, optopt))) {
		if (spec[1] == ':')
			return error("option '-%c' needs a value (see '%s --help')", optopt, cmd);
	} else if (optopt > 0 && optopt < 128) {
		return error("unknown option '-%c' for '%s' (see '%s --help')", optopt, cmd, cmd);
	}
	return error("unknown option '%s' for '%s' (see '%s --help')", arg, cmd, cmd);
}
