/* Secrets masked in addresses (redact.h). */
#include <ctype.h>
#include <string.h>

#include "array.h"
#include "redact.h"

#define MASK "***"

static const char *const secret_words[] = {
	"token", "secret", "pass", "pwd", "key", "auth", "sig", "credential", "session",
};

static int is_scheme_char(char c)
{
	return isalnum((unsigned char)c) || c == '+' || c == '-' || c == '.';
}

/* Where an address ends in running text: blanks, quotes, angle brackets, controls. */
static int ends_address(char c)
{
	return !c || (unsigned char)c <= ' ' || c == 0x7f || strchr("'\"<>`", c);
}

static int secret_name(const char *name, size_t len)
{
	char lower[64];

	if (len >= sizeof(lower))
		len = sizeof(lower) - 1;
	for (size_t i = 0; i < len; i++)
		lower[i] = (char)tolower((unsigned char)name[i]);
	lower[len] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(secret_words); i++)
		if (strstr(lower, secret_words[i]))
			return 1;
	return 0;
}

/* The parameters of a query or fragment, s to end: secret ones' values masked. */
static void add_params(struct strbuf *out, const char *s, const char *end)
{
	while (s < end) {
		const char *amp = s, *eq;

		while (amp < end && *amp != '&' && *amp != ';')
			amp++;
		eq = memchr(s, '=', (size_t)(amp - s));
		if (eq && secret_name(s, (size_t)(eq - s))) {
			strbuf_add(out, s, (size_t)(eq + 1 - s));
			strbuf_addstr(out, MASK);
		} else {
			strbuf_add(out, s, (size_t)(amp - s));
		}
		if (amp < end)
			strbuf_addch(out, *amp++);
		s = amp;
	}
}

/* One address, from its scheme to end, into out. */
static void add_address(struct strbuf *out, const char *s, const char *end,
			enum url_redact_flags flags)
{
	const char *auth = strstr(s, "://") + 3, *host_end = auth, *at = NULL, *q;

	while (host_end < end && !strchr("/?#", *host_end)) {
		if (*host_end == '@')
			at = host_end;
		host_end++;
	}
	strbuf_add(out, s, (size_t)(auth - s));
	if (at) {
		strbuf_addstr(out, MASK "@");
		auth = at + 1;
	}
	strbuf_add(out, auth, (size_t)(host_end - auth));
	if (host_end == end)
		return;
	if (flags & URL_REDACT_PATH) {
		strbuf_addstr(out, "/" MASK);
		return;
	}
	for (q = host_end; q < end && *q != '?' && *q != '#'; q++)
		;
	strbuf_add(out, host_end, (size_t)(q - host_end));
	while (q < end) {
		const char *next = q + 1;

		/* a fragment may hold parameters too (an OAuth answer's #access_token=) */
		while (next < end && *next != '#')
			next++;
		strbuf_addch(out, *q);
		add_params(out, q + 1, next);
		q = next;
	}
}

void url_redact(struct strbuf *out, const char *text, enum url_redact_flags flags)
{
	const char *p = text, *copied = text;

	if (!text)
		return;
	while ((p = strstr(p, "://"))) {
		const char *start = p, *end = p + 3;

		while (start > copied && is_scheme_char(start[-1]))
			start--;
		/* a scheme starts with a letter */
		while (start < p && !isalpha((unsigned char)*start))
			start++;
		if (start == p) {
			p += 3;
			continue;
		}
		while (!ends_address(*end))
			end++;
		strbuf_add(out, copied, (size_t)(start - copied));
		add_address(out, start, end, flags);
		copied = p = end;
	}
	strbuf_addstr(out, copied);
}

const char *url_redacted(const char *text)
{
	static _Thread_local struct strbuf ring[8];
	static _Thread_local unsigned next;
	struct strbuf *sb;

	if (!text || !strstr(text, "://"))
		return text;
	sb = &ring[next++ % ARRAY_SIZE(ring)];
	strbuf_reset(sb);
	url_redact(sb, text, 0);
	return !strcmp(sb->buf, text) ? text : sb->buf;
}
