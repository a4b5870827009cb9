/*
 * A user's workload on its way into the guest: hashed, its libraries and
 * interpreter found, staged into the initramfs or, for the local runner,
 * into a directory (workload-stage.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "log.h"
#include "regfile.h"
#include "runner.h"
#include "sha256.h"
#include "subprocess.h"
#include "tempfile.h"
#include "workload-stage.h"

#define BUSYBOX "/bin/busybox"
#define WORKDIR "lab/work"

void user_workload_init(struct user_workload *w)
{
	memset(w, 0, sizeof(*w));
	strbuf_init(&w->spec, 0);
	strbuf_init(&w->name, 0);
	strbuf_init(&w->program, 0);
	strbuf_init(&w->format, 0);
	strbuf_init(&w->version, 0);
	strvec_init(&w->args);
	strvec_init(&w->libs);
	strvec_init(&w->higher);
	strvec_init(&w->lower);
}

void user_workload_release(struct user_workload *w)
{
	strbuf_release_all(&w->spec, &w->name, &w->program, &w->format, &w->version);
	strvec_release_all(&w->args, &w->libs, &w->higher, &w->lower);
}

void user_workload_copy(struct user_workload *dst, const struct user_workload *src)
{
	const struct strbuf *from[] = { &src->spec, &src->name, &src->program, &src->format,
					&src->version };
	struct strbuf *to[] = { &dst->spec, &dst->name, &dst->program, &dst->format,
				&dst->version };

	for (size_t i = 0; i < ARRAY_SIZE(to); i++)
		strbuf_addstr(to[i], strbuf_str(from[i]));
	strvec_push_all(&dst->args, &src->args);
	strvec_push_all(&dst->libs, &src->libs);
	strvec_push_all(&dst->higher, &src->higher);
	strvec_push_all(&dst->lower, &src->lower);
	memcpy(dst->sha256, src->sha256, sizeof(dst->sha256));
	dst->script = src->script;
	dst->iters = src->iters;
	dst->deadline_s = src->deadline_s;
}

static int list_libs(struct user_workload *w)
{
	char *argv[] = { "ldd", w->program.buf, NULL };
	struct strbuf out = STRBUF_INIT;
	char *line, *save = NULL;
	int ret = 0, st;

	st = subprocess_run(argv, NULL, &out, 60);
	if (st < 0) {
		ret = error("cannot run ldd on '%s' for workload '%s'", w->program.buf, w->spec.buf);
		goto out;
	}
	/* "not a dynamic executable": nothing to add */
	if (st)
		goto out;
	for (line = strtok_r(out.buf, "\n", &save); line && !ret;
	     line = strtok_r(NULL, "\n", &save)) {
		char *arrow = strstr(line, "=> "), *path = arrow ? arrow + 3 : line;
		path += strspn(path, " \t");
		if (strstr(path, "not found"))
			ret = error("library '%s' of program '%s' (workload '%s') not found",
				    strtok(line + strspn(line, " \t"), " "), w->program.buf,
				    w->spec.buf);
		else if (*path == '/')
			strvec_push(&w->libs, strtok(path, " "));
	}
out:
	strbuf_release(&out);
	return ret;
}

/* stress-ng's version onto out, asked once a process: each guest stages its workloads. */
static int stressng_version(struct strbuf *out)
{
	static struct strbuf num = STRBUF_INIT;

	if (!num.len) {
		char *argv[] = { WORKLOAD_STRESSNG, "--version", NULL };
		struct strbuf text = STRBUF_INIT;
		const char *v;

		if (subprocess_run(argv, NULL, &text, 30)) {
			strbuf_release(&text);
			return -1;
		}
		/* "stress-ng, version 0.15.06 (gcc ..., x86_64 Linux <host's kernel>)": the number */
		v = strstr(strbuf_str(&text), "version ");
		if (v)
			strbuf_add(&num, v + 8, strcspn(v + 8, " \n"));
		if (!num.len)
			strbuf_addstr(&num, "unknown");
		strbuf_release(&text);
	}
	strbuf_reset(out);
	strbuf_addstr(out, num.buf);
	return 0;
}

