/*
 * What a host lacks to be used by the ssh runner (ssh.h's
 * ssh_host_check()), asked of it in one command.
 */
#include <string.h>

#include "log.h"
#include "ssh-remote.h"

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
	ssh_field(&out, "arch", buf, sizeof(buf));
	if (st || !*buf) {
		ssh_last_line(&out, buf, sizeof(buf));
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
