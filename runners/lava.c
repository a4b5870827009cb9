/*
 * The lava runner (lava.h): the job definition, and a boot: the job
 * submitted, waited for while it queues, its log read into the console
 * as it grows, its end told apart (the kernel's, LAVA's, the deadline's).
 * The server's side is lava-api.c.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "drive.h"
#include "escape.h"
#include "json.h"
#include "lava-api.h"
#include "log.h"
#include "redact.h"
#include "runner.h"
#include "subprocess.h"

#define NO_TARGET "the lava runner boots on a target: --target NAME, a [target] with runner = lava"

/* after the guest's done, for LAVA to end the job itself */
#define LAVA_FINISH_WAIT_S 60.0

/*
 * The URL the worker fetches file from: where it is (file://), or its
 * copy as name in imageDir, by imageUrl (file:// of imageDir without one).
 */
static int image_url(struct strbuf *url, const struct lava_config *c, const char *file,
		     const char *name, const char *nonce, struct strbuf *why)
{
	struct strbuf dst = STRBUF_INIT, data = STRBUF_INIT;
	char real[PATH_MAX];
	FILE *f = NULL;
	int ret = -1;

	if (!c->image_dir) {
		if (!realpath(file, real)) {
			strbuf_addf(why, "cannot resolve '%s': %s", file, strerror(errno));
			return -1;
		}
		strbuf_addf(url, "file://%s", real);
		return 0;
	}
	strbuf_addf(&dst, "%s/lab-%s-%s", c->image_dir, nonce, name);
	if (strbuf_read_file(&data, file, (size_t)1 << 31)) {
		strbuf_addf(why, "cannot read '%s': %s", file, strerror(errno));
		goto out;
	}
	if (!(f = fopen(dst.buf, "w")) || fwrite(data.buf, 1, data.len, f) != data.len) {
		strbuf_addf(why, "cannot write '%s' (imageDir): %s", dst.buf, strerror(errno));
		goto out;
	}
	if (c->image_url)
		strbuf_addf(url, "%s/lab-%s-%s", c->image_url, nonce, name);
	else
		strbuf_addf(url, "file://%s", dst.buf);
	ret = 0;
out:
	if (f && fclose(f) && !ret) {
		strbuf_addf(why, "cannot write '%s' (imageDir): %s", dst.buf, strerror(errno));
		ret = -1;
	}
	strbuf_release(&dst);
	strbuf_release(&data);
	return ret;
}

static void remove_images(const struct lava_config *c, const char *nonce)
{
	static const char *const names[] = { "kernel", "initramfs" };
	struct strbuf p = STRBUF_INIT;

	for (size_t i = 0; c->image_dir && i < 2; i++) {
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/lab-%s-%s", c->image_dir, nonce, names[i]);
		unlink(p.buf);
	}
	strbuf_release(&p);
}

/* A YAML scalar in single quotes: nothing is special there but the quote, doubled. */
static void yaml_quote(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			strbuf_addch(sb, '\'');
		strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '\'');
}

/*
 * The job: deploy the kernel and the lab's initramfs to tmpfs, boot them
 * with QEMU (the device's) and the lab's command line, done when the
 * kernel powers the machine off (the guest's last act).
 */
