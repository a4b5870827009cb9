/*
 * What a host lacks to be used by the ssh runner (ssh.h's
 * ssh_host_check()), asked of it in one command; and the runner's check
 * of a target (lab target check).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "atomicfile.h"
#include "escape.h"
#include "host-root.h"
#include "host.h"
#include "log.h"
#include "regfile.h"
#include "runner.h"

#include "ssh-remote.h"

#define CHECK_SCRIPT \
	"echo \"@ssh arch $(uname -m)\"; " \
	"if [ -d " SSH_REMOTE_DIR " ] && [ -w " SSH_REMOTE_DIR " ]; then " \
	"  avail=$(df -Pk " SSH_REMOTE_DIR " | awk 'NR == 2 { print $4 }'); " \
	"  [ \"${avail:-0}\" -ge %d ] || echo \"@ssh missing %d MiB free in " SSH_REMOTE_DIR "\"; " \
	"else echo \"@ssh missing a writable " SSH_REMOTE_DIR "\"; fi; "
/*
 * A root on dm-crypt (LUKS, or plain), itself or under the LVM or other
 * device-mapper devices it is on: the lab's initramfs asks for no
 * passphrase, so a kernel sent there would stop at a locked root and be
 * blamed for it. The device-mapper uuid of each device on the way down
 * (its slaves) says so, as lsblk's TYPE crypt does: CRYPT-LUKS2-..., CRYPT-PLAIN-...
 */
#define CHECK_CRYPT \
	HOST_ROOT_SH "todo=$dev; while [ -n \"$todo\" ]; do set -- $todo; d=$1; shift; todo=$*; " \
	"  case $(cat \"$d/dm/uuid\" 2>/dev/null) in CRYPT-*) " \
	"    echo \"@ssh missing a root without dm-crypt (its root is on dm-crypt volume " \
	"$(cat \"$d/dm/name\"), which the lab's initramfs cannot unlock)\"; break;; esac; " \
	"  for s in \"$d\"/slaves/*; do if [ -e \"$s\" ]; then todo=\"$todo $s\"; fi; done; done; "

#define CHECK_KEXEC \
	"[ \"$(id -u)\" = 0 ] || echo \"@ssh missing a root login (kexec needs root)\"; " \
	"PATH=$PATH:/usr/sbin:/sbin; command -v kexec >/dev/null || echo \"@ssh missing kexec-tools\"; " \
	"[ \"$(cat /proc/sys/kernel/kexec_load_disabled 2>/dev/null)\" != 1 ] || " \
	"echo \"@ssh missing kexec allowed (kernel.kexec_load_disabled is 1)\"; " \
	"lockdown=$(sed -n 's/.*\\[\\(.*\\)\\].*/\\1/p' /sys/kernel/security/lockdown 2>/dev/null); " \
	"sb=$(od -An -tu1 /sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-e0e2c5ad7e8c " \
	"2>/dev/null | awk '{ print $NF }'); [ \"$sb\" = 1 ] && sb=', Secure Boot on' || sb=; " \
	"case ${lockdown:-none} in none) ;; *) echo \"@ssh missing kexec_load outside lockdown " \
	"(lockdown is $lockdown$sb: kexec_load is refused)\";; esac; " \
	"case \" $(cat /proc/cmdline) \" in *' lab.nonce='*) echo \"@ssh missing its default kernel " \
	"(it runs one the lab kexec'd: lab.nonce= on its command line)\";; esac; " \
	CHECK_CRYPT

/*
 * What the host booted with, "@ssh has KEY: VALUE" a line: the firmware,
 * then the device under / and under the default route, with the modules
 * of the drivers from it up to its bus (the kernel under test builds
 * them in, or as modules the lab's initramfs loads).
 */
