#ifndef SSH_REMOTE_H
#define SSH_REMOTE_H
/*
 * The ssh runner's parts, shared by runners/ssh.c (the runner and its
 * config), ssh-remote.c (the ssh and scp commands through one master
 * connection), ssh-kexec.c (a kernel kexec'd, waited for, left again) and
 * ssh-check.c (what a host lacks). Only these include it.
 */
#include "escape.h"
#include "run.h"
#include "runner.h"
#include "ssh.h"
#include "strbuf.h"
#include "strvec.h"
#include "subprocess.h"

#define SSH_CONNECT_TIMEOUT_S 5
#define SSH_COMMAND_TIMEOUT_S 60.0
#define SSH_COPY_TIMEOUT_S 600.0
#define SSH_MIN_FREE_KIB 65536
/*
 * The most of a command's answer the lab reads: a host that says more (an
 * endless answer) is cut off and said to have, never held whole. The lvm
 * tool and its libraries (host-root.h) come as one answer: their own cap.
 */
#define SSH_ANSWER_MAX ((size_t)1 << 20)
#define SSH_FILES_MAX ((size_t)256 << 20)
#define SSH_ANSWER_TOO_LONG (-3)

struct remote {
	const struct ssh_config *cfg;
	char ctl_dir[64];	/* holds the master's socket */
	struct child master;
	int connected;
	struct strbuf why;	/* the last failure to connect or to run a command */
};

void remote_init(struct remote *r, const struct ssh_config *cfg);
/*
 * Start the master connection; with wait_s > 0, retry until then while the
 * host does not answer (it is booting). A host key that does not match is
 * never retried. Returns 0, or -1 with the reason in r->why.
 */
int remote_connect(struct remote *r, double wait_s);
/* Close the master connection; remote_connect() may open it again. */
void remote_disconnect(struct remote *r);
void remote_release(struct remote *r);
/* ssh's options for every command: keys checked, one master connection; scp's -P with scp */
void ssh_options(struct strvec *av, const struct remote *r, int scp);
/*
 * ssh HOST -- CMD through the master, its output (merged) into *out (NULL:
 * discarded); the exit status, -1 when ssh could not start,
 * SUBPROCESS_TIMED_OUT, or SSH_ANSWER_TOO_LONG when out would have held
 * more than SSH_ANSWER_MAX bytes (the command killed, said in r->why).
 */
int remote_command(struct remote *r, const char *cmd, struct strbuf *out, double timeout_s);
/* remote_command() with a cap of its own. */
int remote_command_max(struct remote *r, const char *cmd, struct strbuf *out, double timeout_s,
		       size_t max);
/*
 * Why a remote_command() that returned st failed, for a message: r->why
 * for an answer too long, else the last line of out.
 */
void remote_failure(const struct remote *r, int st, const struct strbuf *out, char *buf,
		    size_t size);
/* scp of a local file to a path on the host; -1 with the reason in r->why */
int remote_copy(struct remote *r, const char *local, const char *remote);

/* The last non-empty line of out, for messages: "no output" when there is none. */
void ssh_last_line(const struct strbuf *out, char *buf, size_t size);
/* r->why set to the formatted reason, ": " and the last line of out; returns -1. */
__attribute__((format(printf, 3, 4)))
int remote_failed(struct remote *r, const struct strbuf *out, const char *fmt, ...);
/* The value after "@ssh KEY " in a command's output, or "". */
void ssh_field(const struct strbuf *out, const char *key, char *buf, size_t size);

/*
 * The host's console while it boots a kernel the lab sent (console =
 * COMMAND: an IPMI serial-over-LAN or conserver command, a serial file's
 * tail): the command's output goes to the run's console log as it comes,
 * its lines scanned for the kernel's failure lines (console.c's), so
 * that a kernel that never answers ssh again is said by what it printed.
 * The command dies with host_console_stop(), or with the lab.
 */
struct host_console {
	struct child child;
	int on, log_fd;
	size_t logged;
	struct strbuf line;
	char failure[256];	/* the first failure line; "": none */
	char cause[256];	/* the lab's initramfs's last word before it: why init ended */
	char last[256];		/* the last non-empty line */
	int saw_kernel;
	struct run_watch *watch;
};

/* Start command; -1 when it cannot be started (said). */
int host_console_start(struct host_console *hc, const char *command, int log_fd,
		       struct run_watch *watch);
/* Take what the console printed, waiting for it up to seconds. */
void host_console_pump(struct host_console *hc, double seconds);
void host_console_stop(struct host_console *hc);

/* What a host is running, as its /proc says. */
struct host_state {
	char boot_id[64];
	char cmdline[4096];
	char version[512];
	char hostname[256];
};

/* -1 with the reason in r->why when the host does not answer. */
int host_state_get(struct remote *r, struct host_state *hs);
/*
 * Wait until the host is up in another boot than old_boot_id (it may take
 * a while to go down), at most until deadline, its console (hc, NULL:
 * none) taken meanwhile. 0 with *hs filled, or -1 with the last failure
 * in r->why.
 */
int wait_for_new_boot(struct remote *r, const char *old_boot_id, double deadline,
		      struct host_state *hs, struct host_console *hc);
/* Load a kernel and start it once this ssh command has returned; -1 with r->why. */
int remote_kexec(struct remote *r, const char *image, const char *initrd, const char *cmdline);
/*
 * The kernel under test gets the host's own root filesystem, console and
 * network names (kcmdline_host_words() of its /proc/cmdline), then the
 * variant's command line. -1 with the reason in *why when a word of the
 * host's cannot be passed on or the line would be too long.
 */
int kexec_cmdline(struct strbuf *sb, const char *host_cmdline, const char *variant,
		  struct strbuf *why);
/*
 * Return the host to its default kernel (the config's restore): reboot,
 * or kexec of a known-good image, its console (hc, NULL: none) taken while
 * it comes back; ssh.restore in out's metadata says how, or why not. -1
 * with the reason in r->why.
 */
int restore_host(struct remote *r, const struct host_state *booted,
		 const struct host_state *before, struct host_console *hc,
		 struct run_result *out);

/*
 * The part of ssh_host_check()'s command that says what the host booted
 * with ("@ssh has firmware|root|network: ..."), as one POSIX shell command;
 * with_kexec, after what kexec needs ("@ssh missing ...": kexec-tools,
 * kexec allowed, no lockdown, its default kernel, a root without dm-crypt).
 */
void ssh_check_booted_command(struct strbuf *cmd, int with_kexec);

/*
 * A host that did not return to its default kernel after a boot is out of
 * service: the reason, with when, kept in the state's cache (spec->cache,
 * a file named by host and port) across labs. No boot goes to it until
 * lab target check (ssh_check()) finds it lacks nothing, which puts it
 * back. host_out_of_service() is 1 with that line in *why, else 0.
 */
int host_out_of_service(const struct run_spec *spec, struct strbuf *why);
void host_service_stop(const struct run_spec *spec, const char *why);

/*
 * runner_ssh's check: ssh_host_check() with kexec, the arch, the guest
 * program; a host out of service and lacking nothing is back in service.
 */
void ssh_check(const struct run_spec *spec, struct strbuf *missing, struct strbuf *found);

#endif
