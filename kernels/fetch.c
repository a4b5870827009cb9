/* Reading a patch series from a file or over HTTP with libcurl (fetch.h). */
#include <errno.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>

#include "curlutil.h"
#include "fetch.h"
#include "log.h"
#include "regfile.h"
#include "mbox.h"
#include "strbuf.h"

static void add_size(struct strbuf *sb, size_t n)
{
	if (n >= (1 << 20) && !(n & ((1 << 20) - 1)))
		strbuf_addf(sb, "%zu MiB", n >> 20);
	else
		strbuf_addf(sb, "%zu bytes", n);
}

struct fetch_sink {
	struct strbuf *sb;
	size_t max;
	int too_big;
};

/* Refusing bytes past the cap makes curl abort the transfer with a write error. */
static size_t fetch_write(char *data, size_t size, size_t nmemb, void *arg)
{
	struct fetch_sink *sink = arg;
	size_t n = size * nmemb;

	if (n > sink->max - sink->sb->len) {
		sink->too_big = 1;
		return 0;
	}
	strbuf_add(sink->sb, data, n);
	return n;
}

/* The one place curl's failures become lab messages. */
static int fetch_error(const char *url, CURL *curl, CURLcode rc, const char *errbuf,
		       const struct fetch_sink *sink)
{
	struct strbuf why = STRBUF_INIT;
	long status = 0;
	int ret;

	if (sink->too_big) {
		strbuf_addstr(&why, "larger than ");
		add_size(&why, sink->max);
	} else if (rc == CURLE_HTTP_RETURNED_ERROR &&
		   curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK) {
		strbuf_addf(&why, "HTTP %ld", status);
	} else {
		lab_curl_reason(&why, rc, errbuf);
	}
	ret = error("cannot fetch '%s': %s", url, why.buf);
	strbuf_release(&why);
	return ret;
}

static int fetch_url(struct strbuf *out, const char *url, size_t max)
{
	char errbuf[CURL_ERROR_SIZE] = "";
	struct fetch_sink sink = { out, max, 0 };
	CURLcode rc;
	CURL *curl;
	int ret;

	rc = lab_curl_handle(&curl, url, "http,https", 60L, errbuf);
	if (!curl)
		return -1;
	if (!rc)
		rc = curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	if (!rc)
		rc = curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
	if (!rc)
		rc = curl_easy_setopt(curl, CURLOPT_MAXREDIRS, 5L);
	if (!rc)
		rc = curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 10L);
	if (!rc)
		rc = curl_easy_setopt(curl, CURLOPT_FAILONERROR, 1L);
	if (!rc)	/* "": every encoding curl can undo; the cap counts decoded bytes */
		rc = curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");
	if (!rc)
		rc = curl_easy_setopt(curl, CURLOPT_USERAGENT, "lab");
	if (!rc)
		rc = curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, fetch_write);
	if (!rc)
		rc = curl_easy_setopt(curl, CURLOPT_WRITEDATA, &sink);
	if (!rc)
		rc = curl_easy_perform(curl);
	ret = rc ? fetch_error(url, curl, rc, errbuf, &sink) : 0;
	curl_easy_cleanup(curl);
	return ret;
}

static int fetch_file(struct strbuf *out, const char *path, size_t max)
{
	struct strbuf why = STRBUF_INIT;

	if (regfile_read(out, path, max + 1, 0, "patch", &why)) {
		error("%s", why.buf);
		strbuf_release(&why);
		return -1;
	}
	if (out->len > max) {
		add_size(&why, max);
		error("cannot read patch '%s': larger than %s", path, why.buf);
		strbuf_release(&why);
		return -1;
	}
	return 0;
}

int patch_fetch_max(struct strbuf *out, const char *source, size_t max)
{
	struct patch_series series = PATCH_SERIES_INIT;
	struct strbuf why = STRBUF_INIT;
	int ret = -1;

	strbuf_reset(out);
	if (!strncasecmp(source, "http://", 7) || !strncasecmp(source, "https://", 8)) {
		if (fetch_url(out, source, max))
			goto out;
	} else if (strstr(source, "://")) {
		error("cannot fetch '%s': only http:// and https:// URLs are supported", source);
		goto out;
	} else if (fetch_file(out, source, max)) {
		goto out;
	}
	if (patch_series_parse(&series, out->buf ? out->buf : "", out->len, &why)) {
		error("'%s' is not an mbox or patch: %s", source, why.buf);
		goto out;
	}
	ret = 0;
out:
	if (ret)
		strbuf_release(out);
	patch_series_release(&series);
	strbuf_release(&why);
	return ret;
}

int patch_fetch(struct strbuf *out, const char *source)
{
	return patch_fetch_max(out, source, PATCH_FETCH_MAX);
}
