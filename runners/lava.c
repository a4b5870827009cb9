/*
 * The lava runner (lava.h): the job definition, and a boot: the job
 * submitted, waited for while it queues, its log read into the console
 * as it grows, its end told apart (the kernel's, LAVA's, the deadline's).
 * The server's side is lava-api.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "drive.h"
#include "escape.h"
#include "json.h"
#include "lava-api.h"
#include "lava-modules.h"
#include "log.h"
#include "redact.h"
#include "runner.h"
#include "subprocess.h"

#define NO_TARGET "the lava runner boots on a target: --target NAME, a [target] with runner = lava"

/* between two looks at the devices of a job waiting for one */
#define LAVA_DEVICE_LOOK_S 30.0
/* after the guest's done, for LAVA to end the job itself */
#define LAVA_FINISH_WAIT_S 60.0

/*
 * The modules a job's {{modules_url}} names: the kernel's own, packed
 * (lava-modules.h), when it has any and the template asks for them; else
 * the target's modules file, if any. A dry run packs nothing.
 */
static int job_modules(const char **path, struct strbuf *archive, const struct run_spec *spec,
		       const char *text, int dry, struct strbuf *why)
{
	const char *own = spec->kernel ? spec->kernel->modules : NULL;

	*path = spec->lava->modules;
	if (!own || !lava_job_names(text, "modules_url"))
		return 0;
	if (dry) {
		*path = own;
		return 0;
	}
	if (lava_modules_archive(archive, own, why))
		return -1;
	*path = archive->buf;
	return 0;
}

/* The images a job may name, in the order its URLs are filled. */
enum job_image { IMAGE_KERNEL, IMAGE_INITRAMFS, IMAGE_DTB, IMAGE_MODULES, IMAGE_ROOTFS, NR_IMAGES };

/*
 * The job of spec's boot, its template filled, into *y: -1 with the
 * reason in why. A dry run copies no image and names each by a URL of
 * its own (file:///dry-run/NAME): the template checked before any boot.
 */
static int job_yaml(struct strbuf *y, const struct run_spec *spec, int dry, struct strbuf *why)
{
	const struct lava_config *c = spec->lava;
	struct {
		const char *slot, *name, *path;
	} images[NR_IMAGES] = {
		[IMAGE_KERNEL] = { "kernel_url", "kernel",
				   spec->kernel ? spec->kernel->path : NULL },
		[IMAGE_INITRAMFS] = { "ramdisk_url", "initramfs", spec->initrd },
		[IMAGE_DTB] = { "dtb_url", "dtb", c->dtb },
		[IMAGE_MODULES] = { "modules_url", "modules", NULL },
		[IMAGE_ROOTFS] = { "rootfs_url", "rootfs", c->rootfs },
	};
	struct strbuf text = STRBUF_INIT, what = STRBUF_INIT, url = STRBUF_INIT,
		      archive = STRBUF_INIT;
	struct lava_job j;
	int ret = -1;

	lava_job_init(&j);
	if (lava_job_template(&text, &what, c, why) ||
	    job_modules(&images[IMAGE_MODULES].path, &archive, spec, text.buf, dry, why))
		goto out;
	lava_job_values(&j, spec);
	for (size_t i = 0; i < NR_IMAGES; i++) {
		/* a boot always has its kernel and initramfs */
		if (!images[i].path && !(dry && i <= IMAGE_INITRAMFS))
			continue;
		strbuf_reset(&url);
		if (dry)
			strbuf_addf(&url, "file:///dry-run/%s", images[i].name);
		else if (lava_image_url(&url, c, images[i].path, images[i].name, spec->nonce, why))
			goto out;
		lava_job_url(&j, images[i].slot, url.buf);
	}
	ret = lava_job_fill(y, &j, what.buf, text.buf, why);
out:
	lava_job_release(&j);
	strbuf_release(&text);
	strbuf_release(&what);
	strbuf_release(&url);
	strbuf_release(&archive);
	return ret;
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
	int settled;		/* known Finished: ended, or a cancel of the lab's went through */
	double down_since;	/* the server stopped answering then; 0: it answers */
	int lost;		/* ... for longer than the outage bound: the boot is given up */
	struct strbuf lost_why;
	struct strbuf pending;	/* console bytes not handed out yet */
	struct strbuf health, comment, device;
	struct strbuf error_type;	/* of LAVA's result of the job: Job, Infrastructure, ... */
	const struct console *con;	/* what the console read so far */
};

