/*
 * A build's modules packed for LAVA (lava-modules.h), by tar and xz: a
 * job's modules are a tar.xz by LAVA's convention, and both programs are
 * on every Debian machine (tar is essential, xz-utils required).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lava-modules.h"
#include "strbuf.h"
#include "strvec.h"
#include "subprocess.h"
#include "tempfile.h"

/* packing a distribution kernel's few thousand modules takes a minute on 2 cores */
#define PACK_TIMEOUT_S 900.0

static int newer(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec != b->tv_sec ? a->tv_sec > b->tv_sec : a->tv_nsec > b->tv_nsec;
}

/* The newest modules.dep of root's releases into *t: -1 when there is none. */
static int newest_dep(struct timespec *t, const char *root)
{
	struct strbuf dir = STRBUF_INIT, dep = STRBUF_INIT;
	struct dirent *e;
	struct stat st;
	int found = 0;
	DIR *d;

	strbuf_addf(&dir, "%s/lib/modules", root);
	d = opendir(dir.buf);
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		strbuf_reset(&dep);
		strbuf_addf(&dep, "%s/%s/modules.dep", dir.buf, e->d_name);
		if (stat(dep.buf, &st) || !S_ISREG(st.st_mode))
			continue;
		if (!found++ || newer(&st.st_mtim, t))
			*t = st.st_mtim;
	}
	if (d)
		closedir(d);
	strbuf_release(&dir);
	strbuf_release(&dep);
	return found ? 0 : -1;
}

/* root's lib/modules packed into tmp: 0, or -1 with why. */
static int pack(const char *tmp, const char *root, struct strbuf *why)
{
	struct strvec av = STRVEC_INIT;
	struct strbuf out = STRBUF_INIT;
	/* xz on every core: the archive is made while a boot waits for it */
	char *const env[] = { "XZ_OPT=-T0", NULL };
	int r;

	strvec_pushl(&av, "tar", "--create", "--xz", NULL);
	strvec_pushf(&av, "--file=%s", tmp);
	strvec_pushf(&av, "--directory=%s", root);
	/* the same bytes from any builder: no user of this machine, no order of its disk */
	strvec_pushl(&av, "--owner=0", "--group=0", "--numeric-owner", "--sort=name",
		     "--dereference", "--exclude=lib/modules/*/build",
		     "--exclude=lib/modules/*/source", "lib/modules", NULL);
	r = subprocess_run_env(strvec_argv(&av), env, NULL, &out, PACK_TIMEOUT_S, NULL);
	if (r) {
		/* tar's last line says why; xz's, through tar, too */
		const char *last;

		strbuf_trim(&out);
		last = strrchr(strbuf_str(&out), '\n');
		strbuf_addf(why, "cannot pack the modules of '%s' into '%s': tar %s%s%s", root, tmp,
			    r == -1 ? "could not start" :
			    r == SUBPROCESS_TIMED_OUT ? "took too long" : "failed",
			    out.len ? ": " : "", out.len ? (last ? last + 1 : out.buf) : "");
	}
	strvec_release(&av);
	strbuf_release(&out);
	return r ? -1 : 0;
}

int lava_modules_archive(struct strbuf *path, const char *root, struct strbuf *why)
{
	struct strbuf tmp = STRBUF_INIT;
	struct timespec dep = { 0, 0 };
	struct stat st;
	int ret = -1;

	strbuf_reset(path);
	strbuf_addf(path, "%s.tar.xz", root);
	if (newest_dep(&dep, root)) {
		strbuf_addf(why, "no modules.dep under '%s/lib/modules' (a build's modules, as "
			    "modules_install leaves them with depmod's)", root);
		goto out;
	}
	if (!stat(path->buf, &st) && S_ISREG(st.st_mode) && !newer(&dep, &st.st_mtim)) {
		ret = 0;
		goto out;
	}
	/* packed aside and renamed: another lab packing the same modules sees either whole */
	strbuf_addf(&tmp, "%s.tmp-%d-x", path->buf, (int)getpid());
	if (tempfile_register(tmp.buf)) {
		strbuf_addf(why, "cannot pack the modules of '%s': too many temporary files", root);
		goto out;
	}
	if (pack(tmp.buf, root, why))
		goto unlink;
	if (rename(tmp.buf, path->buf)) {
		strbuf_addf(why, "cannot rename '%s' to '%s': %s", tmp.buf, path->buf,
			    strerror(errno));
		goto unlink;
	}
	ret = 0;
unlink:
	tempfile_delete(tmp.buf);
out:
	strbuf_release(&tmp);
	return ret;
}
