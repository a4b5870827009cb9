#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cpio.h"
#include "escape.h"
#include "host-root.h"
#include "log.h"
#include "strbuf.h"
#include "strvec.h"

/* Files the host may send, each and together: lvm and its libraries are a few MB. */
#define HOST_FILE_MAX (64UL << 20)
#define HOST_TOTAL_MAX (256UL << 20)

static const char script[] =
	"exec 2>/dev/null\n"
	"PATH=$PATH:/usr/sbin:/sbin\n"
	"lv=$1\n"
	HOST_ROOT_SH "\n"
	"[ -n \"$lv$lvm_root\" ] || exit 0\n"
	"[ -n \"$lvm_root\" ] && src=/dev/mapper/$(cat \"$dev/dm/name\") || src=$lv\n"
	"echo \"@lab-root $src\"\n"
	"lvm=$(command -v lvm) || { echo '@missing lvm'; echo @end; exit 0; }\n"
	"[ -n \"$lv\" ] || lv=$(\"$lvm\" lvs --noheadings --separator ' ' "
	"-o vg_name,lv_name,lv_kernel_major,lv_kernel_minor |\n"
	"	awk -v d=\"$(cat \"$dev/dev\")\" '$3 \":\" $4 == d { print $1 \"/\" $2; exit }')\n"
	"echo \"@lv $lv\"\n"
	"echo \"@tool $(wc -c <\"$lvm\") $lvm\"\n"
	"cat \"$lvm\"\n"
	"for f in $(ldd \"$lvm\" | sed -n 's/.*=> \\(\\/[^ ]*\\) .*/\\1/p; "
	"s/^[[:space:]]*\\(\\/[^ ]*\\) .*/\\1/p'); do\n"
	"	echo \"@file $(wc -c <\"$f\") $f\"\n"
	"	cat \"$f\"\n"
	"done\n"
	"echo @end\n";

void host_root_command(struct strbuf *cmd, const char *lv)
{
	char *argv[] = { "sh", "-c", (char *)script, "sh", (char *)(lv ? lv : "") };

	escape_shell_words(cmd, 5, argv);
}

struct reader {
	const char *p, *end;
	const char *host;
};

/* The next line, without its newline, into line: 0, or -1 at the end. */
static int next_line(struct reader *r, struct strbuf *line)
{
	const char *nl = r->p < r->end ? memchr(r->p, '\n', (size_t)(r->end - r->p)) : NULL;

	if (!nl)
		return -1;
	strbuf_reset(line);
	strbuf_add(line, r->p, (size_t)(nl - r->p));
	r->p = nl + 1;
	return 0;
}

/* Absolute, below the root: no ".." component. */
static int safe_path(const char *path)
{
	size_t n = strlen(path);

	return path[0] == '/' && n > 1 && !strstr(path, "/../") &&
	       (n < 3 || strcmp(path + n - 3, "/.."));
}

/* "SIZE PATH" of a @tool or @file line, and the bytes after it, into the archive as name. */
static int add_sent_file(struct cpio *c, struct strvec *made, struct reader *r,
			 const char *header, int tool, unsigned long *total)
{
	char *space = NULL;
	unsigned long size;
	const char *path;

	errno = 0;
	size = strtoul(header, &space, 10);
	if (errno || space == header || *space != ' ' || !safe_path(space + 1) ||
	    size > HOST_FILE_MAX || (*total += size) > HOST_TOTAL_MAX ||
	    size > (unsigned long)(r->end - r->p))
		return error("host '%s' sent a bad file header for its root's tools: '@%s %s'",
			     r->host, tool ? "tool" : "file", header);
	path = space + 1;
	if (cpio_add_parents(c, made, tool ? "sbin/lvm" : path) ||
	    cpio_add_file(c, tool ? "sbin/lvm" : path, 0755, r->p, size))
		return error("cannot add %s of host '%s' to the initramfs: %s", path, r->host,
			     strerror(errno));
	r->p += size;
	return 0;
}

int initramfs_add_host_root(struct cpio *c, struct strvec *made, const struct strbuf *out,
			    const char *host)
{
	struct reader r = { .p = out->buf, .end = out->buf + out->len, .host = host };
	struct strbuf line = STRBUF_INIT, lv = STRBUF_INIT, src = STRBUF_INIT;
	unsigned long total = 0;
	int n = 0, ret = -1, tool = 0;

	/* anything before the first header is not the script's (a login banner) */
	for (;;) {
		if (next_line(&r, &line)) {
			ret = 0;	/* the root is not on LVM */
			goto out;
		}
		if (!strncmp(line.buf, "@lab-root ", 10))
			break;
	}
	strbuf_addstr(&src, line.buf + 10);
	for (;;) {
		if (next_line(&r, &line)) {
			error("host '%s' stopped sending its root's tools before their end", host);
			goto out;
		}
		if (!strcmp(line.buf, "@end"))
			break;
		if (!strcmp(line.buf, "@missing lvm")) {
			error("the root of host '%s', %s, is a logical volume, but the host has no "
			      "lvm command", host, src.buf);
			goto out;
		}
		if (!strncmp(line.buf, "@lv ", 4)) {
			strbuf_reset(&lv);
			strbuf_addstr(&lv, line.buf + 4);
		} else if (!strncmp(line.buf, "@tool ", 6) || !strncmp(line.buf, "@file ", 6)) {
			if (add_sent_file(c, made, &r, line.buf + 6, line.buf[1] == 't', &total))
				goto out;
			tool += line.buf[1] == 't';
			n++;
		} else {
			error("host '%s' sent a line its root's tools do not have: '%.60s'", host,
			      line.buf);
			goto out;
		}
	}
	if (!strchr(lv.buf, '/') || strchr(lv.buf, '/') == lv.buf || strpbrk(lv.buf, " \t")) {
		error("host '%s' named no logical volume for its root %s ('%s')", host, src.buf,
		      lv.buf);
		goto out;
	}
	if (tool != 1) {
		error("host '%s' sent %d lvm commands for its root %s", host, tool, src.buf);
		goto out;
	}
	strbuf_addch(&lv, '\n');
	if (cpio_add_file(c, "lvm", 0644, lv.buf, lv.len)) {
		error("cannot add the root's volume to the initramfs: %s", strerror(errno));
		goto out;
	}
	ret = n;
out:
	strbuf_release_all(&line, &lv, &src);
	return ret;
}
