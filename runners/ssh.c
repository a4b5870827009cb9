/*
 * The ssh runner (ssh.h). One boot is a sequence of short ssh commands
 * through one master connection (ControlMaster), which this runner starts
 * itself as a child for as long as the host is up, so that nothing is
 * left behind when the lab stops: a persisting master would outlive the
 * command that started it, or die with its process group.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "drive.h"
#include "host.h"
#include "log.h"
#include "protocol.h"
#include "runner.h"
#include "ssh.h"
#include "strvec.h"
#include "xalloc.h"

#define SSH_CONNECT_TIMEOUT_S 5
#define SSH_COMMAND_TIMEOUT_S 60.0
#define SSH_COPY_TIMEOUT_S 600.0
#define SSH_MIN_FREE_KIB 65536

void ssh_config_init(struct ssh_config *c)
{
	memset(c, 0, sizeof(*c));
	c->deadline_s = SSH_DEFAULT_DEADLINE_S;
}

void ssh_config_release(struct ssh_config *c)
{
	free(c->host);
	free(c->port);
	free(c->identity);
	free(c->known_hosts);
	free(c->reset);
	free(c->restore);
	ssh_config_init(c);
}

static int set_string(char **field, const char *value)
{
	free(*field);
	*field = xstrdup(value);
	return 0;
}

int ssh_config_set(struct ssh_config *c, const char *key, const char *value,
		   const char **expected)
{
	char *end;
	long n;

	if (!strcmp(key, "host")) {
		*expected = "an ssh destination such as root@arm1 or a Host of ~/.ssh/config";
		if (!*value || *value == '-' || strpbrk(value, " \t'\""))
			return -1;
		return set_string(&c->host, value);
	}
	if (!strcmp(key, "port")) {
		*expected = "a port number from 1 to 65535";
		errno = 0;
		n = strtol(value, &end, 10);
		if (errno || end == value || *end || n < 1 || n > 65535)
			return -1;
		return set_string(&c->port, value);
	}
	if (!strcmp(key, "identity") || !strcmp(key, "knownhosts")) {
		*expected = "a path";
		if (!*value)
			return -1;
		return set_string(key[0] == 'i' ? &c->identity : &c->known_hosts, value);
	}
	if (!strcmp(key, "reset")) {
		*expected = "a shell command";
		return *value ? set_string(&c->reset, value) : -1;
	}
	if (!strcmp(key, "restore")) {
		*expected = "reboot or kexec:IMAGE[,INITRD] (paths on the host)";
		if (strcmp(value, "reboot") && (strncmp(value, "kexec:/", 7) ||
						strpbrk(value, " \t'\"")))
			return -1;
		return set_string(&c->restore, value);
	}
	if (!strcmp(key, "deadline")) {
		*expected = "seconds from 1 to 86400";
		errno = 0;
		n = strtol(value, &end, 10);
		if (errno || end == value || (*end && strcmp(end, "s")) || n < 1 || n > 86400)
			return -1;
		c->deadline_s = n;
		return 0;
	}
	*expected = NULL;
	return -1;
}

/* s as one word of a POSIX shell command line */
static void add_quoted(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			strbuf_addstr(sb, "'\\''");
		else
			strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '\'');
}

/* The last non-empty line of out, for messages. */
static void last_line(const struct strbuf *out, char *buf, size_t size)
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
		struct pollfd pfd = { .fd = c->out_fd, .events = POLLIN };
		char buf[4096];
		ssize_t got;

		if (poll(&pfd, 1, 1000) <= 0)
			break;
		got = read(c->out_fd, buf, sizeof(buf));
		if (got <= 0)
			break;
		strbuf_add(out, buf, (size_t)got);
	}
}

struct remote {
	const struct ssh_config *cfg;
	char ctl_dir[64];	/* holds the master's socket */
	struct child master;
	int connected;
	struct strbuf why;	/* the last failure to connect or to run a command */
};

static void remote_init(struct remote *r, const struct ssh_config *cfg)
{
	memset(r, 0, sizeof(*r));
	r->cfg = cfg;
	strbuf_init(&r->why, 0);
}

