/*
 * Mail into patches (mbox.h): mbox splitting, headers, RFC 2045 and
 * RFC 2047 decoding, dates, and git am's subject, body and diff rules.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "array.h"
#include "mail-decode.h"
#include "mbox.h"
#include "strbuf.h"
#include "xalloc.h"

/* ---- lines ---- */

static size_t line_end(const char *s, size_t len, size_t pos)
{
	const char *nl = memchr(s + pos, '\n', len - pos);
	return nl ? (size_t)(nl - s) : len;
}

static size_t next_line(const char *s, size_t len, size_t pos)
{
	size_t e = line_end(s, len, pos);
	return e < len ? e + 1 : len;
}

static int starts_with(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);
	return n >= k && !memcmp(s, prefix, k);
}

static int is_blank(const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s))
		s++, n--;
	return !n;
}

/*
 * The mbox separator, "From <sender> <asctime date>", as in
 * "From 6626bfae... Mon Sep 17 00:00:00 2001". Mail bodies may start a line
 * with "From " too, so insist on a weekday after the sender, and, like
 * git's mailsplit, on the date's hh:mm:ss and a four-digit year after it.
 */
static int is_from_line(const char *s, size_t n)
{
	static const char days[] = "MonTueWedThuFriSatSun";
	const char *sp;
	size_t c = n, day;

	if (n < 20 || !starts_with(s, n, "From "))
		return 0;
	sp = memchr(s + 5, ' ', n - 5);
	if (!sp || (size_t)(sp - s) + 5 > n || sp[4] != ' ')
		return 0;
	for (day = 0; day < 21 && memcmp(days + day, sp + 1, 3); day += 3)
		;
	if (day == 21)
		return 0;
	while (c > 5 && s[c - 1] != ':')
		c--;
	if (c <= 7 || c + 2 > n)
		return 0;
	c--;	/* the last ':', between minutes and seconds */
	if (!isdigit((unsigned char)s[c - 2]) || !isdigit((unsigned char)s[c - 1]) ||
	    !isdigit((unsigned char)s[c + 1]) || !isdigit((unsigned char)s[c + 2]))
		return 0;
	for (size_t i = c + 3, run = 0; i < n; i++) {
		run = isdigit((unsigned char)s[i]) ? run + 1 : 0;
		if (run == 4)
			return 1;
	}
	return 0;
}

/* ---- transfer encodings (RFC 2045, RFC 2047) ---- */

/* ---- mail headers ---- */

struct mail_headers {
	struct strbuf from, subject, date, cte, ctype;
};

static void mail_headers_release(struct mail_headers *h)
{
	strbuf_release_all(&h->from, &h->subject, &h->date, &h->cte, &h->ctype);
}

/* Length of "Name" in "Name: value", or 0 when the line is no header. */
static size_t header_name_len(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '-'))
		i++;
	return i && i < n && s[i] == ':' ? i : 0;
}

static struct strbuf *header_slot(struct mail_headers *h, const char *name, size_t n,
				  int in_body)
{
	if (n == 4 && !strncasecmp(name, "From", 4))
		return &h->from;
	if (n == 7 && !strncasecmp(name, "Subject", 7))
		return &h->subject;
	if (n == 4 && !strncasecmp(name, "Date", 4))
		return &h->date;
	if (in_body)
		return NULL;
	if (n == 25 && !strncasecmp(name, "Content-Transfer-Encoding", 25))
		return &h->cte;
	if (n == 12 && !strncasecmp(name, "Content-Type", 12))
		return &h->ctype;
	return NULL;
}

/*
 * Read a header block at *pos, unfolding continuation lines, up to and
 * past the blank line that ends it. Returns how many headers it read. In a
 * mail body (git's "in-body headers") only From, Subject and Date count,
 * and a block that is anything else or lacks its blank line is no block:
 * then nothing is read and 0 returned.
 */
