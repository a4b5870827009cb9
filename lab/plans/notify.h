#ifndef NOTIFY_H
#define NOTIFY_H
/*
 * Telling people what a night found, with libcurl: a plain-text mail over
 * SMTP and a webhook POST with a JSON body (lab nightly).
 *
 * Credentials live in a file of their own, named by the nightly's
 * `credentials` key, as lines "user = U", "password = P" (SMTP AUTH) and
 * "token = T" (the webhook's "Authorization: Bearer T"). A file that its
 * group or others may read is refused, and what it holds is never printed,
 * logged or stored: messages name the file, never its contents.
 */
#include "config.h"
#include "strbuf.h"

struct notify_creds {
	struct strbuf user, password, token;
};

void notify_creds_init(struct notify_creds *c);
void notify_creds_release(struct notify_creds *c);	/* wipes the secrets */

/* Read path (NULL: no credentials, all empty); -1 after a message naming it. */
int notify_creds_read(struct notify_creds *c, const char *path);

/*
 * Mail subject and body (plain text, lines ending "\n") from n->mail_from
 * to each address of n->mail_to (comma-separated) through n->smtp.
 */
int notify_mail(const struct lab_nightly *n, const struct notify_creds *c, const char *subject,
		const char *body);

/* POST json to n->webhook; a status other than 2xx is a failure. */
int notify_webhook(const struct lab_nightly *n, const struct notify_creds *c, const char *json);

#endif
