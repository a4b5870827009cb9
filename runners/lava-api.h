#ifndef LAVA_API_H
#define LAVA_API_H
/*
 * The lava runner's requests to its server (lava-api.c), for lava.c
 * alone: each -1 leaves the reason in the struct lava's why.
 */
#include "lava.h"
#include "strbuf.h"

struct run_spec;

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
/*
 * The last request had no answer, or a 5xx: the server or the way to it
 * is down, which the lab waits out (within cfg's outage) rather than
 * takes for the server's word.
 */
int lava_transient(const struct lava *l);
/* why = the words of a refused request: its status and the server's detail, if any. */
void lava_refused(struct lava *l, const char *what, long status, const struct strbuf *resp);
/* GET path, 2xx expected, into *resp. */
int lava_get(struct lava *l, const char *what, const char *path, struct strbuf *resp);
/* Until the job is Finished, within s seconds: 0, or -1 when it was not. */
int lava_wait_finished(struct lava *l, long id, double s);
/*
 * Cancel (a GET, as LAVA has it); then wait, a bounded time, for the job
 * to be Finished. 0 too when the server has no such job.
 */
int lava_cancel_job(struct lava *l, long id);

/*
 * The jobs of a state root not known to have ended, a file each under
 * cache/lava-jobs (cache NULL: none kept): noted when submitted,
 * unnoted when ended; lava_cancel_orphans() cancels those of labs no longer
 * running, each said in one line. lava_job_orphan() gives a job whose
 * cancel failed (the server down) to the next look at the notes, this
 * lab's own included.
 */
void lava_job_note(const char *cache, const struct lava_config *c, long id);
void lava_job_orphan(const char *cache, const struct lava_config *c, long id);
void lava_job_unnote(const char *cache, long id);
void lava_cancel_orphans(struct lava *l, const char *cache);

/*
 * The URL the worker fetches file from for the boot of nonce: where it is
 * (file://), or its copy as lab-NONCE-name in imageDir, by imageUrl.
 * lava_remove_images() removes the boot's copies.
 */
int lava_image_url(struct strbuf *url, const struct lava_config *c, const char *file,
		   const char *name, const char *nonce, struct strbuf *why);
void lava_remove_images(const struct lava_config *c, const char *nonce);
/*
 * The lab's own file server (lava-serve.c), for a target with serve =
 * HOST:PORT: started once per lab process, before the first boot, in a
 * child that dies with the lab; it serves the files of <cache>/lava-serve
 * by name (GET and HEAD), where each boot copies its images while it is in
 * flight. lava_serve_where(): that folder and its URL for the workers (a
 * target's serveUrl, else http://HOST:PORT), -1 when none was started.
 */
int lava_serve_addr_ok(const char *addr);
int lava_serve_start(const struct lava_config *c, const char *cache, struct strbuf *why);
int lava_serve_where(const char **dir, const char **url);

/*
 * A job: a template (the target's, a file or one the lab ships) with
 * {{name}} placeholders, filled with a boot's values (the lab's
 * runners/lava-templates/README.md names them).
 */
#define LAVA_TEMPLATE_MAX ((size_t)1 << 20)
struct lava_job {
	struct strbuf *v;	/* each placeholder's value, as it goes in the YAML */
	char *set;		/* ... and whether it has one */
};
/* the templates shipped in runners/lava-templates, compiled in; a NULL name ends them */
struct lava_shipped {
	const char *name, *text;
};
extern const struct lava_shipped lava_shipped_templates[];

void lava_job_init(struct lava_job *j);
void lava_job_release(struct lava_job *j);
/* Every value of spec's boot but the images' URLs. */
void lava_job_values(struct lava_job *j, const struct run_spec *spec);
/* The URL of image name (kernel, ramdisk, dtb, modules, rootfs): name_url. */
void lava_job_url(struct lava_job *j, const char *name, const char *url);
/* c's template into *text, its name for messages into *what: -1 with why. */
int lava_job_template(struct strbuf *text, struct strbuf *what, const struct lava_config *c,
		      struct strbuf *why);
/*
 * text (the template what) filled with j into *y: -1 with one line in why
 * naming the line and the placeholder unknown or without a value.
 */
int lava_job_fill(struct strbuf *y, const struct lava_job *j, const char *what, const char *text,
		  struct strbuf *why);
/* Does text have a placeholder of that name? 1 or 0. */
int lava_job_names(const char *text, const char *name);

#endif