/* ssh's options for every command: keys checked, one master connection */
static void ssh_options(struct strvec *av, const struct remote *r, int scp)
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

/* ssh HOST -- CMD through the master; output (merged) into *out */
static int remote_command(struct remote *r, const char *cmd, struct strbuf *out, double timeout_s)
{
	struct strvec av = STRVEC_INIT;
	int st;

	strvec_push(&av, "ssh");
	ssh_options(&av, r, 0);
	strvec_pushl(&av, "-o", "ControlMaster=no", "--", r->cfg->host, cmd, NULL);
	st = subprocess_run(strvec_argv(&av), NULL, out, timeout_s);
	strvec_release(&av);
	return st;
}

static void remote_disconnect(struct remote *r)
{
	if (!r->connected)
		return;
	/* the master is ours: killing its group closes the connection */
	subprocess_kill(&r->master);
	subprocess_finish(&r->master);
	r->connected = 0;
}

/*
 * Start the master connection; with wait_s > 0, retry until then while the
 * host does not answer (it is booting). A host key that does not match is
 * never retried. Returns 0, or -1 with the reason in r->why.
 */
static int remote_connect(struct remote *r, double wait_s)
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
		last_line(&out, line, sizeof(line));
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

static void remote_release(struct remote *r)
{
	remote_disconnect(r);
	if (r->ctl_dir[0]) {
		char path[128];
		snprintf(path, sizeof(path), "%s/master", r->ctl_dir);
		unlink(path);
		rmdir(r->ctl_dir);
	}
	strbuf_release(&r->why);
}

/* The value after "@ssh KEY " in a command's output, or "". */
static void field(const struct strbuf *out, const char *key, char *buf, size_t size)
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

#define CHECK_SCRIPT \
	"echo \"@ssh arch $(uname -m)\"; " \
	"if [ -d " SSH_REMOTE_DIR " ] && [ -w " SSH_REMOTE_DIR " ]; then " \
	"  avail=$(df -Pk " SSH_REMOTE_DIR " | awk 'NR == 2 { print $4 }'); " \
	"  [ \"${avail:-0}\" -ge %d ] || echo \"@ssh missing %d MiB free in " SSH_REMOTE_DIR "\"; " \
	"else echo \"@ssh missing a writable " SSH_REMOTE_DIR "\"; fi; "
#define CHECK_KEXEC \
	"[ \"$(id -u)\" = 0 ] || echo \"@ssh missing a root login (kexec needs root)\"; " \
	"PATH=$PATH:/usr/sbin:/sbin; command -v kexec >/dev/null || echo \"@ssh missing kexec-tools\"; " \
	"[ \"$(cat /proc/sys/kernel/kexec_load_disabled 2>/dev/null)\" != 1 ] || " \
	"echo \"@ssh missing kexec allowed (kernel.kexec_load_disabled is 1)\"; "

static int check_connected(struct remote *r, int with_kexec, struct strbuf *arch,
			   struct strbuf *missing)
{
	struct strbuf cmd = STRBUF_INIT, out = STRBUF_INIT;
	char buf[256];
	int st, ret = -1;

	strbuf_addf(&cmd, CHECK_SCRIPT, SSH_MIN_FREE_KIB, SSH_MIN_FREE_KIB / 1024);
	if (with_kexec)
		strbuf_addstr(&cmd, CHECK_KEXEC);
	st = remote_command(r, cmd.buf, &out, SSH_COMMAND_TIMEOUT_S);
	field(&out, "arch", buf, sizeof(buf));
	if (st || !*buf) {
		last_line(&out, buf, sizeof(buf));
		error("cannot ask host '%s' what it has: %s", r->cfg->host, buf);
		goto out;
	}
	strbuf_reset(arch);
	strbuf_addstr(arch, buf);
	strbuf_reset(missing);
	for (const char *p = out.buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, "@ssh missing ", 13))
			strbuf_addf(missing, "%s%.*s", missing->len ? ", " : "",
				    (int)strcspn(p + 13, "\n"), p + 13);
	ret = 0;
out:
	strbuf_release(&cmd);
	strbuf_release(&out);
	return ret;
}

