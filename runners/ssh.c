/*
 * The ssh runner (ssh.h): its config, the host checked before the first
 * boot, and each boot: the guest program copied and run there, a kernel
 * kexec'd first when there is one (ssh-kexec.c), through the connection
 * of ssh-remote.c.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "drive.h"
#include "host-root.h"
#include "host.h"
#include "log.h"
#include "modules.h"
#include "protocol.h"
#include "runner.h"
#include "ssh-remote.h"
#include "tempfile.h"
#include "xalloc.h"

void ssh_config_init(struct ssh_config *c)
{
	memset(c, 0, sizeof(*c));
}

void ssh_config_release(struct ssh_config *c)
{
	free_all(c->host, c->port, c->identity, c->known_hosts, c->reset, c->console, c->restore);
	ssh_config_init(c);
}

static int set_host(void *obj, const char *v)
{
	struct ssh_config *c = obj;

	return !*v || *v == '-' || strpbrk(v, " \t'\"") ? -1 : key_set_string(&c->host, v);
}

static int set_port(void *obj, const char *v)
{
	struct ssh_config *c = obj;
	long n;

	return key_parse_long(&n, v, 1, 65535, 0) ? -1 : key_set_string(&c->port, v);
}

static int set_identity(void *obj, const char *v)
{
	return *v ? key_set_string(&((struct ssh_config *)obj)->identity, v) : -1;
}

static int set_known_hosts(void *obj, const char *v)
{
	return *v ? key_set_string(&((struct ssh_config *)obj)->known_hosts, v) : -1;
}

static int set_reset(void *obj, const char *v)
{
	return *v ? key_set_string(&((struct ssh_config *)obj)->reset, v) : -1;
}

static int set_console(void *obj, const char *v)
{
	return *v ? key_set_string(&((struct ssh_config *)obj)->console, v) : -1;
}

static int set_restore(void *obj, const char *v)
{
	if (strcmp(v, "reboot") && (strncmp(v, "kexec:/", 7) || strpbrk(v, " \t'\"")))
		return -1;
	return key_set_string(&((struct ssh_config *)obj)->restore, v);
}

static int set_deadline(void *obj, const char *v)
{
	return key_parse_long(&((struct ssh_config *)obj)->deadline_s, v, 1, 86400, 1);
}

const struct key_setter ssh_config_keys[] = {
	{ "host", set_host, "an ssh destination such as root@arm1 or a Host of ~/.ssh/config" },
	{ "port", set_port, "a port number from 1 to 65535" },
	{ "identity", set_identity, "a path" },
	{ "knownhosts", set_known_hosts, "a path" },
	{ "reset", set_reset, "a shell command" },
	{ "console", set_console, "a shell command" },
	{ "restore", set_restore, "reboot or kexec:IMAGE[,INITRD] (paths on the host)" },
	{ "deadline", set_deadline, "a time from 1s to 24h such as 300, 300s or 5m" },
};
const size_t ssh_config_nkeys = ARRAY_SIZE(ssh_config_keys);

static void default_string(char **field, const char *dflt)
{
	if (!*field && dflt)
		*field = xstrdup(dflt);
}

void ssh_config_default(struct ssh_config *c, const struct ssh_config *dflt)
{
	if (!c->host) {
		default_string(&c->host, dflt->host);
		default_string(&c->port, dflt->port);
		default_string(&c->reset, dflt->reset);
		default_string(&c->console, dflt->console);
	}
	default_string(&c->identity, dflt->identity);
	default_string(&c->known_hosts, dflt->known_hosts);
	default_string(&c->restore, dflt->restore);
	if (!c->deadline_s)
		c->deadline_s = dflt->deadline_s;
}

static int ssh_prepare(struct run_spec *spec)
{
	static char guest[PATH_MAX];
	struct strbuf arch = STRBUF_INIT, missing = STRBUF_INIT, want = STRBUF_INIT;
	int ret = -1;

	if (!spec->ssh || !spec->ssh->host)
		return error("no host for the ssh runner (host in the [ssh] section of lab.conf, "
			     "or in the target's)");
	if (host_out_of_service(spec, &missing)) {
		error("host '%s' is out of service %s ('lab target check' puts it back once it "
		      "lacks nothing)", spec->ssh->host, missing.buf);
		goto out;
	}
	if (ssh_host_check(spec->ssh, spec->kernel != NULL, &arch, &missing, NULL)) {
		error("%s", missing.buf);
		goto out;
	}
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
	strbuf_addf(&want, "%s/build/guest/%s/lab-rootinit", lab_source_dir(), arch.buf);
	if (spec->kernel && access(want.buf, X_OK)) {
		error("cannot find '%s', the init of a kexec'd kernel's initramfs (run 'make')",
		      want.buf);
		goto out;
	}
	strbuf_reset(&want);
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
	strbuf_release_all(&arch, &missing, &want);
	return ret;
}

/* Set once a boot left the host to its reset: the next connection waits for it. */
static int host_was_reset;

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
	st = subprocess_run(argv, NULL, NULL, (double)ssh_deadline_s(c, 1));
	snprintf(buf, sizeof(buf), "exit %d", st);
	sample_set_meta(&out->set, "ssh.reset", buf);
}

