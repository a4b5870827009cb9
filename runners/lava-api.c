/*
 * The lava runner's side of the server (lava-api.h): its config and
 * token, a REST request and the words of a refused one, and the jobs
 * noted under the state root until they end.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "curlutil.h"
#include "escape.h"
#include "host.h"
#include "json.h"
#include "lava-api.h"
#include "log.h"
#include "redact.h"
#include "regfile.h"
#include "subprocess.h"

#define LAVA_REQUEST_TIMEOUT_S 60L
#define LAVA_CANCEL_WAIT_S 120.0

void lava_config_init(struct lava_config *c)
{
	memset(c, 0, sizeof(*c));
}

void lava_config_release(struct lava_config *c)
{
	free(c->url);
	free(c->token);
	free(c->device_type);
	free(c->tags);
	free(c->priority);
	free(c->visibility);
	free(c->job_prefix);
	free(c->template);
	free(c->dtb);
	free(c->modules);
	free(c->rootfs);
	free(c->serve);
	free(c->serve_url);
	free(c->image_dir);
	free(c->image_url);
	lava_config_init(c);
}

static int set_url(void *obj, const char *v)
{
	struct lava_config *c = obj;

	if (!lab_url_scheme(v, "http") || strpbrk(v, " \t\"'?#"))
		return -1;
	key_set_string(&c->url, v);
	/* http://lava/ and http://lava are one server */
	while (strlen(c->url) > 8 && c->url[strlen(c->url) - 1] == '/')
		c->url[strlen(c->url) - 1] = '\0';
	return 0;
}

/* token = ~/PATH is in the home directory, as a shell would have it */
static int set_token(void *obj, const char *v)
{
	struct strbuf path = STRBUF_INIT;
	const char *home = getenv("HOME");
	int ret;

	if (!*v)
		return -1;
	if (strncmp(v, "~/", 2))
		return key_set_string(&((struct lava_config *)obj)->token, v);
	if (!home || !*home)
		return -1;
	strbuf_addf(&path, "%s%s", home, v + 1);
	ret = key_set_string(&((struct lava_config *)obj)->token, path.buf);
	strbuf_release(&path);
	return ret;
}

static int set_image_dir(void *obj, const char *v)
{
	return *v ? key_set_string(&((struct lava_config *)obj)->image_dir, v) : -1;
}

/* a word LAVA's YAML takes as it is */
static int set_word(char **field, const char *v)
{
	return !*v || strpbrk(v, " \t\"'\\:{}[]#") ? -1 : key_set_string(field, v);
}

static int set_device_type(void *obj, const char *v)
{
	return set_word(&((struct lava_config *)obj)->device_type, v);
}

static int set_tags(void *obj, const char *v)
{
	return set_word(&((struct lava_config *)obj)->tags, v);
}

/* LAVA's words for a job's priority, or its number from 0 to 100 */
static int set_priority(void *obj, const char *v)
{
	long n;

	if (strcmp(v, "high") && strcmp(v, "medium") && strcmp(v, "low") &&
	    key_parse_long(&n, v, 0, 100, 0))
		return -1;
	return key_set_string(&((struct lava_config *)obj)->priority, v);
}

/* public, personal, or group:NAME[,NAME...]: who may see the job */
static int set_visibility(void *obj, const char *v)
{
	if (strcmp(v, "public") && strcmp(v, "personal") &&
	    (strncmp(v, "group:", 6) || !v[6] || v[strlen(v) - 1] == ',' || strstr(v, ",,") ||
	     strpbrk(v + 6, " \t\"'\\:{}[]#")))
		return -1;
	return key_set_string(&((struct lava_config *)obj)->visibility, v);
}

/* the job name's first words: one line of printable text, quoted in the job */
static int set_job_prefix(void *obj, const char *v)
{
	size_t n = strlen(v);

	if (!n || n > 64 || v[0] == ' ' || v[n - 1] == ' ')
		return -1;
	for (const char *p = v; *p; p++)
		if ((unsigned char)*p < ' ' || (unsigned char)*p >= 0x7f)
			return -1;
	return key_set_string(&((struct lava_config *)obj)->job_prefix, v);
}