static void job_definition(struct strbuf *y, const struct run_spec *spec, const char *kernel_url,
			   const char *initrd_url)
{
	const struct lava_config *c = spec->lava;
	char cmdline[4096];
	struct strbuf arg = STRBUF_INIT;
	long minutes = (long)ceil(spec->timeout_s / 60.0) + 1;
	int arm = !strcmp(spec->arch, "aarch64");
	int tcg = spec->accel && !strcmp(spec->accel, "tcg");

	run_spec_cmdline(spec, cmdline, sizeof(cmdline));
	strbuf_addf(y, "device_type: %s\n", c->device_type);
	strbuf_addf(y, "job_name: lab boot %s\n", spec->nonce ? spec->nonce : "");
	strbuf_addstr(y, "priority: medium\nvisibility: public\n");
	if (c->tags) {
		strbuf_addstr(y, "tags:\n");
		for (const char *p = c->tags; *p;) {
			size_t n = strcspn(p, ",");

			strbuf_addf(y, "- %.*s\n", (int)n, p);
			p += n + (p[n] == ',');
		}
	}
	strbuf_addf(y, "timeouts:\n  job:\n    minutes: %ld\n  action:\n    minutes: %ld\n",
		    minutes + 5, minutes + 5);
	strbuf_addstr(y, "  connection:\n    minutes: 2\n");
	/* the qemu runner's machine, as far as the device type lets the job say */
	strbuf_addf(y, "context:\n  arch: %s\n", arm ? "arm64" : "amd64");
	strbuf_addf(y, "  memory: %ld\n", spec->mem_mib);
	if (arm)
		strbuf_addstr(y, "  cpu: max\n");
	if (tcg && !arm)
		strbuf_addstr(y, "  no_kvm: true\n");
	strbuf_addf(y, "  extra_options:\n  - -no-reboot\n  - -smp %d\n", spec->cpus > 0 ? spec->cpus : 1);
	if (tcg && !arm)
		strbuf_addstr(y, "  - -cpu max\n");
	if (spec->clock && !strcmp(spec->clock, "icount"))
		strbuf_addf(y, "  - -icount shift=%d,sleep=off\n", spec->icount_shift);
	strbuf_addstr(y, "actions:\n- deploy:\n    to: tmpfs\n    timeout:\n      minutes: 5\n"
		      "    images:\n      kernel:\n        image_arg: ");
	strbuf_addf(&arg, "-kernel {kernel} -append \"%s%s%s\"", cmdline,
		    spec->nonce ? " lab.nonce=" : "", spec->nonce ? spec->nonce : "");
	yaml_quote(y, arg.buf);
	strbuf_addstr(y, "\n        url: ");
	yaml_quote(y, kernel_url);
	strbuf_addstr(y, "\n      initrd:\n        image_arg: '-initrd {initrd}'\n        url: ");
	yaml_quote(y, initrd_url);
	strbuf_addf(y, "\n- boot:\n    method: qemu\n    media: tmpfs\n    timeout:\n"
		    "      minutes: %ld\n    prompts:\n    - 'reboot: Power down'\n", minutes);
	strbuf_release(&arg);
}

/* The job's log as the console reads it, and how the job stands. */
struct lava_boot {
	struct drive_source src;
	struct lava *l;
	long id;
	long lines;		/* log lines read so far */
	int ended;		/* the job is Finished */
	int finished;		/* ... and its log read to the end */
	int cancelled;		/* by the lab: its deadline */
	struct strbuf pending;	/* console bytes not handed out yet */
	struct strbuf health, comment, device;
	struct strbuf error_type;	/* of LAVA's result of the job: Job, Infrastructure, ... */
	const struct console *con;	/* what the console read so far */
};

/* The job's state (and health, failure comment, device) into b: -1 with l->why. */
static int job_state(struct lava_boot *b, struct strbuf *state)
{
	struct strbuf path = STRBUF_INIT, resp = STRBUF_INIT;
	int ret;

	strbuf_addf(&path, "jobs/%ld/", b->id);
	ret = lava_get(b->l, "the job's state", path.buf, &resp);
	if (!ret) {
		json_get_string(resp.buf, "state", state);
		json_get_string(resp.buf, "health", &b->health);
		if (!b->comment.len)
			json_get_string(resp.buf, "failure_comment", &b->comment);
		if (json_get(resp.buf, "actual_device", &b->device) != JSON_STRING)
			strbuf_reset(&b->device);
	}
	strbuf_release(&path);
	strbuf_release(&resp);
	return ret;
}

/* A results line: the job's own (case job) says why it failed. */
static void job_result(struct lava_boot *b, const char *line, struct strbuf *tmp)
{
	struct strbuf result = STRBUF_INIT;

	if (json_get(line, "msg", &result) == JSON_OTHER &&
	    !json_get_string(result.buf, "case", tmp) && !strcmp(tmp->buf, "job")) {
		json_get_string(result.buf, "error_type", &b->error_type);
		if (!json_get_string(result.buf, "error_msg", tmp) && !b->comment.len) {
			strbuf_trim(tmp);
			strbuf_add(&b->comment, tmp->buf, tmp->len);
		}
	}
	strbuf_release(&result);
}

/*
 * The log lines after b->lines: each "- {...}" of level target is a line
 * of the device's console, into b->pending. The count of lines read.
 */
