/*
 * lib/parse-options.c: every type of option, both spellings of a value,
 * "--", words that are not options, each error message word for word, the
 * record of what was given, and the usage made from the table.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "log.h"
#include "parse-options.h"
#include "strbuf.h"
#include "strvec.h"
#include "tap.h"

struct values {
	const char *name;
	long count, level;
	int force;
	struct strvec tags;
	const char *mode;
	int status;
	const char *status_id;
};

static struct values val;

static int mode_cb(const struct parse_option *opt, const char *arg)
{
	if (strcmp(arg, "fast") && strcmp(arg, "slow"))
		return PARSE_OPT_BAD;
	*(const char **)opt->value = arg;
	return 0;
}

static int loud_cb(const struct parse_option *opt, const char *arg)
{
	(void)opt;
	return error("'%s' is not a loud value", arg);
}

static int status_cb(const struct parse_option *opt, const char *arg)
{
	(void)opt;
	val.status = 1;
	val.status_id = arg;
	return 0;
}

static int is_number(const char *w)
{
	return *w && strspn(w, "0123456789") == strlen(w);
}

static const char *const usage[] = {
	"usage: lab try [options] FILE",
	"",
	parse_options_here,
	"",
	"exit status: 0 fine",
	NULL,
};

static const struct parse_option table[] = {
	OPT_STRING('n', "name", &val.name, "NAME", "what to call it"),
	OPT_INT('c', "count", &val.count, 1, 100, "N", "how many (default 1)"),
	{ .type = OPTION_INT, .long_name = "level", .value = &val.level, .min = -5, .max = 5,
	  .argh = "L", .help = "from -5 to 5\nnegative is quieter", .expect = "a level from -5 to 5" },
	OPT_BOOL(0, "force", &val.force, "go on regardless"),
	OPT_STRVEC(0, "tag", &val.tags, "T", "a tag (repeatable)"),
	OPT_TEXT("  a heading"),
	OPT_CALLBACK(0, "mode", &val.mode, "M", "fast or slow", mode_cb),
	OPT_CALLBACK(0, "loud", NULL, "X", "says its own error", loud_cb),
	{ .type = OPTION_CALLBACK, .long_name = "status", .argh = "ID", .help = "the status",
	  .cb = status_cb, .flags = PARSE_OPT_OPTARG | PARSE_OPT_NORECORD, .next_word = is_number },
	{ .type = OPTION_STRING, .long_name = "secret", .value = &val.name, .argh = "S",
	  .flags = PARSE_OPT_HIDDEN },
	OPT_STRING(0, "db", &val.name, "PATH", "a long enough option name to wrap the column"),
	OPT_END(),
};

/* the words parsed last: the values point into them */
static struct strvec av;

/* Parse the words after "lab try"; the return and what stderr got. */
static int parse(struct strbuf *err, struct strbuf *record, struct strvec *rest, ...)
{
	struct option_parser p = { "lab try", usage, table, record };
	struct capture cap;
	va_list ap;
	const char *w;
	int n;

	strvec_release(&val.tags);
	memset(&val, 0, sizeof(val));
	strvec_release(&av);
	strvec_push(&av, "try");
	va_start(ap, rest);
	while ((w = va_arg(ap, const char *)))
		strvec_push(&av, w);
	va_end(ap);
	capture_start(&cap);
	n = parse_options(&p, (int)av.nr, av.v);
	capture_end(&cap, err);
	strvec_release(rest);
	for (int i = 0; i < n; i++)
		strvec_push(rest, av.v[i]);
	return n;
}

