#ifndef CURLUTIL_H
#define CURLUTIL_H
/*
 * The one place where libcurl is started and where its failures become the
 * words of a lab message.
 *
 * lab_curl_init() calls curl_global_init() once for the process, before
 * the first transfer (the lab transfers from one thread at a time).
 * lab_curl_reason() appends why a transfer failed: the error buffer curl
 * filled (CURLOPT_ERRORBUFFER, which names hosts and codes, and may quote
 * an address: its secrets are masked, lib/redact.h) or, when it is empty,
 * the text of the code; trimmed, with no full stop, as house style has it.
 */
#include <curl/curl.h>

#include "strbuf.h"

/* 0, or -1 after "cannot initialise libcurl". */
int lab_curl_init(void);
void lab_curl_reason(struct strbuf *out, CURLcode rc, const char *errbuf);
/*
 * A handle for one transfer to url, with what every transfer of the lab
 * sets: curl's words into errbuf (CURL_ERROR_SIZE bytes, for
 * lab_curl_reason()), only the protocols named ("http,https"), a deadline
 * of timeout_s seconds, and no signals (the lab keeps its own handlers);
 * a redirect is not followed unless the caller says so. libcurl is
 * started first. *out is NULL when it cannot be, or no handle can be
 * made (CURLE_FAILED_INIT, after "cannot initialise libcurl": the caller
 * says nothing more); else the caller cleans *out up, whatever is
 * returned: CURLE_OK, or the code of the first setting curl refused.
 */
CURLcode lab_curl_handle(CURL **out, const char *url, const char *protocols, long timeout_s,
			 char *errbuf);
/*
 * 1 when url is scheme:// or its secure form (scheme + "s") followed by
 * something: "http" takes http:// and https:// addresses, "smtp" smtp://
 * and smtps:// ones.
 */
int lab_url_scheme(const char *url, const char *scheme);

#endif
