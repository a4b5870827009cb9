/* libcurl's start and its failures in lab's words (curlutil.h). */
#include <string.h>

#include "curlutil.h"
#include "log.h"
#include "redact.h"

int lab_curl_init(void)
{
	static int ready;

	if (!ready && curl_global_init(CURL_GLOBAL_DEFAULT))
		return error("cannot initialise libcurl");
	ready = 1;
	return 0;
}

CURLcode lab_curl_handle(CURL **out, const char *url, const char *protocols, long timeout_s,
			 char *errbuf)
{
	CURLcode rc;

	*out = NULL;
	if (lab_curl_init())
		return CURLE_FAILED_INIT;
	*out = curl_easy_init();
	if (!*out) {
		error("cannot initialise libcurl");
		return CURLE_FAILED_INIT;
	}
	if ((rc = curl_easy_setopt(*out, CURLOPT_ERRORBUFFER, errbuf)) ||
	    (rc = curl_easy_setopt(*out, CURLOPT_URL, url)) ||
	    (rc = curl_easy_setopt(*out, CURLOPT_PROTOCOLS_STR, protocols)) ||
	    (rc = curl_easy_setopt(*out, CURLOPT_TIMEOUT, timeout_s)) ||
	    (rc = curl_easy_setopt(*out, CURLOPT_NOSIGNAL, 1L)))
		return rc;
	return CURLE_OK;
}

void lab_curl_reason(struct strbuf *out, CURLcode rc, const char *errbuf)
{
	size_t start = out->len;

	/* curl's words may quote the address it was given, secrets and all */
	url_redact(out, errbuf && *errbuf ? errbuf : curl_easy_strerror(rc), 0);
	while (out->len > start && (out->buf[out->len - 1] == '.' || out->buf[out->len - 1] == ' ' ||
				    out->buf[out->len - 1] == '\n' || out->buf[out->len - 1] == '\r'))
		strbuf_setlen(out, out->len - 1);
}

int lab_url_scheme(const char *url, const char *scheme)
{
	size_t n = strlen(scheme);

	if (strncmp(url, scheme, n))
		return 0;
	url += n;
	if (*url == 's')
		url++;
	return !strncmp(url, "://", 3) && url[3];
}