/* a shipped template's name (a word), or a path to one's own (a '/' in it) */
static int set_template(void *obj, const char *v)
{
	if (!*v || (!strchr(v, '/') && strpbrk(v, " \t\"'\\:{}[]#")))
		return -1;
	return key_set_string(&((struct lava_config *)obj)->template, v);
}

static int set_dtb(void *obj, const char *v)
{
	return *v ? key_set_string(&((struct lava_config *)obj)->dtb, v) : -1;
}

static int set_modules(void *obj, const char *v)
{
	return *v ? key_set_string(&((struct lava_config *)obj)->modules, v) : -1;
}

static int set_rootfs(void *obj, const char *v)
{
	return *v ? key_set_string(&((struct lava_config *)obj)->rootfs, v) : -1;
}

static int set_serve(void *obj, const char *v)
{
	return lava_serve_addr_ok(v) ? key_set_string(&((struct lava_config *)obj)->serve, v) : -1;
}

static int set_serve_url(void *obj, const char *v)
{
	char **url = &((struct lava_config *)obj)->serve_url;

	if (!lab_url_scheme(v, "http") || strpbrk(v, " \t\"'?#"))
		return -1;
	key_set_string(url, v);
	/* the files' names follow a '/' of their own */
	while (strlen(*url) > 8 && (*url)[strlen(*url) - 1] == '/')
		(*url)[strlen(*url) - 1] = '\0';
	return 0;
}

static int set_image_url(void *obj, const char *v)
{
	if ((!lab_url_scheme(v, "http") && strncmp(v, "file:///", 8)) || strpbrk(v, " \t\"'"))
		return -1;
	return key_set_string(&((struct lava_config *)obj)->image_url, v);
}

static int set_queue(void *obj, const char *v)
{
	return key_parse_long(&((struct lava_config *)obj)->queue_s, v, 1, 604800, 1);
}

static int set_outage(void *obj, const char *v)
{
	return key_parse_long(&((struct lava_config *)obj)->outage_s, v, 1, 86400, 1);
}

const struct key_setter lava_config_keys[] = {
	{ "url", set_url, "the LAVA server's http:// or https:// URL" },
	{ "token", set_token, "a path (~/ for $HOME, when HOME is set)" },
	{ "devicetype", set_device_type, "a LAVA device type such as qemu" },
	{ "tags", set_tags, "LAVA device tags, comma-separated" },
	{ "priority", set_priority, "high, medium, low or a number from 0 to 100" },
	{ "visibility", set_visibility, "public, personal or group:NAME[,NAME...]" },
	{ "jobprefix", set_job_prefix, "up to 64 printable ASCII characters, no space at either end" },
	{ "template", set_template, "qemu, uboot-tftp, uefi-grub or a path to a template" },
	{ "dtb", set_dtb, "a path" },
	{ "modules", set_modules, "a path" },
	{ "rootfs", set_rootfs, "a path" },
	{ "serve", set_serve, "an IPv4 address and port to listen on, such as 0.0.0.0:8760" },
	{ "serveurl", set_serve_url, "the http:// URL the workers reach serve's address by" },
	{ "imagedir", set_image_dir, "a path" },
	{ "imageurl", set_image_url, "the http://, https:// or file:// URL of imageDir for the worker" },
	{ "queue", set_queue, "seconds from 1 to 604800" },
	{ "outage", set_outage, "seconds from 1 to 86400" },
};
const size_t lava_config_nkeys = ARRAY_SIZE(lava_config_keys);

