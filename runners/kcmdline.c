/* What may go on a kernel command line the lab assembles (kcmdline.h). */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "escape.h"
#include "kcmdline.h"
#include "log.h"
#include "strbuf.h"
#include "strvec.h"
#include "xalloc.h"

/*
 * The keys the lab itself puts on every boot's line (boot_params(), and
 * the runners' lab.nonce and lab.workdir), with the option that sets each.
 */
static const struct {
	const char *key, *option;
} lab_keys[] = {
	{ "workload", "--workload" },
	{ "iters", "--iters" },
	{ "nonce", NULL },
	{ "workdir", NULL },
};

/* The room the lab's fixed words take: "console=ttyAMA0 panic=-1 ", " lab.nonce=", its digits. */
#define FIXED_LEN (sizeof("console=ttyAMA0 panic=-1 ") + sizeof(" lab.nonce=") + 16)
/* lab.iters's value at its longest (a long) */
#define ITERS_LEN 20

static int bad_char(char c)
{
	/* only the double quote means something to the kernel's parser (next_arg()) */
	return (unsigned char)c <= ' ' || (unsigned char)c >= 0x7f || c == '"';
}

static const char *bad_byte(const char *s)
{
	for (; *s; s++)
		if (bad_char(*s))
			return s;
	return NULL;
}

static const char *byte_name(char c)
{
	switch (c) {
	case ' ': return "a blank";
	case '"': return "a double quote";
	}
	return (unsigned char)c >= 0x80 ? "a byte past ASCII" : "a control character";
}

int kcmdline_word_check(const char *what, const char *value)
{
	const char *bad = bad_byte(value);

	if (!bad)
		return 0;
	return error("%s '%s' holds %s: it cannot be one word of a kernel command line", what,
		     term_safe(value), byte_name(*bad));
}

static int ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int ident_char(char c)
{
	return ident_start(c) || (c >= '0' && c <= '9');
}

int kcmdline_function_ok(const char *name)
{
	const char *p = name;

	if (!ident_start(*p))
		return 0;
	while (ident_char(*p))
		p++;
	/* a clone's suffixes: "name.isra.0", "name.constprop.0", "name.cold" */
	while (*p == '.') {
		const char *s = ++p;

		while (ident_char(*p))
			p++;
		if (p == s)
			return 0;
	}
	return !*p && p - name < 128;
}

static int lab_key(const char *key, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(lab_keys); i++)
		if (strlen(lab_keys[i].key) == len && !strncmp(lab_keys[i].key, key, len))
			return (int)i;
	return -1;
}

/* The key of a "K=V" param, K alone: its length, 0 when it has none. */
static size_t param_key(const char *p)
{
	size_t n = strcspn(p, "=");

	return p[n] == '=' ? n : 0;
}

static int check_params(const struct strvec *params, size_t *len)
{
	for (size_t i = 0; params && i < params->nr; i++) {
		const char *p = params->v[i];
		size_t n = param_key(p);
		int k;

		if (!n || strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != n)
			return error("guest parameter '%s' is not K=V with K of letters, digits and "
				     "'_'", term_safe(p));
		if ((k = lab_key(p, n)) >= 0)
			return error("guest parameter '%s' sets lab.%s, which the lab sets itself%s%s%s",
				     term_safe(p), lab_keys[k].key, lab_keys[k].option ? " (use " : "",
				     lab_keys[k].option ? lab_keys[k].option : "",
				     lab_keys[k].option ? ")" : "");
		for (size_t j = 0; j < i; j++)
			if (param_key(params->v[j]) == n && !strncmp(params->v[j], p, n))
				return error("lab.%.*s is given twice on the kernel command line "
					     "('%s' and '%s')", (int)n, p, term_safe(params->v[j]),
					     term_safe(p));
		if (kcmdline_word_check("guest parameter", p))
			return -1;
		*len += sizeof(" lab.") - 1 + strlen(p);
	}
	return 0;
}

/* Does word set lab.KEY for a key the lab sets, or one of params? Its key's length. */
static size_t shadows(const char *word, size_t wlen, const struct strvec *params)
{
	size_t n;

	if (wlen <= 4 || strncmp(word, "lab.", 4))
		return 0;
	word += 4;
	n = strcspn(word, "= ");
	if (n > wlen - 4)
		n = wlen - 4;
	if (lab_key(word, n) >= 0)
		return n;
	for (size_t i = 0; params && i < params->nr; i++)
		if (param_key(params->v[i]) == n && !strncmp(params->v[i], word, n))
			return n;
	return 0;
}

