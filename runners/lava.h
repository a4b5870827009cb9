#ifndef LAVA_H
#define LAVA_H
/*
 * The lava runner: each boot a job on a LAVA server (a board farm's
 * scheduler, KernelCI's), submitted through its REST API, that deploys the
 * lab's kernel and initramfs to a device of the type asked and boots them
 * with the lab's command line and nonce. The job's log is read as it
 * grows, its console lines fed to the shared console parser, so samples
 * arrive as with any runner.
 *
 * A job LAVA fails before the kernel spoke (infrastructure, a device
 * offline, cancelled by someone) is RUN_INFRA, never a kernel verdict; a
 * kernel that spoke and never reached the guest's done is BOOT_FAILED;
 * the lab's deadline cancels the job: TIMEOUT. Every job submitted is
 * noted under the state root until it ends, so that a lab that was killed
 * has its jobs cancelled by the next lab to use the runner.
 */
#include "keys.h"
#include "strbuf.h"

/* how long a job may wait for a device before it is cancelled: INFRA */
#define LAVA_DEFAULT_QUEUE_S 1800L
/*
 * how long the server may go unanswering (no answer, or a 5xx) before a
 * boot gives up on it: INFRA, its job cancelled when the server is back
 */
#define LAVA_DEFAULT_OUTAGE_S 300L

struct lava_config {
	char *url;		/* the server: http://lava.example.org (no /api) */
	char *token;		/* a file holding the API token, mode 0600 */
	char *device_type;	/* the job's device_type */
	char *tags;		/* comma-separated device tags; NULL: none */
	char *priority;		/* high, medium, low or 0-100; NULL: medium */
	char *visibility;	/* public, personal or group:NAME[,NAME]; NULL: public */
	char *job_prefix;	/* the job name's first word(s); NULL: "lab" */
	char *template;		/* a job template: a shipped one's name or a path; NULL: qemu */
	char *dtb, *modules, *rootfs;	/* files for the template's {{dtb_url}}...; NULL: none */
	char *serve;		/* HOST:PORT the lab serves the images at itself; NULL: it does not */
	char *serve_url;	/* what that is to the workers; NULL: http://HOST:PORT */
	char *image_dir;	/* where the images go for the worker; NULL: where they are */
	char *image_url;	/* what image_dir is to the worker; NULL: file:// of it */
	long queue_s;		/* 0: LAVA_DEFAULT_QUEUE_S */
	long outage_s;		/* 0: LAVA_DEFAULT_OUTAGE_S */
};

void lava_config_init(struct lava_config *c);
void lava_config_release(struct lava_config *c);
/*
 * The keys of a lava [target] (url, token, devicetype, tags, priority,
 * visibility, jobprefix, template, dtb, modules, rootfs, serve, serveurl, imagedir, imageurl,
 * queue, outage), each set into a
 * struct lava_config and checked here.
 */
extern const struct key_setter lava_config_keys[];
extern const size_t lava_config_nkeys;

/*
 * The token of c, read from its file, into *token: -1 with the reason in
 * *why when the file cannot be read, is empty, or is readable by its group
 * or others (a token is a password).
 */
int lava_token(const struct lava_config *c, struct strbuf *token, struct strbuf *why);

#endif
