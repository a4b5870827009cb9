/*
 * The ssh runner's connection (ssh-remote.h): every command of a boot is a
 * short ssh through one master connection (ControlMaster), which this
 * runner starts itself as a child for as long as the host is up, so that
 * nothing is left behind when the lab stops: a persisting master would
 * outlive the command that started it, or die with its process group.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host.h"
#include "ssh-remote.h"

/* The last non-empty line of out, for messages. */
void ssh_last_line(const struct strbuf *out, char *buf, size_t size)
{
	const char *s = out->buf ? out->buf : "", *end = s + out->len, *start;

	while (end > s && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' '))
		end--;
	for (start = end; start > s && start[-1] != '\n'; start--)
		;
	snprintf(buf, size, "%.*s", (int)(end - start), start);
	if (!*buf)
		snprintf(buf, size, "no output");
}

static int host_key_refused(const struct strbuf *out)
{
	return out->buf && (strstr(out->buf, "Host key verification failed") ||
			    strstr(out->buf, "REMOTE HOST IDENTIFICATION HAS CHANGED") ||
			    strstr(out->buf, "No matching host key") ||
			    strstr(out->buf, "host key is known"));
}

/* The master's program ended (its watcher wrote the status). */
static int child_exited(const struct child *c)
{
	struct pollfd pfd = { .fd = c->status_fd, .events = POLLIN };
	return poll(&pfd, 1, 0) > 0;
}

/* What a killed child said, up to its end. */
static void child_drain(const struct child *c, struct strbuf *out)
{
	for (;;) {
		char buf[4096];
		ssize_t got = subprocess_read(c, buf, sizeof(buf), 1000);

		if (got <= 0)
			break;
		strbuf_add(out, buf, (size_t)got);
	}
}

void remote_init(struct remote *r, const struct ssh_config *cfg)
{
	memset(r, 0, sizeof(*r));
	r->cfg = cfg;
	strbuf_init(&r->why, 0);
}

/* ssh's options for every command: keys checked, one master connection */
void ssh_options(struct strvec *av, const struct remote *r, int scp)
{
	const struct ssh_config *c = r->cfg;

	strvec_pushl(av, "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes",
		     "-o", "LogLevel=ERROR", NULL);
	strvec_pushf(av, "-oConnectTimeout=%d", SSH_CONNECT_TIMEOUT_S);
	strvec_pushf(av, "-oControlPath=%s/master", r->ctl_dir);
	if (c->known_hosts)
		strvec_pushf(av, "-oUserKnownHostsFile=%s", c->known_hosts);
	if (c->identity)
		strvec_pushl(av, "-o", "IdentitiesOnly=yes", "-i", c->identity, NULL);
	if (c->port)
		strvec_pushl(av, scp ? "-P" : "-p", c->port, NULL);
}

int remote_command_max(struct remote *r, const char *cmd, struct strbuf *out, double timeout_s,
		       size_t max)
{
	struct strvec av = STRVEC_INIT;
	double deadline = now_monotonic() + timeout_s;
	size_t total = 0;
	struct child c;
	int st, over = 0, late = 0;

	strvec_push(&av, "ssh");
	ssh_options(&av, r, 0);
	strvec_pushl(&av, "-o", "ControlMaster=no", "--", r->cfg->host, cmd, NULL);
	st = subprocess_start(&c, strvec_argv(&av), NULL, SUBPROCESS_CAPTURE);
	strvec_release(&av);
	if (st)
		return -1;
	for (;;) {
		double left = deadline - now_monotonic();
		char buf[8192];
		ssize_t got;

		if (timeout_s > 0 && left <= 0) {
			late = 1;
			break;
		}
		got = subprocess_read(&c, buf, sizeof(buf),
				      timeout_s > 0 ? (int)(left * 1000) + 1 : -1);
		if (got < 0)
			continue;	/* EINTR, or the deadline, seen above */
		if (!got)
			break;
		total += (size_t)got;
		if (out && total > max) {
			over = 1;
			break;
		}
		if (out)
			strbuf_add(out, buf, (size_t)got);
	}
	if (over || late)
		subprocess_kill(&c);
	st = subprocess_finish(&c);
	if (late)
		return SUBPROCESS_TIMED_OUT;
	if (over) {
		strbuf_reset(&r->why);
		strbuf_addf(&r->why, "answer over %zu bytes from host '%s': cut off (an endless "
			    "answer?)", max, r->cfg->host);
		return SSH_ANSWER_TOO_LONG;
	}
	return st;
}

int remote_command(struct remote *r, const char *cmd, struct strbuf *out, double timeout_s)
{
	return remote_command_max(r, cmd, out, timeout_s, SSH_ANSWER_MAX);
}

void remote_failure(const struct remote *r, int st, const struct strbuf *out, char *buf,
		    size_t size)
{
	if (st == SSH_ANSWER_TOO_LONG)
		snprintf(buf, size, "%s", r->why.buf);
	else if (st == SUBPROCESS_TIMED_OUT)
		snprintf(buf, size, "no end to its answer within the deadline");
	else
		ssh_last_line(out, buf, size);
}

/*
 * The master's socket, which a killed master leaves behind: the next
 * master would then find it taken and run without one ("ControlSocket
 * already exists, disabling multiplexing"), so that no check ever finds
 * it up. The directory is this connection's alone.
 */