int ssh_host_check(const struct ssh_config *c, int with_kexec, struct strbuf *arch,
		   struct strbuf *missing)
{
	struct remote r;
	int ret;

	if (!c->host)
		return error("no host for the ssh runner (host in the [ssh] section of lab.conf)");
	remote_init(&r, c);
	ret = remote_connect(&r, 0) ? error("%s", r.why.buf) :
		check_connected(&r, with_kexec, arch, missing);
	remote_release(&r);
	return ret;
}

static int ssh_prepare(struct run_spec *spec)
{
	static char guest[PATH_MAX];
	struct strbuf arch = STRBUF_INIT, missing = STRBUF_INIT, want = STRBUF_INIT;
	int ret = -1;

	if (!spec->ssh || !spec->ssh->host)
		return error("no host for the ssh runner (host in the [ssh] section of lab.conf)");
	if (ssh_host_check(spec->ssh, spec->kernel != NULL, &arch, &missing))
		goto out;
	if (strcmp(arch.buf, "x86_64") && strcmp(arch.buf, "aarch64"))
		strbuf_addf(&missing, "%sa guest program for %s (the lab has x86_64 and aarch64)",
			    missing.len ? ", " : "", arch.buf);
	if (missing.len) {
		error("host '%s' cannot be used: missing %s", spec->ssh->host, missing.buf);
		goto out;
	}
	if (spec->kernel && strcmp(arch.buf, spec->arch)) {
		error("host '%s' is %s, kernel '%s' is %s", spec->ssh->host, arch.buf,
		      spec->kernel->path, spec->arch);
		goto out;
	}
	/* the guest built for this machine is the default: the host's instead */
	strbuf_addf(&want, "%s/build/guest/%s/lab-guest", lab_source_dir(), spec->arch);
	if (strcmp(arch.buf, spec->arch) && !strcmp(spec->guest, want.buf)) {
		snprintf(guest, sizeof(guest), "%s/build/guest/%s/lab-guest", lab_source_dir(),
			 arch.buf);
		if (access(guest, X_OK)) {
			error("cannot find guest program '%s' (run 'make')", guest);
			goto out;
		}
		spec->guest = guest;
		spec->arch = strcmp(arch.buf, "aarch64") ? "x86_64" : "aarch64";
	}
	ret = 0;
out:
	strbuf_release(&arch);
	strbuf_release(&missing);
	strbuf_release(&want);
	return ret;
}

/* Set once a boot left the host to its reset: the next connection waits for it. */
static int host_was_reset;