int lava_token(const struct lava_config *c, struct strbuf *token, struct strbuf *why)
{
	struct stat st;
	int fd;

	strbuf_reset(token);
	if (!c->token) {
		strbuf_addstr(why, "no token file (token = PATH in the target's section)");
		return -1;
	}
	/* a fifo would block the open and the read for ever: not waited for, refused */
	fd = open(c->token, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0 || fstat(fd, &st)) {
		strbuf_addf(why, "cannot read token file '%s': %s", c->token, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		strbuf_addf(why, "token file '%s' is %s, not a regular file", c->token,
			    S_ISFIFO(st.st_mode) ? "a fifo" : S_ISDIR(st.st_mode) ? "a directory" :
			    S_ISSOCK(st.st_mode) ? "a socket" : "a device");
		return -1;
	}
	if (st.st_mode & 077) {
		close(fd);
		strbuf_addf(why, "token file '%s' is readable by others (mode %04o): chmod 600 it",
			    c->token, (unsigned)(st.st_mode & 07777));
		return -1;
	}
	if (strbuf_read_fd(token, fd, 4096)) {
		strbuf_addf(why, "cannot read token file '%s': %s", c->token, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	strbuf_trim(token);
	if (!token->len || strpbrk(token->buf, " \t\r\n")) {
		strbuf_addf(why, "token file '%s' holds no token (one word)", c->token);
		return -1;
	}
	return 0;
}

void lava_excerpt(struct strbuf *sb, const char *s)
{
	struct strbuf cut = STRBUF_INIT;
	size_t n = strlen(s);

	strbuf_add(&cut, s, n > LAVA_EXCERPT_MAX ? LAVA_EXCERPT_MAX : n);
	strbuf_trim(&cut);
	escape_term(sb, cut.buf, 0);
	if (n > LAVA_EXCERPT_MAX)
		strbuf_addstr(sb, "...");
	strbuf_release(&cut);
}

struct answer {
	struct strbuf *sb;
	int over;		/* it went past LAVA_ANSWER_MAX */
};

static size_t keep_body(char *data, size_t size, size_t n, void *arg)
{
	struct answer *a = arg;

	if (a->sb->len + size * n > LAVA_ANSWER_MAX) {
		a->over = 1;
		return 0;	/* curl stops the transfer */
	}
	strbuf_add(a->sb, data, size * n);
	return size * n;
}

/*
 * method path (from /api/v0.2/) with body (JSON; NULL: none): the answer
 * into *resp and its HTTP status; -1 when there was no answer (l->why).
 */
int lava_request(struct lava *l, const char *method, const char *path, const char *body,
		   struct strbuf *resp, long *status)
{
	struct strbuf url = STRBUF_INIT, auth = STRBUF_INIT;
	struct curl_slist *headers = NULL;
	char errbuf[CURL_ERROR_SIZE] = "";
	struct answer answer = { resp, 0 };
	CURL *curl = NULL;
	char *location = NULL;
	CURLcode rc;
	int ret = -1;

	strbuf_reset(resp);
	strbuf_grow(resp, 1);	/* a C string, empty when the answer is */
	*status = 0;
	l->status = 0;
	strbuf_reset(&l->location);
	if (lab_curl_init())
		return -1;
	strbuf_addf(&url, "%s/api/v0.2/%s", l->cfg->url, path);
	strbuf_addf(&auth, "Authorization: Token %s", l->token.buf);
	headers = curl_slist_append(headers, auth.buf);
	headers = curl_slist_append(headers, "Accept: application/json");
	if (body)
		headers = curl_slist_append(headers, "Content-Type: application/json");
	rc = lab_curl_handle(&curl, url.buf, "http,https", LAVA_REQUEST_TIMEOUT_S, errbuf);
	if (!curl || !headers) {
		strbuf_reset(&l->why);
		strbuf_addstr(&l->why, "cannot initialise libcurl");
		goto out;
	}
	if (rc || (rc = curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method)) ||
	    (rc = curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers)) ||
	    (rc = curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, keep_body)) ||
	    (rc = curl_easy_setopt(curl, CURLOPT_WRITEDATA, &answer)) ||
	    /* a redirect is said, never followed: the token would go along */
	    (rc = curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L)) ||
	    (body && (rc = curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body))) ||
	    (rc = curl_easy_perform(curl))) {
		strbuf_reset(&l->why);
		if (answer.over) {
			strbuf_addf(&l->why, "LAVA server '%s' answered %s %s with more than %zu MiB: "
				    "refused (the lab reads at most that)", url_redacted(l->cfg->url),
				    method, path, LAVA_ANSWER_MAX >> 20);
			strbuf_reset(resp);
			goto out;
		}
		strbuf_addf(&l->why, "cannot reach LAVA server '%s': ", url_redacted(l->cfg->url));
		lab_curl_reason(&l->why, rc, errbuf);
		goto out;
	}
	curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, status);
	l->status = *status;
	if (*status / 100 == 3 && !curl_easy_getinfo(curl, CURLINFO_REDIRECT_URL, &location) &&
	    location)
		url_redact(&l->location, location, 0);
	ret = 0;