static long outage_s(const struct lava_config *c)
{
	return c->outage_s ? c->outage_s : LAVA_DEFAULT_OUTAGE_S;
}

/*
 * The server answered a request of the boot as it should (ok), or not:
 * an outage that lasts past the bound loses the server for this boot.
 */
static void answered(struct lava_boot *b, int ok)
{
	double now = now_monotonic();

	if (ok) {
		b->down_since = 0;
		return;
	}
	if (!b->down_since)
		b->down_since = now;
	if (!b->lost && now - b->down_since >= (double)outage_s(b->l->cfg)) {
		b->lost = 1;
		strbuf_addf(&b->lost_why, "LAVA job %ld: no answer from the server for %lds (%s)",
			    b->id, outage_s(b->l->cfg), b->l->why.buf);
	}
}

/*
 * The job's state (and health, failure comment, device) into b: -1 with
 * l->why. Each answer, or its lack, is counted by answered().
 */
static int job_state(struct lava_boot *b, struct strbuf *state)
{
	struct strbuf path = STRBUF_INIT, resp = STRBUF_INIT;
	int ret;

	strbuf_addf(&path, "jobs/%ld/", b->id);
	ret = lava_get(b->l, "the job's state", path.buf, &resp);
	answered(b, !ret);
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
	if (lava_request(b->l, "GET", path.buf, NULL, &resp, &status)) {
		answered(b, 0);
		goto out;
	}
	if (status / 100 == 5) {
		lava_refused(b->l, "the job's log", status, &resp);
		answered(b, 0);
	}
	/* else a 404 is no new lines yet, as LAVA has it */
	if (status / 100 != 2)
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

	if (!b->pending.len && !b->finished && !b->lost && !read_log(b)) {
		if (b->ended)
			b->finished = 1;	/* nothing came after it ended: the log is whole */
		else if (!job_state(b, &state) && !strcmp(state.buf, "Finished"))
			b->ended = b->settled = 1;	/* its last lines may follow */
		else if (!b->lost)
			usleep((useconds_t)(timeout_ms < LAVA_POLL_MS ? timeout_ms : LAVA_POLL_MS) *
			       1000);
	}
	strbuf_release(&state);
	if (!b->pending.len)
		return b->finished || b->lost ? 0 : -1;
	n = b->pending.len < len ? b->pending.len : len;
	memcpy(buf, b->pending.buf, n);
	memmove(b->pending.buf, b->pending.buf + n, b->pending.len - n);
	strbuf_setlen(&b->pending, b->pending.len - n);
	return (ssize_t)n;
}

/* The lab's cancel of the job: a failed one leaves it to the next look at the notes. */
static void cancel(struct lava_boot *b)
{
	if (!lava_cancel_job(b->l, b->id))
		b->settled = 1;
	else
		warning("cannot cancel LAVA job %ld (cancelled once the server answers): %s", b->id,
			b->l->why.buf);
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
	    !lava_wait_finished(b->l, b->id, LAVA_FINISH_WAIT_S)) {
		b->settled = 1;
		return;
	}
	b->cancelled = 1;
	cancel(b);
}

/* Submit y once: the job's id, or 0 with l->why. */
static long submit_once(struct lava *l, const char *y)
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

/*
 * Submit y: the job's id, or 0 with l->why. A server down or failing
 * (no answer, a 5xx) is asked again, less and less often, within its
 * outage bound; its refusal is final.
 */
static long submit(struct lava *l, const char *y)
{
	double until = now_monotonic() + (double)outage_s(l->cfg);
	unsigned wait_s = 1;
	long id;

	while (!(id = submit_once(l, y)) && lava_transient(l) && now_monotonic() < until) {
		double left = until - now_monotonic();

		usleep((useconds_t)((left < wait_s ? left : wait_s) * 1e6));
		wait_s = wait_s < 16 ? wait_s * 2 : 30;
	}
	return id;
}

/*
 * The devices of the target's type: how many, how many of Good health
 * (and with Unknown, when unknown counts), their healths in words ("2
 * Retired, 1 Bad"); -1 with l->why when the server did not say.
 */
