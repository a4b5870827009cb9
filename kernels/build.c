#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomicfile.h"
#include "build.h"
#include "ccache.h"
#include "gitutil.h"
#include "host.h"
#include "image.h"
#include "kconfig.h"
#include "lock.h"
#include "log.h"
#include "regfile.h"
#include "build-progress.h"
#include "build-sweep.h"
#include "meter.h"
#include "subprocess.h"
#include "xalloc.h"

const char *build_status_name(enum build_status s)
{
	switch (s) {
	case BUILD_OK: return "BUILT";
	case BUILD_CACHED: return "CACHED";
	case BUILD_FAILED: return "BUILD_FAILED";
	}
	return "?";
}

void build_result_init(struct build_result *r)
{
	/* the buffers zeroed are empty, as STRBUF_INIT leaves them; the tail keeps 4 KiB */
	*r = (struct build_result){ .tail.cap = 4096 };
}

void build_result_release(struct build_result *r)
{
	kernel_image_release(&r->image);
	free(r->log);
	strbuf_release(&r->why);
	strbuf_release(&r->tail);
}

static const char *make_arch(const char *arch)
{
	return strcmp(arch, "aarch64") ? "x86_64" : "arm64";
}

static const char *image_target(const char *arch)
{
	return strcmp(arch, "aarch64") ? "bzImage" : "Image";
}

static const char *image_path(const char *arch)
{
	return strcmp(arch, "aarch64") ? "arch/x86/boot/bzImage" : "arch/arm64/boot/Image";
}

static int cross(const char *arch)
{
	return strcmp(arch, host_arch()) != 0;
}

static void hash_hex(char out[41], const struct strbuf *sb)
{
	git_oid oid;
	git_odb_hash(&oid, sb->buf ? sb->buf : "", sb->len, GIT_OBJECT_BLOB);
	git_oid_tostr(out, 41, &oid);
}

/* A config or a patch the user named: a fifo or a device is refused by what it is. */
static int append_file(struct strbuf *sb, const char *path)
{
	struct strbuf why = STRBUF_INIT;
	int ret = regfile_read(sb, path, 0, 0, NULL, &why);

	if (ret)
		error("%s", why.buf);
	strbuf_release(&why);
	return ret;
}

/* hash (NULL: none) gets the git blob id of what was copied, from the bytes in hand. */
static int copy_file(const char *from, const char *to, char *hash)
{
	struct strbuf data = STRBUF_INIT;
	struct stat st;
	mode_t mode = 0644;
	int ret;

	/* an artifact that is a program stays one */
	if (!stat(from, &st) && (st.st_mode & 0111))
		mode = 0755;
	if (strbuf_read_file(&data, from, 0)) {
		ret = error("cannot read '%s': %s", from, strerror(errno));
	} else {
		ret = atomic_write_buf(to, mode, ATOMIC_DURABLE, NULL, data.buf, data.len);
		if (!ret && hash)
			hash_hex(hash, &data);
	}
	strbuf_release(&data);
	return ret;
}

/* First line of `cc --version`: a different compiler is a different artifact. */
static void toolchain(struct strbuf *out, const char *arch, const char *command)
{
	struct strvec av = STRVEC_INIT;
	struct strbuf v = STRBUF_INIT;

	if (command) {
		strbuf_addf(out, "command: %s", command);
		return;
	}
	strvec_push(&av, cross(arch) ? "aarch64-linux-gnu-gcc" : "gcc");
	strvec_push(&av, "--version");
	if (subprocess_run(strvec_argv(&av), NULL, &v, 30) == 0)
		strbuf_add(out, strbuf_str(&v), strcspn(strbuf_str(&v), "\n"));
	else
		strbuf_addstr(out, "unknown compiler");
	strbuf_release(&v);
	strvec_release(&av);
}

/*
 * Everything that decides the .config: base, the arch fragment, extra
 * fragments. Patches are not in it: a probe changes a few files, so its
 * build reuses the objects of the same config and is keyed apart only in
 * the artifact cache.
 */
