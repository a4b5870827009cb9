/*
 * A kernel on a remote host (ssh-remote.h): kexec'd with the host's own
 * root, waited for within the deadline, and left again for the host's
 * default kernel (restore).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "console.h"
#include "host.h"
#include "kcmdline.h"
#include "log.h"
#include "protocol.h"
#include "ssh-remote.h"

#define STATE_SCRIPT \
	"echo \"@ssh boot $(cat /proc/sys/kernel/random/boot_id)\"; " \
	"echo \"@ssh cmdline $(cat /proc/cmdline)\"; " \
	"echo \"@ssh version $(cat /proc/version)\"; " \
	"echo \"@ssh hostname $(uname -n)\""

int host_console_start(struct host_console *hc, const char *command, int log_fd,
		       struct run_watch *watch)
{
	char *argv[] = { "/bin/sh", "-c", (char *)command, NULL };

	memset(hc, 0, sizeof(*hc));
	strbuf_init(&hc->line, 256);
	hc->log_fd = log_fd;
	hc->watch = watch;
	if (subprocess_start(&hc->child, argv, NULL, SUBPROCESS_CAPTURE))
		return error("cannot start the host's console command '%s'", command);
	hc->on = 1;
	return 0;
}

static void console_line(struct host_console *hc)
{
	const char *l = hc->line.buf;

	while (*l == ' ' || *l == '\t' || *l == '\r')
		l++;
	if (!*l)
		return;
	snprintf(hc->last, sizeof(hc->last), "%s", l);
	hc->last[strcspn(hc->last, "\r")] = '\0';
	if (!hc->saw_kernel && strstr(l, "Linux version")) {
		hc->saw_kernel = 1;
		if (hc->watch && hc->watch->phase)
			hc->watch->phase(hc->watch, "kernel booting");
	}
	if (!hc->failure[0] && !strncmp(l, "lab-rootinit: ", 14))
		snprintf(hc->cause, sizeof(hc->cause), "%s", hc->last);
	if (!hc->failure[0] && console_kernel_failure(l))
		snprintf(hc->failure, sizeof(hc->failure), "%s", hc->last);
}

void host_console_pump(struct host_console *hc, double seconds)
{
	double until = now_monotonic() + seconds;
	char buf[4096];

	while (hc->on) {
		double left = until - now_monotonic();
		ssize_t got = subprocess_read(&hc->child, buf, sizeof(buf),
					      left > 0 ? (int)(left * 1000) : 0);

		if (got < 0 && left > 0)
			continue;	/* EINTR, or the deadline, seen on the next turn */
		if (got < 0)
			return;
		if (!got) {
			/* the command ended: what it printed stays */
			host_console_stop(hc);
			return;
		}
		if (hc->log_fd >= 0 && hc->logged < CONSOLE_LOG_MAX &&
		    write(hc->log_fd, buf, (size_t)got) == got)
			hc->logged += (size_t)got;
		for (ssize_t i = 0; i < got; i++) {
			if (buf[i] != '\n') {
				if (hc->line.len < 4096)
					strbuf_addch(&hc->line, buf[i]);
				continue;
			}
			console_line(hc);
			strbuf_reset(&hc->line);
		}
	}
}

void host_console_stop(struct host_console *hc)
{
	if (hc->on) {
		subprocess_kill(&hc->child);
		subprocess_finish(&hc->child);
		hc->on = 0;
	}
	if (hc->line.len)
		console_line(hc);
	strbuf_release(&hc->line);
}

int host_state_get(struct remote *r, struct host_state *hs)
{
	struct strbuf out = STRBUF_INIT;
	int ret = 0;

	int st = remote_command(r, STATE_SCRIPT, &out, SSH_COMMAND_TIMEOUT_S);

	if (st) {
		char line[512];
		remote_failure(r, st, &out, line, sizeof(line));
		strbuf_reset(&r->why);
		strbuf_addf(&r->why, "host '%s' does not answer: %s", r->cfg->host, line);
		ret = -1;
	}
	ssh_field(&out, "boot", hs->boot_id, sizeof(hs->boot_id));
	ssh_field(&out, "cmdline", hs->cmdline, sizeof(hs->cmdline));
	ssh_field(&out, "version", hs->version, sizeof(hs->version));
	ssh_field(&out, "hostname", hs->hostname, sizeof(hs->hostname));
	if (!ret && !hs->boot_id[0]) {
		strbuf_reset(&r->why);
		strbuf_addf(&r->why, "host '%s' has no /proc/sys/kernel/random/boot_id", r->cfg->host);
		ret = -1;
	}
	strbuf_release(&out);
	return ret;
}

/*
 * Wait until the host is up in another boot than old_boot_id (it may take
 * a while to go down), at most until deadline. 0 with *hs filled, or -1
 * with the last failure in r->why.
 */
