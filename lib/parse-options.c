#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "log.h"
#include "parse-options.h"
#include "strbuf.h"
#include "strvec.h"
#include "suggest.h"
#include "xalloc.h"

const char parse_options_here[] = "";

/* -h and --help, for tables that do not name them themselves */
static const struct parse_option help_option = {
	.type = OPTION_BOOL, .short_name = 'h', .long_name = "help",
};

#define HELP_COLUMN_MAX 26

static int is_help(const struct parse_option *o)
{
	return o == &help_option;
}

static const struct parse_option *find_short(const struct parse_option *opts, int c)
{
	for (const struct parse_option *o = opts; o->type != OPTION_END; o++)
		if (o->type != OPTION_TEXT && o->short_name == c)
			return o;
	return c == 'h' ? &help_option : NULL;
}

/*
 * The option a long name names: exactly, or as the unique prefix of one,
 * as getopt_long() took it. NULL when none or several.
 */
static const struct parse_option *find_long(const struct parse_option *opts, const char *name,
					    size_t len)
{
	const struct parse_option *hit = NULL;
	int hits = 0, own_help = 0;

	for (const struct parse_option *o = opts; o->type != OPTION_END; o++) {
		if (o->type == OPTION_TEXT || !o->long_name)
			continue;
		own_help |= !strcmp(o->long_name, "help");
		if (strncmp(o->long_name, name, len))
			continue;
		if (!o->long_name[len])
			return o;
		hit = o;
		hits++;
	}
	if (!own_help && !strncmp("help", name, len)) {
		if (len == 4)
			return &help_option;
		hit = &help_option;
		hits++;
	}
	return hits == 1 ? hit : NULL;
}

/*
 * The refusal of a long name find_long() did not take: the options it
 * begins when it begins several, else the nearest one when one is near.
 */
static int refuse_long(const struct option_parser *p, const char *word, size_t len,
		       const char *typed)
{
	struct strbuf names = STRBUF_INIT, near = STRBUF_INIT;
	const char **all = NULL;
	size_t nr = 0, alloc = 0, hits = 0;
	const char *closest;

	for (const struct parse_option *o = p->options; o->type != OPTION_END; o++) {
		if (o->type == OPTION_TEXT || !o->long_name)
			continue;
		ALLOC_GROW(all, nr + 1, alloc);
		all[nr++] = o->long_name;
		if (len && !strncmp(o->long_name, word, len)) {
			strbuf_addf(&names, "%s--%s", hits ? ", " : "", o->long_name);
			hits++;
		}
	}
	if (hits > 1) {
		error("ambiguous option '%s' for '%s': %s? (see '%s --help')", typed, p->cmd,
		      names.buf, p->cmd);
	} else {
		strbuf_add(&near, word, len);
		closest = suggest_closest(near.buf, all, nr);
		if (closest)
			error("unknown option '%s' for '%s': did you mean '--%s'? (see '%s --help')",
			      typed, p->cmd, closest, p->cmd);
		else
			error("unknown option '%s' for '%s' (see '%s --help')", typed, p->cmd,
			      p->cmd);
	}
	free(all);
	strbuf_release(&names);
	strbuf_release(&near);
	return -1;
}

static int takes_value(const struct parse_option *o)
{
	return o->type != OPTION_BOOL && !(o->flags & PARSE_OPT_NOARG);
}

