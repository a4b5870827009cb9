#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"
#include "parse.h"

void params_init(struct params *p)
{
	memset(p, 0, sizeof(*p));
	p->iters = 100;
	p->zeroing_mb = 100;
	p->exec_pids = 4096;
	snprintf(p->workdir, sizeof(p->workdir), "/lab/work");
}

static int set_long(long *out, const char *key, const char *value, long min,
		    long max, char *why, size_t whysize)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(value, &end, 10);
	if (!*value || *end || errno || v < min || v > max) {
		snprintf(why, whysize, "lab.%s='%s': want a whole number from %ld to %ld",
			 key, value, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

static int set_string(char *out, size_t size, const char *key, const char *value,
		      const char *allowed, char *why, size_t whysize)
{
	size_t n = strlen(value);

	if (n >= size) {
		snprintf(why, whysize, "lab.%s: value longer than %zu characters",
			 key, size - 1);
		return -1;
	}
	for (const char *c = value; *c; c++) {
		if (!isalnum((unsigned char)*c) && !strchr(allowed, *c)) {
			snprintf(why, whysize, "lab.%s='%s': unexpected character '%c'",
				 key, value, *c);
			return -1;
		}
	}
	memcpy(out, value, n + 1);
	return 0;
}

int params_apply(struct params *p, const char *word, char *why, size_t whysize)
{
	char key[64], value[1024];
	int ret = parse_lab_param(key, sizeof(key), value, sizeof(value), word);

	if (!ret)
		return 0;
	if (ret < 0) {
		snprintf(why, whysize, "malformed or overlong parameter '%.80s'", word);
		return -1;
	}
	if (!strcmp(key, "workload"))
		return set_string(p->workloads, sizeof(p->workloads), key, value, "_,-",
				  why, whysize);
	if (!strcmp(key, "iters"))
		return set_long(&p->iters, key, value, 1, 1000000, why, whysize);
	if (!strcmp(key, "zeroing_mb"))
		return set_long(&p->zeroing_mb, key, value, 1, 1L << 20, why, whysize);
	if (!strcmp(key, "pages"))
		return set_long(&p->pages, key, value, 1, 4096, why, whysize);
	if (!strcmp(key, "trace"))
		return set_string(p->trace, sizeof(p->trace), key, value, "_.,", why,
				  whysize);
	if (!strcmp(key, "workdir"))
		return set_string(p->workdir, sizeof(p->workdir), key, value, "/_.-+", why,
				  whysize);
	if (!strcmp(key, "exec_timeout"))
		return set_long(&p->exec_timeout, key, value, 0, 7 * 24 * 3600, why, whysize);
	if (!strcmp(key, "profile"))
		return set_long(&p->profile, key, value, 0, 1, why, whysize);
	if (!strcmp(key, "profile_functions"))
		return set_string(p->profile_functions, sizeof(p->profile_functions), key, value,
				  "_.,", why, whysize);
	if (!strcmp(key, "exec_pids"))
		return set_long(&p->exec_pids, key, value, 0, 1L << 22, why, whysize);
	if (!strcmp(key, "nonce")) {
		if (!protocol_nonce_valid(value)) {
			snprintf(why, whysize, "lab.nonce='%.40s': want %d lower-case hex digits",
				 value, PROTOCOL_NONCE_LEN);
			return -1;
		}
		memcpy(p->nonce, value, sizeof(p->nonce));
		return 0;
	}
	if (!strcmp(key, "thp")) {
		if (strcmp(value, "always") && strcmp(value, "never") &&
		    strcmp(value, "madvise")) {
			snprintf(why, whysize, "lab.thp='%s': want always, never or madvise",
				 value);
			return -1;
		}
		return set_string(p->thp, sizeof(p->thp), key, value, "", why, whysize);
	}
	return 1;
}