int user_workload_stage(struct user_workload *w)
{
	char head[4] = { 0 };
	int fd;

	if (sha256_file(w->program.buf, w->sha256))
		return error("cannot read program '%s' of workload '%s': %s", w->program.buf,
			     w->spec.buf, strerror(errno));
	fd = regfile_open(w->program.buf, 0, NULL, NULL, NULL);
	if (fd < 0 || read(fd, head, sizeof(head)) < 2) {
		if (fd >= 0)
			close(fd);
		return error("cannot read program '%s' of workload '%s'", w->program.buf,
			     w->spec.buf);
	}
	close(fd);
	w->script = head[0] == '#' && head[1] == '!';
	if (!strncmp(w->format.buf, "stress-ng ", 10) && stressng_version(&w->version))
		return error("cannot ask %s its version for workload '%s'", WORKLOAD_STRESSNG,
			     w->spec.buf);
	if (!memcmp(head, "\x7f" "ELF", 4))
		return list_libs(w);
	if (w->script && access(BUSYBOX, X_OK))
		return error("script '%s' of workload '%s' needs %s as its shell in the guest "
			     "(Debian's busybox-static package: make deps)", w->program.buf,
			     w->spec.buf, BUSYBOX);
	return 0;
}

/* The interpreter of a script: "/bin/sh" of "#!/bin/sh -e". */
static int script_interpreter(struct strbuf *out, const char *program)
{
	struct strbuf head = STRBUF_INIT;
	int ret = -1;

	if (strbuf_read_file(&head, program, 256) >= 0 && head.len > 2) {
		const char *s = head.buf + 2;
		s += strspn(s, " \t");
		strbuf_add(out, s, strcspn(s, " \t\r\n"));
		ret = out->len ? 0 : -1;
	}
	strbuf_release(&head);
	return ret;
}

static int add_busybox(struct cpio *c, struct strvec *made, const struct user_workload *w,
		       size_t n)
{
	char *argv[] = { BUSYBOX, "--list", NULL };
	struct strbuf list = STRBUF_INIT, interp = STRBUF_INIT, link = STRBUF_INIT;
	struct strvec applets = STRVEC_INIT, linked = STRVEC_INIT;
	int ret = -1;

	if (subprocess_run(argv, NULL, &list, 30)) {
		error("cannot list the applets of %s", BUSYBOX);
		goto out;
	}
	strvec_split(&applets, strbuf_str(&list));
	if (cpio_add_parents(c, made, "bin/busybox") ||
	    cpio_add_file_from_path(c, "bin/busybox", 0755, BUSYBOX))
		goto fail;
	for (size_t i = 0; i < applets.nr; i++) {
		if (!strcmp(applets.v[i], "busybox"))
			continue;
		strbuf_reset(&link);
		strbuf_addf(&link, "bin/%s", applets.v[i]);
		strvec_push(&linked, link.buf);
		if (cpio_add_symlink(c, link.buf, "busybox"))
			goto fail;
	}
	/* "#!/usr/bin/env sh" and the like: the interpreter's own path too */
	for (size_t k = 0; k < n; k++) {
		const char *base;
		int applet = 0, seen = 0;

		if (!w[k].script)
			continue;
		strbuf_reset(&interp);
		if (script_interpreter(&interp, w[k].program.buf)) {
			error("cannot read the interpreter of script '%s' (workload '%s')",
			      w[k].program.buf, w[k].spec.buf);
			goto out;
		}
		base = strrchr(interp.buf, '/') ? strrchr(interp.buf, '/') + 1 : interp.buf;
		for (size_t i = 0; i < applets.nr; i++)
			applet |= !strcmp(applets.v[i], base);
		if (!applet || interp.buf[0] != '/') {
			error("script '%s' of workload '%s' wants '%s', which busybox cannot stand in "
			      "for in the guest (use #!/bin/sh)", w[k].program.buf, w[k].spec.buf,
			      interp.buf);
			goto out;
		}
		for (size_t i = 0; i < linked.nr; i++)
			seen |= !strcmp(linked.v[i], interp.buf + 1);
		if (seen)
			continue;
		strvec_push(&linked, interp.buf + 1);
		if (cpio_add_parents(c, made, interp.buf) ||
		    cpio_add_symlink(c, interp.buf + 1, BUSYBOX))
			goto fail;
	}
	ret = 0;
	goto out;
fail:
	error("cannot add busybox to the initramfs: %s", strerror(errno));
out:
	strbuf_release_all(&list, &interp, &link);
	strvec_release(&applets);
	strvec_release(&linked);
	return ret;
}

