#ifndef OPTIONS_H
#define OPTIONS_H
/*
 * What every command says when getopt_long() (with opterr = 0) returns '?'
 * or ':', from its default: branch: the option that is unknown, that needs
 * a value it was not given, or that takes none. cmd is "lab run";
 * optstring and longopts are those given to getopt_long(). Returns -1
 * after one line:
 *   lab: option '--workload' needs a value (see 'lab run --help')
 *   lab: option '--help' takes no value (see 'lab run --help')
 *   lab: unknown option '--bogus' for 'lab run' (see 'lab run --help')
 */
#include <getopt.h>

int option_error(const char *cmd, const char *optstring, const struct option *longopts,
		 char *const argv[]);

#endif