/*
 * The kernel under test boots with the lab's initramfs, lab-rootinit as
 * its /init: it loads the build's storage, filesystem and network modules
 * (modules.h), if it made any, activates the host's root volume with the
 * host's own lvm when the root is on LVM (host-root.h), and mounts the
 * host's root as the host's command line names it (root=UUID=, say),
 * which the kernel alone cannot. Its content depends on the arch, the
 * modules and the host only: written once a process for each, copied
 * each boot.
 */
struct sent_initramfs {
	char path[64];
	char *modules;		/* the build's; NULL: none */
	char *host;
};

static int send_initramfs(struct remote *r, const struct run_spec *spec, const char *to,
			  struct run_result *out)
{
	static struct sent_initramfs written[2];
	struct sent_initramfs *w = &written[strcmp(spec->arch, "aarch64") == 0];
	const char *mods = spec->kernel->modules;
	struct strbuf init = STRBUF_INIT, cmd = STRBUF_INIT, tools = STRBUF_INIT;
	int ret = -1;

	if (w->path[0] && ((mods ? !w->modules || strcmp(mods, w->modules) : !!w->modules) ||
			   strcmp(w->host, r->cfg->host))) {
		tempfile_delete(w->path);
		w->path[0] = '\0';
	}
	if (!w->path[0]) {
		host_root_command(&cmd, NULL);
		int st = remote_command_max(r, cmd.buf, &tools, SSH_COPY_TIMEOUT_S, SSH_FILES_MAX);

		if (st) {
			char last[256];

			remote_failure(r, st, &tools, last, sizeof(last));
			run_result_infra(out, "cannot ask host '%s' what its root needs: %s",
					 r->cfg->host, last);
			goto out;
		}
		strbuf_addf(&init, "%s/build/guest/%s/lab-rootinit", lab_source_dir(), spec->arch);
		snprintf(w->path, sizeof(w->path), "/tmp/lab-initramfs-%d-%s.cpio", (int)getpid(),
			 spec->arch);
		xstrset(&w->modules, mods);
		xstrset(&w->host, r->cfg->host);
		if (tempfile_register(w->path) ||
		    initramfs_write_modules(w->path, init.buf, mods, &tools, r->cfg->host)) {
			tempfile_delete(w->path);
			w->path[0] = '\0';
			run_result_infra(out, "cannot write the initramfs of host '%s'",
					 r->cfg->host);
			goto out;
		}
	}
	if (remote_copy(r, w->path, to)) {
		run_result_infra(out, "%s", r->why.buf);
		goto out;
	}
	ret = 0;
out:
	strbuf_release_all(&init, &cmd, &tools);
	return ret;
}

/*
 * The kernel sent never answered ssh: a kernel failure when its console
 * printed one (BOOT_FAILED, a verdict on the kernel), else INFRA with the
 * console's last line, if there is a console.
 */
