/* Mail and webhook notifications (notify.h). */
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "curlutil.h"
#include "host.h"
#include "log.h"
#include "notify.h"
#include "redact.h"
#include "strvec.h"

/* Notifications must not hold a night up for long. */
#define NOTIFY_TIMEOUT_S 60L

void notify_creds_init(struct notify_creds *c)
{
	strbuf_init(&c->user, 0);
	strbuf_init(&c->password, 0);
	strbuf_init(&c->token, 0);
}

static void wipe(struct strbuf *sb)
{
	if (sb->buf && sb->alloc)
		memset(sb->buf, 0, sb->alloc);
	strbuf_release(sb);
}

void notify_creds_release(struct notify_creds *c)
{
	wipe(&c->user);
	wipe(&c->password);
	wipe(&c->token);
}

int notify_creds_read(struct notify_creds *c, const char *path)
{
	struct strbuf text = STRBUF_INIT;
	struct stat st;
	char *line, *save = NULL;
	int fd, lineno = 0, ret = -1;

	if (!path)
		return 0;
	/* a fifo would block the open and the read for ever, a night's lock held */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return error("cannot read credentials file '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) < 0) {
		error("cannot read credentials file '%s': %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		error("credentials file '%s' is %s, not a regular file", path,
		      S_ISFIFO(st.st_mode) ? "a fifo" : S_ISDIR(st.st_mode) ? "a directory" :
		      S_ISSOCK(st.st_mode) ? "a socket" : "a device");
		goto out;
	}
	if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		error("credentials file '%s' is open to group or others (mode %04o): "
		      "refusing it; chmod 600 it", path, (unsigned)(st.st_mode & 07777));
		goto out;
	}
	for (;;) {
		char buf[4096];
		ssize_t got = read(fd, buf, sizeof(buf));

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			error("cannot read credentials file '%s': %s", path, strerror(errno));
			goto out;
		}
		if (!got)
			break;
		strbuf_add(&text, buf, (size_t)got);
		memset(buf, 0, sizeof(buf));
	}
	if (!text.len)
		goto done;
	for (line = strtok_r(text.buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *eq, *key = line, *value, *end;
		struct strbuf *field;

		lineno++;
		key += strspn(key, " \t");
		if (!*key || *key == '#')
			continue;
		eq = strchr(key, '=');
		if (!eq) {
			/* the line may be a secret: its number only */
			error("credentials file '%s' line %d: expected 'user', 'password' or "
			      "'token' = value", path, lineno);
			goto out;
		}
		for (end = eq; end > key && (end[-1] == ' ' || end[-1] == '\t'); end--)
			;
		*end = '\0';
		value = eq + 1 + strspn(eq + 1, " \t");
		for (end = value + strlen(value); end > value && strchr(" \t\r", end[-1]); end--)
			;
		*end = '\0';
		/* a value goes into an SMTP command or an HTTP header: one line of text */
		for (const char *v = value; *v; v++)
			if ((unsigned char)*v < ' ' || *v == 0x7f) {
				error("credentials file '%s' line %d: a control character in the "
				      "value", path, lineno);
				goto out;
			}
		if (!strcmp(key, "user"))
			field = &c->user;
		else if (!strcmp(key, "password"))
			field = &c->password;
		else if (!strcmp(key, "token"))
			field = &c->token;
		else {
			error("credentials file '%s' line %d: unknown key '%s' (known: user, "
			      "password, token)", path, lineno, key);
			goto out;
		}
		strbuf_reset(field);
		strbuf_addstr(field, value);
	}
done:
	ret = 0;
out:
	wipe(&text);
	close(fd);
	return ret;
}

struct upload {
	const char *buf;
	size_t len, pos;
};

static size_t read_upload(char *ptr, size_t size, size_t nmemb, void *data)
{
	struct upload *u = data;
	size_t n = size * nmemb;

	if (n > u->len - u->pos)
		n = u->len - u->pos;
	memcpy(ptr, u->buf + u->pos, n);
	u->pos += n;
	return n;
}

static size_t discard(char *ptr, size_t size, size_t nmemb, void *data)
{
	(void)ptr;
	(void)data;
	return size * nmemb;
}