static int check_words(const char *cmdline, const char *what, const struct strvec *params)
{
	const char *p = cmdline;

	for (const char *s = cmdline; *s; s++)
		if (*s != ' ' && bad_char(*s))
			return error("%s '%s' holds %s: a kernel command line takes words of "
				     "printable ASCII without double quotes", what, term_safe(cmdline),
				     byte_name(*s));
	while (*p) {
		size_t len, key;
		int k;

		p += strspn(p, " ");
		len = strcspn(p, " ");
		if ((key = shadows(p, len, params))) {
			k = lab_key(p + 4, key);
			if (k >= 0 && lab_keys[k].option)
				return error("%s word '%.*s' sets lab.%s, which the lab sets itself "
					     "(use %s)", what, (int)len, p, lab_keys[k].key,
					     lab_keys[k].option);
			if (k >= 0)
				return error("%s word '%.*s' sets lab.%s, which the lab sets itself",
					     what, (int)len, p, lab_keys[k].key);
			return error("%s word '%.*s' sets lab.%.*s, which a guest parameter of this "
				     "boot sets already", what, (int)len, p, (int)key, p + 4);
		}
		p += len;
	}
	return 0;
}

int kcmdline_check(const char *workloads, const struct strvec *params, const char *cmdline,
		   const char *what, size_t limit)
{
	size_t len = FIXED_LEN + sizeof("lab.workload= lab.iters=") - 1 + ITERS_LEN;

	if (kcmdline_word_check("workload list", workloads) || check_params(params, &len))
		return -1;
	len += strlen(workloads);
	if (cmdline && *cmdline) {
		if (check_words(cmdline, what, params))
			return -1;
		len += 1 + strlen(cmdline);
	}
	if (limit && len >= limit)
		return error("the kernel command line would be about %zu bytes, past the %zu "
			     "a kernel takes: shorten %s or the guest parameters", len, limit - 1,
			     what);
	return 0;
}

/* "=" ends a key kept whatever its value; else the word alone (ro, rw) */
static const char *const host_keep[] = {
	"root=", "rootfstype=", "rootflags=", "ro", "rw", "console=",
	"ip=", "net.ifnames=", "biosdevname=", "ifname=",
};

static int host_kept(const char *word)
{
	for (size_t i = 0; i < ARRAY_SIZE(host_keep); i++) {
		size_t n = strlen(host_keep[i]);

		if (host_keep[i][n - 1] == '=' ? !strncmp(word, host_keep[i], n) :
		    !strcmp(word, host_keep[i]))
			return 1;
	}
	return 0;
}

int kcmdline_host_words(struct strbuf *sb, const char *host_cmdline, struct strbuf *why)
{
	struct strvec words = STRVEC_INIT;
	int ret = 0;

	strvec_split(&words, host_cmdline);
	for (size_t i = 0; i < words.nr && !ret; i++) {
		const char *bad;

		if (!host_kept(words.v[i]))
			continue;
		if ((bad = bad_byte(words.v[i]))) {
			strbuf_addf(why, "the host's command line word '%s' holds %s: it cannot be "
				    "passed on as one word", term_safe(words.v[i]), byte_name(*bad));
			ret = -1;
			continue;
		}
		strbuf_addf(sb, "%s%s", sb->len ? " " : "", words.v[i]);
	}
	strvec_release(&words);
	return ret;
}

/*
 * A word of a command line, ordered by its parameter's name and, among
 * the words of one name, by where it stood (qsort is not stable); words
 * after "--" are init's arguments, whose order is theirs, and go last.
 */
struct param_word {
	const char *word;
	size_t name_len, at;
	int init_arg;
};

static int param_word_cmp(const void *x, const void *y)
{
	const struct param_word *a = x, *b = y;
	size_t n = a->name_len < b->name_len ? a->name_len : b->name_len;
	int c;

	if (a->init_arg != b->init_arg)
		return a->init_arg - b->init_arg;
	if (!a->init_arg) {
		c = memcmp(a->word, b->word, n);
		if (c)
			return c;
		if (a->name_len != b->name_len)
			return a->name_len < b->name_len ? -1 : 1;
	}
	return a->at < b->at ? -1 : a->at > b->at;
}

/* The words of cmdline in param_word order; the array is the caller's, its words in words. */
static struct param_word *params_sorted(struct strvec *words, const char *cmdline)
{
	struct param_word *p;
	int init_arg = 0;

	strvec_split(words, cmdline ? cmdline : "");
	p = xcalloc(words->nr + 1, sizeof(*p));
	for (size_t i = 0; i < words->nr; i++) {
		p[i].word = words->v[i];
		p[i].name_len = strcspn(words->v[i], "=");
		p[i].at = i;
		p[i].init_arg = init_arg;
		if (!strcmp(words->v[i], "--"))
			init_arg = 1;
	}
	qsort(p, words->nr, sizeof(*p), param_word_cmp);
	return p;
}

int kcmdline_same(const char *a, const char *b)
{
	struct strvec wa = STRVEC_INIT, wb = STRVEC_INIT;
	struct param_word *pa = params_sorted(&wa, a), *pb = params_sorted(&wb, b);
	int same = wa.nr == wb.nr;

	for (size_t i = 0; same && i < wa.nr; i++)
		same = pa[i].init_arg == pb[i].init_arg && !strcmp(pa[i].word, pb[i].word);
	free(pa);
	free(pb);
	strvec_release(&wa);
	strvec_release(&wb);
	return same;
}
