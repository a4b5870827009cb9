/*
 * lab: an A/B performance regression lab for the Linux kernel.
 * The subcommand table; each command lives in its own cmd-*.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "commands.h"
#include "gitutil.h"
#include "host.h"
#include "log.h"
#include "strbuf.h"
#include "version.h"
#include "suggest.h"

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
	{ "explain", cmd_explain, "where the time went: A and B under the function profiler" },
	{ "compare", cmd_compare, "compare two files of numbers (ministat-like)" },
	{ "report", cmd_report, "write a static HTML site of the results" },
	{ "nightly", cmd_nightly, "one night of a followed branch: measure, confirm, bisect, mail" },
	{ "recipe", cmd_recipe, "run a recipe (kernels/recipes/): a seed's A/Bs and its table" },
	{ "target", cmd_target, "list the targets of lab.conf, or check what one lacks" },
};

/* The pages that are no command's: section 7, and lab.conf's in section 5. */
static const char *const topics[] = {
	"boot-paths", "clocks", "config", "exit-status", "lava", "layout", "libvirt",
	"measurements", "recipes", "remote-hosts", "reports", "security", "statistics",
	"workloads",
};

static void usage(FILE *f)
{
	fputs("usage: lab <command> [options]\n\ncommands:\n", f);
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
	fputs("\n'lab help <command>' shows a command's manual page, 'lab <command> --help'\n"
	      "its options; 'lab --version' the version. 'lab help <topic>' shows a topic's:\n", f);
	for (size_t i = 0; i < ARRAY_SIZE(topics); i++)
		fprintf(f, "%s%s", i % 7 ? ", " : i ? ",\n  " : "  ", topics[i]);
	fputs("\n", f);
}

/*
 * Show a command's manual page through man(1), as git help does: the page
 * make built from docs/ in the checkout (build/man/), or the installed one
 * beside share/lab. Returns only when there is no page or no man program.
 */
static void show_manual(const char *name, char section)
{
	const char *page = !strcmp(name, "bisect-step") ? "bisect" : name;
	const char *const where[] = { "%s/build/man/lab-%s.%c", "%s/../man/man%c/lab-%s.%c" };
	struct strbuf path = STRBUF_INIT;

	for (size_t i = 0; i < ARRAY_SIZE(where); i++) {
		strbuf_reset(&path);
		if (i)
			strbuf_addf(&path, where[i], lab_source_dir(), section, page, section);
		else
			strbuf_addf(&path, where[i], lab_source_dir(), page, section);
		if (!access(path.buf, R_OK)) {
			fflush(stdout);
			/* the pages' tables are made for 100 columns; man takes 80 off a terminal */
			if (!isatty(STDOUT_FILENO))
				setenv("MANWIDTH", "100", 0);
			execlp("man", "man", "-l", path.buf, (char *)NULL);
			break;
		}
	}
	strbuf_release(&path);
}

/* A command by its name; topics: near misses may be a topic's name too (lab help). */
static const struct command *find_command(const char *name, int topics_too)
{
	const char *names[ARRAY_SIZE(commands) + ARRAY_SIZE(topics)];
	size_t n = 0;
	const char *near;

	for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
		if (!strcmp(commands[i].name, name))
			return &commands[i];
		names[n++] = commands[i].name;
	}
	for (size_t i = 0; topics_too && i < ARRAY_SIZE(topics); i++)
		names[n++] = topics[i];
	near = suggest_closest(name, names, n);
	if (near)
		error("unknown command '%s': did you mean '%s'? (see 'lab --help')",
		      name, near);
	else
		error("unknown command '%s' (see 'lab --help')", name);
	return NULL;
}

int main(int argc, char **argv)
{
	const struct command *cmd;
	char *help_argv[] = { NULL, "--help", NULL };
	int ret;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--list-commands")) {
		for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
			printf("%s%s", i ? " " : "", commands[i].name);
		printf(" help\n");
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("lab version %s\n", LAB_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		if (argc == 2) {
			usage(stdout);
			return 0;
		}
		/* lab help CMD is its manual page, else lab CMD --help */
		if (argc > 3) {
			error("'lab help' takes one command, not '%s'", argv[3]);
			return 2;
		}
		for (size_t i = 0; i < ARRAY_SIZE(topics); i++) {
			if (strcmp(argv[2], topics[i]))
				continue;
			show_manual(topics[i], strcmp(topics[i], "config") ? '7' : '5');
			error("no manual page of '%s' here: 'make' writes build/man/ from docs/",
			      argv[2]);
			return 2;
		}
		if (!(cmd = find_command(argv[2], 1)))
			return 2;
		show_manual(cmd->name, '1');
		help_argv[0] = argv[2];
		argc = 2;
		argv = help_argv;
	} else {
		if (!(cmd = find_command(argv[1], 0)))
			return 2;
		argc--;
		argv++;
	}
	if (lab_git_init())
		return 2;
	ret = cmd->fn(argc, argv);
	lab_git_shutdown();
	return ret;
}
