/* A mail's encodings undone: quoted-printable, base64, RFC 2047 words, charsets (mail-decode.h). */
#include <ctype.h>
#include <errno.h>
#include <iconv.h>
#include <string.h>
#include <strings.h>

#include "mail-decode.h"

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Quoted-printable; in a header's "Q" encoding '_' is a space. */
void mail_qp_decode(struct strbuf *out, const char *s, size_t n, int header)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '=' && i + 1 < n && s[i + 1] == '\n') {
			i++;	/* soft line break */
		} else if (s[i] == '=' && i + 2 < n && hexval(s[i + 1]) >= 0 &&
			   hexval(s[i + 2]) >= 0) {
			strbuf_addch(out, hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
			i += 2;
		} else if (header && s[i] == '_') {
			strbuf_addch(out, ' ');
		} else {
			strbuf_addch(out, s[i]);
		}
	}
}

int mail_base64_decode(struct strbuf *out, const char *s, size_t n)
{
	static const char digits[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned acc = 0;
	int bits = 0;

	for (size_t i = 0; i < n; i++) {
		const char *d;

		if (isspace((unsigned char)s[i]))
			continue;
		if (s[i] == '=')
			break;
		d = s[i] ? strchr(digits, s[i]) : NULL;
		if (!d)
			return -1;
		acc = (acc << 6) | (unsigned)(d - digits);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			strbuf_addch(out, (int)((acc >> bits) & 0xff));
		}
	}
	return 0;
}

/*
 * s (n bytes) in charset cs (cs_len bytes) added to out as UTF-8, by
 * iconv(3): any charset the C library knows (ISO-8859-*, KOI8-R,
 * Shift_JIS, ISO-2022-JP...). UTF-8, ASCII and a charset it does not know
 * go as they are; a byte that is not valid in cs becomes U+FFFD.
 */
void mail_add_utf8(struct strbuf *out, const char *cs, size_t cs_len, const char *s, size_t n)
{
	char name[64], buf[256], *in = (char *)s, *o;
	size_t left = n, room;
	iconv_t cd;

	if (!cs_len || cs_len >= sizeof(name))
		goto as_is;
	memcpy(name, cs, cs_len);
	name[cs_len] = '\0';
	if (!strcasecmp(name, "utf-8") || !strcasecmp(name, "utf8") ||
	    !strcasecmp(name, "us-ascii"))
		goto as_is;
	cd = iconv_open("UTF-8", name);
	if (cd == (iconv_t)-1)
		goto as_is;
	while (left) {
		o = buf;
		room = sizeof(buf);
		if (iconv(cd, &in, &left, &o, &room) == (size_t)-1 && errno != E2BIG) {
			/* EILSEQ, or EINVAL: a sequence cut at the end */
			strbuf_add(out, buf, (size_t)(o - buf));
			strbuf_addstr(out, "\xef\xbf\xbd");
			in++;
			left--;
			continue;
		}
		strbuf_add(out, buf, (size_t)(o - buf));
	}
	/* a stateful charset's return to its initial state (ISO-2022-JP) */
	o = buf;
	room = sizeof(buf);
	if (iconv(cd, NULL, NULL, &o, &room) != (size_t)-1)
		strbuf_add(out, buf, (size_t)(o - buf));
	iconv_close(cd);
	return;
as_is:
	strbuf_add(out, s, n);
}

/* The charset parameter of a Content-Type value: 0 with it at *cs, *len bytes; -1 without. */
int mail_body_charset(const char *ctype, const char **cs, size_t *len)
{
	for (const char *p = ctype; p && *p; p++) {
		if (strncasecmp(p, "charset=", 8) || (p > ctype && !strchr("; \t", p[-1])))
			continue;
		p += 8;
		if (*p == '"')
			p++;
		*cs = p;
		*len = strcspn(p, "\"; \t");
		return *len ? 0 : -1;
	}
	return -1;
}

/*
 * One RFC 2047 encoded word, "=?charset?Q?text?=" or "=?charset?B?text?=",
 * at s, decoded to UTF-8.
 */
static int decode_word(struct strbuf *out, const char *s, size_t n, size_t *used)
{
	struct strbuf raw = STRBUF_INIT;
	const char *end = s + n, *p = s + 2, *q, *text, *t, *star;
	size_t cs_len;
	int enc, ret = -1;

	q = memchr(p, '?', (size_t)(end - p));
	if (!q || end - q < 5)
		return -1;
	enc = tolower((unsigned char)q[1]);
	if ((enc != 'q' && enc != 'b') || q[2] != '?')
		return -1;
	text = q + 3;
	for (t = text; t + 1 < end && !(t[0] == '?' && t[1] == '='); t++)
		if (isspace((unsigned char)*t))
			return -1;
	if (t + 1 >= end)
		return -1;
	cs_len = (size_t)(q - p);	/* "UTF-8*en": RFC 2231 adds a language */
	star = memchr(p, '*', cs_len);
	if (star)
		cs_len = (size_t)(star - p);
	if (enc == 'q')
		mail_qp_decode(&raw, text, (size_t)(t - text), 1);
	else if (mail_base64_decode(&raw, text, (size_t)(t - text)))
		goto out;
	mail_add_utf8(out, p, cs_len, raw.buf, raw.len);
	*used = (size_t)(t + 2 - s);
	ret = 0;
out:
	strbuf_release(&raw);
	return ret;
}

/* A header value with its encoded words decoded; blanks between two of them go. */
void mail_decode_header(struct strbuf *out, const char *s, size_t n)
{
	struct strbuf word = STRBUF_INIT;
	size_t i = 0, mark = 0;
	int after_word = 0;

	while (i < n) {
		size_t used;

		strbuf_reset(&word);
		if (s[i] == '=' && i + 1 < n && s[i + 1] == '?' &&
		    !decode_word(&word, s + i, n - i, &used)) {
			if (after_word)
				strbuf_setlen(out, mark);
			/* An encoded line break must not break a subject line. */
			for (size_t k = 0; k < word.len; k++)
				strbuf_addch(out, iscntrl((unsigned char)word.buf[k]) ? ' ' : word.buf[k]);
			i += used;
			after_word = 1;
			mark = out->len;
			continue;
		}
		if (!isspace((unsigned char)s[i]))
			after_word = 0;
		strbuf_addch(out, s[i]);
		i++;
	}
	strbuf_release(&word);
}

