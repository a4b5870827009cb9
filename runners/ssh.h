#ifndef SSH_H
#define SSH_H
/*
 * The ssh runner: a remote host reached with OpenSSH (the user's
 * ~/.ssh/config and agent apply; host keys are always checked, against
 * known_hosts when one is set). Without a kernel, the guest program runs
 * there as a plain process on the host's running kernel, as the local
 * runner does here. With a kernel, each boot copies the image and the
 * guest, kexecs the image with the host's own root= (plus the variant's
 * command line and the boot's nonce), waits for the host to come back in
 * that kernel within the deadline, runs the guest, and returns the host to
 * its default kernel (restore). A host that does not come back, or comes
 * back in another kernel, is RUN_INFRA; the reset command (a power cycle)
 * runs then, before the host is used again.
 */
#include "keys.h"
#include "strbuf.h"

#define SSH_DEFAULT_DEADLINE_S 300L
/* after a reboot through firmware (restore = reboot, a reset): a server's POST takes minutes */
#define SSH_FIRMWARE_DEADLINE_S 900L
#define SSH_REMOTE_DIR "/var/tmp"	/* each boot's files go in a directory of their own here */

struct ssh_config {
	char *host;		/* an ssh destination: [user@]name, ~/.ssh/config applies */
	char *port;		/* NULL: ssh's own */
	char *identity;		/* key file; NULL: ssh's own */
	char *known_hosts;	/* NULL: ssh's own */
	char *reset;		/* shell command that power-cycles the host; NULL: none */
	char *console;		/* shell command printing the host's console; NULL: none */
	char *restore;		/* "reboot" (default) or "kexec:IMAGE[,INITRD]" */
	long deadline_s;	/* for the host to come back; 0: ssh_deadline_s()'s default */
};

void ssh_config_init(struct ssh_config *c);
void ssh_config_release(struct ssh_config *c);
/*
 * The keys of [ssh] and of an ssh [target] (host, port, identity,
 * knownhosts, reset, console, restore, deadline), each set into a struct
 * ssh_config and checked here; nothing printed.
 */
extern const struct key_setter ssh_config_keys[];
extern const size_t ssh_config_nkeys;
/*
 * What c (a [target]'s keys) did not set, from dflt ([ssh]'s). host, port,
 * reset and console name one machine: a c with a host of its own takes none of
 * them from dflt, so that a reset never power-cycles another host.
 */
void ssh_config_default(struct ssh_config *c, const struct ssh_config *dflt);
/*
 * Seconds to wait for the host to come back: the deadline set, or the
 * default for the way it went down, SSH_DEFAULT_DEADLINE_S after a kexec,
 * SSH_FIRMWARE_DEADLINE_S through firmware (firmware 1: a reboot, a reset).
 * Inline, so that ssh-kexec.c, which ssh.c calls, does not call back into
 * ssh.c for it.
 */
static inline long ssh_deadline_s(const struct ssh_config *c, int firmware)
{
	if (c->deadline_s)
		return c->deadline_s;
	return firmware ? SSH_FIRMWARE_DEADLINE_S : SSH_DEFAULT_DEADLINE_S;
}

/*
 * What the host lacks to be used, asked of it in one connection: the
 * connection itself, root and kexec-tools and kexec allowed (with_kexec),
 * a writable SSH_REMOTE_DIR with room. Fills *arch with the host's (uname
 * -m) and *missing with a comma-separated list, empty when nothing is.
 * Returns -1 when the host cannot be asked at all (no host, ssh refused,
 * a host key not accepted), -2 when it was asked and its answer would not
 * do (cut off past SSH_ANSWER_MAX, no arch in it), the reason in *missing;
 * prints nothing.
 * found, when not NULL, gets what the host booted with, a line each: its
 * firmware (UEFI, ACPI or a device tree, Secure Boot, lockdown), and its
 * root's and network's device with the drivers (modules) under them.
 */
int ssh_host_check(const struct ssh_config *c, int with_kexec, struct strbuf *arch,
		   struct strbuf *missing, struct strbuf *found);

#endif
