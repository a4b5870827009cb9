#ifndef LAVA_API_H
#define LAVA_API_H
/*
 * The lava runner's requests to its server (lava-api.c), for lava.c
 * alone: each -1 leaves the reason in the struct lava's why.
 */
#include "lava.h"
#include "strbuf.h"

#define LAVA_POLL_MS 1000	/* between two looks at a job */
/*
 * The most of one answer the lab reads (a job's log is read a second's
 * worth at a time): a server that says more is refused, not held.
 */
#define LAVA_ANSWER_MAX ((size_t)16 << 20)
/* The most of a server's words a message quotes. */
#define LAVA_EXCERPT_MAX 200

/* A connection's worth of what every request needs. */
struct lava {
	const struct lava_config *cfg;
	struct strbuf token;
	struct strbuf why;	/* the last failure */
	long status;		/* of the last answer; 0: none */
	struct strbuf location;	/* where a 3xx answer leads, secrets masked */
};

/* Up to LAVA_EXCERPT_MAX bytes of s, made one line safe for a terminal, "..." when cut. */
void lava_excerpt(struct strbuf *sb, const char *s);

/* cfg's server, device type and token: -1 when one is missing or the token unusable. */
int lava_open(struct lava *l, const struct lava_config *cfg);
void lava_close(struct lava *l);
/*
 * method path (from /api/v0.2/) with body (JSON; NULL: none): the answer
 * into *resp and its HTTP status; -1 when there was no answer.
 */
int lava_request(struct lava *l, const char *method, const char *path, const char *body,
	    struct strbuf *resp, long *status);
/* why = the words of a refused request: its status and the server's detail, if any. */
void lava_refused(struct lava *l, const char *what, long status, const struct strbuf *resp);
/* GET path, 2xx expected, into *resp. */
int lava_get(struct lava *l, const char *what, const char *path, struct strbuf *resp);
/* Until the job is Finished, within s seconds: 0, or -1 when it was not. */
int lava_wait_finished(struct lava *l, long id, double s);
/* Cancel (a GET, as LAVA has it); then wait, a bounded time, for the job to be Finished. */
int lava_cancel_job(struct lava *l, long id);

/*
 * The jobs of a state root not known to have ended, a file each under
 * cache/lava-jobs (cache NULL: none kept): noted when submitted,
 * unnoted when ended; lava_cancel_orphans() cancels those of labs no longer
 * running, each said in one line.
 */
void lava_job_note(const char *cache, const struct lava_config *c, long id);
void lava_job_unnote(const char *cache, long id);
void lava_cancel_orphans(struct lava *l, const char *cache);

#endif