static void not_back(const struct ssh_config *c, struct host_console *hc, const char *why,
		     struct run_result *out)
{
	if (c->console)
		host_console_stop(hc);
	if (c->console && hc->failure[0]) {
		out->status = RUN_BOOT_FAILED;
		strbuf_reset(&out->error);
		strbuf_addf(&out->error, "kernel failed: %s%s%s (host '%s' did not come back "
			    "within %lds of kexec)", hc->cause[0] ? hc->cause : hc->failure,
			    hc->cause[0] ? ", then " : "", hc->cause[0] ? hc->failure : "", c->host,
			    ssh_deadline_s(c, 0));
		return;
	}
	run_result_infra(out, "host '%s' did not come back within %lds of kexec (last: %s)%s%s",
			 c->host, ssh_deadline_s(c, 0), why,
			 c->console ? "; its console's last line: " : "",
			 c->console ? (hc->last[0] ? hc->last : "none") : "");
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
	escape_shell(&cmd, guest);
	if (spec->params)
		strvec_split(&args, spec->params);
	/* without a kernel to boot, a variant's command line goes to the program */
	if (!spec->kernel && spec->cmdline)
		strvec_split(&args, spec->cmdline);
	if (spec->nonce)
		strvec_pushf(&args, "lab.nonce=%s", spec->nonce);
	for (size_t i = 0; i < args.nr; i++) {
		strbuf_addch(&cmd, ' ');
		escape_shell(&cmd, args.v[i]);
	}
	strvec_push(&av, "ssh");
	ssh_options(&av, r, 0);
	strvec_pushl(&av, "-o", "ControlMaster=no", "--", r->cfg->host, cmd.buf, NULL);
	if (subprocess_start(&child, strvec_argv(&av), NULL, SUBPROCESS_CAPTURE)) {
		run_result_infra(out, "cannot start ssh");
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

/*
 * The host back to its default kernel, its console read meanwhile into the
 * run's log. A host that does not come back there is the host's fault, not
 * the kernel's: the run is INFRA whatever it measured, the host out of
 * service until lab target check finds it ready, and its reset run.
 */
static void restore(struct remote *r, const struct run_spec *spec,
		    const struct host_state *booted, const struct host_state *before, int log_fd,
		    struct run_result *out)
{
	const struct ssh_config *c = spec->ssh;
	struct host_console hc = { .on = 0 };
	struct strbuf why = STRBUF_INIT;
	int failed;

	if (c->console && log_fd >= 0) {
		dprintf(log_fd, "\n== the console of host '%s' while it returns to its default "
			"kernel (restore = %s) ==\n", c->host, c->restore ? c->restore : "reboot");
		if (host_console_start(&hc, c->console, log_fd, NULL))
			hc.on = 0;
	}
	failed = restore_host(r, booted, before, hc.on ? &hc : NULL, out);
	if (hc.on || c->console)
		host_console_stop(&hc);
	if (!failed)
		goto out;
	strbuf_addf(&why, "host '%s' did not return to its default kernel after the boot: %s",
		    c->host, r->why.buf);
	if (c->console)
		strbuf_addf(&why, "; its console's last line: %s", hc.last[0] ? hc.last : "none");
	/* the run's error is the one line said, with the boot's */
	run_result_infra(out, "%s (out of service until 'lab target check' finds it ready)",
			 why.buf);
	host_service_stop(spec, why.buf);
	run_reset(c, out);
out:
	strbuf_release(&why);
}

static int ssh_run(const struct run_spec *spec, struct run_result *out)
{
	const struct ssh_config *c = spec->ssh;
	struct host_state before = { 0 }, booted = { 0 };
	struct strbuf dir = STRBUF_INIT, path = STRBUF_INIT, cmd = STRBUF_INIT,
		      kcmd = STRBUF_INIT, rdpath = STRBUF_INIT;
	struct remote r;
	struct host_console hc = { .on = 0 };
	int log_fd = -1, in_test_kernel = 0;
	double start = now_monotonic();

	snprintf(out->accel, sizeof(out->accel), "none");
	remote_init(&r, c);
	if (console_log_open(&log_fd, spec, out))
		goto out;
	sample_set_meta(&out->set, "ssh.host", c->host);
	/* taken out by another boot, perhaps another lab's: nothing is sent to it */
	if (host_out_of_service(spec, &cmd)) {
		run_result_infra(out, "host '%s' is out of service %s", c->host, cmd.buf);
		goto out;
	}
	if (remote_connect(&r, host_was_reset ? (double)ssh_deadline_s(c, 1) : 0) ||
	    host_state_get(&r, &before)) {
		run_result_infra(out, "%s", r.why.buf);
		goto out;
	}
	host_was_reset = 0;
	sample_set_meta(&out->set, "host.cmdline", before.cmdline);
	sample_set_meta(&out->set, "ssh.hostname", before.hostname);
	/* refused before anything is copied: nothing is left behind on the host */
	strbuf_reset(&cmd);
	if (spec->kernel && kexec_cmdline(&kcmd, before.cmdline, spec->cmdline, &cmd)) {
		run_result_infra(out, "host '%s': %s", c->host, cmd.buf);
		goto out;
	}

	strbuf_addf(&dir, "%s/lab-%s", SSH_REMOTE_DIR, spec->nonce ? spec->nonce : "run");
	strbuf_reset(&cmd);
	strbuf_addstr(&cmd, "mkdir -m 700 ");
	escape_shell(&cmd, dir.buf);
	strbuf_addf(&path, "%s/lab-guest", dir.buf);
	if (remote_command(&r, cmd.buf, NULL, SSH_COMMAND_TIMEOUT_S) ||
	    remote_copy(&r, spec->guest, path.buf)) {
		run_result_infra(out, "%s",
				 r.why.len ? r.why.buf : "cannot make a directory on the host");
		goto out;
	}

	if (spec->kernel) {
		struct strbuf kpath = STRBUF_INIT;

		strbuf_addf(&rdpath, "%s/initramfs", dir.buf);
		if (send_initramfs(&r, spec, rdpath.buf, out))
			goto out;
		strbuf_addf(&kpath, "%s/kernel", dir.buf);
		snprintf(out->full_cmdline, sizeof(out->full_cmdline), "%s", kcmd.buf);
		if (spec->nonce)
			strbuf_addf(&kcmd, " lab.nonce=%s", spec->nonce);
		if (remote_copy(&r, spec->kernel->path, kpath.buf)) {
			strbuf_release(&kpath);
			run_result_infra(out, "%s", r.why.buf);
			goto out;
		}
		/* from before the kexec: the old kernel going down, the new one's first lines */
		if (c->console && host_console_start(&hc, c->console, log_fd, spec->watch)) {
			strbuf_release(&kpath);
			run_result_infra(out, "cannot start the console command of host '%s'",
					 c->host);
			goto out;
		}
		if (remote_kexec(&r, kpath.buf, rdpath.buf, kcmd.buf)) {
			strbuf_release(&kpath);
			run_result_infra(out, "%s", r.why.buf);
			goto out;
		}
		strbuf_release(&kpath);
		remote_disconnect(&r);
		start = now_monotonic();
		if (wait_for_new_boot(&r, before.boot_id, start + (double)ssh_deadline_s(c, 0),
				      &booted, c->console ? &hc : NULL)) {
			not_back(c, &hc, strbuf_str(&r.why), out);
			run_reset(c, out);
			goto out;
		}
		if (c->console)
			host_console_stop(&hc);
		sample_set_meta(&out->set, "ssh.kernel", booted.version);
		strbuf_reset(&cmd);
		strbuf_addf(&cmd, "lab.nonce=%s", spec->nonce ? spec->nonce : "");
		if (!spec->nonce || !strstr(booted.cmdline, cmd.buf)) {
			run_result_infra(out, "host '%s' came back in another kernel than the "
					 "one sent: %s", c->host, booted.version);
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
	escape_shell(&cmd, dir.buf);
	remote_command(&r, cmd.buf, NULL, SSH_COMMAND_TIMEOUT_S);
	if (in_test_kernel)
		restore(&r, spec, &booted, &before, log_fd, out);
out:
	if (hc.on)
		host_console_stop(&hc);
	if (!out->wall_s)
		out->wall_s = now_monotonic() - start;
	if (log_fd >= 0)
		close(log_fd);
	remote_release(&r);
	strbuf_release_all(&dir, &path, &cmd, &kcmd, &rdpath);
	return 0;
}

static void ssh_where(const struct run_spec *spec, struct strbuf *sb)
{
	const struct ssh_config *c = spec->ssh;

	strbuf_addf(sb, "%s%s%s", c && c->host ? c->host : "(no host)",
		    c && c->port ? ":" : "", c && c->port ? c->port : "");
}

const struct runner runner_ssh = {
	.name = "ssh",
	.flags = RUNNER_KEXECS_HOST,
	.run = ssh_run,
	.prepare = ssh_prepare,
	.check = ssh_check,
	.where = ssh_where,
};