/* A decimal integer, nothing around it, from min to max. */
static int parse_int(const char *s, long *out, long min, long max)
{
	const char *p;
	char *end;
	long v;

	if (!s)
		return -1;
	p = s + (*s == '-');
	if (*p < '0' || *p > '9')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static int bad_value(const struct option_parser *p, const struct parse_option *o,
		     const char *name, const char *arg)
{
	if (o->expect)
		return error("bad value '%s' for %s: expected %s", arg ? arg : "", name, o->expect);
	return error("bad value '%s' for %s (see '%s --help')", arg ? arg : "", name, p->cmd);
}

/* Store one option's value; name is the option as it was given. */
static int apply(const struct option_parser *p, const struct parse_option *o, const char *name,
		 const char *arg)
{
	int rc = 0;

	switch (o->type) {
	case OPTION_STRING:
		*(const char **)o->value = arg;
		break;
	case OPTION_INT:
		rc = parse_int(arg, o->value, o->min, o->max);
		break;
	case OPTION_BOOL:
		*(int *)o->value = 1;
		break;
	case OPTION_STRVEC:
		strvec_push(o->value, arg);
		break;
	case OPTION_CALLBACK:
		rc = o->cb(o, arg);
		if (rc < 0)
			return -1;
		break;
	default:
		break;
	}
	if (rc)
		return bad_value(p, o, name, arg);
	if (p->record && !(o->flags & PARSE_OPT_NORECORD)) {
		if (o->long_name)
			strbuf_addf(p->record, "--%s", o->long_name);
		else
			strbuf_addf(p->record, "-%c", o->short_name);
		if (arg)
			strbuf_addf(p->record, "%s%s", o->long_name ? "=" : "", arg);
		strbuf_addch(p->record, '\n');
	}
	return 0;
}

/*
 * The value of an option that takes one, from "=v", or the next word:
 * 1 when found, 0 for an optional one not given, -1 after the message.
 */
static int value_of(const struct option_parser *p, const struct parse_option *o,
		    const char *name, const char *attached, int argc, char **argv, int *i,
		    const char **arg)
{
	*arg = attached;
	if (attached)
		return 1;
	if (o->flags & PARSE_OPT_OPTARG) {
		if (!o->next_word || *i + 1 >= argc || !o->next_word(argv[*i + 1]))
			return 0;
	} else if (*i + 1 >= argc) {
		return error("option '%s' needs a value (see '%s --help')", name, p->cmd);
	}
	*arg = argv[++*i];
	return 1;
}

static int parse_long(const struct option_parser *p, int argc, char **argv, int *i)
{
	const char *word = argv[*i] + 2, *eq = strchr(word, '=');
	size_t len = eq ? (size_t)(eq - word) : strlen(word);
	const struct parse_option *o = find_long(p->options, word, len);
	struct strbuf name = STRBUF_INIT;
	const char *arg = NULL;
	int ret = -1;

	if (!o)
		return refuse_long(p, word, len, argv[*i]);
	strbuf_addf(&name, "--%s", o->long_name);
	if (!takes_value(o)) {
		if (eq) {
			error("option '%s' takes no value (see '%s --help')", name.buf, p->cmd);
			goto out;
		}
	} else if (value_of(p, o, name.buf, eq ? eq + 1 : NULL, argc, argv, i, &arg) < 0) {
		goto out;
	}
	if (is_help(o)) {
		parse_options_usage(stdout, p);
		ret = PARSE_OPT_HELP;
		goto out;
	}
	ret = apply(p, o, name.buf, arg);
out:
	strbuf_release(&name);
	return ret;
}

/* -c V, -cV, and flags in a row: -xy */
static int parse_short(const struct option_parser *p, int argc, char **argv, int *i)
{
	for (const char *s = argv[*i] + 1; *s; s++) {
		const struct parse_option *o = find_short(p->options, *s);
		char name[3] = { '-', *s, '\0' };
		const char *arg = NULL;
		int rc;

		if (!o)
			return error("unknown option '-%c' for '%s' (see '%s --help')", *s, p->cmd,
				     p->cmd);
		if (takes_value(o) &&
		    value_of(p, o, name, s[1] ? s + 1 : NULL, argc, argv, i, &arg) < 0)
			return -1;
		if (is_help(o)) {
			parse_options_usage(stdout, p);
			return PARSE_OPT_HELP;
		}
		rc = apply(p, o, name, arg);
		if (rc || takes_value(o))
			return rc;
	}
	return 0;
}

/*
 * The words that are not options go to the front, in order, then the
 * options, then the command's name: a permutation, so that an argv a
 * strvec owns is still its own to free.
 */
static void words_first(char **argv, int argc, const char *is_word, int n)
{
	char **copy = xcalloc((size_t)argc, sizeof(*copy));
	int w = 0, o = n;

	for (int i = 1; i < argc; i++) {
		if (is_word[i])
			copy[w++] = argv[i];
		else
			copy[o++] = argv[i];
	}
	copy[o] = argv[0];
	memcpy(argv, copy, (size_t)argc * sizeof(*argv));
	free(copy);
}

/* Every long option, one word each, for the shell's completion. */
static void print_completion(const struct option_parser *p)
{
	const char *sep = "";

	for (const struct parse_option *o = p->options; o->type != OPTION_END; o++) {
		if (o->type == OPTION_TEXT || !o->long_name)
			continue;
		printf("%s--%s", sep, o->long_name);
		sep = " ";
	}
	printf("%s--help\n", sep);
}

int parse_options(const struct option_parser *p, int argc, char **argv)
{
	char *is_word;
	int n = 0, i, rc = 0;

	if (argc == 2 && !strcmp(argv[1], PARSE_OPT_COMPLETION_HELPER)) {
		print_completion(p);
		return PARSE_OPT_HELP;
	}
	is_word = xcalloc((size_t)argc + 1, 1);

	for (i = 1; i < argc && !rc; i++) {
		const char *w = argv[i];

		if (!strcmp(w, "--")) {
			while (++i < argc) {
				is_word[i] = 1;
				n++;
			}
			break;
		}
		if (!strncmp(w, "--", 2))
			rc = parse_long(p, argc, argv, &i);
		else if (w[0] == '-' && w[1])
			rc = parse_short(p, argc, argv, &i);
		else {
			is_word[i] = 1;
			n++;
		}
	}
	if (!rc && argc > 0)
		words_first(argv, argc, is_word, n);
	free(is_word);
	return rc ? rc : n;
}

int parse_command_options(const struct option_parser *p, int argc, char **argv,
			  int max_args)
{
	int n = parse_options(p, argc, argv);

	/* nothing is done before the options: nothing to undo */
	if (n == PARSE_OPT_HELP)
		exit(0);
	if (n < 0)
		return -1;
	if (max_args != PARSE_OPT_ANY_ARGS && n > max_args)
		return error("unexpected argument '%s' for '%s'", argv[max_args], p->cmd);
	return n;
}

static void option_left(struct strbuf *sb, const struct parse_option *o, int any_short)
{
	if (o->short_name)
		strbuf_addf(sb, "-%c%s", o->short_name, o->long_name ? ", " : "");
	else if (any_short)
		strbuf_addstr(sb, "    ");
	if (o->long_name)
		strbuf_addf(sb, "--%s", o->long_name);
	if (o->argh && takes_value(o))
		strbuf_addf(sb, (o->flags & PARSE_OPT_OPTARG) ? " [%s]" : " %s", o->argh);
}

static int shown(const struct parse_option *o)
{
	return o->type != OPTION_TEXT && !(o->flags & PARSE_OPT_HIDDEN);
}

static void print_options(FILE *f, const struct parse_option *opts)
{
	struct strbuf left = STRBUF_INIT;
	size_t width = 0;
	int any_short = 0;

	for (const struct parse_option *o = opts; o->type != OPTION_END; o++)
		any_short |= shown(o) && o->short_name;
	for (const struct parse_option *o = opts; o->type != OPTION_END; o++) {
		if (!shown(o))
			continue;
		strbuf_reset(&left);
		option_left(&left, o, any_short);
		if (left.len > width)
			width = left.len;
	}
	if (width > HELP_COLUMN_MAX)
		width = HELP_COLUMN_MAX;
	for (const struct parse_option *o = opts; o->type != OPTION_END; o++) {
		const char *h = o->help ? o->help : "";

		if (o->type == OPTION_TEXT) {
			fprintf(f, "%s\n", h);
			continue;
		}
		if (!shown(o))
			continue;
		strbuf_reset(&left);
		option_left(&left, o, any_short);
		if (left.len > width)
			fprintf(f, "  %s\n%*s", left.buf, (int)width + 4, "");
		else
			fprintf(f, "  %-*s  ", (int)width, left.buf);
		/* a help of several lines keeps to its column */
		for (;;) {
			size_t n = strcspn(h, "\n");
			fprintf(f, "%.*s\n", (int)n, h);
			if (!h[n])
				break;
			h += n + 1;
			fprintf(f, "%*s", (int)width + 4, "");
		}
	}
	strbuf_release(&left);
}

void parse_options_usage(FILE *f, const struct option_parser *p)
{
	int placed = 0;

	for (const char *const *u = p->usage; u && *u; u++) {
		if (*u == parse_options_here) {
			print_options(f, p->options);
			placed = 1;
		} else {
			fprintf(f, "%s\n", *u);
		}
	}
	if (!placed)
		print_options(f, p->options);
}