static void control_socket_remove(const struct remote *r)
{
	char path[128];

	if (!r->ctl_dir[0])
		return;
	snprintf(path, sizeof(path), "%s/master", r->ctl_dir);
	unlink(path);
}

void remote_disconnect(struct remote *r)
{
	if (!r->connected)
		return;
	/* the master is ours: killing its group closes the connection */
	subprocess_kill(&r->master);
	subprocess_finish(&r->master);
	control_socket_remove(r);
	r->connected = 0;
}

/*
 * Start the master connection; with wait_s > 0, retry until then while the
 * host does not answer (it is booting). A host key that does not match is
 * never retried. Returns 0, or -1 with the reason in r->why.
 */
int remote_connect(struct remote *r, double wait_s)
{
	double deadline = now_monotonic() + wait_s;
	struct strbuf out = STRBUF_INIT;
	int ret = -1;

	if (!r->ctl_dir[0]) {
		snprintf(r->ctl_dir, sizeof(r->ctl_dir), "/tmp/lab-ssh-XXXXXX");
		if (!mkdtemp(r->ctl_dir)) {
			strbuf_reset(&r->why);
			strbuf_addf(&r->why, "cannot make a directory for the ssh connection: %s",
				    strerror(errno));
			r->ctl_dir[0] = '\0';
			return -1;
		}
	}
	for (;;) {
		struct strvec av = STRVEC_INIT;
		char line[512];
		int up = 0;

		control_socket_remove(r);
		strvec_push(&av, "ssh");
		ssh_options(&av, r, 0);
		strvec_pushl(&av, "-o", "ControlMaster=yes", "-o", "ControlPersist=no",
			     "-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3",
			     "-N", "--", r->cfg->host, NULL);
		if (subprocess_start(&r->master, strvec_argv(&av), NULL, SUBPROCESS_CAPTURE)) {
			strvec_release(&av);
			strbuf_reset(&r->why);
			strbuf_addstr(&r->why, "cannot start ssh");
			goto out;
		}
		strvec_release(&av);
		/* up when the master answers on its socket; down when it exits */
		for (double until = now_monotonic() + SSH_CONNECT_TIMEOUT_S + 5; now_monotonic() < until;) {
			struct strvec chk = STRVEC_INIT;
			char path[128];
			struct stat sb;

			snprintf(path, sizeof(path), "%s/master", r->ctl_dir);
			if (!stat(path, &sb)) {
				strvec_push(&chk, "ssh");
				ssh_options(&chk, r, 0);
				strvec_pushl(&chk, "-O", "check", "--", r->cfg->host, NULL);
				up = subprocess_run(strvec_argv(&chk), NULL, NULL, 10) == 0;
				strvec_release(&chk);
				if (up)
					break;
			}
			if (child_exited(&r->master))
				break;
			usleep(100000);
		}
		if (up) {
			r->connected = 1;
			ret = 0;
			break;
		}
		subprocess_kill(&r->master);
		strbuf_reset(&out);
		child_drain(&r->master, &out);
		subprocess_finish(&r->master);
		ssh_last_line(&out, line, sizeof(line));
		strbuf_reset(&r->why);
		if (host_key_refused(&out)) {
			strbuf_addf(&r->why, "host key of '%s' not accepted (checked against %s): %s",
				    r->cfg->host, r->cfg->known_hosts ? r->cfg->known_hosts :
				    "the user's known_hosts", line);
			break;
		}
		strbuf_addf(&r->why, "cannot reach host '%s': %s", r->cfg->host, line);
		if (now_monotonic() + 2 >= deadline)
			break;
		sleep(2);
	}
out:
	strbuf_release(&out);
	return ret;
}

void remote_release(struct remote *r)
{
	remote_disconnect(r);
	if (r->ctl_dir[0]) {
		control_socket_remove(r);
		rmdir(r->ctl_dir);
	}
	strbuf_release(&r->why);
}

/* The value after "@ssh KEY " in a command's output, or "". */
void ssh_field(const struct strbuf *out, const char *key, char *buf, size_t size)
{
	const char *s = out->buf ? out->buf : "";
	size_t klen = strlen(key);

	buf[0] = '\0';
	for (const char *p = s; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (strncmp(p, "@ssh ", 5) || strncmp(p + 5, key, klen) || p[5 + klen] != ' ')
			continue;
		p += 6 + klen;
		snprintf(buf, size, "%.*s", (int)strcspn(p, "\n"), p);
		return;
	}
}

int remote_failed(struct remote *r, const struct strbuf *out, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	ssh_last_line(out, line, sizeof(line));
	va_start(ap, fmt);
	strbuf_vsetf(&r->why, fmt, ap);
	va_end(ap);
	strbuf_addf(&r->why, ": %s", line);
	return -1;
}

int remote_copy(struct remote *r, const char *local, const char *remote)
{
	struct strvec av = STRVEC_INIT;
	struct strbuf out = STRBUF_INIT;
	int ret = 0;

	strvec_push(&av, "scp");
	ssh_options(&av, r, 1);
	strvec_pushl(&av, "-q", "-o", "ControlMaster=no", "--", local, NULL);
	strvec_pushf(&av, "%s:%s", r->cfg->host, remote);
	if (subprocess_run(strvec_argv(&av), NULL, &out, SSH_COPY_TIMEOUT_S))
		ret = remote_failed(r, &out, "cannot copy '%s' to host '%s'", local, r->cfg->host);
	strvec_release(&av);
	strbuf_release(&out);
	return ret;
}