/*
 * The one place curl's failures become lab messages: what was tried and
 * where, with the address's secrets masked (a webhook's path too: many a
 * service's hook is a secret path), and curl's reason.
 */
static int curl_failed(const char *what, const char *url, enum url_redact_flags flags,
		       CURLcode rc, long status, const char *errbuf)
{
	struct strbuf why = STRBUF_INIT, where = STRBUF_INIT;
	int ret;

	url_redact(&where, url, flags);
	if (rc != CURLE_OK)
		lab_curl_reason(&why, rc, errbuf);
	else
		strbuf_addf(&why, "HTTP status %ld", status);
	ret = error("%s through '%s' failed: %s", what, where.buf, why.buf);
	strbuf_release(&why);
	strbuf_release(&where);
	return ret;
}

/* A dot-atom (RFC 5322 3.2.3) of the characters in chars, s to end: 1 when it is one. */
static int dot_atom(const char *s, const char *end, const char *chars)
{
	if (s == end || *s == '.' || end[-1] == '.')
		return 0;
	for (const char *p = s; p < end; p++) {
		if (*p == '.' ? p[1] == '.' :
		    !(((*p | 0x20) >= 'a' && (*p | 0x20) <= 'z') || (*p >= '0' && *p <= '9') ||
		      (*p && strchr(chars, *p))))
			return 0;
	}
	return 1;
}

int notify_address_ok(const char *addr)
{
	const char *at = strchr(addr, '@');

	return at && !strchr(at + 1, '@') && at - addr <= 64 && strlen(at + 1) <= 255 &&
	       dot_atom(addr, at, "!#$%&'*+-/=?^_`{|}~") &&
	       dot_atom(at + 1, at + 1 + strlen(at + 1), "-");
}

int notify_address_list_split(struct strvec *out, const char *list)
{
	struct strvec all = STRVEC_INIT;
	int ret = -1;

	/*
	 * Only plain blanks may sit between the pieces: a line break or a tab
	 * trimmed off a piece would stay in the list, and the list is what a
	 * header or the dialogue would otherwise be built from.
	 */
	for (const char *p = list; *p; p++)
		if ((unsigned char)*p < ' ' || *p == 0x7f)
			return -1;
	for (const char *p = list;;) {
		size_t n = strcspn(p, ",");
		const char *b = p, *e = p + n;

		while (b < e && *b == ' ')
			b++;
		while (e > b && e[-1] == ' ')
			e--;
		strvec_pushf(&all, "%.*s", (int)(e - b), b);
		if (!notify_address_ok(all.v[all.nr - 1]))
			goto out;
		if (!p[n])
			break;
		p += n + 1;
	}
	strvec_push_all(out, &all);
	ret = 0;
out:
	strvec_release(&all);
	return ret;
}

int notify_address_list_ok(const char *list)
{
	struct strvec all = STRVEC_INIT;
	int ok = !notify_address_list_split(&all, list);

	strvec_release(&all);
	return ok;
}

/* Header lines are one line each: no line break may come from the config. */
static int one_line(const char *s)
{
	return !strpbrk(s, "\r\n");
}