static size_t parse_headers(struct mail_headers *h, const char *s, size_t len,
			    size_t *pos, int in_body)
{
	struct strbuf *cur = NULL;
	size_t p = *pos, nr = 0;
	int ended = 0;

	while (p < len) {
		size_t e = line_end(s, len, p), name;
		const char *line = s + p;
		size_t n = e - p;

		if (!n) {
			p = next_line(s, len, p);
			ended = 1;
			break;
		}
		if ((line[0] == ' ' || line[0] == '\t') && nr) {
			while (n && (*line == ' ' || *line == '\t'))
				line++, n--;
			if (cur) {
				strbuf_addch(cur, ' ');
				strbuf_add(cur, line, n);
			}
		} else if ((name = header_name_len(line, n))) {
			size_t v = name + 1;
			cur = header_slot(h, line, name, in_body);
			if (in_body && !cur)
				return 0;
			while (v < n && (line[v] == ' ' || line[v] == '\t'))
				v++;
			if (cur) {
				strbuf_reset(cur);
				strbuf_add(cur, line + v, n - v);
			}
			nr++;
		} else {
			if (in_body)
				return 0;
			break;	/* a body with no blank line before it */
		}
		p = next_line(s, len, p);
	}
	if (in_body && !ended)
		return 0;
	*pos = p;
	return nr;
}

/* "Name <email>", "\"Doe, J\" <email>", "email (Name)" or a bare "email". */
static int parse_from(struct strbuf *name, struct strbuf *email, const char *v)
{
	struct strbuf raw = STRBUF_INIT;
	const char *lt = strrchr(v, '<'), *gt = lt ? strchr(lt, '>') : NULL;
	const char *lp = strchr(v, '('), *rp = strrchr(v, ')');

	if (lt && gt) {
		strbuf_add(email, lt + 1, (size_t)(gt - lt - 1));
		strbuf_add(&raw, v, (size_t)(lt - v));
	} else if (lp && rp && rp > lp) {
		strbuf_add(email, v, (size_t)(lp - v));
		strbuf_add(&raw, lp + 1, (size_t)(rp - lp - 1));
	} else {
		strbuf_addstr(email, v);
	}
	strbuf_trim(email);
	strbuf_trim(&raw);
	if (raw.len >= 2 && raw.buf[0] == '"' && raw.buf[raw.len - 1] == '"') {
		for (size_t i = 1; i + 1 < raw.len; i++) {
			if (raw.buf[i] == '\\' && i + 2 < raw.len)
				i++;
			strbuf_addch(name, raw.buf[i]);
		}
		strbuf_reset(&raw);
		strbuf_add(&raw, strbuf_str(name), name->len);
		strbuf_reset(name);
	}
	mail_decode_header(name, raw.buf ? raw.buf : "", raw.len);
	strbuf_trim(name);
	strbuf_release(&raw);
	/* libgit2 refuses an empty name or one with angle brackets; git am uses the address. */
	if (!name->len || strpbrk(name->buf, "<>")) {
		strbuf_reset(name);
		strbuf_add(name, strbuf_str(email), email->len);
	}
	return email->len && !strpbrk(email->buf, "<> ") ? 0 : -1;
}