static void args_text(struct strbuf *out, const struct user_workload *w)
{
	for (size_t i = 0; i < w->args.nr; i++)
		strbuf_addf(out, "%s\n", w->args.v[i]);
}

/*
 * A section's settings as the guest reads them beside the program
 * (runners/guest/exec.h): iters, deadline, directions. out[i] empty: no file.
 */
#define SETTINGS 3
static const char *const settings_files[SETTINGS] = { "iters", "deadline", "directions" };

static void settings_text(struct strbuf out[SETTINGS], const struct user_workload *w)
{
	for (int i = 0; i < SETTINGS; i++)
		strbuf_reset(&out[i]);
	if (w->iters)
		strbuf_addf(&out[0], "%ld", w->iters);
	if (w->deadline_s)
		strbuf_addf(&out[1], "%ld", w->deadline_s);
	for (size_t i = 0; i < w->higher.nr; i++)
		strbuf_addf(&out[2], "%s higher\n", w->higher.v[i]);
	for (size_t i = 0; i < w->lower.nr; i++)
		strbuf_addf(&out[2], "%s lower\n", w->lower.v[i]);
}

int user_workloads_cpio(struct cpio *c, const struct user_workload *w, size_t n)
{
	struct strvec made = STRVEC_INIT, libs = STRVEC_INIT;
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT, link = STRBUF_INIT;
	struct strbuf set[SETTINGS] = { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT };
	int ret = -1, scripts = 0;
	size_t same;

	/* the archive's own directories (cpio.c) */
	initramfs_dirs(&made);
	for (size_t k = 0; k < n; k++) {
		strbuf_reset(&path);
		strbuf_addf(&path, WORKDIR "/%s/run", w[k].name.buf);
		strbuf_reset(&text);
		args_text(&text, &w[k]);
		if (cpio_add_parents(c, &made, path.buf))
			goto fail;
		/* one copy of a program several workloads run (stress-ng's stressors) */
		for (same = 0; same < k; same++)
			if (!strcmp(w[same].sha256, w[k].sha256))
				break;
		strbuf_reset(&link);
		strbuf_addf(&link, "/" WORKDIR "/%s/run", w[same].name.buf);
		if (same < k ? cpio_add_symlink(c, path.buf, link.buf) :
			       cpio_add_file_from_path(c, path.buf, 0755, w[k].program.buf))
			goto fail;
		strbuf_reset(&path);
		strbuf_addf(&path, WORKDIR "/%s/args", w[k].name.buf);
		if (cpio_add_file(c, path.buf, 0644, text.buf, text.len))
			goto fail;
		strbuf_reset(&path);
		strbuf_addf(&path, WORKDIR "/%s/format", w[k].name.buf);
		if (cpio_add_file(c, path.buf, 0644, w[k].format.buf, w[k].format.len))
			goto fail;
		settings_text(set, &w[k]);
		for (int i = 0; i < SETTINGS; i++) {
			if (!set[i].len)
				continue;
			strbuf_reset(&path);
			strbuf_addf(&path, WORKDIR "/%s/%s", w[k].name.buf, settings_files[i]);
			if (cpio_add_file(c, path.buf, 0644, set[i].buf, set[i].len))
				goto fail;
		}
		scripts += w[k].script;
		for (size_t i = 0; i < w[k].libs.nr; i++) {
			int seen = 0;
			for (size_t j = 0; j < libs.nr && !seen; j++)
				seen = !strcmp(libs.v[j], w[k].libs.v[i]);
			if (seen)
				continue;
			strvec_push(&libs, w[k].libs.v[i]);
			if (cpio_add_parents(c, &made, w[k].libs.v[i]) ||
			    cpio_add_file_from_path(c, w[k].libs.v[i], 0755, w[k].libs.v[i]))
				goto fail;
		}
	}
	ret = scripts ? add_busybox(c, &made, w, n) : 0;
	goto out;
fail:
	error("cannot add '%s' to the initramfs: %s", path.buf, strerror(errno));
out:
	strvec_release_all(&made, &libs);
	strbuf_release_all(&path, &text, &link);
	for (int i = 0; i < SETTINGS; i++)
		strbuf_release(&set[i]);
	return ret;
}

