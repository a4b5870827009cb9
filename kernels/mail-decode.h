#ifndef MAIL_DECODE_H
#define MAIL_DECODE_H
/*
 * What mbox.c undoes of a mail before reading it as git am does: the
 * transfer encodings of a body, RFC 2047's encoded words in a header,
 * and any charset the C library's iconv(3) knows, to UTF-8.
 */
#include <stddef.h>

#include "strbuf.h"

/* Quoted-printable s (n bytes) added to out; header: a header's "Q" form ('_' is a blank). */
void mail_qp_decode(struct strbuf *out, const char *s, size_t n, int header);
/* Base64 s (n bytes) added to out; -1 on a byte that is not base64. */
int mail_base64_decode(struct strbuf *out, const char *s, size_t n);
/*
 * s (n bytes) in charset cs (cs_len bytes) added to out as UTF-8. UTF-8,
 * ASCII and a charset iconv does not know go as they are; a byte not
 * valid in cs becomes U+FFFD.
 */
void mail_add_utf8(struct strbuf *out, const char *cs, size_t cs_len, const char *s, size_t n);
/* The charset parameter of a Content-Type value: 0 with it at *cs, *len bytes; -1 without. */
int mail_body_charset(const char *ctype, const char **cs, size_t *len);
/* A header value with its encoded words decoded; blanks between two of them go. */
void mail_decode_header(struct strbuf *out, const char *s, size_t n);

#endif