static void infra(struct run_result *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void infra(struct run_result *out, const char *fmt, ...)
{
	va_list ap;

	out->status = RUN_INFRA;
	strbuf_reset(&out->error);
	va_start(ap, fmt);
	strbuf_vaddf(&out->error, fmt, ap);
	va_end(ap);
}

/* The power cycle, before the host is used again; what it did goes into the run's metadata. */
static void run_reset(const struct ssh_config *c, struct run_result *out)
{
	char *argv[] = { "/bin/sh", "-c", c->reset, NULL };
	char buf[64];
	int st;

	host_was_reset = 1;
	if (!c->reset) {
		sample_set_meta(&out->set, "ssh.reset", "none configured");
		return;
	}
	st = subprocess_run(argv, NULL, NULL, (double)c->deadline_s);
	snprintf(buf, sizeof(buf), "exit %d", st);
	sample_set_meta(&out->set, "ssh.reset", buf);
}

struct host_state {
	char boot_id[64];
	char cmdline[4096];
	char version[512];
	char hostname[256];
};

#define STATE_SCRIPT \
	"echo \"@ssh boot $(cat /proc/sys/kernel/random/boot_id)\"; " \
	"echo \"@ssh cmdline $(cat /proc/cmdline)\"; " \
	"echo \"@ssh version $(cat /proc/version)\"; " \
	"echo \"@ssh hostname $(uname -n)\""

static int host_state_get(struct remote *r, struct host_state *hs)
{
	struct strbuf out = STRBUF_INIT;
	int ret = 0;

	if (remote_command(r, STATE_SCRIPT, &out, SSH_COMMAND_TIMEOUT_S)) {
		char line[512];
		last_line(&out, line, sizeof(line));
		strbuf_reset(&r->why);
		strbuf_addf(&r->why, "host '%s' does not answer: %s", r->cfg->host, line);
		ret = -1;
	}
	field(&out, "boot", hs->boot_id, sizeof(hs->boot_id));
	field(&out, "cmdline", hs->cmdline, sizeof(hs->cmdline));
	field(&out, "version", hs->version, sizeof(hs->version));
	field(&out, "hostname", hs->hostname, sizeof(hs->hostname));
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
static int wait_for_new_boot(struct remote *r, const char *old_boot_id, double deadline,
			     struct host_state *hs)
{
	for (;;) {
		double left = deadline - now_monotonic();

		if (left <= 0)
			return -1;
		if (remote_connect(r, left)) {
			if (strstr(r->why.buf, "host key"))
				return -1;
			continue;
		}
		if (!host_state_get(r, hs) && strcmp(hs->boot_id, old_boot_id))
			return 0;
		remote_disconnect(r);
		sleep(1);
	}
}

/* Load a kernel and start it once this ssh command has returned. */
static int remote_kexec(struct remote *r, const char *image, const char *initrd,
			const char *cmdline)
{
	struct strbuf cmd = STRBUF_INIT, out = STRBUF_INIT;
	char line[512];
	int ret = 0;

	strbuf_addstr(&cmd, "PATH=$PATH:/usr/sbin:/sbin; kexec -l ");
	add_quoted(&cmd, image);
	if (initrd) {
		strbuf_addstr(&cmd, " --initrd=");
		add_quoted(&cmd, initrd);
	}
	strbuf_addstr(&cmd, " --command-line=");
	add_quoted(&cmd, cmdline);
	/* systemd shuts down cleanly first; without it, kexec straight away */
	strbuf_addstr(&cmd, " && { nohup sh -c 'sleep 1; systemctl kexec || kexec -e' "
		      ">/dev/null 2>&1 </dev/null & }");
	if (remote_command(r, cmd.buf, &out, SSH_COMMAND_TIMEOUT_S)) {
		last_line(&out, line, sizeof(line));
		strbuf_reset(&r->why);
		strbuf_addf(&r->why, "kexec of '%s' failed on host '%s': %s", image, r->cfg->host, line);
		ret = -1;
	}
	strbuf_release(&cmd);
	strbuf_release(&out);
	return ret;
}

/*
 * The kernel under test gets the host's own root filesystem and console:
 * those words of its /proc/cmdline, then the variant's command line.
 */
static void kexec_cmdline(struct strbuf *sb, const char *host_cmdline, const char *variant)
{
	static const char *const keep[] = { "root=", "rootfstype=", "rootflags=", "console=",
					    "ro", "rw", NULL };
	struct strvec words = STRVEC_INIT;

	strvec_split(&words, host_cmdline);
	for (size_t i = 0; i < words.nr; i++)
		for (const char *const *k = keep; *k; k++) {
			size_t n = strlen(*k);
			if ((*k)[n - 1] == '=' ? !strncmp(words.v[i], *k, n) : !strcmp(words.v[i], *k)) {
				strbuf_addf(sb, "%s%s", sb->len ? " " : "", words.v[i]);
				break;
			}
		}
	if (variant && *variant)
		strbuf_addf(sb, "%s%s", sb->len ? " " : "", variant);
	strvec_release(&words);
}

static int copy_to(struct remote *r, const char *local, const char *remote)
{
	struct strvec av = STRVEC_INIT;
	struct strbuf out = STRBUF_INIT;
	char line[512];
	int ret = 0;

	strvec_push(&av, "scp");
	ssh_options(&av, r, 1);
	strvec_pushl(&av, "-q", "-o", "ControlMaster=no", "--", local, NULL);
	strvec_pushf(&av, "%s:%s", r->cfg->host, remote);
	if (subprocess_run(strvec_argv(&av), NULL, &out, SSH_COPY_TIMEOUT_S)) {
		last_line(&out, line, sizeof(line));
		strbuf_reset(&r->why);
		strbuf_addf(&r->why, "cannot copy '%s' to host '%s': %s", local, r->cfg->host, line);
		ret = -1;
	}
	strvec_release(&av);
	strbuf_release(&out);
	return ret;
}

/* Return the host to its default kernel: reboot, or kexec of a known-good image. */
static int restore_host(struct remote *r, const struct host_state *booted,
			const struct host_state *before, struct run_result *out)
{
	const char *how = r->cfg->restore ? r->cfg->restore : "reboot";
	double deadline = now_monotonic() + (double)r->cfg->deadline_s;
	struct strbuf out_buf = STRBUF_INIT;
	struct host_state hs = { 0 };
	int ret = -1;

	if (!strncmp(how, "kexec:", 6)) {
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
	if (wait_for_new_boot(r, booted->boot_id, deadline, &hs))
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

/* The guest on the host, its output into the console as it comes. */
static void run_guest(struct remote *r, const struct run_spec *spec, const char *guest,
		      double start, int log_fd, struct run_result *out)
{
	struct strvec av = STRVEC_INIT, args = STRVEC_INIT;
	struct strbuf cmd = STRBUF_INIT;
	struct console con;
	struct child child;
	enum drive_end end;
	int st;

	/* a guest the lab stopped must not run on: the host's own timeout ends it */
	strbuf_addf(&cmd, "exec timeout -k 5 %.0f ", spec->timeout_s + 5);
	add_quoted(&cmd, guest);
	if (spec->params)
		strvec_split(&args, spec->params);
	/* without a kernel to boot, a variant's command line goes to the program */
	if (!spec->kernel && spec->cmdline)
		strvec_split(&args, spec->cmdline);
	if (spec->nonce)
		strvec_pushf(&args, "lab.nonce=%s", spec->nonce);
	for (size_t i = 0; i < args.nr; i++) {
		strbuf_addch(&cmd, ' ');
		add_quoted(&cmd, args.v[i]);
	}
	strvec_push(&av, "ssh");
	ssh_options(&av, r, 0);
	strvec_pushl(&av, "-o", "ControlMaster=no", "--", r->cfg->host, cmd.buf, NULL);
	if (subprocess_start(&child, strvec_argv(&av), NULL, SUBPROCESS_CAPTURE)) {
		infra(out, "cannot start ssh");
		goto out;
	}
	console_init(&con, spec, out, log_fd, PROTOCOL_CHECKSUM_OPTIONAL | PROTOCOL_NONCE_OPTIONAL,
		     start);
	con.saw_kernel = 1;
	end = drive_child(&child, &con, now_monotonic() + spec->timeout_s);
	st = subprocess_finish(&child);
	console_conclude(&con, end == DRIVE_TIMEOUT);
	/* the kernel is up (it answered ssh): a guest that did not finish failed on its own */
	if (out->status == RUN_BOOT_FAILED) {
		out->status = RUN_FAILED;
		strbuf_reset(&out->error);
		strbuf_addf(&out->error, "guest program on host '%s' ended with status %d %s",
			    r->cfg->host, st, con.saw_hello ? "before done" : "before saying hello");
	}
	/* what an unfinished run measured is not a result (console_conclude() dropped it) */
	if (!con.saw_done && con.samples_read) {
		strbuf_addf(&out->error, " (%ld partial samples discarded)", con.samples_read);
		out->set.nr = 0;
	}
	console_release(&con);
out:
	strvec_release(&av);
	strvec_release(&args);
	strbuf_release(&cmd);
}

static int ssh_run(const struct run_spec *spec, struct run_result *out)
{
	const struct ssh_config *c = spec->ssh;
	struct host_state before = { 0 }, booted = { 0 };
	struct strbuf dir = STRBUF_INIT, path = STRBUF_INIT, cmd = STRBUF_INIT,
		      kcmd = STRBUF_INIT;
	struct remote r;
	int log_fd = -1, in_test_kernel = 0;
	double start = now_monotonic();

	snprintf(out->accel, sizeof(out->accel), "none");
	remote_init(&r, c);
	if (spec->console_log) {
		log_fd = open(spec->console_log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (log_fd < 0) {
			infra(out, "cannot write console log '%s': %s", spec->console_log,
			      strerror(errno));
			goto out;
		}
	}
	sample_set_meta(&out->set, "ssh.host", c->host);
	if (remote_connect(&r, host_was_reset ? (double)c->deadline_s : 0) ||
	    host_state_get(&r, &before)) {
		infra(out, "%s", r.why.buf);
		goto out;
	}
	host_was_reset = 0;
	sample_set_meta(&out->set, "host.cmdline", before.cmdline);
	sample_set_meta(&out->set, "ssh.hostname", before.hostname);

	strbuf_addf(&dir, "%s/lab-%s", SSH_REMOTE_DIR, spec->nonce ? spec->nonce : "run");
	strbuf_addstr(&cmd, "mkdir -m 700 ");
	add_quoted(&cmd, dir.buf);
	strbuf_addf(&path, "%s/lab-guest", dir.buf);
	if (remote_command(&r, cmd.buf, NULL, SSH_COMMAND_TIMEOUT_S) ||
	    copy_to(&r, spec->guest, path.buf)) {
		infra(out, "%s", r.why.len ? r.why.buf : "cannot make a directory on the host");
		goto out;
	}

	if (spec->kernel) {
		struct strbuf kpath = STRBUF_INIT;

		strbuf_addf(&kpath, "%s/kernel", dir.buf);
		kexec_cmdline(&kcmd, before.cmdline, spec->cmdline);
		snprintf(out->full_cmdline, sizeof(out->full_cmdline), "%s", kcmd.buf);
		if (spec->nonce)
			strbuf_addf(&kcmd, " lab.nonce=%s", spec->nonce);
		if (copy_to(&r, spec->kernel->path, kpath.buf) ||
		    remote_kexec(&r, kpath.buf, NULL, kcmd.buf)) {
			strbuf_release(&kpath);
			infra(out, "%s", r.why.buf);
			goto out;
		}
		strbuf_release(&kpath);
		remote_disconnect(&r);
		start = now_monotonic();
		if (wait_for_new_boot(&r, before.boot_id, start + (double)c->deadline_s, &booted)) {
			infra(out, "host '%s' did not come back within %lds of kexec (last: %s)",
			      c->host, c->deadline_s, r.why.buf);
			run_reset(c, out);
			goto out;
		}
		sample_set_meta(&out->set, "ssh.kernel", booted.version);
		strbuf_reset(&cmd);
		strbuf_addf(&cmd, "lab.nonce=%s", spec->nonce ? spec->nonce : "");
		if (!spec->nonce || !strstr(booted.cmdline, cmd.buf)) {
			infra(out, "host '%s' came back in another kernel than the one sent: %s",
			      c->host, booted.version);
			goto out;
		}
		in_test_kernel = 1;
	} else {
		snprintf(out->full_cmdline, sizeof(out->full_cmdline), "%s%s%s",
			 spec->params ? spec->params : "", spec->cmdline ? " " : "",
			 spec->cmdline ? spec->cmdline : "");
	}

	run_guest(&r, spec, path.buf, start, log_fd, out);
	out->wall_s = now_monotonic() - start;
	strbuf_reset(&cmd);
	strbuf_addstr(&cmd, "rm -rf ");
	add_quoted(&cmd, dir.buf);
	remote_command(&r, cmd.buf, NULL, SSH_COMMAND_TIMEOUT_S);
	if (in_test_kernel && restore_host(&r, &booted, &before, out)) {
		warning("%s: running its reset command", r.why.buf);
		run_reset(c, out);
	}
out:
	if (!out->wall_s)
		out->wall_s = now_monotonic() - start;
	if (log_fd >= 0)
		close(log_fd);
	remote_release(&r);
	strbuf_release(&dir);
	strbuf_release(&path);
	strbuf_release(&cmd);
	strbuf_release(&kcmd);
	return 0;
}

const struct runner runner_ssh = { "ssh", ssh_run, ssh_prepare };