#define CHECK_BOOTED \
	"drivers() { d=$(readlink -f \"$1\"); o=; while [ -n \"$d\" ] && [ \"$d\" != /sys ]; do " \
	"  if [ -e \"$d/driver\" ]; then m=$(readlink -f \"$d/driver/module\"); " \
	"    [ -e \"$d/driver/module\" ] || m=$(readlink -f \"$d/driver\"); m=${m##*/}; " \
	"    case \" $o \" in *\" $m \"*) ;; *) o=\"$o $m\";; esac; fi; d=${d%/*}; done; " \
	"  echo \"${o:+, drivers}$o\"; }; " \
	"[ -d /sys/firmware/acpi/tables ] && fw=ACPI || fw='a device tree'; " \
	"sb=$(od -An -tu1 /sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-e0e2c5ad7e8c " \
	"2>/dev/null | awk '{ print $NF }'); " \
	"case $sb in 1) sb=on;; 0) sb=off;; *) sb=unknown;; esac; " \
	"[ -d /sys/firmware/efi ] && fw=\"UEFI with $fw, Secure Boot $sb\" || fw=\"$fw, no UEFI\"; " \
	"lockdown=$(sed -n 's/.*\\[\\(.*\\)\\].*/\\1/p' /sys/kernel/security/lockdown 2>/dev/null); " \
	"echo \"@ssh has firmware: $fw; lockdown ${lockdown:-none}\"; " \
	"case \" $(cat /proc/cmdline) \" in *' root=UUID='*) by='by UUID';; " \
	"  *' root=LABEL='*) by='by label';; *' root=/dev/'*) by='by device name';; *) by='';; esac; " \
	"fs=$(awk '$2 == \"/\" { t = $3 } END { print t }' /proc/mounts); " \
	HOST_ROOT_SH "disk=$dev; lv=; " \
	"if [ -n \"$lvm_root\" ]; then " \
	"  disk=$(ls -d \"$dev\"/slaves/* 2>/dev/null | head -n 1); " \
	"  lv=\"LVM volume $(cat \"$dev/dm/name\") on ${disk##*/}, \"; " \
	"  PATH=$PATH:/usr/sbin:/sbin command -v lvm >/dev/null || " \
	"  echo '@ssh missing lvm (its root is a logical volume)'; fi; " \
	"by=\"$lv$by\"; " \
	"echo \"@ssh has root: $fs on $(basename \"$(readlink -f \"$dev\")\")${by:+ (${by%, })}$(drivers \"$disk\")\"; " \
	"nic=$(ip route show default 2>/dev/null | " \
	"awk '{ for (i = 1; i < NF; i++) if ($i == \"dev\") { print $(i + 1); exit } }'); " \
	"if [ -n \"$nic\" ]; then ip -4 -o addr show dev \"$nic\" | grep -q dynamic && how=DHCP || how=static; " \
	"  echo \"@ssh has network: $nic ($how)$(drivers \"/sys/class/net/$nic/device\")\"; " \
	"else echo '@ssh has network: no default route'; fi; "

void ssh_check_booted_command(struct strbuf *cmd, int with_kexec)
{
	char *argv[] = { "sh", "-c", with_kexec ? CHECK_KEXEC CHECK_BOOTED : CHECK_BOOTED };

	escape_shell_words(cmd, 3, argv);
}

/* restore = kexec:IMAGE[,INITRD]: the host must have both, or it cannot kexec back. */
static void check_restore_files(struct strbuf *cmd, const char *files)
{
	struct strbuf path = STRBUF_INIT;

	for (const char *p = files; *p;) {
		size_t len = strcspn(p, ",");

		strbuf_reset(&path);
		strbuf_add(&path, p, len);
		strbuf_addstr(cmd, "[ -r ");
		escape_shell(cmd, path.buf);
		strbuf_addstr(cmd, " ] || echo \"@ssh missing the restore ");
		strbuf_addstr(cmd, p == files ? "kernel " : "initramfs ");
		strbuf_addstr(cmd, "\"");
		escape_shell(cmd, path.buf);
		strbuf_addstr(cmd, "; ");
		p += len;
		p += *p == ',';
	}
	strbuf_release(&path);
}

/* the lines of out that begin with "@ssh WHAT ", without it, to *sb: joined by sep */
static void ssh_lines(const struct strbuf *out, const char *what, const char *sep,
		      struct strbuf *sb)
{
	size_t n = strlen(what);

	for (const char *p = out->buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, "@ssh ", 5) && !strncmp(p + 5, what, n) && p[5 + n] == ' ')
			strbuf_addf(sb, "%s%.*s", sb->len ? sep : "", (int)strcspn(p + 6 + n, "\n"),
				    p + 6 + n);
}

static int check_connected(struct remote *r, int with_kexec, struct strbuf *arch,
			   struct strbuf *missing, struct strbuf *found)
{
	struct strbuf cmd = STRBUF_INIT, out = STRBUF_INIT;
	char buf[256];
	int st, ret = -1;

	strbuf_addf(&cmd, CHECK_SCRIPT, SSH_MIN_FREE_KIB, SSH_MIN_FREE_KIB / 1024);
	if (with_kexec)
		strbuf_addstr(&cmd, CHECK_KEXEC);
	if (with_kexec && r->cfg->restore && !strncmp(r->cfg->restore, "kexec:", 6))
		check_restore_files(&cmd, r->cfg->restore + 6);
	if (found)
		strbuf_addstr(&cmd, CHECK_BOOTED);
	st = remote_command(r, cmd.buf, &out, SSH_COMMAND_TIMEOUT_S);
	ssh_field(&out, "arch", buf, sizeof(buf));
	if (st || !*buf) {
		remote_failure(r, st, &out, buf, sizeof(buf));
		strbuf_reset(missing);
		strbuf_addf(missing, "cannot ask host '%s' what it has: %s", r->cfg->host, buf);
		goto out;
	}
	strbuf_reset(arch);
	strbuf_addstr(arch, buf);
	strbuf_reset(missing);
	ssh_lines(&out, "missing", ", ", missing);
	if (found)
		ssh_lines(&out, "has", "\n", found);
	ret = 0;
out:
	strbuf_release(&cmd);
	strbuf_release(&out);
	return ret;
}