static void test_types(void)
{
	struct strbuf err = STRBUF_INIT, rec = STRBUF_INIT;
	struct strvec rest = STRVEC_INIT;
	int n;

	n = parse(&err, &rec, &rest, "--name", "x", "--count=7", "--level", "-3", "--force",
		  "--tag", "a", "file", "--tag=b", "--mode", "fast", "--", "--name", NULL);
	is_int(n, 2, "words that are not options are kept, in order");
	is_str(rest.v[0], "file", "a word between options");
	is_str(rest.v[1], "--name", "after --, an option's name is a word");
	is_str(val.name, "x", "a string, --opt v");
	is_int(val.count, 7, "an int, --opt=v");
	is_int(val.level, -3, "a negative int within its range");
	is_int(val.force, 1, "a bool");
	is_int(val.tags.nr, 2, "a repeatable option keeps each value");
	is_str(val.tags.v[1], "b", "in order");
	is_str(val.mode, "fast", "a callback");
	is_str(rec.buf, "--name=x\n--count=7\n--level=-3\n--force\n--tag=a\n--tag=b\n--mode=fast\n",
	       "the record holds each option given");
	is_str(strbuf_str(&err), "", "nothing said");

	strbuf_reset(&rec);
	n = parse(&err, &rec, &rest, "-n", "y", "-c5", "--coun", "6", "--sta", "12", "f", NULL);
	is_int(n, 1, "short options and a prefix");
	is_str(val.name, "y", "-n v");
	is_int(val.count, 6, "-cV, then a unique prefix of --count");
	ok(val.status && val.status_id && !strcmp(val.status_id, "12"),
	   "an optional value from the next word, when next_word takes it");
	is_str(rec.buf, "--name=y\n--count=5\n--count=6\n", "NORECORD options are not recorded");

	n = parse(&err, NULL, &rest, "--status", "f", NULL);
	ok(n == 1 && val.status && !val.status_id, "an optional value left alone");
	n = parse(&err, NULL, &rest, "--status=E3", NULL);
	ok(n == 0 && val.status_id && !strcmp(val.status_id, "E3"), "an optional value with =");
	n = parse(&err, NULL, &rest, "--name", "--force", NULL);
	ok(n == 0 && val.name && !strcmp(val.name, "--force") && !val.force,
	   "a required value is the next word, whatever it is");
	n = parse(&err, NULL, &rest, "-", NULL);
	ok(n == 1 && !strcmp(rest.v[0], "-"), "a lone - is a word");
	strbuf_release(&err);
	strbuf_release(&rec);
	strvec_release(&rest);
}

static void expect_error(const char *name, const char *want, ...)
{
	struct strbuf err = STRBUF_INIT;
	struct strvec rest = STRVEC_INIT, words = STRVEC_INIT;
	struct option_parser p = { "lab try", usage, table, NULL };
	struct capture cap;
	va_list ap;
	const char *w;
	int n;

	strvec_push(&words, "try");
	va_start(ap, want);
	while ((w = va_arg(ap, const char *)))
		strvec_push(&words, w);
	va_end(ap);
	strvec_release(&val.tags);
	memset(&val, 0, sizeof(val));
	capture_start(&cap);
	n = parse_options(&p, (int)words.nr, words.v);
	capture_end(&cap, &err);
	is_int(n, -1, name);
	is_str(err.buf, want, name);
	strbuf_release(&err);
	strvec_release(&rest);
	strvec_release(&words);
}

static void test_errors(void)
{
	expect_error("a long option without its value",
		     "lab: option '--name' needs a value (see 'lab try --help')\n", "--name", NULL);
	expect_error("a short option without its value",
		     "lab: option '-c' needs a value (see 'lab try --help')\n", "-c", NULL);
	expect_error("a bool with a value",
		     "lab: option '--force' takes no value (see 'lab try --help')\n", "--force=1",
		     NULL);
	expect_error("--help with a value",
		     "lab: option '--help' takes no value (see 'lab try --help')\n", "--help=x", NULL);
	expect_error("an unknown long option, named as given",
		     "lab: unknown option '--bogus=1' for 'lab try' (see 'lab try --help')\n",
		     "--bogus=1", NULL);
	expect_error("an ambiguous prefix names the options it begins",
		     "lab: ambiguous option '--s' for 'lab try': --status, --secret? "
		     "(see 'lab try --help')\n", "--s", NULL);
	expect_error("an ambiguous prefix with a value",
		     "lab: ambiguous option '--l=3' for 'lab try': --level, --loud? "
		     "(see 'lab try --help')\n", "--l=3", NULL);
	expect_error("a misspelt option gets the nearest one",
		     "lab: unknown option '--nmae' for 'lab try': did you mean '--name'? "
		     "(see 'lab try --help')\n", "--nmae", "x", NULL);
	expect_error("a misspelt option with a value",
		     "lab: unknown option '--cuont=3' for 'lab try': did you mean '--count'? "
		     "(see 'lab try --help')\n", "--cuont=3", NULL);
	expect_error("an option named on another's line is suggested too",
		     "lab: unknown option '--secert' for 'lab try': did you mean '--secret'? "
		     "(see 'lab try --help')\n", "--secert", NULL);
	expect_error("a word near no option gets no guess",
		     "lab: unknown option '--frobnicate' for 'lab try' (see 'lab try --help')\n",
		     "--frobnicate", NULL);
	expect_error("an unknown short option",
		     "lab: unknown option '-z' for 'lab try' (see 'lab try --help')\n", "-z", NULL);
	expect_error("an int beyond its range",
		     "lab: bad value '101' for --count (see 'lab try --help')\n", "--count", "101",
		     NULL);
	expect_error("an int with junk, named as given",
		     "lab: bad value '5x' for -c (see 'lab try --help')\n", "-c5x", NULL);
	expect_error("an int with an empty value",
		     "lab: bad value '' for --count (see 'lab try --help')\n", "--count=", NULL);
	expect_error("an int that overflows",
		     "lab: bad value '99999999999999999999' for --count (see 'lab try --help')\n",
		     "--count=99999999999999999999", NULL);
	expect_error("an option's own expect text",
		     "lab: bad value '9' for --level: expected a level from -5 to 5\n", "--level=9",
		     NULL);
	expect_error("a callback's bad value",
		     "lab: bad value 'medium' for --mode (see 'lab try --help')\n", "--mode",
		     "medium", NULL);
	expect_error("a callback that says why itself",
		     "lab: 'quiet' is not a loud value\n", "--loud", "quiet", NULL);
}