static int device_healths(struct lava *l, int *all, int *good, int unknown, struct strbuf *words)
{
	static const char *const kinds[] = { "Good", "Unknown", "Bad", "Maintenance", "Looping",
					     "Retired" };
	struct strbuf path = STRBUF_INIT, resp = STRBUF_INIT, results = STRBUF_INIT,
		      item = STRBUF_INIT, health = STRBUF_INIT;
	int count[ARRAY_SIZE(kinds) + 1] = { 0 };
	int ret = -1;

	*all = *good = 0;
	strbuf_addf(&path, "devices/?device_type=%s&limit=100", l->cfg->device_type);
	if (lava_get(l, "the device list", path.buf, &resp))
		goto out;
	if (json_get(resp.buf, "results", &results) != JSON_OTHER || results.buf[0] != '[') {
		strbuf_reset(&l->why);
		strbuf_addstr(&l->why, "no results in the server's answer");
		goto out;
	}
	for (size_t i = 0; !json_array_item(results.buf, i, &item); i++) {
		size_t k = 0;

		(*all)++;
		if (json_get_string(item.buf, "health", &health))
			strbuf_reset(&health);
		while (k < ARRAY_SIZE(kinds) && strcmp(health.buf, kinds[k]))
			k++;
		count[k]++;
	}
	*good = count[0] + (unknown ? count[1] : 0);
	for (size_t k = 0; k <= ARRAY_SIZE(kinds); k++)
		if (count[k])
			strbuf_addf(words, "%s%d %s", words->len ? ", " : "", count[k],
				    k < ARRAY_SIZE(kinds) ? kinds[k] : "of another health");
	ret = 0;
out:
	strbuf_release(&path);
	strbuf_release(&resp);
	strbuf_release(&results);
	strbuf_release(&item);
	strbuf_release(&health);
	return ret;
}

/*
 * Whether a device of the target's type could take the job: 1, or 0 with
 * the reason in *why (none of them Good or Unknown, the health LAVA
 * schedules on), or -1 when the server did not say.
 */
static int device_online(struct lava *l, struct strbuf *why)
{
	struct strbuf healths = STRBUF_INIT;
	int all, online, ret;

	if (device_healths(l, &all, &online, 1, &healths))
		return -1;
	ret = online > 0;
	if (!ret)
		strbuf_addf(why, "no device of type '%s' can take it (%d: %s)",
			    l->cfg->device_type, all, all ? healths.buf : "none");
	strbuf_release(&healths);
	return ret;
}

