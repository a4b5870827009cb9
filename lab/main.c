/*
 * lab: an A/B performance regression lab for the Linux kernel.
 * The subcommand table; each command lives in its own cmd-*.c.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "gitutil.h"
#include "log.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct command commands[] = {
	{ "run", cmd_run, "boot a kernel N times, run workloads, store every sample" },
	{ "list", cmd_list, "list recent runs" },
	{ "show", cmd_show, "show one run: metadata, samples, console log" },
	{ "build", cmd_build, "build a git ref (or find it in the cache), print the image" },
	{ "bisect", cmd_bisect, "find the commit that made a metric worse" },
	{ "bisect-step", cmd_bisect_step, "for git bisect run: HEAD against stored good/bad ends" },
	{ "ab", cmd_ab, "A/B two kernels or command lines: interleaved boots, verdicts" },
	{ "compare", cmd_compare, "compare two files of numbers (ministat-like)" },
	{ "report", cmd_report, "write a static HTML site of the results" },
	{ "nightly", cmd_nightly, "one night of a followed branch: measure, confirm, bisect, mail" },
	{ "recipe", cmd_recipe, "run a recipe (kernels/recipes/): a seed's A/Bs and its table" },
	{ "target", cmd_target, "list the targets of lab.conf, or check what one lacks" },
};

static void usage(FILE *f)
{
	fputs("usage: lab <command> [options]\n\ncommands:\n", f);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
	fputs("\n'lab <command> --help' shows a command's options.\n", f);
}

int main(int argc, char **argv)
{
	int ret;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(commands[i].name, argv[1]))
			continue;
		if (lab_git_init())
			return 2;
		ret = commands[i].fn(argc - 1, argv + 1);
		lab_git_shutdown();
		return ret;
	}
	error("unknown command '%s' (see 'lab --help')", argv[1]);
	return 2;
}