int notify_mail(const struct notify_to *to, const struct notify_creds *c, const char *subject,
		const char *body)
{
	char errbuf[CURL_ERROR_SIZE] = "", date[64], host[256] = "localhost";
	struct strbuf msg = STRBUF_INIT, to_line = STRBUF_INIT;
	struct strvec addrs = STRVEC_INIT;
	struct curl_slist *rcpt = NULL;
	struct upload up;
	const char *from = to->mail_from && *to->mail_from ? to->mail_from : "lab@localhost";
	const char *p;
	time_t now = time(NULL);
	CURLcode rc = CURLE_OK;
	CURL *curl = NULL;
	int ret = -1;

	if (!to->smtp || !to->mail_to)
		return error("%s has no smtp or mailTo: cannot mail", to->who);
	/* lab.conf's reader refused these already: whoever else calls is held to it */
	if (!notify_address_ok(from) || notify_address_list_split(&addrs, to->mail_to))
		return error("%s has an address in mailFrom or mailTo that is not plain: "
			     "not mailing", to->who);
	if (!one_line(subject)) {
		error("%s: a mail subject of more than one line: not mailing", to->who);
		goto out;
	}
	if (lab_curl_init())
		goto out;
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S +0000", gmtime(&now));
	host_name(host, sizeof(host));
	/* the header and the dialogue are built from the checked pieces, never the raw list */
	for (size_t i = 0; i < addrs.nr; i++) {
		rcpt = curl_slist_append(rcpt, addrs.v[i]);
		strbuf_addf(&to_line, "%s%s", i ? ", " : "", addrs.v[i]);
	}
	if (!rcpt) {
		error("%s has no address in mailTo", to->who);
		goto out;
	}
	strbuf_addf(&msg, "Date: %s\r\nFrom: %s\r\nTo: %s\r\nSubject: %s", date, from,
		    to_line.buf, subject);
	strbuf_addf(&msg, "\r\nMessage-ID: <lab-nightly.%ld.%ld@%s>\r\n", (long)now, (long)getpid(),
		    host);
	strbuf_addstr(&msg, "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n"
		      "Content-Transfer-Encoding: 8bit\r\n\r\n");
	/* SMTP lines end in CRLF */
	for (p = body; *p; p++) {
		if (*p == '\n')
			strbuf_addch(&msg, '\r');
		strbuf_addch(&msg, *p);
	}
	up = (struct upload){ msg.buf, msg.len, 0 };
	rc = lab_curl_handle(&curl, to->smtp, "smtp,smtps", NOTIFY_TIMEOUT_S, errbuf);
	if (!curl)
		goto out;
	if (rc || (rc = curl_easy_setopt(curl, CURLOPT_USE_SSL, (long)CURLUSESSL_TRY)) ||
	    (rc = curl_easy_setopt(curl, CURLOPT_MAIL_FROM, from)) ||
	    (rc = curl_easy_setopt(curl, CURLOPT_MAIL_RCPT, rcpt)) ||
	    (rc = curl_easy_setopt(curl, CURLOPT_READFUNCTION, read_upload)) ||
	    (rc = curl_easy_setopt(curl, CURLOPT_READDATA, &up)) ||
	    (rc = curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L)) ||
	    (c->user.len && ((rc = curl_easy_setopt(curl, CURLOPT_USERNAME, c->user.buf)) ||
			     (rc = curl_easy_setopt(curl, CURLOPT_PASSWORD, c->password.buf)))) ||
	    (rc = curl_easy_perform(curl)))
		curl_failed("mail", to->smtp, 0, rc, 0, errbuf);
	else
		ret = 0;
out:
	curl_easy_cleanup(curl);	/* nothing done for NULL */
	curl_slist_free_all(rcpt);
	strbuf_release_all(&msg, &to_line);
	strvec_release(&addrs);
	return ret;
}

int notify_webhook(const struct notify_to *to, const struct notify_creds *c, const char *json)
{
	char errbuf[CURL_ERROR_SIZE] = "";
	struct curl_slist *headers = NULL;
	CURLcode rc = CURLE_OK;
	CURL *curl = NULL;
	long status = 0;
	int ret = -1;

	if (!to->webhook)
		return error("%s has no webhook", to->who);
	if (lab_curl_init())
		return -1;
	headers = curl_slist_append(headers, "Content-Type: application/json");
	if (c->token.len) {
		struct strbuf auth = STRBUF_INIT;

		/* notify_creds_read() takes a line: a token has none inside */
		strbuf_addf(&auth, "Authorization: Bearer %s", c->token.buf);
		headers = curl_slist_append(headers, auth.buf);	/* a copy */
		wipe(&auth);
	}
	if (!headers) {
		error("cannot initialise libcurl");
		goto out;
	}
	rc = lab_curl_handle(&curl, to->webhook, "http,https", NOTIFY_TIMEOUT_S, errbuf);
	if (!curl)
		goto out;
	if (rc || (rc = curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers)) ||
	    (rc = curl_easy_setopt(curl, CURLOPT_POSTFIELDS, json)) ||
	    (rc = curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, discard)) ||
	    (rc = curl_easy_perform(curl)) ||
	    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status) || status < 200 || status > 299)
		curl_failed("webhook POST", to->webhook, URL_REDACT_PATH, rc, status, errbuf);
	else
		ret = 0;
out:
	curl_easy_cleanup(curl);
	curl_slist_free_all(headers);
	return ret;
}