static long read_log(struct lava_boot *b)
{
	struct strbuf path = STRBUF_INIT, resp = STRBUF_INIT, lvl = STRBUF_INIT, msg = STRBUF_INIT;
	long n = 0, status;

	strbuf_addf(&path, "jobs/%ld/logs/?start=%ld", b->id, b->lines);
	if (lava_request(b->l, "GET", path.buf, NULL, &resp, &status) || status / 100 != 2)
		goto out;
	for (char *p = resp.len ? resp.buf : "", *nl; *p; p = nl ? nl + 1 : p + strlen(p)) {
		if ((nl = strchr(p, '\n')))
			*nl = '\0';
		if (strncmp(p, "- ", 2))
			continue;
		n++;
		if (json_get_string(p + 2, "lvl", &lvl))
			continue;
		if (!strcmp(lvl.buf, "target") && !json_get_string(p + 2, "msg", &msg)) {
			/* the dispatcher writes each " of the console as \" */
			for (const char *m = msg.buf; *m; m++)
				if (!(m[0] == '\\' && m[1] == '"'))
					strbuf_addch(&b->pending, *m);
			strbuf_addch(&b->pending, '\n');
		} else if (!strcmp(lvl.buf, "results")) {
			job_result(b, p + 2, &msg);
		}
	}
	b->lines += n;
out:
	strbuf_release(&path);
	strbuf_release(&resp);
	strbuf_release(&lvl);
	strbuf_release(&msg);
	return n;
}

static ssize_t lava_read(struct drive_source *src, char *buf, size_t len, int timeout_ms)
{
	struct lava_boot *b = (struct lava_boot *)src;
	struct strbuf state = STRBUF_INIT;
	size_t n;

	if (!b->pending.len && !b->finished && !read_log(b)) {
		if (b->ended)
			b->finished = 1;	/* nothing came after it ended: the log is whole */
		else if (!job_state(b, &state) && !strcmp(state.buf, "Finished"))
			b->ended = 1;		/* its last lines may follow */
		else
			usleep((useconds_t)(timeout_ms < LAVA_POLL_MS ? timeout_ms : LAVA_POLL_MS) *
			       1000);
	}
	strbuf_release(&state);
	if (!b->pending.len)
		return b->finished ? 0 : -1;
	n = b->pending.len < len ? b->pending.len : len;
	memcpy(buf, b->pending.buf, n);
	memmove(b->pending.buf, b->pending.buf + n, b->pending.len - n);
	strbuf_setlen(&b->pending, b->pending.len - n);
	return (ssize_t)n;
}

/*
 * The deadline, or the guest done (or its kernel failed) a while ago: a
 * job whose guest is done is let finish as LAVA finishes it (it powers
 * the device off, its result Complete); any other is cancelled.
 */
static void lava_stop(struct drive_source *src)
{
	struct lava_boot *b = (struct lava_boot *)src;

	if (b->con && (b->con->saw_done || b->con->kernel_failed) &&
	    !lava_wait_finished(b->l, b->id, LAVA_FINISH_WAIT_S))
		return;
	b->cancelled = 1;
	if (lava_cancel_job(b->l, b->id))
		warning("cannot cancel LAVA job %ld: %s", b->id, b->l->why.buf);
}

/* Submit y: the job's id, or 0 with l->why. */
static long submit(struct lava *l, const char *y)
{
	struct strbuf body = STRBUF_INIT, resp = STRBUF_INIT, ids = STRBUF_INIT;
	long status, id = 0;

	strbuf_addstr(&body, "{\"definition\": ");
	escape_json_sb(&body, y);
	strbuf_addch(&body, '}');
	if (lava_request(l, "POST", "jobs/", body.buf, &resp, &status))
		goto out;
	if (status / 100 != 2 || json_get(resp.buf, "job_ids", &ids) != JSON_OTHER ||
	    ids.buf[0] != '[' || (id = strtol(ids.buf + 1, NULL, 10)) <= 0) {
		lava_refused(l, "the job", status, &resp);
		id = 0;
	}
out:
	strbuf_release(&body);
	strbuf_release(&resp);
	strbuf_release(&ids);
	return id;
}

/* Until the job runs (or ends), within the queue's bound: -1 when it never did. */
static int wait_running(struct lava_boot *b, long queue_s, struct run_watch *watch)
{
	struct strbuf state = STRBUF_INIT;
	double until = now_monotonic() + (double)queue_s;
	int ret = -1, said = 0;

	while (now_monotonic() < until) {
		if (job_state(b, &state))
			break;
		if (!strcmp(state.buf, "Running") || !strcmp(state.buf, "Finished") ||
		    !strcmp(state.buf, "Canceling")) {
			ret = 0;
			break;
		}
		if (watch && !said++)
			watch->phase(watch, "queued in LAVA");
		if (watch)
			watch->tick(watch);
		usleep(LAVA_POLL_MS * 1000);
	}
	if (ret && !b->l->why.len) {
		strbuf_addf(&b->l->why, "LAVA job %ld waited %lds for a %s device (queue)", b->id,
			    queue_s, b->l->cfg->device_type);
	}
	strbuf_release(&state);
	return ret;
}

