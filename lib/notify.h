#ifndef NOTIFY_H
#define NOTIFY_H
/*
 * Telling people, with libcurl: a plain-text mail over SMTP and a webhook
 * POST with a JSON body (what a night of lab nightly found).
 *
 * Credentials live in a file of their own, named by the nightly's
 * `credentials` key, as lines "user = U", "password = P" (SMTP AUTH) and
 * "token = T" (the webhook's "Authorization: Bearer T"). A file that its
 * group or others may read is refused, and what it holds is never printed,
 * logged or stored: messages name the file, never its contents.
 */
#include "strbuf.h"

struct notify_creds {
	struct strbuf user, password, token;
};

void notify_creds_init(struct notify_creds *c);
void notify_creds_release(struct notify_creds *c);	/* wipes the secrets */

/* Read path (NULL: no credentials, all empty); -1 after a message naming it. */
int notify_creds_read(struct notify_creds *c, const char *path);

/*
 * A plain address (an RFC 5322 addr-spec of dot-atoms: local@domain, no
 * name, no <>, no quoted or bracketed parts, nothing but printable ASCII):
 * 1 when addr is one. An address goes into the SMTP dialogue and a mail's
 * header as it is, so anything else is refused, never mended.
 */
int notify_address_ok(const char *addr);
/*
 * 1 when list is one or more plain addresses, each after a comma (and
 * blanks) but the first; a list with any control byte, tab and line break
 * included, is not one. notify_address_list_split() pushes the addresses,
 * blanks trimmed, onto out (0), or pushes nothing (-1): whatever puts a list
 * into a header or the SMTP dialogue uses these pieces, never the list.
 */
int notify_address_list_ok(const char *list);
struct strvec;
int notify_address_list_split(struct strvec *out, const char *list);
#define NOTIFY_ADDRESSES_EXPECTED \
	"plain addresses such as lab@example.org, comma-separated (no names, no <>)"

/* Where messages go, as the sender's configuration says; NULL: not set. */
struct notify_to {
	const char *who;		/* names the sender in messages: "nightly 'mm'" */
	const char *smtp;		/* smtp://host:port */
	const char *mail_from;		/* NULL or "": lab@localhost */
	const char *mail_to;		/* addresses, comma-separated */
	const char *webhook;		/* URL */
};

/*
 * Mail subject and body (plain text, lines ending "\n") from to->mail_from
 * to each address of to->mail_to through to->smtp. Addresses that are not
 * plain and a subject of more than one line are refused (-1, said).
 */
int notify_mail(const struct notify_to *to, const struct notify_creds *c, const char *subject,
		const char *body);

/* POST json to to->webhook; a status other than 2xx is a failure. */
int notify_webhook(const struct notify_to *to, const struct notify_creds *c, const char *json);

#endif
