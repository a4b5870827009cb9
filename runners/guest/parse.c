#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

static const char *skip_space(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static int starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* Copy [s, s + n) into dst of size bytes, NUL-terminated; cut to fit. */
static void copy_cut(char *dst, size_t size, const char *s, size_t n)
{
	if (!size)
		return;
	if (n >= size)
		n = size - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

/* Copy [s, s + n) without its surrounding blanks; cut to fit. */
static void copy_trimmed(char *dst, size_t size, const char *s, size_t n)
{
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	copy_cut(dst, size, s, n);
}

/* A unit after a number: its factor to microseconds, and its length. */
static int unit_to_us(double *factor, const char *s)
{
	static const struct {
		const char *name;
		double factor;
	} units[] = {
		{ "ns", 1e-3 }, { "us", 1.0 }, { "ms", 1e3 }, { "s", 1e6 },
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t n = strlen(units[i].name);
		if (!strncmp(s, units[i].name, n) && !isalpha((unsigned char)s[n])) {
			*factor = units[i].factor;
			return (int)n;
		}
	}
	return -1;
}

int parse_duration_us(double *usecs, const char *s)
{
	const char *p = s;
	char *end;
	double v, factor;

	while (*p && strchr(" \t+!#*@$", *p))
		p++;
	if (!isdigit((unsigned char)*p))
		return -1;
	errno = 0;
	v = strtod(p, &end);
	if (end == p || errno)
		return -1;
	p = skip_space(end);
	if (unit_to_us(&factor, p) < 0)
		return -1;
	*usecs = v * factor;
	return 0;
}

/*
 * The CPU column is "<digits>)" standing after a blank or a bar; an
 * absolute-time column ("57.123456 |") before it has no ')'.
 */
static const char *find_cpu(int *cpu, const char *s, const char *end)
{
	const char *q = s;

	while (q < end) {
		const char *r = q;
		if (!isdigit((unsigned char)*q) ||
		    (q > s && q[-1] != ' ' && q[-1] != '|')) {
			q++;
			continue;
		}
		while (r < end && isdigit((unsigned char)*r))
			r++;
		if (r < end && *r == ')') {
			*cpu = atoi(q);
			return r + 1;
		}
		q = r;
	}
	return NULL;
}

static enum graph_kind parse_lost(struct graph_line *out, const char *line,
				  const char *lost)
{
	const char *c = strstr(line, "CPU:");

	if (c && c < lost)
		out->cpu = atoi(c + 4);
	out->lost = strtol(lost + strlen("[LOST "), NULL, 10);
	return out->kind = GRAPH_LOST;
}

static enum graph_kind parse_function(struct graph_line *out, const char *fn)
{
	const char *paren, *close, *after;

	if (starts_with(fn, "/*")) {
		const char *text = fn + 2, *stop = strstr(text, "*/"), *next;
		/* The text may itself hold the closing mark: the last one ends it. */
		while (stop && (next = strstr(stop + 2, "*/")))
			stop = next;
		copy_trimmed(out->comment, sizeof(out->comment), text,
			     stop ? (size_t)(stop - text) : strlen(text));
		return out->kind = GRAPH_COMMENT;
	}
	if (*fn == '}') {
		const char *tail = skip_space(fn + 1);
		if (starts_with(tail, "/*")) {
			const char *stop = strstr(tail + 2, "*/");
			copy_trimmed(out->func, sizeof(out->func), tail + 2,
				     stop ? (size_t)(stop - tail - 2) : strlen(tail + 2));
		}
		return out->kind = GRAPH_EXIT;
	}

	paren = strchr(fn, '(');
	if (!paren || paren == fn)
		return GRAPH_OTHER;
	for (const char *q = fn; q < paren; q++)
		if (isspace((unsigned char)*q) || *q == '=' || *q == '<' || *q == '>')
			return GRAPH_OTHER;
	/* Arguments (funcgraph-args) may hold parentheses of their own. */
	for (close = strchr(paren, ')'); close; close = strchr(close + 1, ')')) {
		after = skip_space(close + 1);
		if (*after == ';' || *after == '{')
			break;
	}
	if (!close)
		return GRAPH_OTHER;
	copy_trimmed(out->func, sizeof(out->func), fn, (size_t)(paren - fn));
	return out->kind = *after == ';' ? GRAPH_CALL : GRAPH_ENTRY;
}

enum graph_kind parse_graph_line(struct graph_line *out, const char *line)
{
	const char *p, *bar = NULL, *last = NULL, *seg, *cpu_end, *lost;
	char duration[128];

	memset(out, 0, sizeof(*out));
	out->kind = GRAPH_OTHER;
	out->cpu = -1;
	out->usecs = -1;

	p = skip_space(line);
	if (!*p || *p == '#')
		return GRAPH_OTHER;
	lost = strstr(p, "[LOST ");
	if (lost && strstr(lost, "EVENTS]"))
		return parse_lost(out, p, lost);

	/*
	 * The function column follows the last bar; but a comment's text may
	 * itself hold bars, so a bar followed by "/ *" wins.
	 */
	for (const char *q = strchr(line, '|'); q; q = strchr(q + 1, '|')) {
		if (starts_with(skip_space(q + 1), "/*")) {
			bar = q;
			break;
		}
		last = q;
	}
	if (!bar)
		bar = last;
	if (!bar)
		return GRAPH_OTHER;

	cpu_end = find_cpu(&out->cpu, line, bar);
	seg = line;
	for (const char *q = line; q < bar; q++)
		if (*q == '|')
			seg = q + 1;
	if (cpu_end && cpu_end > seg)
		seg = cpu_end;
	copy_trimmed(duration, sizeof(duration), seg, (size_t)(bar - seg));
	if (parse_duration_us(&out->usecs, duration))
		out->usecs = -1;

	return parse_function(out, skip_space(bar + 1));
}

int graph_pairing_feed(struct graph_pairing *p, const struct graph_line *l,
		       char *func, size_t size, double *usecs)
{
	/* CPUs past the table share slots: only nesting could mix them up. */
	int cpu = l->cpu < 0 ? 0 : l->cpu % GRAPH_MAX_CPUS;
	int *depth = &p->depth[cpu];
	const char *name = NULL;

	switch (l->kind) {
	case GRAPH_CALL:
		name = l->func;
		break;
	case GRAPH_ENTRY:
		if (*depth < GRAPH_MAX_DEPTH)
			copy_cut(p->open[cpu][*depth], PARSE_FUNC_MAX, l->func, strlen(l->func));
		(*depth)++;
		return 0;
	case GRAPH_EXIT:
		if (*depth > 0) {
			(*depth)--;
			if (*depth < GRAPH_MAX_DEPTH)
				name = p->open[cpu][*depth];
		}
		if (l->func[0])
			name = l->func;
		if (!name) {
			p->unmatched++;
			return 0;
		}
		break;
	default:
		return 0;
	}
	if (l->usecs < 0)
		return 0;
	copy_cut(func, size, name, strlen(name));
	*usecs = l->usecs;
	return 1;
}

int graph_name_matches(const char *traced, const char *func)
{
	size_t n = strlen(func);

	return !strncmp(traced, func, n) && (traced[n] == '\0' || traced[n] == '.');
}

/* Digits from *p (not past end) into *v; at least one is required. */
static int take_number(unsigned long long *v, const char **p, const char *end)
{
	const char *q = *p;
	unsigned long long n = 0;

	if (q >= end || !isdigit((unsigned char)*q))
		return -1;
	while (q < end && isdigit((unsigned char)*q))
		n = n * 10 + (unsigned long long)(*q++ - '0');
	*v = n;
	*p = q;
	return 0;
}

static void copy_line(char *dst, size_t size, const char *s, const char *end)
{
	const char *nl = memchr(s, '\n', (size_t)(end - s));
	size_t n = (size_t)((nl ? nl : end) - s);

	if (n && s[n - 1] == '\r')
		n--;
	if (n >= size)
		n = size - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

int parse_kmsg_record(struct kmsg_record *out, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *semi;
	unsigned long long pri, seq, usec;

	memset(out, 0, sizeof(*out));
	out->seq = -1;
	semi = memchr(buf, ';', len);
	if (!semi)
		return -1;
	if (take_number(&pri, &p, semi) || p >= semi || *p++ != ',' ||
	    take_number(&seq, &p, semi) || p >= semi || *p++ != ',' ||
	    take_number(&usec, &p, semi) || (p < semi && *p != ','))
		return -1;
	out->level = (int)(pri & 7);
	out->facility = (int)(pri >> 3);
	out->seq = (long long)seq;
	out->usec = usec;
	out->has_time = 1;
	copy_line(out->text, sizeof(out->text), semi + 1, end);
	return 0;
}

int parse_syslog_line(struct kmsg_record *out, const char *line, size_t len)
{
	const char *p = line, *end = line + len;
	unsigned long long pri, sec, frac;

	memset(out, 0, sizeof(*out));
	out->seq = -1;
	if (p >= end || *p++ != '<' || take_number(&pri, &p, end) ||
	    p >= end || *p++ != '>')
		return -1;
	out->level = (int)(pri & 7);
	out->facility = (int)(pri >> 3);
	if (p < end && *p == '[') {
		const char *q = p + 1, *digits;
		while (q < end && *q == ' ')
			q++;
		if (!take_number(&sec, &q, end) && q < end && *q == '.') {
			digits = ++q;
			if (!take_number(&frac, &q, end) && q < end && *q == ']') {
				/* Scale the fraction to microseconds, whatever its width. */
				for (long w = q - digits; w < 6; w++)
					frac *= 10;
				for (long w = q - digits; w > 6; w--)
					frac /= 10;
				out->usec = sec * 1000000ull + frac;
				out->has_time = 1;
				p = q + 1;
				if (p < end && *p == ' ')
					p++;
			}
		}
	}
	copy_line(out->text, sizeof(out->text), p, end);
	return 0;
}

int parse_deferred_init(int *node, double *ms, const char *text)
{
	const char *what = strstr(text, " deferred pages initiali");
	const char *n, *in;
	char *end;
	double v, factor;
	long id;

	if (!what)
		return 0;
	n = strstr(text, "node ");
	in = strstr(what, " in ");
	if (!n || n > what || !in)
		return 0;
	errno = 0;
	id = strtol(n + 5, &end, 10);
	if (end == n + 5 || errno || id < 0)
		return 0;
	errno = 0;
	v = strtod(in + 4, &end);
	if (end == in + 4 || errno)
		return 0;
	if (unit_to_us(&factor, skip_space(end)) < 0)
		return 0;
	*node = (int)id;
	*ms = v * factor / 1e3;
	return 1;
}

int parse_probe(char *name, size_t size, double *ms, const char *text)
{
	const char *p = strstr(text, "lab-probe: ");
	size_t len = 0;
	unsigned long long ns;
	char *end;

	if (!p)
		return 0;
	p += strlen("lab-probe: ");
	while (p[len] == '_' || (p[len] >= 'a' && p[len] <= 'z') ||
	       (p[len] >= 'A' && p[len] <= 'Z') || (len && p[len] >= '0' && p[len] <= '9'))
		len++;
	if (!len || len >= size || p[len] != ' ' || p[len + 1] < '0' || p[len + 1] > '9')
		return 0;
	errno = 0;
	ns = strtoull(p + len + 1, &end, 10);
	if (errno || strcmp(end, " ns"))
		return 0;
	memcpy(name, p, len);
	name[len] = '\0';
	*ms = (double)ns / 1e6;
	return 1;
}

int parse_hvo_message(long *kib, char *page, size_t size, const char *text)
{
	static const char phrase[] = " KiB vmemmap can be freed for a ";
	const char *at = strstr(text, phrase), *start, *stop;

	if (!at)
		return 0;
	start = at;
	while (start > text && isdigit((unsigned char)start[-1]))
		start--;
	if (start == at)
		return 0;
	*kib = strtol(start, NULL, 10);
	start = at + strlen(phrase);
	stop = strstr(start, " page");
	copy_trimmed(page, size, start, stop ? (size_t)(stop - start) : strlen(start));
	return 1;
}

int parse_bracketed(char *out, size_t size, const char *s)
{
	const char *open = strchr(s, '['), *close;

	if (!open || !(close = strchr(open, ']')))
		return -1;
	copy_trimmed(out, size, open + 1, (size_t)(close - open - 1));
	return 0;
}

int parse_lab_param(char *key, size_t ksize, char *value, size_t vsize,
		    const char *word)
{
	const char *k, *eq;
	size_t klen, vlen;

	if (!starts_with(word, "lab."))
		return 0;
	k = word + 4;
	eq = strchr(k, '=');
	klen = eq ? (size_t)(eq - k) : strlen(k);
	vlen = eq ? strlen(eq + 1) : 0;
	if (!klen || klen >= ksize || vlen >= vsize)
		return -1;
	memcpy(key, k, klen);
	key[klen] = '\0';
	if (eq)
		memcpy(value, eq + 1, vlen);
	value[vlen] = '\0';
	return 1;
}

int parse_field(char *value, size_t size, const char *line, const char *key)
{
	size_t n = strlen(key);
	const char *p;

	if (strncmp(line, key, n))
		return 0;
	p = skip_space(line + n);
	if (*p != ':')
		return 0;
	copy_trimmed(value, size, p + 1, strlen(p + 1));
	return 1;
}

int parse_list_next(char *item, size_t size, const char **s)
{
	const char *p = *s;
	size_t n;

	while (*p == ',' || *p == ' ')
		p++;
	if (!*p) {
		*s = p;
		return 0;
	}
	n = strcspn(p, ",");
	*s = p + n;
	while (n && p[n - 1] == ' ')
		n--;
	if (n >= size)
		return -1;
	memcpy(item, p, n);
	item[n] = '\0';
	return 1;
}

unsigned parse_vmstat(long long *out, const char *const *names, size_t n, const char *buf)
{
	unsigned have = 0;

	while (*buf) {
		size_t len = strcspn(buf, " \t\n");
		const char *v = buf + len;
		char *end;

		if (*v == ' ' || *v == '\t') {
			long long x = strtoll(v, &end, 10);

			for (size_t i = 0; i < n && i < 32 && end != v; i++)
				if (strlen(names[i]) == len && !strncmp(buf, names[i], len)) {
					out[i] = x;
					have |= 1u << i;
				}
		}
		buf += strcspn(buf, "\n");
		buf += *buf == '\n';
	}
	return have;
}
