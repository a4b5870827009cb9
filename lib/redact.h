#ifndef REDACT_H
#define REDACT_H
/*
 * The lab's one rule for secrets inside addresses, applied wherever an
 * address is printed, stored (run_meta, a night's summary) or sent on
 * (a webhook's JSON, a mail):
 *
 *  - the userinfo of an address, user and password alike, becomes ***
 *    (a token is often given as the user: https://TOKEN@host/);
 *  - the value of a query or fragment parameter whose name holds one of
 *    token, secret, pass, pwd, key, auth, sig, credential or session
 *    (case-insensitively: access_token, api_key, X-Amz-Signature...)
 *    becomes ***;
 *  - with URL_REDACT_PATH, the path, query and fragment become one
 *    slash and *** too, for the addresses whose path holds the secret (a
 *    chat service's webhook: https://hooks.example.com/services/T0/B0/KEY).
 *
 * An address is anything that reads scheme://...: text around it is
 * copied as it is, so that a message from a library naming an address
 * can be redacted whole.
 */
#include "strbuf.h"

enum url_redact_flags {
	URL_REDACT_PATH = 1 << 0,
};

/* Append text to out, each address in it redacted. */
void url_redact(struct strbuf *out, const char *text, enum url_redact_flags flags);
/*
 * text redacted as by url_redact() without flags, for a printf argument:
 * text itself when nothing is masked, else a buffer owned here and valid
 * until eight more calls in the same thread.
 */
const char *url_redacted(const char *text);

#endif