int wait_for_new_boot(struct remote *r, const char *old_boot_id, double deadline,
		      struct host_state *hs, struct host_console *hc)
{
	for (;;) {
		double left = deadline - now_monotonic();

		if (hc)
			host_console_pump(hc, 0);
		if (left <= 0)
			return -1;
		/* a host still down: one try, then its console, until the deadline */
		if (remote_connect(r, hc ? 0 : left)) {
			if (strstr(r->why.buf, "host key"))
				return -1;
			if (hc)
				host_console_pump(hc, 1);
			continue;
		}
		if (!host_state_get(r, hs)) {
			/* a serial line's last lines may come after ssh's answer */
			if (strcmp(hs->boot_id, old_boot_id) && hc)
				host_console_pump(hc, 1);
			if (strcmp(hs->boot_id, old_boot_id))
				return 0;
			strbuf_reset(&r->why);
			strbuf_addstr(&r->why, "host answered, still in the boot it was in");
		}
		remote_disconnect(r);
		if (hc)
			host_console_pump(hc, 1);
		else
			sleep(1);
	}
}

/* Load a kernel and start it once this ssh command has returned. */
int remote_kexec(struct remote *r, const char *image, const char *initrd, const char *cmdline)
{
	struct strbuf cmd = STRBUF_INIT, out = STRBUF_INIT;
	int ret = 0;

	strbuf_addstr(&cmd, "PATH=$PATH:/usr/sbin:/sbin; kexec -l ");
	escape_shell(&cmd, image);
	if (initrd) {
		strbuf_addstr(&cmd, " --initrd=");
		escape_shell(&cmd, initrd);
	}
	strbuf_addstr(&cmd, " --command-line=");
	escape_shell(&cmd, cmdline);
	/* systemd shuts down cleanly first; without it, kexec straight away */
	strbuf_addstr(&cmd, " && { nohup sh -c 'sleep 1; systemctl kexec || kexec -e' "
		      ">/dev/null 2>&1 </dev/null & }");
	if (remote_command(r, cmd.buf, &out, SSH_COMMAND_TIMEOUT_S))
		ret = remote_failed(r, &out, "kexec of '%s' failed on host '%s'", image,
				    r->cfg->host);
	strbuf_release_all(&cmd, &out);
	return ret;
}

int kexec_cmdline(struct strbuf *sb, const char *host_cmdline, const char *variant,
		  struct strbuf *why)
{
	if (kcmdline_host_words(sb, host_cmdline, why))
		return -1;
	if (variant && *variant)
		strbuf_addf(sb, "%s%s", sb->len ? " " : "", variant);
	/* the nonce goes after it, and the kernel keeps a byte for the NUL */
	if (sb->len + strlen(" lab.nonce=") + PROTOCOL_NONCE_LEN > KCMDLINE_MAX - 1) {
		strbuf_addf(why, "the kernel command line would be %zu bytes with the host's own "
			    "words, past the %d a kernel takes", sb->len, KCMDLINE_MAX - 1);
		return -1;
	}
	return 0;
}

/* Return the host to its default kernel: reboot, or kexec of a known-good image. */
int restore_host(struct remote *r, const struct host_state *booted,
		 const struct host_state *before, struct host_console *hc, struct run_result *out)
{
	const char *how = r->cfg->restore ? r->cfg->restore : "reboot";
	int by_kexec = !strncmp(how, "kexec:", 6);
	double deadline = now_monotonic() + (double)ssh_deadline_s(r->cfg, !by_kexec);
	struct strbuf out_buf = STRBUF_INIT;
	struct host_state hs = { 0 };
	int ret = -1;

	if (by_kexec) {
		char image[PATH_MAX];
		const char *comma;

		snprintf(image, sizeof(image), "%s", how + 6);
		comma = strchr(how + 6, ',');
		if (comma)
			image[comma - (how + 6)] = '\0';
		if (remote_kexec(r, image, comma ? comma + 1 : NULL, before->cmdline))
			goto out;
	} else if (remote_command(r, "nohup sh -c 'sleep 1; sync; systemctl reboot || "
				  "systemctl reboot -ff' "
				  ">/dev/null 2>&1 </dev/null &", &out_buf, SSH_COMMAND_TIMEOUT_S)) {
		strbuf_reset(&r->why);
		strbuf_addf(&r->why, "cannot reboot host '%s'", r->cfg->host);
		goto out;
	}
	remote_disconnect(r);
	if (wait_for_new_boot(r, booted->boot_id, deadline, &hs, hc))
		goto out;
	if (strcmp(hs.version, before->version)) {
		strbuf_reset(&r->why);
		strbuf_addf(&r->why, "host '%s' came back in '%s', not its default '%s'",
			    r->cfg->host, hs.version, before->version);
		goto out;
	}
	ret = 0;
out:
	sample_set_meta(&out->set, "ssh.restore", ret ? r->why.buf : how);
	strbuf_release(&out_buf);
	return ret;
}