int ssh_host_check(const struct ssh_config *c, int with_kexec, struct strbuf *arch,
		   struct strbuf *missing, struct strbuf *found)
{
	struct remote r;
	int ret = -1;

	strbuf_reset(arch);
	strbuf_reset(missing);
	if (!c->host) {
		strbuf_addstr(missing, "no host for the ssh runner (host in the [ssh] section "
			      "of lab.conf, or in the target's)");
		return -1;
	}
	remote_init(&r, c);
	if (remote_connect(&r, 0))
		strbuf_add(missing, r.why.buf, r.why.len);
	else
		ret = check_connected(&r, with_kexec, arch, missing, found) ? -2 : 0;
	remote_release(&r);
	return ret;
}

/* cache/ssh-out-of-service-HOST[:PORT], the name's odd bytes as '_' */
static int service_path(struct strbuf *path, const struct run_spec *spec)
{
	const struct ssh_config *c = spec->ssh;

	if (!spec->cache || !c || !c->host)
		return -1;
	strbuf_addf(path, "%s/ssh-out-of-service-", spec->cache);
	for (const char *p = c->host; *p; p++)
		strbuf_addch(path, strchr("/ \t\n", *p) || (unsigned char)*p < ' ' ? '_' : *p);
	if (c->port)
		strbuf_addf(path, ":%s", c->port);
	return 0;
}

int host_out_of_service(const struct run_spec *spec, struct strbuf *why)
{
	struct strbuf path = STRBUF_INIT;
	int ret = 0;

	if (!service_path(&path, spec) && !strbuf_read_file(why, path.buf, 4096)) {
		strbuf_trim(why);
		ret = 1;
	}
	strbuf_release(&path);
	return ret;
}

void host_service_stop(const struct run_spec *spec, const char *why)
{
	struct strbuf path = STRBUF_INIT, line = STRBUF_INIT;
	char when[32];
	time_t now = time(NULL);

	if (service_path(&path, spec))
		goto out;
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	strbuf_addf(&line, "since %s: ", when);
	for (const char *p = why; *p; p++)
		strbuf_addch(&line, *p == '\n' ? ' ' : *p);
	strbuf_addch(&line, '\n');
	/* a crash must not put the host back in service */
	atomic_write_buf(path.buf, 0644, ATOMIC_DURABLE, "the host's service note", line.buf,
			 line.len);
out:
	strbuf_release(&path);
	strbuf_release(&line);
}

/* lab target check found nothing missing: the host takes boots again */
static void host_service_start(const struct run_spec *spec, struct strbuf *found)
{
	struct strbuf path = STRBUF_INIT, why = STRBUF_INIT;

	if (host_out_of_service(spec, &why) && !service_path(&path, spec)) {
		if (unlink(path.buf) && errno != ENOENT)
			error("cannot remove '%s': %s", path.buf, strerror(errno));
		else
			strbuf_addf(found, "%sback in service (out of service %s)",
				    found->len ? "\n" : "", why.buf);
	}
	strbuf_release(&path);
	strbuf_release(&why);
}

void ssh_check(const struct run_spec *spec, struct strbuf *missing, struct strbuf *found)
{
	struct strbuf arch = STRBUF_INIT, lacks = STRBUF_INIT;
	char guest[4096];
	int r;

	/* a target is for kernels: kexec counts */
	r = ssh_host_check(spec->ssh, 1, &arch, &lacks, found);
	if (r == -1) {
		runner_missing(missing, "an ssh connection (%s)", lacks.buf);
		goto out;
	}
	if (r < 0) {
		/* connected, and the answer would not do: not a connection missing */
		runner_missing(missing, "a usable answer (%s)", lacks.buf);
		goto out;
	}
	if (lacks.len)
		runner_missing(missing, "%s", lacks.buf);
	if (spec->arch && strcmp(spec->arch, arch.buf))
		runner_missing(missing, "arch %s (the host is %s)", spec->arch, arch.buf);
	if (strcmp(arch.buf, "x86_64") && strcmp(arch.buf, "aarch64")) {
		runner_missing(missing, "a guest program for %s (the lab has x86_64 and aarch64)",
			       arch.buf);
		goto out;
	}
	snprintf(guest, sizeof(guest), "%s/build/guest/%s/lab-guest", lab_source_dir(), arch.buf);
	if (access(guest, X_OK))
		runner_missing(missing, "the guest program for %s ('%s': run 'make')", arch.buf, guest);
out:
	if (!missing->len)
		host_service_start(spec, found);
	else if (strbuf_reset(&lacks), host_out_of_service(spec, &lacks))
		strbuf_addf(found, "%sout of service %s", found->len ? "\n" : "", lacks.buf);
	strbuf_release(&arch);
	strbuf_release(&lacks);
}