static int write_small(const char *path, const char *text, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int ok = fd >= 0 && write(fd, text, len) == (ssize_t)len;

	if (fd >= 0 && close(fd))
		ok = 0;
	return ok ? 0 : -1;
}

int user_workloads_stage_dir(const char *dir, const struct user_workload *w, size_t n)
{
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT;
	struct strbuf set[SETTINGS] = { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT };
	int ret = -1;

	if (mkdir(dir, 0755) && errno != EEXIST) {
		error("cannot make directory '%s': %s", dir, strerror(errno));
		goto out;
	}
	for (size_t k = 0; k < n; k++) {
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", dir, w[k].name.buf);
		if (mkdir(path.buf, 0755) && errno != EEXIST)
			goto fail;
		strbuf_addstr(&path, "/run");
		if (tempfile_register(path.buf))
			goto out;
		unlink(path.buf);
		if (symlink(w[k].program.buf, path.buf))
			goto fail;
		strbuf_setlen(&path, path.len - 4);
		strbuf_addstr(&path, "/args");
		strbuf_reset(&text);
		args_text(&text, &w[k]);
		if (tempfile_register(path.buf))
			goto out;
		if (write_small(path.buf, text.buf, text.len))
			goto fail;
		strbuf_setlen(&path, path.len - 5);
		strbuf_addstr(&path, "/format");
		if (tempfile_register(path.buf))
			goto out;
		if (write_small(path.buf, w[k].format.buf, w[k].format.len))
			goto fail;
		settings_text(set, &w[k]);
		for (int i = 0; i < SETTINGS; i++) {
			strbuf_reset(&path);
			strbuf_addf(&path, "%s/%s/%s", dir, w[k].name.buf, settings_files[i]);
			/* a file from an earlier staging must not speak for this one */
			unlink(path.buf);
			if (!set[i].len)
				continue;
			if (tempfile_register(path.buf))
				goto out;
			if (write_small(path.buf, set[i].buf, set[i].len))
				goto fail;
		}
	}
	ret = 0;
	goto out;
fail:
	error("cannot write '%s': %s", path.buf, strerror(errno));
out:
	strbuf_release_all(&path, &text);
	for (int i = 0; i < SETTINGS; i++)
		strbuf_release(&set[i]);
	return ret;
}

void user_workloads_unstage_dir(const char *dir, const struct user_workload *w, size_t n)
{
	static const char *const files[] = { "run", "args", "format", "iters", "deadline",
					     "directions" };
	struct strbuf path = STRBUF_INIT;

	for (size_t k = 0; k < n; k++) {
		for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
			strbuf_reset(&path);
			strbuf_addf(&path, "%s/%s/%s", dir, w[k].name.buf, files[i]);
			tempfile_delete(path.buf);
		}
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", dir, w[k].name.buf);
		rmdir(path.buf);
	}
	rmdir(dir);
	strbuf_release(&path);
}

void user_workloads_free(struct user_workload **w, size_t *n)
{
	for (size_t k = 0; k < *n; k++)
		user_workload_release(&(*w)[k]);
	free(*w);
	*w = NULL;
	*n = 0;
}

struct staged {
	struct user_workload *w;
	size_t n;
};

static int add_staged(struct cpio *c, void *data)
{
	struct staged *s = data;

	return user_workloads_cpio(c, s->w, s->n);
}

int user_workloads_initramfs(const char *out_path, const char *init_binary,
			     struct user_workload *w, size_t n)
{
	struct staged s = { w, n };

	return initramfs_write_with(out_path, init_binary, n ? add_staged : NULL, &s);
}