out:
	if (curl)
		curl_easy_cleanup(curl);
	curl_slist_free_all(headers);
	strbuf_release(&url);
	strbuf_release(&auth);
	return ret;
}

int lava_transient(const struct lava *l)
{
	return !l->status || l->status / 100 == 5;
}

/* The words of a refused request: its status and the server's detail, if any. */
void lava_refused(struct lava *l, const char *what, long status, const struct strbuf *resp)
{
	struct strbuf detail = STRBUF_INIT;

	strbuf_reset(&l->why);
	if (status / 100 == 3) {
		strbuf_addf(&l->why, "LAVA server '%s' redirects %s (HTTP %ld) to '%s': not followed, "
			    "since the token would go along; set url to the address it leads to",
			    url_redacted(l->cfg->url), what, status,
			    l->location.len ? term_safe(l->location.buf) : "nowhere said");
		return;
	}
	strbuf_addf(&l->why, "LAVA server '%s' refused %s: HTTP %ld", url_redacted(l->cfg->url), what,
		    status);
	if (!json_get_string(resp->buf ? resp->buf : "", "detail", &detail) ||
	    !json_get_string(resp->buf ? resp->buf : "", "message", &detail)) {
		strbuf_addstr(&l->why, " (");
		lava_excerpt(&l->why, detail.buf);
		strbuf_addstr(&l->why, ")");
	} else if (resp->len && resp->len < 300 && !strchr(resp->buf, '<')) {
		strbuf_addstr(&l->why, " (");
		lava_excerpt(&l->why, resp->buf);
		strbuf_addstr(&l->why, ")");
	}
	strbuf_release(&detail);
}

/* GET path, 2xx expected, into *resp: -1 with l->why. */
int lava_get(struct lava *l, const char *what, const char *path, struct strbuf *resp)
{
	long status;

	if (lava_request(l, "GET", path, NULL, resp, &status))
		return -1;
	if (status / 100 != 2) {
		lava_refused(l, what, status, resp);
		return -1;
	}
	return 0;
}

int lava_open(struct lava *l, const struct lava_config *cfg)
{
	memset(l, 0, sizeof(*l));
	l->cfg = cfg;
	if (!cfg) {
		strbuf_addstr(&l->why, "no LAVA server: the lava runner boots on a [target] of its own");
		return -1;
	}
	if (!cfg->url) {
		strbuf_addstr(&l->why, "no LAVA server (url = http://... in the target's section)");
		return -1;
	}
	if (!cfg->device_type) {
		strbuf_addstr(&l->why, "no device type (deviceType = ... in the target's section)");
		return -1;
	}
	return lava_token(cfg, &l->token, &l->why);
}

void lava_close(struct lava *l)
{
	strbuf_release(&l->token);
	strbuf_release(&l->why);
	strbuf_release(&l->location);
}

/* The jobs of this state root not known to have ended: a file each, "<pid start> <server>". */
static void job_note_path(struct strbuf *sb, const char *cache, long id)
{
	strbuf_addf(sb, "%s/lava-jobs", cache);
	if (id)
		strbuf_addf(sb, "/%ld", id);
}

void lava_job_note(const char *cache, const struct lava_config *c, long id)
{
	struct strbuf path = STRBUF_INIT;
	char start[128];
	FILE *f;

	if (!cache)
		return;
	job_note_path(&path, cache, 0);
	mkdir(path.buf, 0755);
	strbuf_reset(&path);
	job_note_path(&path, cache, id);
	if (host_process_start(start, sizeof(start), getpid()))
		snprintf(start, sizeof(start), "unknown");
	f = fopen(path.buf, "w");
	if (f) {
		/* a file that may outlive the lab: the server's address without its secrets */
		fprintf(f, "%d %s\n%s\n", (int)getpid(), start, url_redacted(c->url));
		fclose(f);
	}
	strbuf_release(&path);
}