/* Until the job runs (or ends), within the queue's bound: -1 when it never did. */
static int wait_running(struct lava_boot *b, long queue_s, struct run_watch *watch)
{
	struct strbuf state = STRBUF_INIT, offline = STRBUF_INIT;
	double until = now_monotonic() + (double)queue_s, look = 0;
	int ret = -1, said = 0;

	while (now_monotonic() < until && !b->lost) {
		if (job_state(b, &state)) {
			usleep(LAVA_POLL_MS * 1000);
			continue;	/* within the outage bound */
		}
		if (!strcmp(state.buf, "Running") || !strcmp(state.buf, "Finished") ||
		    !strcmp(state.buf, "Canceling")) {
			ret = 0;
			break;
		}
		/* a device retired or taken offline while the job waits for it: no use waiting */
		if (now_monotonic() >= look) {
			look = now_monotonic() + LAVA_DEVICE_LOOK_S;
			if (!device_online(b->l, &offline)) {
				strbuf_reset(&b->l->why);
				strbuf_addf(&b->l->why, "LAVA job %ld waited in vain: %s", b->id,
					    offline.buf);
				break;
			}
		}
		if (watch && !said++)
			watch->phase(watch, "queued in LAVA");
		if (watch)
			watch->tick(watch);
		usleep(LAVA_POLL_MS * 1000);
	}
	if (ret && b->lost) {
		strbuf_reset(&b->l->why);
		strbuf_add(&b->l->why, b->lost_why.buf, b->lost_why.len);
	} else if (ret && b->down_since) {
		/* the queue's bound came while the server was down: the server's fault */
		strbuf_reset(&offline);
		strbuf_addf(&offline, "LAVA job %ld: no answer from the server for %.0fs (%s)", b->id,
			    now_monotonic() - b->down_since, b->l->why.buf);
		strbuf_reset(&b->l->why);
		strbuf_add(&b->l->why, offline.buf, offline.len);
	} else if (ret && !offline.len) {
		strbuf_reset(&b->l->why);
		strbuf_addf(&b->l->why, "LAVA job %ld waited %lds for a %s device (queue)", b->id,
			    queue_s, b->l->cfg->device_type);
	}
	strbuf_release(&state);
	strbuf_release(&offline);
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
	struct strbuf y = STRBUF_INIT, why = STRBUF_INIT, meta = STRBUF_INIT;
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
	if (job_yaml(&y, spec, 0, &why)) {
		infra(out, why.buf);
		goto done;
	}
	/* the jobs left running when their server stopped answering, now it answers again */
	lava_cancel_orphans(&l, spec->cache);
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
		infra(out, l.why.buf);
		cancel(&b);
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
	if (!b.lost) {
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
	/* a job ended by someone else: the lab's deadline never came, nor did the kernel say */
	if (!b.cancelled && out->status != RUN_OK && !con.kernel_failed &&
	    !strcmp(b.health.buf ? b.health.buf : "", "Canceled")) {
		strbuf_reset(&why);
		strbuf_addf(&why, "LAVA job %ld was cancelled on the server, not by the lab", b.id);
		infra(out, why.buf);
	} else if (!b.cancelled && out->status == RUN_BOOT_FAILED &&
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
	/*
	 * A server that stopped answering, for longer than its bound or at
	 * the deadline: what the kernel did is not known.
	 */
	if (out->status != RUN_OK && !con.kernel_failed && (b.lost || b.down_since)) {
		strbuf_reset(&why);
		if (b.lost)
			strbuf_add(&why, b.lost_why.buf, b.lost_why.len);
		else
			strbuf_addf(&why, "LAVA job %ld: no answer from the server at the deadline (%s)",
				    b.id, l.why.buf);
		infra(out, why.buf);
	}
	if (!b.settled && !b.cancelled)
		cancel(&b);
	console_release(&con);
unnote:
	if (b.settled)
		lava_job_unnote(spec->cache, b.id);
	else
		lava_job_orphan(spec->cache, spec->lava, b.id);
done:
	if (spec->lava && spec->nonce)
		lava_remove_images(spec->lava, spec->nonce);
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
	strbuf_release(&b.lost_why);
	strbuf_release(&y);
	strbuf_release(&why);
	strbuf_release(&meta);
	return 0;
}

/* Before the first boot: the target can be used, and jobs of labs that died are cancelled. */
/*
 * spec's template, filled as a boot would fill it (no image copied): -1
 * with the reason in *why for an unknown placeholder or one without a
 * value, before any job is submitted.
 */
static int template_check(const struct run_spec *spec, struct strbuf *why)
{
	struct strbuf y = STRBUF_INIT;
	struct run_spec dry = *spec;
	int ret;

	/* lab target check has no kernel, so maybe no arch: any will do */
	if (!dry.arch)
		dry.arch = "x86_64";
	strbuf_reset(why);
	ret = job_yaml(&y, &dry, 1, why);
	strbuf_release(&y);
	return ret;
}

static int lava_prepare(struct run_spec *spec)
{
	struct strbuf y = STRBUF_INIT;
	struct lava l;
	int ret = 0;

	if (!spec->lava || lava_open(&l, spec->lava)) {
		ret = error("%s", spec->lava ? l.why.buf : NO_TARGET);
		if (spec->lava)
			lava_close(&l);
		return ret;
	}
	if (spec->lava->serve && lava_serve_start(spec->lava, spec->cache, &y)) {
		ret = error("%s", y.buf);
		goto out;
	}
	if (template_check(spec, &y)) {
		ret = error("%s", y.buf);
		goto out;
	}
	lava_cancel_orphans(&l, spec->cache);
out:
	strbuf_release(&y);
	lava_close(&l);
	return ret;
}

/* A device of the type that is online: "Good" health and not "Retired"/"Maintenance". */
static void check_devices(struct lava *l, struct strbuf *missing)
{
	struct strbuf healths = STRBUF_INIT;
	int all, good;

	if (device_healths(l, &all, &good, 0, &healths))
		runner_missing(missing, "a device list (%s)", l->why.buf);
	else if (!all)
		runner_missing(missing, "a device of type '%s' (the server has none)",
			       l->cfg->device_type);
	else if (!good)
		runner_missing(missing, "a device of type '%s' online (%d, none of Good health)",
			       l->cfg->device_type, all);
	strbuf_release(&healths);
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
	if (template_check(spec, &resp))
		runner_missing(missing, "a job template that fills (%s)", resp.buf);
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