/* parse() with what it prints on stdout in out */
static int parse_stdout(struct strbuf *out, ...)
{
	struct strbuf err = STRBUF_INIT;
	struct strvec rest = STRVEC_INIT;
	FILE *f = tmpfile();
	const char *w[8] = { NULL };
	char buf[1024];
	int saved, rc, k = 0;
	size_t n;
	va_list ap;

	va_start(ap, out);
	while (k < 7 && (w[k] = va_arg(ap, const char *)))
		k++;
	va_end(ap);
	w[k] = NULL;
	fflush(stdout);
	saved = dup(1);
	dup2(fileno(f), 1);
	rc = parse(&err, NULL, &rest, w[0], w[1], w[2], w[3], w[4], w[5], w[6], (char *)NULL);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	rewind(f);
	strbuf_reset(out);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_add(out, buf, n);
	fclose(f);
	strbuf_release(&err);
	strvec_release(&rest);
	return rc;
}

static void test_usage(void)
{
	static const char want[] =
		"usage: lab try [options] FILE\n"
		"\n"
		"  -n, --name NAME    what to call it\n"
		"  -c, --count N      how many (default 1)\n"
		"      --level L      from -5 to 5\n"
		"                     negative is quieter\n"
		"      --force        go on regardless\n"
		"      --tag T        a tag (repeatable)\n"
		"  a heading\n"
		"      --mode M       fast or slow\n"
		"      --loud X       says its own error\n"
		"      --status [ID]  the status\n"
		"      --db PATH      a long enough option name to wrap the column\n"
		"\n"
		"exit status: 0 fine\n";
	struct strbuf out = STRBUF_INIT;
	struct option_parser p = { "lab try", usage, table, NULL };
	FILE *f = tmpfile();
	char buf[4096];
	size_t n;

	parse_options_usage(f, &p);
	rewind(f);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_add(&out, buf, n);
	fclose(f);
	is_str(out.buf, want, "the usage: its lines, the options in a column, hidden ones left out");

	is_int(parse_stdout(&out, "--name", "x", "-h", "--bogus", NULL), PARSE_OPT_HELP,
	       "-h asks for the usage, before a later bad option");
	is_str(out.buf, want, "-h prints it on stdout");
	is_int(parse_stdout(&out, "--he", NULL), PARSE_OPT_HELP, "so does a prefix of --help");
	is_str(out.buf, want, "the same usage");
	strbuf_release(&out);
}

static void test_wide(void)
{
	static const char *const u[] = { "usage: lab wide", NULL };
	static long n;
	static const struct parse_option opts[] = {
		OPT_INT(0, "a-rather-long-option-name", &n, 0, 9, "NUMBER", "help\nmore"),
		OPT_INT(0, "b", &n, 0, 9, "N", "short"),
		OPT_END(),
	};
	struct option_parser p = { "lab wide", u, opts, NULL };
	struct strbuf out = STRBUF_INIT;
	FILE *f = tmpfile();
	char buf[1024];
	size_t k;

	parse_options_usage(f, &p);
	rewind(f);
	while ((k = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_add(&out, buf, k);
	fclose(f);
	is_str(out.buf,
	       "usage: lab wide\n"
	       "  --a-rather-long-option-name NUMBER\n"
	       "                              help\n"
	       "                              more\n"
	       "  --b N                       short\n",
	       "an option wider than the column gets its help on the next line");
	strbuf_release(&out);
}

int main(void)
{
	test_types();
	test_errors();
	test_usage();
	test_wide();
	strvec_release(&val.tags);
	strvec_release(&av);
	return done_testing();
}