static int config_text(struct strbuf *out, const struct build_env *env,
		       const struct build_spec *spec)
{
	const char *base = env->base_config;

	strbuf_addf(out, "base %s\n", base);
	if (strcmp(base, "tinyconfig") && strcmp(base, "defconfig") && append_file(out, base))
		return -1;
	strbuf_addf(out, "\n# kernels/configs/%s.config\n", make_arch(spec->arch));
	{
		struct strbuf path = STRBUF_INIT;
		int r;
		strbuf_addf(&path, "%s/kernels/configs/%s.config", lab_source_dir(),
			    make_arch(spec->arch));
		r = access(path.buf, R_OK) ? 0 : append_file(out, path.buf);
		strbuf_release(&path);
		if (r)
			return -1;
	}
	for (size_t i = 0; spec->fragments && i < spec->fragments->nr; i++) {
		strbuf_addf(out, "\n# %s\n", spec->fragments->v[i]);
		if (append_file(out, spec->fragments->v[i]))
			return -1;
	}
	return 0;
}

/*
 * The lab's side of a build failing, not the kernel's: no tool to run, the
 * build deadline, a full disk. A bisection must not skip a commit for them.
 */
static int infra_failure(const char *output, int st)
{
	return st < 0 || st == SUBPROCESS_TIMED_OUT ||
	       st == 127 ||	/* the shell's "command not found" */
	       strstr(output, "No space left on device") ||
	       strstr(output, "Disk quota exceeded");
}

/*
 * Run argv in cwd with its output appended to the log: 0 when it exited 0,
 * -1 when it failed (out->why says how), -2 when the failure is the lab's
 * (said in an error message; out->why untouched). *status, when asked for,
 * gets subprocess_run_env()'s.
 */
static int logged_watched(struct build_result *out, char *const *argv, char *const *env,
			  const char *cwd, int log_fd, double timeout_s,
			  struct subprocess_watch *watch, int *status)
{
	struct strbuf sb = STRBUF_INIT;
	int st, ret = 0;

	for (size_t i = 0; argv[i]; i++)
		strbuf_addf(&sb, "%s%s", i ? " " : "$ ", argv[i]);
	strbuf_addch(&sb, '\n');
	if (write(log_fd, sb.buf, sb.len) < 0)
		warning("cannot write build log");
	strbuf_reset(&sb);
	st = subprocess_run_env(argv, env, cwd, &sb, timeout_s, watch);
	if (status)
		*status = st;
	if (sb.len && write(log_fd, sb.buf, sb.len) < 0)
		warning("cannot write build log");
	strbuf_add(&out->tail, strbuf_str(&sb), sb.len);
	if (st && infra_failure(strbuf_str(&sb), st)) {
		if (st == SUBPROCESS_TIMED_OUT)
			error("the build stopped: '%s' ran past %.0f s (build.timeout)", argv[0],
			      timeout_s);
		else if (st < 0)
			error("the build stopped: cannot start '%s'", argv[0]);
		else if (st == 127)
			error("the build stopped: '%s' exited with status 127 (a program it runs is missing)",
			      argv[0]);
		else
			error("the build stopped: '%s' found no space left on device", argv[0]);
		ret = -2;
	} else if (st) {
		strbuf_reset(&out->why);
		strbuf_addf(&out->why, "'%s' exited with status %d", argv[0], st);
		ret = -1;
	}
	strbuf_release(&sb);
	return ret;
}

static int logged(struct build_result *out, char *const *argv, char *const *env,
		  const char *cwd, int log_fd, double timeout_s)
{
	return logged_watched(out, argv, env, cwd, log_fd, timeout_s, NULL, NULL);
}

/* make in the tree for obj; through the lab's compiler cache when there is one. */
static void make_argv(struct strvec *av, struct kernel_tree *t, const char *obj,
		      const char *arch, long jobs, const struct ccache *cc)
{
	strvec_push(av, "make");
	strvec_push(av, "-C");
	strvec_push(av, t->workdir);
	strvec_pushf(av, "O=%s", obj);
	strvec_pushf(av, "ARCH=%s", make_arch(arch));
	if (cross(arch))
		strvec_push(av, "CROSS_COMPILE=aarch64-linux-gnu-");
	if (cc->program) {
		strvec_pushf(av, "CC=ccache %s", cross(arch) ? "aarch64-linux-gnu-gcc" : "gcc");
		/* the programs the build runs (objtool, kconfig) are compiled too */
		strvec_push(av, "HOSTCC=ccache gcc");
	}
	strvec_pushf(av, "-j%ld", jobs);
}