static void infra(struct run_result *out, const char *why)
{
	out->status = RUN_INFRA;
	strbuf_reset(&out->error);
	strbuf_addstr(&out->error, why);
}

static int lava_run(const struct run_spec *spec, struct run_result *out)
{
	struct lava l;
	struct lava_boot b = { .src = { lava_read, lava_stop } };
	struct strbuf kurl = STRBUF_INIT, iurl = STRBUF_INIT, y = STRBUF_INIT,
		      why = STRBUF_INIT, meta = STRBUF_INIT;
	struct console con;
	int log_fd = -1, lava_side;
	double start = now_monotonic();
	enum drive_end end;

	snprintf(out->accel, sizeof(out->accel), "%s", spec->accel ? spec->accel : "auto");
	run_spec_cmdline(spec, out->full_cmdline, sizeof(out->full_cmdline));
	if (lava_open(&l, spec->lava)) {
		infra(out, l.why.buf);
		goto done;
	}
	if (console_log_open(&log_fd, spec, out))
		goto done;
	if (!spec->kernel || !spec->initrd) {
		infra(out, "the lava runner boots a kernel with the lab's initramfs");
		goto done;
	}
	if (image_url(&kurl, spec->lava, spec->kernel->path, "kernel", spec->nonce, &why) ||
	    image_url(&iurl, spec->lava, spec->initrd, "initramfs", spec->nonce, &why)) {
		infra(out, why.buf);
		goto done;
	}
	job_definition(&y, spec, kurl.buf, iurl.buf);
	b.l = &l;
	b.id = submit(&l, y.buf);
	if (!b.id) {
		infra(out, l.why.buf);
		goto done;
	}
	lava_job_note(spec->cache, spec->lava, b.id);
	strbuf_addf(&meta, "%ld", b.id);
	sample_set_meta(&out->set, "lava.job", meta.buf);
	strbuf_reset(&meta);
	/* stored, and shown on the run's page: the address without its secrets */
	strbuf_addf(&meta, "%s/scheduler/job/%ld", url_redacted(spec->lava->url), b.id);
	sample_set_meta(&out->set, "lava.url", meta.buf);
	if (wait_running(&b, spec->lava->queue_s ? spec->lava->queue_s : LAVA_DEFAULT_QUEUE_S,
			 spec->watch)) {
		if (lava_cancel_job(&l, b.id))
			warning("cannot cancel LAVA job %ld: %s", b.id, l.why.buf);
		infra(out, l.why.buf);
		goto unnote;
	}
	if (spec->watch)
		spec->watch->phase(spec->watch, "LAVA job running: deploying");
	/* the deadline counts from the device's start: a farm's queue is not the kernel's */
	start = now_monotonic();
	console_init(&con, spec, out, log_fd, 0, start);
	b.con = &con;
	end = drive_source(&b.src, &con, start + spec->timeout_s);
	out->wall_s = now_monotonic() - start;
	console_conclude(&con, end == DRIVE_TIMEOUT);
	{
		struct strbuf state = STRBUF_INIT;

		job_state(&b, &state);
		strbuf_release(&state);
	}
	if (b.device.len)
		sample_set_meta(&out->set, "lava.device", b.device.buf);
	if (b.health.len)
		sample_set_meta(&out->set, "lava.health", b.health.buf);
	/*
	 * LAVA's own failure before the kernel spoke says nothing of the
	 * kernel; nor does one of LAVA's side (not a Job error: the
	 * infrastructure, a bug, someone's cancel) after it, unless the
	 * kernel said it failed.
	 */
	lava_side = b.error_type.len && strcmp(b.error_type.buf, "Job");
	if (!b.cancelled && out->status == RUN_BOOT_FAILED &&
	    (!con.saw_kernel || (lava_side && !con.kernel_failed))) {
		strbuf_reset(&why);
		strbuf_addf(&why, "LAVA job %ld ended %s %s", b.id,
			    b.health.len ? b.health.buf : "unknown",
			    con.saw_kernel ? "with the kernel not done" : "before the kernel spoke");
		if (b.error_type.len || b.comment.len) {
			strbuf_addstr(&why, ": ");
			lava_excerpt(&why, strbuf_str(&b.error_type));
			strbuf_addstr(&why, b.error_type.len ? " error: " : "");
			lava_excerpt(&why, b.comment.len ? b.comment.buf : "no reason given");
		}
		infra(out, why.buf);
	}
	console_release(&con);
unnote:
	lava_job_unnote(spec->cache, b.id);
done:
	if (spec->lava && spec->nonce)
		remove_images(spec->lava, spec->nonce);
	if (!out->wall_s)
		out->wall_s = now_monotonic() - start;
	if (log_fd >= 0)
		close(log_fd);
	lava_close(&l);
	strbuf_release(&b.pending);
	strbuf_release(&b.health);
	strbuf_release(&b.comment);
	strbuf_release(&b.device);
	strbuf_release(&b.error_type);
	strbuf_release(&kurl);
	strbuf_release(&iurl);
	strbuf_release(&y);
	strbuf_release(&why);
	strbuf_release(&meta);
	return 0;
}

