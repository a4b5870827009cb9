/*
 * lib/log.c: error() and warning() lines as a person reads them: escaped
 * for a terminal, and within 100 columns as every line the lab says, a
 * path too wide for any line kept whole for pasting.
 */
#include <string.h>

#include "capture.h"
#include "log.h"
#include "strbuf.h"
#include "tap.h"

static struct capture cap;
static struct strbuf out = STRBUF_INIT;

static const char *heard(void)
{
	return capture_next(&cap, &out);
}

int main(void)
{
	const char *path = "/srv/lab/state/experiment-0042-demote-pages-aarch64-6.13-rc1-ccache-"
			   "c3c5b2d1f0a9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4/console.log";

	capture_start(&cap);
	is_int(error("cannot open database '%s': %s", "lab.db", "disk I/O error"), -1,
	       "error() returns -1");
	is_str(heard(), "lab: cannot open database 'lab.db': disk I/O error\n", "a short error: one line");
	error("clock '%s' needs the qemu runner or the libvirt runner: the local runner measures "
	      "in wall time (use --clock wall)", "icount");
	is_str(heard(),
	       "lab: clock 'icount' needs the qemu runner or the libvirt runner: the local runner "
	       "measures in wall\n    time (use --clock wall)\n",
	       "a long error is broken at a space within 100 columns, its further line indented four");
	warning("cannot read %s: %s", path, "no such file");
	is_str(heard(), "lab: warning: cannot read\n    /srv/lab/state/experiment-0042-demote-pages-"
	       "aarch64-6.13-rc1-ccache-c3c5b2d1f0a9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4/"
	       "console.log:\n    no such file\n",
	       "a path wider than a line is alone on its line, whole");
	error("guest said '%s'", "\x1b[2Jbye");
	is_str(heard(), "lab: guest said '\\x1b[2Jbye'\n", "text from outside is escaped");
	capture_end(&cap, &out);
	strbuf_release(&out);
	return done_testing();
}