void lava_job_orphan(const char *cache, const struct lava_config *c, long id)
{
	struct strbuf path = STRBUF_INIT;
	FILE *f;

	if (!cache)
		return;
	job_note_path(&path, cache, id);
	f = fopen(path.buf, "w");
	if (f) {
		/* pid 0: no lab's own, so the next look at the notes cancels it */
		fprintf(f, "0 cancel\n%s\n", url_redacted(c->url));
		fclose(f);
	}
	strbuf_release(&path);
}

void lava_job_unnote(const char *cache, long id)
{
	struct strbuf path = STRBUF_INIT;

	if (!cache)
		return;
	job_note_path(&path, cache, id);
	unlink(path.buf);
	strbuf_release(&path);
}

int lava_wait_finished(struct lava *l, long id, double s)
{
	struct strbuf path = STRBUF_INIT, resp = STRBUF_INIT, state = STRBUF_INIT;
	double until = now_monotonic() + s;
	int ret = -1;

	strbuf_addf(&path, "jobs/%ld/", id);
	while (now_monotonic() < until) {
		if (!lava_get(l, "the job's state", path.buf, &resp) &&
		    !json_get_string(resp.buf, "state", &state) && !strcmp(state.buf, "Finished")) {
			ret = 0;
			break;
		}
		usleep(LAVA_POLL_MS * 1000);
	}
	strbuf_release(&path);
	strbuf_release(&resp);
	strbuf_release(&state);
	return ret;
}

/* Cancel; then wait, within LAVA_CANCEL_WAIT_S, for the job to be Finished. */
int lava_cancel_job(struct lava *l, long id)
{
	struct strbuf path = STRBUF_INIT, resp = STRBUF_INIT;
	long status;
	int ret;

	strbuf_addf(&path, "jobs/%ld/cancel/", id);
	/* LAVA's cancel is a GET (a POST is 405) */
	if (lava_request(l, "GET", path.buf, NULL, &resp, &status))
		ret = -1;
	else if (status == 404)
		ret = 0;	/* no such job (any more): nothing left to cancel */
	else if (status / 100 != 2) {
		lava_refused(l, "the cancel", status, &resp);
		ret = -1;
	} else
		ret = lava_wait_finished(l, id, LAVA_CANCEL_WAIT_S);
	strbuf_release(&path);
	strbuf_release(&resp);
	return ret;
}

/* Cancel the noted jobs of labs no longer running: each said in one line. */
void lava_cancel_orphans(struct lava *l, const char *cache)
{
	struct strbuf dir = STRBUF_INIT, path = STRBUF_INIT, note = STRBUF_INIT;
	struct dirent *d;
	DIR *dp;

	if (!cache)
		return;
	job_note_path(&dir, cache, 0);
	dp = opendir(dir.buf);
	while (dp && (d = readdir(dp))) {
		char *end, now[128];
		long id = strtol(d->d_name, &end, 10);
		int pid;

		if (id <= 0 || *end)
			continue;
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", dir.buf, d->d_name);
		strbuf_reset(&note);
		if (strbuf_read_file(&note, path.buf, 4096))
			continue;
		/* a job of a lab still running is its own; of another server, not ours to end */
		pid = atoi(note.buf);
		if (pid > 0 && !host_process_start(now, sizeof(now), pid) &&
		    !strncmp(strchr(note.buf, ' ') ? strchr(note.buf, ' ') + 1 : "", now, strlen(now)))
			continue;
		if (!strstr(note.buf, url_redacted(l->cfg->url)))
			continue;
		if (pid > 0)
			info("cancelling LAVA job %ld of a lab that ended before it did", id);
		else
			info("cancelling LAVA job %ld, left running while its server did not answer", id);
		if (!lava_cancel_job(l, id))
			unlink(path.buf);
		else
			warning("cannot cancel LAVA job %ld: %s", id, l->why.buf);
	}
	if (dp)
		closedir(dp);
	strbuf_release(&dir);
	strbuf_release(&path);
	strbuf_release(&note);
}