/*
 * Options that must have survived olddefconfig (kconfig_unstuck()):
 * required-<arch>.txt and the extra fragments. Names the ones that did
 * not stick in out->why.
 */
static int check_required(struct build_result *out, const char *obj, const struct build_spec *spec)
{
	struct strbuf req = STRBUF_INIT, cfg = STRBUF_INIT, path = STRBUF_INIT;
	size_t n = spec->fragments ? spec->fragments->nr : 0;
	struct strbuf *frags = xcalloc(n ? n : 1, sizeof(*frags));
	int missing = 1;

	strbuf_addf(&path, "%s/kernels/configs/required-%s.txt", lab_source_dir(),
		    make_arch(spec->arch));
	if (strbuf_read_file(&req, path.buf, 0)) {
		missing = 0;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if (append_file(&frags[i], spec->fragments->v[i]))
			goto out;
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/.config", obj);
	if (strbuf_read_file(&cfg, path.buf, 0)) {
		strbuf_addf(&out->why, "no .config in '%s'", obj);
		goto out;
	}
	missing = kconfig_unstuck(&out->why, cfg.buf, &req, frags, n);
out:
	for (size_t i = 0; i < n; i++)
		strbuf_release(&frags[i]);
	free(frags);
	strbuf_release_all(&req, &cfg, &path);
	return missing ? -1 : 0;
}

/* Does the build in obj make modules (CONFIG_MODULES=y)? */
static int builds_modules(const char *obj)
{
	struct strbuf path = STRBUF_INIT, cfg = STRBUF_INIT;
	int yes;

	strbuf_addf(&path, "%s/.config", obj);
	yes = !strbuf_read_file(&cfg, path.buf, 0) && kconfig_has(cfg.buf, "CONFIG_MODULES=y");
	strbuf_release(&path);
	strbuf_release(&cfg);
	return yes;
}

/*
 * The modules of the build in obj, stripped, installed under to (modules_install
 * INSTALL_MOD_PATH: lib/modules/<release>/ with depmod's modules.dep); 0, -2
 * when the lab failed, or the status a failed make returned.
 */
static int install_modules(struct build_result *out, struct kernel_tree *t, const char *obj,
			   const struct build_spec *spec, long jobs, struct ccache *cc,
			   const char *to, int log_fd, double timeout)
{
	struct strvec av = STRVEC_INIT;
	struct strbuf dep = STRBUF_INIT;
	struct dirent *e;
	DIR *d;
	int r, found = 0;

	make_argv(&av, t, obj, spec->arch, jobs, cc);
	strvec_pushf(&av, "INSTALL_MOD_PATH=%s", to);
	strvec_push(&av, "INSTALL_MOD_STRIP=1");
	strvec_push(&av, "modules_install");
	r = logged(out, strvec_argv(&av), strvec_argv(&cc->env), NULL, log_fd, timeout);
	strvec_release(&av);
	if (r)
		return r;
	/* without depmod (kmod) make only warns: nobody could load them in order */
	strbuf_addf(&dep, "%s/lib/modules", to);
	d = opendir(dep.buf);
	while (d && (e = readdir(d)) && !found) {
		struct strbuf p = STRBUF_INIT;

		strbuf_addf(&p, "%s/%s/modules.dep", dep.buf, e->d_name);
		found = e->d_name[0] != '.' && !access(p.buf, R_OK);
		strbuf_release(&p);
	}
	if (d)
		closedir(d);
	if (!found) {
		error("modules_install left no modules.dep under '%s' (is depmod, of kmod, "
		      "installed?)", dep.buf);
		r = -2;
	}
	strbuf_release(&dep);
	return r;
}

static int configure(struct build_result *out, const struct build_env *env, struct kernel_tree *t,
		     const struct build_spec *spec, const char *obj, const char *config_hash,
		     int log_fd, long jobs, struct ccache *cc)
{
	struct strvec av = STRVEC_INIT;
	struct strbuf stamp = STRBUF_INIT, have = STRBUF_INIT, frag = STRBUF_INIT;
	const char *base = env->base_config;
	int ret = -1, fd;
	double timeout = (double)env->timeout_s;

	strbuf_addf(&stamp, "%s/.lab-config-hash", obj);
	if (!strbuf_read_file(&have, stamp.buf, 0) && !strcmp(strbuf_str(&have), config_hash)) {
		ret = 0;
		goto out;
	}
	make_argv(&av, t, obj, spec->arch, jobs, cc);
	if (!strcmp(base, "tinyconfig") || !strcmp(base, "defconfig")) {
		strvec_push(&av, base);
		if (logged(out, strvec_argv(&av), strvec_argv(&cc->env), NULL, log_fd, timeout))
			goto out;
	} else {
		struct strbuf dst = STRBUF_INIT;
		strbuf_addf(&dst, "%s/.config", obj);
		ret = copy_file(base, dst.buf, NULL);
		strbuf_release(&dst);
		if (ret)
			goto out;
		ret = -1;
	}
	/* fragments go after the base: for kconfig the last assignment wins */
	strbuf_addf(&frag, "%s/kernels/configs/%s.config", lab_source_dir(), make_arch(spec->arch));
	{
		struct strbuf all = STRBUF_INIT, dst = STRBUF_INIT;
		if (!access(frag.buf, R_OK) && append_file(&all, frag.buf)) {
			strbuf_release(&all);
			goto out;
		}
		for (size_t i = 0; spec->fragments && i < spec->fragments->nr; i++) {
			strbuf_addch(&all, '\n');
			if (append_file(&all, spec->fragments->v[i])) {
				strbuf_release(&all);
				goto out;
			}
		}
		strbuf_addf(&dst, "%s/.config", obj);
		fd = open(dst.buf, O_WRONLY | O_APPEND | O_CLOEXEC);
		if (fd < 0 || write(fd, all.buf ? all.buf : "", all.len) != (ssize_t)all.len) {
			error("cannot write '%s': %s", dst.buf, strerror(errno));
			if (fd >= 0)
				close(fd);
			strbuf_release(&all);
			strbuf_release(&dst);
			goto out;
		}
		close(fd);
		strbuf_release(&all);
		strbuf_release(&dst);
	}
	strvec_release(&av);
	make_argv(&av, t, obj, spec->arch, jobs, cc);
	strvec_push(&av, "olddefconfig");
	if (logged(out, strvec_argv(&av), strvec_argv(&cc->env), NULL, log_fd, timeout) ||
	    check_required(out, obj, spec))
		goto out;
	fd = open(stamp.buf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, config_hash, strlen(config_hash)) < 0) {
		error("cannot write '%s': %s", stamp.buf, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	close(fd);
	ret = 0;
out:
	strvec_release(&av);
	strbuf_release_all(&stamp, &have, &frag);
	return ret;
}

static int probe_path(struct strbuf *out, const char *name, const char *arch)
{
	strbuf_reset(out);
	if (strchr(name, '/')) {
		strbuf_addstr(out, name);
		if (access(out->buf, R_OK))
			return error("cannot read probe '%s': %s", name, strerror(errno));
		return 0;
	}
	strbuf_addf(out, "%s/kernels/probes/%s/%s.patch", lab_source_dir(), make_arch(arch), name);
	if (access(out->buf, R_OK))
		return error("no probe '%s' for %s (no kernels/probes/%s/%s.patch)", name,
			     make_arch(arch), make_arch(arch), name);
	return 0;
}

int build_add_probes(struct strvec *patches, const struct strvec *names, const char *arch)
{
	struct strbuf path = STRBUF_INIT;
	int ret = 0;

	for (size_t i = 0; i < names->nr && !ret; i++)
		if (!(ret = probe_path(&path, names->v[i], arch)))
			strvec_push(patches, path.buf);
	strbuf_release(&path);
	return ret;
}

/*
 * The spec's patches on top of the commit in the work tree, never
 * committed; -1 with out->status BUILD_FAILED naming the one that does not
 * apply, -2 when patch itself could not run.
 */
static int apply_patches(struct build_result *out, struct kernel_tree *t,
			 const struct build_spec *spec, int log_fd, const char *commit_hex)
{
	struct strvec av = STRVEC_INIT;
	int ret = 0;

	for (size_t i = 0; spec->patches && i < spec->patches->nr && !ret; i++) {
		/* patch runs in the work tree: a relative name would miss */
		char *abs = realpath(spec->patches->v[i], NULL);

		strvec_release(&av);
		strvec_pushl(&av, "patch", "-p1", "--forward", "--no-backup-if-mismatch",
			     "--reject-file=-", "-i", abs ? abs : spec->patches->v[i], NULL);
		free(abs);
		ret = logged(out, strvec_argv(&av), NULL, t->workdir, log_fd, 120);
		if (ret == -1) {
			strbuf_reset(&out->why);
			strbuf_addf(&out->why, "patch '%s' does not apply to %.12s",
				    spec->patches->v[i], commit_hex);
			out->status = BUILD_FAILED;
		}
	}
	strvec_release(&av);
	return ret;
}

/* <dir>/<sub>, created if missing (dir exists: the lab opened its database there). */
static char *subdir(const char *dir, const char *sub)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%s/%s", dir ? dir : ".", sub);
	if (mkdir(sb.buf, 0755) && errno != EEXIST) {
		error("cannot create directory '%s': %s", sb.buf, strerror(errno));
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb);
}

/*
 * What the image of a cache entry is: its arch, its PVH entry, its modules,
 * the commit and config it was built from, and its hash, computed once when it was
 * copied into the entry and kept there beside it ("hash").
 */
static void fill_image(struct kernel_image *k, struct strbuf *image, struct strbuf *pvh,
		       const struct build_spec *spec, const char *dir, const char *hash)
{
	k->pvh = !access(pvh->buf, R_OK);
	k->path = strbuf_detach(k->pvh ? pvh : image);
	kernel_image_find_modules(k);
	k->arch = strcmp(spec->arch, "aarch64") ? "x86_64" : "aarch64";
	if (hash) {
		memcpy(k->hash, hash, KERNEL_IMAGE_HASH_LEN);
	} else {
		struct strbuf p = STRBUF_INIT, h = STRBUF_INIT;
		git_oid oid;

		strbuf_addf(&p, "%s/hash", dir);
		strbuf_read_file(&h, p.buf, 0);
		strbuf_trim(&h);
		if (h.len == KERNEL_IMAGE_HASH_LEN && !git_oid_fromstr(&oid, h.buf))
			memcpy(k->hash, h.buf, KERNEL_IMAGE_HASH_LEN);
		else if (!git_odb_hashfile(&oid, k->path, GIT_OBJECT_BLOB))
			/* an entry from before the kept hash */
			git_oid_tostr(k->hash, sizeof(k->hash), &oid);
		strbuf_release(&p);
		strbuf_release(&h);
	}
	k->hash[KERNEL_IMAGE_HASH_LEN] = '\0';
}

/* The image's hash beside it in the cache entry, for the labs that find it there. */
static int keep_hash(const char *dir, const char *hash)
{
	struct strbuf p = STRBUF_INIT, h = STRBUF_INIT;
	int ret;

	strbuf_addf(&p, "%s/hash", dir);
	strbuf_addf(&h, "%s\n", hash);
	ret = atomic_write_buf(p.buf, 0644, ATOMIC_DURABLE, NULL, h.buf, h.len);
	strbuf_release(&p);
	strbuf_release(&h);
	return ret;
}


/* A complete cache entry: "image" is written last. */
static int cached(struct build_result *out, struct strbuf *image, struct strbuf *pvh,
		  const struct build_spec *spec, const char *dir)
{
	if (access(image->buf, R_OK))
		return 0;
	out->status = BUILD_CACHED;
	fill_image(&out->image, image, pvh, spec, dir, NULL);
	out->image.origin = KERNEL_CACHED;
	return 1;
}

int kernel_build(struct build_result *out, const struct build_env *env, struct kernel_tree *t,
		 const git_oid *commit, const struct build_spec *spec)
{
	struct strbuf key = STRBUF_INIT, conf = STRBUF_INIT, dir = STRBUF_INIT;
	struct strbuf obj = STRBUF_INIT, image = STRBUF_INIT, logp = STRBUF_INIT;
	struct strbuf pvh = STRBUF_INIT, lockp = STRBUF_INIT, what = STRBUF_INIT;
	struct strbuf mods = STRBUF_INIT;
	struct strvec av = STRVEC_INIT;
	char conf_hash[41], tree_hex[GIT_OID_HEXSZ + 1], commit_hex[GIT_OID_HEXSZ + 1];
	char hash[KERNEL_IMAGE_HASH_LEN + 1] = "";
	char *artifacts = NULL, *kbuild = NULL;
	git_commit *c = NULL;
	long jobs = env->jobs ? env->jobs : sysconf(_SC_NPROCESSORS_ONLN);
	double t0 = now_monotonic();
	int ret = -1, log_fd = -1, lock_fd = -1, r, st, cold = 0, modules = 0;
	struct make_watch mw;
	struct ccache cc;

	make_watch_init(&mw, env->meter);
	memset(&cc, 0, sizeof(cc));
	if (git_commit_lookup(&c, t->repo, commit))
		return lab_git_error("cannot find commit");
	git_oid_tostr(tree_hex, sizeof(tree_hex), git_commit_tree_id(c));
	git_oid_tostr(commit_hex, sizeof(commit_hex), commit);
	if (config_text(&conf, env, spec))
		goto out;
	hash_hex(conf_hash, &conf);
	strbuf_addf(&key, "tree %s\nconfig %s\narch %s\ntoolchain ", tree_hex, conf_hash, spec->arch);
	toolchain(&key, spec->arch, env->command);
	strbuf_addch(&key, '\n');
	for (size_t i = 0; spec->patches && i < spec->patches->nr; i++) {
		strbuf_addf(&key, "patch %s\n", spec->patches->v[i]);
		if (append_file(&key, spec->patches->v[i]))
			goto out;
	}
	hash_hex(out->key, &key);

	artifacts = subdir(env->dir, "artifacts");
	if (!artifacts)
		goto out;
	strbuf_addf(&dir, "%s/%.20s", artifacts, out->key);
	strbuf_addf(&image, "%s/image", dir.buf);
	strbuf_addf(&pvh, "%s/vmlinux", dir.buf);
	strbuf_addf(&logp, "%s/%.20s.log", artifacts, out->key);
	out->log = strdup(logp.buf);
	if (cached(out, &image, &pvh, spec, dir.buf)) {
		ret = 0;
		goto out;
	}
	/*
	 * One build at a time per results directory: labs sharing it share
	 * the work trees and build directories. The lab before us may have
	 * built this very entry.
	 */
	strbuf_addf(&lockp, "%s/kbuild.lock", env->dir ? env->dir : ".");
	strbuf_addf(&what, "building in %s", env->dir ? env->dir : ".");
	if ((lock_fd = lock_wait(lockp.buf, what.buf)) < 0)
		goto out;
	if (cached(out, &image, &pvh, spec, dir.buf)) {
		ret = 0;
		goto out;
	}

	if (ccache_init(&cc, env->dir, env->ccache_mib))
		goto out;
	if (env->meter)
		meter_phase(env->meter, "checking out");
	if (kernel_tree_checkout(t, commit, &out->files_written))
		goto out;
	log_fd = open(logp.buf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (log_fd < 0) {
		error("cannot write build log '%s': %s", logp.buf, strerror(errno));
		goto out;
	}
	switch (apply_patches(out, t, spec, log_fd, commit_hex)) {
	case 0:
		break;
	case -1:
		ret = 0;
		goto out;
	default:
		goto out;
	}
	strvec_release(&av);
	if (env->command) {
		strvec_split(&av, env->command);
		if (env->meter)
			meter_phase(env->meter, "running %s", av.v[0] ? av.v[0] : "");
	} else {
		/* the tree's own build directories: its sources are ../../src from each */
		if (!(kbuild = subdir(t->dir, "kbuild")))
			goto out;
		strbuf_addf(&obj, "%s/%s-%.12s", kbuild, spec->arch, conf_hash);
		cold = !mkdir(obj.buf, 0755);
		if (!cold && errno != EEXIST) {
			error("cannot create build directory '%s': %s", obj.buf, strerror(errno));
			goto out;
		}
		if (kbuild_begin(obj.buf))
			goto out;
		if (env->meter)
			meter_phase(env->meter, "configuring");
		if (configure(out, env, t, spec, obj.buf, conf_hash, log_fd, jobs, &cc)) {
			if (!out->why.len)
				goto out;
			out->status = BUILD_FAILED;
			ret = 0;
			goto out;
		}
		make_argv(&av, t, obj.buf, spec->arch, jobs, &cc);
		strvec_push(&av, image_target(spec->arch));
		if ((modules = builds_modules(obj.buf)))
			strvec_push(&av, "modules");
		/* the count of a build from scratch says how far a new one is */
		if (env->meter) {
			meter_set_total(env->meter, cold ? build_objects_expected(obj.buf) : 0);
			meter_phase(env->meter, "compiling");
		}
	}
	/* build.command runs in the work tree, make from anywhere (its -C and O= say where) */
	r = logged_watched(out, strvec_argv(&av), strvec_argv(&cc.env),
			   env->command ? t->workdir : NULL, log_fd, (double)env->timeout_s,
			   env->meter ? &mw.w : NULL, &st);
	if (!env->command)
		kbuild_end(obj.buf, st);
	if (!r && modules) {
		/* into the entry, before its image: the entry is complete once "image" is there */
		if (mkdir(dir.buf, 0755) && errno != EEXIST) {
			error("cannot create '%s': %s", dir.buf, strerror(errno));
			goto out;
		}
		strbuf_addf(&mods, "%s/modules", dir.buf);
		if (env->meter)
			meter_phase(env->meter, "installing modules");
		r = install_modules(out, t, obj.buf, spec, jobs, &cc, mods.buf, log_fd,
				    (double)env->timeout_s);
	}
	if (r == -2)
		goto out;
	if (r) {
		out->status = BUILD_FAILED;
		ret = 0;
		goto out;
	}
	if (env->command) {
		strbuf_reset(&obj);
		strbuf_addf(&obj, "%s/%s", t->workdir, env->artifact ? env->artifact : "image");
	} else {
		if (cold && mw.lines)
			build_objects_keep(obj.buf, mw.lines);
		strbuf_addf(&obj, "/%s", image_path(spec->arch));
	}
	if (access(obj.buf, R_OK)) {
		strbuf_reset(&out->why);
		strbuf_addf(&out->why, "the build left no artifact at '%s'", obj.buf);
		out->status = BUILD_FAILED;
		ret = 0;
		goto out;
	}
	if (mkdir(dir.buf, 0755) && errno != EEXIST)
		goto out;
	if (!env->command && !strcmp(spec->arch, "x86_64")) {
		strbuf_reset(&obj);
		strbuf_addf(&obj, "%s/%s-%.12s/vmlinux", kbuild, spec->arch, conf_hash);
		if (kernel_image_pvh(obj.buf) == 1 && copy_file(obj.buf, pvh.buf, hash))
			goto out;
		strbuf_reset(&obj);
		strbuf_addf(&obj, "%s/%s-%.12s/%s", kbuild, spec->arch, conf_hash,
			    image_path(spec->arch));
	}
	/* the hash of the image the entry names, from the bytes copied: no second read */
	if (copy_file(obj.buf, image.buf, hash[0] ? NULL : hash) || keep_hash(dir.buf, hash))
		goto out;
	out->status = BUILD_OK;
	fill_image(&out->image, &image, &pvh, spec, dir.buf, hash);
	out->image.origin = KERNEL_BUILT;
	ret = 0;
out:
	if (out->image.path) {
		memcpy(out->image.commit, commit_hex, KERNEL_IMAGE_HASH_LEN + 1);
		memcpy(out->image.config_hash, conf_hash, KERNEL_IMAGE_HASH_LEN + 1);
		memcpy(out->image.build_key, out->key, KERNEL_IMAGE_HASH_LEN + 1);
	}
	out->seconds = now_monotonic() - t0;
	ccache_stats_read(&out->ccache, &cc);
	ccache_release(&cc);
	if (log_fd >= 0)
		close(log_fd);
	if (lock_fd >= 0)
		close(lock_fd);
	git_commit_free(c);
	free(artifacts);
	free(kbuild);
	strvec_release(&av);
	strbuf_release_all(&key, &conf, &dir, &obj, &image, &pvh, &logp, &lockp, &what, &mods);
	return ret;
}
