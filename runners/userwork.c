#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"
#include "userwork.h"

static int name_char(int c)
{
	return isalnum(c) || c == '_' || c == '-' || c == '.';
}

static int unit_char(int c)
{
	return isalnum(c) || c == '_' || c == '/' || c == '%' || c == '.' || c == '-';
}

/* why, whysize: the formatted reason a line is refused; returns USERWORK_BAD. */
__attribute__((format(printf, 3, 4)))
static enum userwork_line refuse(char *why, size_t whysize, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, whysize, fmt, ap);
	va_end(ap);
	return USERWORK_BAD;
}

/* The next space-separated word of *s, or 0 when there is none. */
static size_t next_word(const char **s)
{
	*s += strspn(*s, " \t");
	return strcspn(*s, " \t");
}

enum userwork_line userwork_parse_line(struct userwork_sample *out, const char *line,
				       char *why, size_t whysize)
{
	const char *s = line, *w;
	char num[64], *end;
	size_t n;

	memset(out, 0, sizeof(*out));
	n = next_word(&s);
	if (!n || *s == '#')
		return USERWORK_SKIP;
	for (size_t i = 0; i < n; i++) {
		if (!name_char((unsigned char)s[i]))
			return refuse(why, whysize, "name has an unexpected character '%c'", s[i]);
	}
	if (n >= sizeof(out->name))
		return refuse(why, whysize, "name longer than %d characters",
			      USERWORK_NAME_MAX - 1);
	memcpy(out->name, s, n);
	if (!strncmp(out->name, PROTOCOL_EVENT_PREFIX, strlen(PROTOCOL_EVENT_PREFIX)))
		return refuse(why, whysize, "name '%s' starts with '%s', which the guest's event "
			      "counts have", out->name, PROTOCOL_EVENT_PREFIX);
	s += n;

	n = next_word(&s);
	if (!n)
		return refuse(why, whysize, "no value after '%s' (want: name value unit)",
			      out->name);
	if (n >= sizeof(num))
		return refuse(why, whysize, "value of '%s' is not a number", out->name);
	memcpy(num, s, n);
	num[n] = '\0';
	errno = 0;
	out->value = strtod(num, &end);
	if (end == num || *end || errno == ERANGE || !isfinite(out->value))
		return refuse(why, whysize, "value '%.24s' of '%s' is not a finite number", num,
			      out->name);
	s += n;

	n = next_word(&s);
	if (!n)
		return refuse(why, whysize, "no unit after the value of '%s'", out->name);
	for (size_t i = 0; i < n; i++) {
		if (!unit_char((unsigned char)s[i]))
			return refuse(why, whysize, "unit of '%s' has an unexpected character '%c'",
				      out->name, s[i]);
	}
	if (n >= sizeof(out->unit))
		return refuse(why, whysize, "unit of '%s' longer than %d characters", out->name,
			      USERWORK_UNIT_MAX - 1);
	memcpy(out->unit, s, n);
	s += n;

	w = s;
	n = next_word(&w);
	if (n) {
		if (n == 6 && !strncmp(w, "higher", 6))
			out->direction = USERWORK_HIGHER;
		else if (n != 5 || strncmp(w, "lower", 5))
			return refuse(why, whysize, "'%.*s' after the unit of '%s' (want higher "
				      "or lower)", n > 24 ? 24 : (int)n, w, out->name);
		out->direction_given = 1;
		w += n;
		if (next_word(&w))
			return refuse(why, whysize, "text after the direction of '%s'", out->name);
	}
	return USERWORK_SAMPLE;
}

static const struct {
	const char *key, *name, *unit;
	enum userwork_direction direction;
} stressng_keys[USERWORK_STRESSNG_METRICS] = {
	{ "bogo-ops-per-second-real-time", "bogo_ops_s", "ops/s", USERWORK_HIGHER },
	{ "bogo-ops-per-second-usr-sys-time", "bogo_ops_s_cpu", "ops/s", USERWORK_HIGHER },
	{ "wall-clock-time", "real_s", "s", USERWORK_LOWER },
	{ "user-time", "usr_s", "s", USERWORK_LOWER },
	{ "system-time", "sys_s", "s", USERWORK_LOWER },
};

const char *userwork_stressng_metric(int i)
{
	return i >= 0 && i < USERWORK_STRESSNG_METRICS ? stressng_keys[i].name : NULL;
}

void userwork_stressng_init(struct userwork_stressng *s, const char *stressor)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->want, sizeof(s->want), "%s", stressor);
}

/* "key: value" with key and value trimmed; 0 when the line is not one. */
static int yaml_pair(const char *line, char *key, size_t ksize, char *value, size_t vsize)
{
	const char *colon = strchr(line, ':'), *v;
	size_t n;

	line += strspn(line, " \t");
	if (!colon || colon == line)
		return 0;
	n = (size_t)(colon - line);
	if (n >= ksize)
		return 0;
	memcpy(key, line, n);
	key[n] = '\0';
	v = colon + 1 + strspn(colon + 1, " \t");
	n = strcspn(v, "\r\n");
	while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;
	if (n >= vsize)
		n = vsize - 1;
	memcpy(value, v, n);
	value[n] = '\0';
	return 1;
}

void userwork_stressng_feed(struct userwork_stressng *s, const char *line)
{
	char key[64], value[128], *end;
	const char *t = line + strspn(line, " \t");

	if (!*t || *t == '#')
		return;
	if (t == line) {
		/* a top-level key starts a section */
		s->in_metrics = !strncmp(line, "metrics:", 8);
		s->in_entry = 0;
		return;
	}
	if (!s->in_metrics)
		return;
	if (*t == '-') {
		t++;
		s->in_entry = yaml_pair(t, key, sizeof(key), value, sizeof(value)) &&
			      !strcmp(key, "stressor") && !strcmp(value, s->want);
		return;
	}
	if (!s->in_entry || !yaml_pair(t, key, sizeof(key), value, sizeof(value)))
		return;
	for (int i = 0; i < USERWORK_STRESSNG_METRICS; i++) {
		double v;
		if (strcmp(key, stressng_keys[i].key))
			continue;
		errno = 0;
		v = strtod(value, &end);
		if (end != value && !*end && !errno && isfinite(v)) {
			s->v[i] = v;
			s->seen |= 1u << i;
		}
	}
}

int userwork_stressng_take(const struct userwork_stressng *s,
			   struct userwork_sample out[USERWORK_STRESSNG_METRICS],
			   char *why, size_t whysize)
{
	for (int i = 0; i < USERWORK_STRESSNG_METRICS; i++) {
		if (!(s->seen & (1u << i))) {
			if (s->seen)
				snprintf(why, whysize, "no '%s' for stressor '%s' in its YAML",
					 stressng_keys[i].key, s->want);
			else
				snprintf(why, whysize, "no metrics of stressor '%s' in its YAML",
					 s->want);
			return -1;
		}
		memset(&out[i], 0, sizeof(out[i]));
		snprintf(out[i].name, sizeof(out[i].name), "%s", stressng_keys[i].name);
		snprintf(out[i].unit, sizeof(out[i].unit), "%s", stressng_keys[i].unit);
		out[i].value = s->v[i];
		out[i].direction = stressng_keys[i].direction;
	}
	return USERWORK_STRESSNG_METRICS;
}
