/* The option callbacks the commands share (options.h). */
#include <string.h>

#include "ab-report.h"
#include "config-values.h"
#include "log.h"
#include "options.h"
#include "strvec.h"

int boot_opt_param(const struct parse_option *opt, const char *arg)
{
	if (!strchr(arg, '=') || strchr(arg, ' '))
		return PARSE_OPT_BAD;
	strvec_push(opt->value, arg);
	return 0;
}

/* arg as the option's value, kept as written, when its parser took it (bad is 0) */
static int keep_parsed(const struct parse_option *opt, const char *arg, int bad)
{
	if (bad)
		return PARSE_OPT_BAD;
	*(const char **)opt->value = arg;
	return 0;
}

int boot_opt_accel(const struct parse_option *opt, const char *arg)
{
	enum lab_accel a;

	return keep_parsed(opt, arg, parse_accel(arg, &a));
}

int boot_opt_arch(const struct parse_option *opt, const char *arg)
{
	return keep_parsed(opt, arg, parse_arch(arg));
}

int boot_opt_clock(const struct parse_option *opt, const char *arg)
{
	enum lab_clock c;

	return keep_parsed(opt, arg, parse_clock(arg, &c));
}

int boot_opt_seconds(const struct parse_option *opt, const char *arg)
{
	return parse_seconds(arg, opt->value) ? PARSE_OPT_BAD : 0;
}

/*
 * A refused size, said: a number without its unit gets the question a
 * person would ask ("4 what? 4G?"), anything else the parser's "bad value".
 */
static int size_refused(const struct parse_option *opt, const char *arg)
{
	for (const char *p = arg; *p; ) {
		size_t len = strcspn(p, ","), digits = strspn(p, "0123456789");

		if (digits && digits == len)
			return error("--%s %s: %.*s what? %.*sG? (a size takes its unit: M, G or T)",
				     opt->long_name, arg, (int)len, p, (int)len, p);
		p += len + (p[len] == ',');
	}
	return PARSE_OPT_BAD;
}

int boot_opt_size(const struct parse_option *opt, const char *arg)
{
	return parse_size_mib(arg, opt->value) ? size_refused(opt, arg) : 0;
}

int boot_opt_cpus(const struct parse_option *opt, const char *arg)
{
	return parse_cpus(arg, opt->value) ? PARSE_OPT_BAD : 0;
}

int boot_opt_workloads(const struct parse_option *opt, const char *arg)
{
	return workloads_parse(opt->value, arg);
}

/* alpha and delta: above 0, below 1 */
static int positive_fraction(const char *s, double *out, int percent_ok)
{
	double v;

	if (parse_fraction(s, &v, percent_ok) || !(v > 0))
		return -1;
	*out = v;
	return 0;
}

int ab_opt_mems(const struct parse_option *opt, const char *arg)
{
	struct ab_spec *s = opt->value;

	return parse_list(&s->mems, &s->nmems, arg, parse_size_mib) ? size_refused(opt, arg) : 0;
}

int ab_opt_cpus(const struct parse_option *opt, const char *arg)
{
	struct ab_spec *s = opt->value;

	return parse_list(&s->cpus, &s->ncpus, arg, parse_cpus) ? PARSE_OPT_BAD : 0;
}

int ab_opt_alpha(const struct parse_option *opt, const char *arg)
{
	return positive_fraction(arg, opt->value, 0) ? PARSE_OPT_BAD : 0;
}

int ab_opt_delta(const struct parse_option *opt, const char *arg)
{
	return positive_fraction(arg, opt->value, 1) ? PARSE_OPT_BAD : 0;
}

int ab_opt_format(const struct parse_option *opt, const char *arg)
{
	return ab_format_parse(opt->value, arg) ? PARSE_OPT_BAD : 0;
}
