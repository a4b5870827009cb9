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
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return error("cannot read credentials file '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) < 0) {
		error("cannot read credentials file '%s': %s", path, strerror(errno));
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
 * where, and curl's reason (which names hosts and codes, never credentials).
 */
static int curl_failed(const char *what, const char *url, CURLcode rc, const char *errbuf)
{
	struct strbuf why = STRBUF_INIT;
	int ret;

	lab_curl_reason(&why, rc, errbuf);
	ret = error("%s through '%s' failed: %s", what, url, why.buf);
	strbuf_release(&why);
	return ret;
}

/* Header lines are one line each: no line break may come from the config. */
static void add_header_value(struct strbuf *sb, const char *s)
{
	for (; *s; s++)
		strbuf_addch(sb, *s == '\r' || *s == '\n' ? ' ' : *s);
}

int notify_mail(const struct notify_to *to, const struct notify_creds *c, const char *subject,
		const char *body)
{
	char errbuf[CURL_ERROR_SIZE] = "", date[64], host[256] = "localhost";
	struct strbuf msg = STRBUF_INIT, rcpt_list = STRBUF_INIT;
	struct curl_slist *rcpt = NULL;
	struct upload up;
	const char *from = to->mail_from && *to->mail_from ? to->mail_from : "lab@localhost";
	const char *p;
	char *save = NULL, *addr;
	time_t now = time(NULL);
	CURLcode rc = CURLE_OK;
	CURL *curl = NULL;
	int ret = -1;

	if (!to->smtp || !to->mail_to)
		return error("%s has no smtp or mailTo: cannot mail", to->who);
	if (lab_curl_init())
		return -1;
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S +0000", gmtime(&now));
	host_name(host, sizeof(host));
	strbuf_addstr(&rcpt_list, to->mail_to);
	for (addr = strtok_r(rcpt_list.buf, ", ", &save); addr; addr = strtok_r(NULL, ", ", &save))
		rcpt = curl_slist_append(rcpt, addr);
	if (!rcpt) {
		error("%s has no address in mailTo '%s'", to->who, to->mail_to);
		goto out;
	}
	strbuf_addf(&msg, "Date: %s\r\nFrom: ", date);
	add_header_value(&msg, from);
	strbuf_addstr(&msg, "\r\nTo: ");
	add_header_value(&msg, to->mail_to);
	strbuf_addstr(&msg, "\r\nSubject: ");
	add_header_value(&msg, subject);
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
	curl = curl_easy_init();
	if (!curl) {
		error("cannot initialise libcurl");
		goto out;
	}
	if ((rc = curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf)) ||
	    (rc = curl_easy_setopt(curl, CURLOPT_URL, to->smtp)) ||
	    (rc = curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "smtp,smtps")) ||
	    (rc = curl_easy_setopt(curl, CURLOPT_USE_SSL, (long)CURLUSESSL_TRY)) ||
	    (rc = curl_easy_setopt(curl, CURLOPT_MAIL_FROM, from)) ||
	    (rc = curl_easy_setopt(curl, CURLOPT_MAIL_RCPT, rcpt)) ||
	    (rc = curl_easy_setopt(curl, CURLOPT_READFUNCTION, read_upload)) ||
	    (rc = curl_easy_setopt(curl, CURLOPT_READDATA, &up)) ||
	    (rc = curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L)) ||
	    (rc = curl_easy_setopt(curl, CURLOPT_TIMEOUT, NOTIFY_TIMEOUT_S)) ||
	    (rc = curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L)))
		goto failed;
	if (c->user.len && ((rc = curl_easy_setopt(curl, CURLOPT_USERNAME, c->user.buf)) ||
			    (rc = curl_easy_setopt(curl, CURLOPT_PASSWORD, c->password.buf))))
		goto failed;
	rc = curl_easy_perform(curl);
failed:
	if (rc != CURLE_OK) {
		curl_failed("mail", to->smtp, rc, errbuf);
		goto out;
	}
	ret = 0;
out:
	if (curl)
		curl_easy_cleanup(curl);
	curl_slist_free_all(rcpt);
	strbuf_release(&msg);
	strbuf_release(&rcpt_list);
	return ret;
}

int notify_webhook(const struct notify_to *to, const struct notify_creds *c, const char *json)
{
	char errbuf[CURL_ERROR_SIZE] = "";
	struct curl_slist *headers = NULL;
	struct strbuf auth = STRBUF_INIT;
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
		strbuf_addstr(&auth, "Authorization: Bearer ");
		add_header_value(&auth, c->token.buf);
		headers = curl_slist_append(headers, auth.buf);
	}
	curl = curl_easy_init();
	if (!curl || !headers) {
		error("cannot initialise libcurl");
		goto out;
	}
	if ((rc = curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf)) ||
	    (rc = curl_easy_setopt(curl, CURLOPT_URL, to->webhook)) ||
	    (rc = curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https")) ||
	    (rc = curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers)) ||
	    (rc = curl_easy_setopt(curl, CURLOPT_POSTFIELDS, json)) ||
	    (rc = curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, discard)) ||
	    (rc = curl_easy_setopt(curl, CURLOPT_TIMEOUT, NOTIFY_TIMEOUT_S)) ||
	    (rc = curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L)))
		goto failed;
	rc = curl_easy_perform(curl);
failed:
	if (rc != CURLE_OK) {
		curl_failed("webhook POST", to->webhook, rc, errbuf);
		goto out;
	}
	curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
	if (status < 200 || status > 299) {
		error("webhook POST through '%s' failed: HTTP status %ld", to->webhook, status);
		goto out;
	}
	ret = 0;
out:
	if (curl)
		curl_easy_cleanup(curl);
	curl_slist_free_all(headers);
	wipe(&auth);
	return ret;
}
