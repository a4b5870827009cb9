/* The values lab.conf, recipes and the command line share (config-values.h). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "config-values.h"
#include "keys.h"
#include "runner-list.h"
#include "runner.h"
#include "strbuf.h"

/*
 * Leading digits only: strtol() alone would also take leading spaces and a
 * sign, so " 5", "+5" and "-5" would slip through.
 */
static int parse_digits(const char **s, long *out)
{
	const char *p = *s;
	char *end;
	long v;

	if (!isdigit((unsigned char)*p))
		return -1;
	errno = 0;
	v = strtol(p, &end, 10);
	if (errno == ERANGE)
		return -1;
	*out = v;
	*s = end;
	return 0;
}

static int parse_scaled(const char *s, long *out, const char *suffixes,
			const long *multipliers, long max)
{
	long v, mult = 1;

	if (!s || parse_digits(&s, &v) < 0)
		return -1;
	if (*s) {
		const char *hit = strchr(suffixes, tolower((unsigned char)*s));
		if (!hit || s[1])
			return -1;
		mult = multipliers[hit - suffixes];
	}
	if (v < 1 || v > max / mult)
		return -1;
	*out = v * mult;
	return 0;
}

int parse_size_mib(const char *s, long *out_mib)
{
	static const long mult[] = { 1, 1024, 1024L * 1024 };

	/* "4" could be 4M or 4G: a size names its unit */
	if (s && *s && !s[strspn(s, "0123456789")])
		return -1;
	return parse_scaled(s, out_mib, "mgt", mult, LAB_MAX_MEM_MIB);
}

int parse_positive_int(const char *s, long *out)
{
	static const long mult[] = { 1 };
	return parse_scaled(s, out, "", mult, INT_MAX);
}

int parse_cpus(const char *s, long *out)
{
	static const long mult[] = { 1 };
	return parse_scaled(s, out, "", mult, LAB_MAX_CPUS);
}

int parse_seconds(const char *s, long *out_s)
{
	return key_parse_long(out_s, s, 1, LAB_MAX_SECONDS, 1);
}

static const char *const accel_names[] = {
	[LAB_ACCEL_AUTO] = "auto",
	[LAB_ACCEL_KVM] = "kvm",
	[LAB_ACCEL_TCG] = "tcg",
};

static const char *const clock_names[] = {
	[LAB_CLOCK_AUTO] = "auto",
	[LAB_CLOCK_WALL] = "wall",
	[LAB_CLOCK_ICOUNT] = "icount",
};

static const char *name_of(const char *const *names, size_t nr, unsigned i)
{
	return i < nr ? names[i] : "unknown";
}

/* The index of s in names, or -1 (s NULL too). */
static int lookup_name(const char *const *names, size_t nr, const char *s)
{
	for (size_t i = 0; s && i < nr; i++)
		if (!strcmp(names[i], s))
			return (int)i;
	return -1;
}

const char *config_accel_name(enum lab_accel accel)
{
	return name_of(accel_names, ARRAY_SIZE(accel_names), (unsigned)accel);
}

const char *config_runner_name(enum lab_runner runner)
{
	return (size_t)runner < runner_nr ? runner_all[runner]->name : "unknown";
}

const char *config_clock_name(enum lab_clock clock)
{
	return name_of(clock_names, ARRAY_SIZE(clock_names), (unsigned)clock);
}

int parse_accel(const char *s, enum lab_accel *out)
{
	int i = lookup_name(accel_names, ARRAY_SIZE(accel_names), s);
	if (i < 0)
		return -1;
	*out = (enum lab_accel)i;
	return 0;
}

int parse_arch(const char *s)
{
	return strcmp(s, "x86_64") && strcmp(s, "aarch64") ? -1 : 0;
}

int parse_runner(const char *s, enum lab_runner *out)
{
	for (size_t i = 0; s && i < runner_nr; i++) {
		if (!strcmp(runner_all[i]->name, s)) {
			*out = (enum lab_runner)i;
			return 0;
		}
	}
	return -1;
}

int parse_clock(const char *s, enum lab_clock *out)
{
	int i = lookup_name(clock_names, ARRAY_SIZE(clock_names), s);
	if (i < 0)
		return -1;
	*out = (enum lab_clock)i;
	return 0;
}

int parse_icount_shift(const char *s, long *out)
{
	long v;

	/* not parse_scaled(): 0 is a good shift */
	if (!s || parse_digits(&s, &v) < 0 || *s || v > LAB_MAX_ICOUNT_SHIFT)
		return -1;
	*out = v;
	return 0;
}

int parse_list(long **out, size_t *n, const char *arg, int (*parse)(const char *, long *))
{
	struct strbuf sb = STRBUF_INIT;
	char *save = NULL, *w;
	size_t alloc = 0;
	int ret = 0;

	free(*out);
	*out = NULL;
	*n = 0;
	strbuf_addstr(&sb, arg);
	for (w = strtok_r(sb.buf, ",", &save); w && !ret; w = strtok_r(NULL, ",", &save)) {
		ALLOC_GROW(*out, *n + 1, alloc);
		ret = parse(w, &(*out)[*n]);
		*n += !ret;
	}
	strbuf_release(&sb);
	return ret || !*n ? -1 : 0;
}

int parse_fraction(const char *s, double *out, int percent_ok)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(s, &end);
	if (end == s || errno || !isfinite(x))
		return -1;
	if (percent_ok && *end == '%') {
		x /= 100;
		end++;
	}
	if (*end || x < 0 || x >= 1)
		return -1;
	*out = x;
	return 0;
}
