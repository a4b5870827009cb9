/* Reading one key of a JSON object (json.h). */
#include <string.h>

#include "json.h"

static const char *skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

static int hex4(const char *p, unsigned *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++) {
		char c = p[i];
		unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0') :
			     c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10) :
			     c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 16;
		if (d == 16)
			return -1;
		*v = *v << 4 | d;
	}
	return 0;
}

static void add_utf8(struct strbuf *sb, unsigned cp)
{
	if (cp < 0x80) {
		strbuf_addch(sb, (int)cp);
	} else if (cp < 0x800) {
		strbuf_addch(sb, (int)(0xc0 | cp >> 6));
		strbuf_addch(sb, (int)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		strbuf_addch(sb, (int)(0xe0 | cp >> 12));
		strbuf_addch(sb, (int)(0x80 | (cp >> 6 & 0x3f)));
		strbuf_addch(sb, (int)(0x80 | (cp & 0x3f)));
	} else {
		strbuf_addch(sb, (int)(0xf0 | cp >> 18));
		strbuf_addch(sb, (int)(0x80 | (cp >> 12 & 0x3f)));
		strbuf_addch(sb, (int)(0x80 | (cp >> 6 & 0x3f)));
		strbuf_addch(sb, (int)(0x80 | (cp & 0x3f)));
	}
}

/* The string at p (its opening quote), unescaped into out when out is not NULL: past it, or NULL. */
static const char *string(const char *p, struct strbuf *out)
{
	for (p++; *p != '"'; p++) {
		unsigned cp, lo;

		if (!*p || (unsigned char)*p < 0x20)
			return NULL;
		if (*p != '\\') {
			if (out)
				strbuf_addch(out, *p);
			continue;
		}
		switch (*++p) {
		case '"': case '\\': case '/':
			if (out)
				strbuf_addch(out, *p);
			break;
		case 'b': if (out) strbuf_addch(out, '\b'); break;
		case 'f': if (out) strbuf_addch(out, '\f'); break;
		case 'n': if (out) strbuf_addch(out, '\n'); break;
		case 'r': if (out) strbuf_addch(out, '\r'); break;
		case 't': if (out) strbuf_addch(out, '\t'); break;
		case 'u':
			if (hex4(p + 1, &cp))
				return NULL;
			p += 4;
			if (cp >= 0xd800 && cp < 0xdc00 && p[1] == '\\' && p[2] == 'u' &&
			    !hex4(p + 3, &lo) && lo >= 0xdc00 && lo < 0xe000) {
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				p += 6;
			}
			if (out)
				add_utf8(out, cp);
			break;
		default:
			return NULL;
		}
	}
	return p + 1;
}

/* Past the value at p (space skipped before it), or NULL when it is not one. */
static const char *value(const char *p, int depth)
{
	p = skip_space(p);
	if (*p == '"')
		return string(p, NULL);
	if (*p == '{' || *p == '[') {
		char close = *p == '{' ? '}' : ']';

		if (depth > 64)
			return NULL;
		p = skip_space(p + 1);
		if (*p == close)
			return p + 1;
		for (;;) {
			if (close == '}') {
				if (*p != '"' || !(p = string(p, NULL)))
					return NULL;
				p = skip_space(p);
				if (*p++ != ':')
					return NULL;
			}
			if (!(p = value(p, depth + 1)))
				return NULL;
			p = skip_space(p);
			if (*p == close)
				return p + 1;
			if (*p++ != ',')
				return NULL;
			p = skip_space(p);
		}
	}
	/* a number, true, false, null: its characters */
	const char *start = p;
	while (*p && strchr("+-.0123456789eEtrufalsn", *p))
		p++;
	return p > start ? p : NULL;
}

enum json_kind json_get(const char *doc, const char *key, struct strbuf *out)
{
	struct strbuf name = STRBUF_INIT;
	const char *p = skip_space(doc ? doc : ""), *end;
	enum json_kind kind = JSON_NONE;

	strbuf_reset(out);
	strbuf_grow(out, 1);	/* a C string even when empty */
	if (*p++ != '{')
		return JSON_NONE;
	for (p = skip_space(p); *p == '"';) {
		strbuf_reset(&name);
		if (!(p = string(p, &name)))
			break;
		p = skip_space(p);
		if (*p++ != ':')
			break;
		p = skip_space(p);
		if (!strcmp(name.buf ? name.buf : "", key)) {
			if (*p == '"' && string(p, out)) {
				kind = JSON_STRING;
			} else if (*p != '"' && (end = value(p, 0))) {
				strbuf_add(out, p, (size_t)(end - p));
				kind = JSON_OTHER;
			} else {
				strbuf_reset(out);
			}
			break;
		}
		if (!(p = value(p, 0)))
			break;
		p = skip_space(p);
		if (*p++ != ',')
			break;
		p = skip_space(p);
	}
	strbuf_release(&name);
	return kind;
}

int json_get_string(const char *doc, const char *key, struct strbuf *out)
{
	if (json_get(doc, key, out) == JSON_STRING)
		return 0;
	strbuf_reset(out);
	return -1;
}

int json_array_item(const char *doc, size_t i, struct strbuf *out)
{
	const char *p = skip_space(doc ? doc : ""), *end;

	strbuf_reset(out);
	strbuf_grow(out, 1);
	if (*p++ != '[')
		return -1;
	p = skip_space(p);
	if (*p == ']')
		return -1;
	for (size_t k = 0;; k++) {
		p = skip_space(p);
		if (!(end = value(p, 0)))
			return -1;
		if (k == i) {
			strbuf_add(out, p, (size_t)(end - p));
			return 0;
		}
		p = skip_space(end);
		if (*p++ != ',')
			return -1;
	}
}
