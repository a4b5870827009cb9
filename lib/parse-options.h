#ifndef PARSE_OPTIONS_H
#define PARSE_OPTIONS_H
/*
 * A command's options as one table, from which come the parsing, the
 * --help text and every message about a bad option:
 *
 *   static const char *const usage[] = { "usage: lab list [options]", NULL };
 *   struct parse_option opts[] = {
 *           OPT_INT('n', "limit", &limit, 1, INT_MAX, "N", "runs to list (default 20)"),
 *           OPT_STRING(0, "db", &db, "PATH", "database"),
 *           OPT_END(),
 *   };
 *   struct option_parser p = { "lab list", usage, opts, NULL };
 *   int n = parse_options(&p, argc, argv);
 *
 * Long options are --name=V or --name V, or a unique prefix of the name;
 * short ones -c V or -cV. "--" ends the options. Words that are not
 * options may come anywhere; they are moved, in order, to argv[0..n), and
 * the other words behind them (argv is permuted, never copied: a strvec
 * that owns it still frees each word once).
 * -h and --help print the usage on stdout, unless the table has them.
 *
 * The messages (one line each, through error()):
 *   option '--workload' needs a value (see 'lab run --help')
 *   option '--help' takes no value (see 'lab run --help')
 *   unknown option '--bogus' for 'lab run' (see 'lab run --help')
 *   unknown option '--wrokload' for 'lab run': did you mean '--workload'? (see ...)
 *   ambiguous option '--a-c' for 'lab ab': --a-cmdline, --a-config? (see ...)
 *   bad value 'x' for --boots (see 'lab run --help')
 *   bad value 'x' for -c: expected a column number from 1     (opt->expect)
 * An option is named as it was given: -n or --limit.
 */
#include <stdio.h>

struct strbuf;
struct parse_option;

enum parse_opt_type {
	OPTION_END = 0,
	OPTION_TEXT,		/* a line of the usage: a heading, a note; help is the line */
	OPTION_STRING,		/* const char **: the last one given (argv's own string) */
	OPTION_INT,		/* long *: a decimal integer from min to max */
	OPTION_BOOL,		/* int *: set to 1; takes no value */
	OPTION_STRVEC,		/* struct strvec *: each one given, pushed in order */
	OPTION_CALLBACK,	/* cb(opt, arg); arg NULL for PARSE_OPT_NOARG */
};

/* Flags of an option. */
#define PARSE_OPT_HIDDEN	(1 << 0)	/* no line of its own in the usage: another's names it */
#define PARSE_OPT_NORECORD	(1 << 1)	/* not written to the parser's record */
#define PARSE_OPT_OPTARG	(1 << 2)	/* a callback's value is optional: --name=V, or next_word */
#define PARSE_OPT_NOARG		(1 << 3)	/* a callback that takes no value */

/*
 * A callback's answer: 0 when the value is good; PARSE_OPT_BAD to have the
 * parser say "bad value"; negative when it said what is wrong itself
 * (return error(...)).
 */
#define PARSE_OPT_BAD		1
typedef int parse_opt_fn(const struct parse_option *opt, const char *arg);

struct parse_option {
	enum parse_opt_type type;
	int short_name;			/* 0: none */
	const char *long_name;		/* NULL: none */
	void *value;
	const char *argh;		/* the value's name in the usage: "N", "SIZE" */
	const char *help;		/* may hold '\n': continued under the help column */
	unsigned flags;
	long min, max;			/* OPTION_INT */
	parse_opt_fn *cb;		/* OPTION_CALLBACK */
	const char *expect;		/* what a good value is, for "bad value" */
	int (*next_word)(const char *word);	/* PARSE_OPT_OPTARG: is the next word its value? */
};

#define OPT_END()	{ .type = OPTION_END }
#define OPT_TEXT(t)	{ .type = OPTION_TEXT, .help = (t) }
#define OPT_STRING(s, l, v, a, h) \
	{ .type = OPTION_STRING, .short_name = (s), .long_name = (l), .value = (v), \
	  .argh = (a), .help = (h) }
#define OPT_INT(s, l, v, lo, hi, a, h) \
	{ .type = OPTION_INT, .short_name = (s), .long_name = (l), .value = (v), \
	  .argh = (a), .help = (h), .min = (lo), .max = (hi) }
#define OPT_BOOL(s, l, v, h) \
	{ .type = OPTION_BOOL, .short_name = (s), .long_name = (l), .value = (v), .help = (h) }
#define OPT_STRVEC(s, l, v, a, h) \
	{ .type = OPTION_STRVEC, .short_name = (s), .long_name = (l), .value = (v), \
	  .argh = (a), .help = (h) }
#define OPT_CALLBACK(s, l, v, a, h, f) \
	{ .type = OPTION_CALLBACK, .short_name = (s), .long_name = (l), .value = (v), \
	  .argh = (a), .help = (h), .cb = (f) }
/* Flags, an expect text or next_word: write the entry out, { .type = ..., .flags = ... }. */

/*
 * Where the option lines go among the usage lines; without it they
 * follow the last line.
 */
extern const char parse_options_here[];

struct option_parser {
	const char *cmd;			/* "lab run": messages name it */
	const char *const *usage;		/* NULL-terminated lines */
	const struct parse_option *options;
	/*
	 * NULL, or each option given, as "--name=value\n" ("--name\n" for one
	 * without a value), but for those flagged PARSE_OPT_NORECORD: a
	 * record that parses back to the same options.
	 */
	struct strbuf *record;
};

/*
 * The one word after a command that has parse_options() print its long
 * options on one line and return PARSE_OPT_HELP: what the
 * shell's completion offers after "lab CMD --".
 */
#define PARSE_OPT_COMPLETION_HELPER "--completion-helper"

/* parse_options() printed the usage, asked for by -h or --help. */
#define PARSE_OPT_HELP		(-2)

/*
 * Parse argv[1..argc) (argv[0] is the command's name). Returns how many
 * words were not options, moved to argv[0..n); -1 after one error line;
 * PARSE_OPT_HELP when the usage was printed (the command exits 0).
 */
int parse_options(const struct option_parser *p, int argc, char **argv);

/* For parse_command_options(): the command counts its words itself. */
#define PARSE_OPT_ANY_ARGS	(-1)

/*
 * A command's parse_options(): after the usage of -h or --help the process
 * exits 0, and a word beyond the first max_args that are not options is
 * refused, "unexpected argument 'X' for 'lab run'". Returns how many words
 * were not options, moved to argv[0..n), or -1 after one error line.
 */
int parse_command_options(const struct option_parser *p, int argc, char **argv,
			  int max_args);

/* The usage: its lines, and a line for each option not hidden. */
void parse_options_usage(FILE *f, const struct option_parser *p);

#endif