/* Howard Hinnant's days_from_civil ("chrono-Compatible Low-Level Date Algorithms"). */
static long long days_from_civil(long long y, unsigned m, unsigned d)
{
	long long era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static const char *skip_ws(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/* RFC 5322 date: "[Tue, ]18 Jun 2024 11:00:00 -0530". */
static int parse_date(git_time *t, const char *s)
{
	static const char months[] = "janfebmaraprmayjunjulaugsepoctnovdec";
	long day, year, hh, mm, ss = 0, off = 0;
	const char *m;
	char *end;
	int mon = -1;

	s = skip_ws(s);
	if (isalpha((unsigned char)*s)) {
		while (isalpha((unsigned char)*s))
			s++;
		if (*s == ',')
			s++;
	}
	day = strtol(s, &end, 10);
	if (end == s)
		return -1;
	s = skip_ws(end);
	for (m = months; *m; m += 3)
		if (!strncasecmp(s, m, 3))
			mon = (int)(m - months) / 3 + 1;
	if (mon < 0)
		return -1;
	while (isalpha((unsigned char)*s))
		s++;
	year = strtol(s, &end, 10);
	if (end == s)
		return -1;
	if (end - skip_ws(s) <= 2)
		year += year < 50 ? 2000 : 1900;
	s = end;
	hh = strtol(s, &end, 10);
	if (end == s || *end != ':')
		return -1;
	s = end + 1;
	mm = strtol(s, &end, 10);
	if (end == s)
		return -1;
	s = end;
	if (*s == ':') {
		ss = strtol(s + 1, &end, 10);
		s = end;
	}
	s = skip_ws(s);
	if ((*s == '+' || *s == '-') && isdigit((unsigned char)s[1])) {
		long z = strtol(s + 1, &end, 10);
		if (end - s != 5 || z % 100 >= 60)
			return -1;
		off = (z / 100) * 60 + z % 100;
		if (*s == '-')
			off = -off;
	}
	if (day < 1 || day > 31 || hh < 0 || hh > 23 || mm < 0 || mm > 59 || ss < 0 ||
	    ss > 60 || year < 1970 || year > 9999)
		return -1;
	t->time = days_from_civil(year, (unsigned)mon, (unsigned)day) * 86400 +
		  hh * 3600 + mm * 60 + ss - off * 60;
	t->offset = (int)off;
	t->sign = s[0] == '-' ? '-' : '+';
	return 0;
}

/* git am's subject: no "[PATCH v2 3/7]" (any leading [...] block) or "Re:". */
static void clean_subject(struct strbuf *sb)
{
	size_t start = 0;

	strbuf_trim(sb);
	if (!sb->len)
		return;
	for (;;) {
		const char *s = sb->buf + start, *close;

		if (*s == '[' && (close = strchr(s, ']'))) {
			start = (size_t)(close + 1 - sb->buf);
		} else if (!strncasecmp(s, "re:", 3)) {
			start += 3;
		} else {
			break;
		}
		while (start < sb->len && isspace((unsigned char)sb->buf[start]))
			start++;
	}
	memmove(sb->buf, sb->buf + start, sb->len - start);
	strbuf_setlen(sb, sb->len - start);
}

/* Like git stripspace: no trailing blanks, no blank lines at either end or in a row. */
static void clean_body(struct strbuf *out, const char *s, size_t len)
{
	size_t p = 0;
	int blanks = 0;

	while (p < len) {
		size_t e = line_end(s, len, p), n = e - p;

		while (n && isspace((unsigned char)s[p + n - 1]))
			n--;
		if (!n) {
			blanks = out->len > 0;
		} else {
			if (blanks)
				strbuf_addstr(out, "\n\n");
			else if (out->len)
				strbuf_addch(out, '\n');
			strbuf_add(out, s + p, n);
			blanks = 0;
		}
		p = next_line(s, len, p);
	}
}

/* The line counts of a hunk header "@@ -a[,b] +c[,d] @@"; a count left out is 1. */
static int hunk_counts(const char *s, size_t n, long *old, long *new)
{
	char *end;

	if (!starts_with(s, n, "@@ -"))
		return -1;
	strtol(s + 4, &end, 10);
	*old = 1;
	if (*end == ',')
		*old = strtol(end + 1, &end, 10);
	if (end[0] != ' ' || end[1] != '+')
		return -1;
	strtol(end + 2, &end, 10);
	*new = 1;
	if (*end == ',')
		*new = strtol(end + 1, &end, 10);
	return *end == ' ' && *old >= 0 && *new >= 0 ? 0 : -1;
}

/*
 * Where the diff in s (NUL-terminated) ends: at format-patch's "-- "
 * signature line, else at the end of the mail. A removed line "- " reads
 * "-- " too, so hunks are skipped by their line counts, the way git apply
 * reads them; an empty line in a hunk is a context line whose blank a mailer
 * ate.
 */
static size_t diff_end(const char *s, size_t len, size_t start)
{
	long old = 0, new = 0;

	for (size_t p = start; p < len; p = next_line(s, len, p)) {
		size_t n = line_end(s, len, p) - p;
		char c = n ? s[p] : ' ';

		if (old > 0 || new > 0) {
			if (c == ' ' || c == '-')
				old--;
			if (c == ' ' || c == '+')
				new--;
			if (c == ' ' || c == '-' || c == '+' || c == '\\')
				continue;
			old = new = 0;	/* a short hunk; git apply will say so */
		}
		if (hunk_counts(s + p, n, &old, &new))
			old = new = 0;
		if (n == 3 && !memcmp(s + p, "-- ", 3))
			return p;
	}
	return len;
}

static void patch_release(struct patch *p)
{
	free_all(p->author_name, p->author_email, p->subject, p->body, p->diff);
	memset(p, 0, sizeof(*p));
}

void patch_series_release(struct patch_series *series)
{
	for (size_t i = 0; i < series->nr; i++)
		patch_release(&series->v[i]);
	free(series->v);
	series->v = NULL;
	series->nr = series->alloc = 0;
}

/* git am's default (no --keep-cr): a CR before LF is transport, not content. */
static void crlf_to_lf(struct strbuf *sb)
{
	size_t j = 0;

	for (size_t i = 0; i < sb->len; i++)
		if (!(sb->buf[i] == '\r' && i + 1 < sb->len && sb->buf[i + 1] == '\n'))
			sb->buf[j++] = sb->buf[i];
	strbuf_setlen(sb, j);
}

static void override(struct strbuf *dst, const struct strbuf *src)
{
	if (src->len) {
		strbuf_reset(dst);
		strbuf_add(dst, src->buf, src->len);
	}
}

enum mail_kind {
	MAIL_PATCH,	/* added to the series */
	MAIL_NO_DIFF,	/* a cover letter, a reply, a blank stretch */
	MAIL_BARE_DIFF,	/* a diff without headers */
};

/*
 * One mail (LF line ends) into a struct patch. Returns an enum mail_kind,
 * or -1 with the reason in *why.
 */
static int parse_mail(struct patch_series *series, const char *s, size_t len,
		      struct strbuf *why)
{
	struct mail_headers h = { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, STRBUF_INIT };
	struct mail_headers inbody = { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, STRBUF_INIT };
	struct strbuf decoded = STRBUF_INIT, name = STRBUF_INIT, email = STRBUF_INIT;
	struct strbuf subject = STRBUF_INIT, body = STRBUF_INIT, diff = STRBUF_INIT;
	const char *cs;
	size_t cs_len;
	size_t pos = 0, nr_headers, start, diff_start = 0, body_end, end, number = series->nr + 1;
	const char *text;
	size_t text_len;
	int found = 0, ret = -1;
	struct patch *p;

	if (is_from_line(s, line_end(s, len, 0)))
		pos = next_line(s, len, 0);
	nr_headers = parse_headers(&h, s, len, &pos, 0);

	strbuf_trim(&h.cte);
	if (!strcasecmp(strbuf_str(&h.cte), "quoted-printable")) {
		mail_qp_decode(&decoded, s + pos, len - pos, 0);
	} else if (!strcasecmp(strbuf_str(&h.cte), "base64")) {
		if (mail_base64_decode(&decoded, s + pos, len - pos)) {
			strbuf_addf(why, "patch %zu has a broken base64 body", number);
			goto out;
		}
	} else if (h.cte.len && strcasecmp(h.cte.buf, "7bit") && strcasecmp(h.cte.buf, "8bit") &&
		   strcasecmp(h.cte.buf, "binary")) {
		strbuf_addf(why, "patch %zu has an unknown Content-Transfer-Encoding '%s'",
			    number, h.cte.buf);
		goto out;
	} else {
		strbuf_add(&decoded, s + pos, len - pos);
	}
	crlf_to_lf(&decoded);
	text = strbuf_str(&decoded);
	text_len = decoded.len;

	start = 0;
	while (start < text_len && is_blank(text + start, line_end(text, text_len, start) - start))
		start = next_line(text, text_len, start);
	if (parse_headers(&inbody, text, text_len, &start, 1)) {
		override(&h.from, &inbody.from);
		override(&h.subject, &inbody.subject);
		override(&h.date, &inbody.date);
	}

	for (size_t q = start; q < text_len; q = next_line(text, text_len, q)) {
		if (starts_with(text + q, line_end(text, text_len, q) - q, "diff --git ")) {
			diff_start = q;
			found = 1;
			break;
		}
	}
	if (!found) {
		ret = MAIL_NO_DIFF;
		goto out;
	}
	if (!nr_headers) {
		ret = MAIL_BARE_DIFF;
		goto out;
	}
	if (!strncasecmp(strbuf_str(&h.ctype), "multipart/", 10)) {
		strbuf_addf(why, "patch %zu is a multipart MIME mail (attachments are not supported)",
			    number);
		goto out;
	}
	if (!h.from.len) {
		strbuf_addf(why, "patch %zu has no From: header", number);
		goto out;
	}
	if (parse_from(&name, &email, h.from.buf)) {
		strbuf_addf(why, "patch %zu has no email address in 'From: %s'", number, h.from.buf);
		goto out;
	}
	mail_decode_header(&subject, strbuf_str(&h.subject), h.subject.len);
	clean_subject(&subject);
	if (!subject.len) {
		strbuf_addf(why, "patch %zu has no subject", number);
		goto out;
	}

	body_end = diff_start;
	for (size_t q = start; q < diff_start; q = next_line(text, text_len, q)) {
		size_t n = line_end(text, text_len, q) - q;
		if (n >= 3 && !memcmp(text + q, "---", 3) && is_blank(text + q + 3, n - 3)) {
			body_end = q;
			break;
		}
	}
	clean_body(&body, text + start, body_end - start);
	if (!mail_body_charset(strbuf_str(&h.ctype), &cs, &cs_len)) {
		struct strbuf utf8 = STRBUF_INIT;

		/* git am's way: the message in UTF-8, the diff's bytes as they are */
		mail_add_utf8(&utf8, cs, cs_len, body.buf, body.len);
		strbuf_release(&body);
		body = utf8;
	}
	end = diff_end(text, text_len, diff_start);
	strbuf_add(&diff, text + diff_start, end - diff_start);
	if (diff.buf[diff.len - 1] != '\n')
		strbuf_addch(&diff, '\n');

	ALLOC_GROW(series->v, series->nr + 1, series->alloc);
	p = &series->v[series->nr++];
	memset(p, 0, sizeof(*p));
	if (!h.date.len || parse_date(&p->date, h.date.buf)) {
		p->date.time = time(NULL);
		p->date.offset = 0;
		p->date.sign = '+';
	}
	p->author_name = strbuf_detach(&name);
	p->author_email = strbuf_detach(&email);
	p->subject = strbuf_detach(&subject);
	p->body = strbuf_detach(&body);
	p->diff_len = diff.len;
	p->diff = strbuf_detach(&diff);
	ret = MAIL_PATCH;
out:
	mail_headers_release(&h);
	mail_headers_release(&inbody);
	strbuf_release_all(&decoded, &name, &email, &subject, &body, &diff);
	return ret;
}

/* A copy of buf[start, end) with CRLF turned into LF, then parse_mail(). */
static int split_one(struct patch_series *series, const char *buf, size_t start, size_t end,
		     struct strbuf *why)
{
	struct strbuf mail = STRBUF_INIT;
	int ret;

	strbuf_add(&mail, buf + start, end - start);
	crlf_to_lf(&mail);
	ret = parse_mail(series, mail.buf, mail.len, why);
	strbuf_release(&mail);
	return ret;
}

int patch_series_parse(struct patch_series *series, const char *buf, size_t len,
		       struct strbuf *why)
{
	size_t pos = 0, mail_start = 0;
	int bare = 0, rc;

	series->v = NULL;
	series->nr = series->alloc = 0;
	if (is_blank(buf, len)) {
		strbuf_addstr(why, "it is empty");
		return -1;
	}
	if (len >= 2 && (unsigned char)buf[0] == 0x1f && (unsigned char)buf[1] == 0x8b) {
		strbuf_addstr(why, "it is gzip-compressed");
		return -1;
	}
	for (;;) {
		size_t e = pos < len ? line_end(buf, len, pos) : len;

		if (pos == len || (pos > mail_start && is_from_line(buf + pos, e - pos))) {
			rc = split_one(series, buf, mail_start, pos, why);
			if (rc < 0)
				goto fail;
			bare |= rc == MAIL_BARE_DIFF;
			mail_start = pos;
		}
		if (pos == len)
			break;
		pos = next_line(buf, len, pos);
	}
	if (series->nr)
		return 0;
	if (bare)
		strbuf_addstr(why, "a diff without mail headers (From:, Subject:); "
			      "git format-patch writes them");
	else if (*skip_ws(buf) == '<')
		strbuf_addstr(why, "it is an HTML page, not a raw mbox");
	else
		strbuf_addstr(why, "no 'diff --git' line in it");
fail:
	patch_series_release(series);
	return -1;
}