/* Before the first boot: the target can be used, and jobs of labs that died are cancelled. */
static int lava_prepare(struct run_spec *spec)
{
	struct lava l;
	int ret = 0;

	if (!spec->lava || lava_open(&l, spec->lava)) {
		ret = error("%s", spec->lava ? l.why.buf : NO_TARGET);
		if (spec->lava)
			lava_close(&l);
		return ret;
	}
	lava_cancel_orphans(&l, spec->cache);
	lava_close(&l);
	return 0;
}

/* A device of the type that is online: "Good" health and not "Retired"/"Maintenance". */
static void check_devices(struct lava *l, struct strbuf *missing)
{
	struct strbuf path = STRBUF_INIT, resp = STRBUF_INIT, results = STRBUF_INIT,
		      item = STRBUF_INIT;
	int good = 0, all = 0;

	strbuf_addf(&path, "devices/?device_type=%s&limit=100", l->cfg->device_type);
	if (lava_get(l, "the device list", path.buf, &resp)) {
		runner_missing(missing, "a device list (%s)", l->why.buf);
		goto out;
	}
	if (json_get(resp.buf, "results", &results) != JSON_OTHER || results.buf[0] != '[') {
		runner_missing(missing, "a device list (no results in the server's answer)");
		goto out;
	}
	for (size_t i = 0; !json_array_item(results.buf, i, &item); i++) {
		struct strbuf health = STRBUF_INIT;

		all++;
		if (!json_get_string(item.buf, "health", &health) && !strcmp(health.buf, "Good"))
			good++;
		strbuf_release(&health);
	}
	if (!all)
		runner_missing(missing, "a device of type '%s' (the server has none)",
			       l->cfg->device_type);
	else if (!good)
		runner_missing(missing, "a device of type '%s' online (%d, none of Good health)",
			       l->cfg->device_type, all);
out:
	strbuf_release(&path);
	strbuf_release(&resp);
	strbuf_release(&results);
	strbuf_release(&item);
}

static void lava_check(const struct run_spec *spec, struct strbuf *missing, struct strbuf *found)
{
	struct strbuf path = STRBUF_INIT, resp = STRBUF_INIT, user = STRBUF_INIT;
	struct lava l;

	if (!spec->lava || lava_open(&l, spec->lava)) {
		runner_missing(missing, "%s", spec->lava ? l.why.buf : NO_TARGET);
		if (spec->lava)
			lava_close(&l);
		return;
	}
	/* the token: the server says whose it is */
	if (lava_get(&l, "the token", "system/whoami/", &resp) ||
	    json_get_string(resp.buf, "user", &user) || !user.len) {
		/* a redirect or an endless answer says nothing of the token */
		if (l.why.len && (!l.status || l.status / 100 == 3))
			runner_missing(missing, "the server's own answer (%s)", l.why.buf);
		else
			runner_missing(missing, "a token the server accepts (%s)",
				       l.why.len ? l.why.buf : "it names no user");
		goto out;
	}
	strbuf_addstr(found, "user: ");
	lava_excerpt(found, user.buf);
	strbuf_addf(&path, "devicetypes/%s/", spec->lava->device_type);
	if (lava_get(&l, "the device type", path.buf, &resp)) {
		runner_missing(missing, "device type '%s' (%s)", spec->lava->device_type, l.why.buf);
		goto out;
	}
	check_devices(&l, missing);
out:
	strbuf_release(&path);
	strbuf_release(&resp);
	strbuf_release(&user);
	lava_close(&l);
}

static void lava_where(const struct run_spec *spec, struct strbuf *sb)
{
	strbuf_addf(sb, "%s, %s", spec->lava && spec->lava->url ? url_redacted(spec->lava->url) :
		    "no server",
		    spec->lava && spec->lava->device_type ? spec->lava->device_type : "no device type");
}

const struct runner runner_lava = {
	.name = "lava",
	.flags = RUNNER_BOOTS_KERNEL | RUNNER_INITRAMFS,
	.run = lava_run,
	.prepare = lava_prepare,
	.check = lava_check,
	.where = lava_where,
};
