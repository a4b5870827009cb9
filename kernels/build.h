#ifndef BUILD_H
#define BUILD_H
/*
 * Kernel builds and the artifact cache.
 *
 * An image is stored once per (tree id, config hash, toolchain, arch) under
 * <lab dir>/artifacts/<key>/; asking for it again is a cache hit with no
 * checkout and no make. A miss checks the commit out into the lab's work
 * tree and runs `make O=<build dir>` with one build directory per (arch,
 * config), kept between builds so that a commit that changes one file
 * rebuilds in seconds. The base config (tinyconfig, defconfig or a file)
 * gets kernels/configs/<arch>.config and any extra fragments on top; the
 * options in kernels/configs/required-<arch>.txt must survive olddefconfig.
 *
 * A build with CONFIG_MODULES=y makes its modules with the image and
 * installs them, stripped, into the entry's modules/ (INSTALL_MOD_PATH,
 * with depmod's modules.dep), before the image: kernel_image.modules.
 *
 * An x86 build whose vmlinux has the PVH entry point (CONFIG_PVH) keeps it
 * beside the bzImage, and the image it names is the vmlinux: QEMU boots it
 * without firmware real mode or decompression, a second less per boot
 * under TCG. The bzImage stays in the cache as "image".
 *
 * build.command in lab.conf replaces make for any project: it runs in the
 * work tree and leaves build.artifact there.
 *
 * Both compile through the lab's compiler cache (ccache.h): make gets
 * CC="ccache gcc", and make or build.command the cache's environment
 * (CCACHE_DIR under the state root, CCACHE_BASEDIR, CCACHE_NOHASHDIR, the
 * size cap); build_result says what the build found in it.
 *
 * The image a build names is a resolved struct kernel_image: its hash is
 * taken from the bytes copied into the cache entry and kept there ("hash"),
 * so neither a build nor a cache hit reads the file again.
 *
 * struct build_result owns its strings; build_result_release() frees them.
 */
#include <git2.h>

#include "ccache.h"
#include "checkout.h"
#include "kernel-image.h"
#include "strbuf.h"
#include "strvec.h"

enum build_status {
	BUILD_OK,
	BUILD_CACHED,
	BUILD_FAILED,
};

const char *build_status_name(enum build_status s);

struct build_spec {
	const char *arch;			/* x86_64 | aarch64 */
	const struct strvec *fragments;		/* extra config fragments (files) */
	const struct strvec *patches;		/* applied on top of the commit, in order:
						   the variant's own, then the probes */
};

/*
 * What a build takes from the lab: its state root (core.state) and the build.*
 * keys of lab.conf. The lab fills it (lab/plans/refbuild.c); the strings are the
 * lab's.
 */
struct meter;

struct build_env {
	const char *dir;		/* state root: artifacts/ and kbuild/ go there */
	const char *base_config;	/* build.config: tinyconfig, defconfig or a file */
	const char *command;		/* build.command, replacing make; NULL: make */
	const char *artifact;		/* build.artifact, in the work tree; NULL: "image" */
	long jobs;			/* build.jobs; 0: the number of CPUs */
	long timeout_s;			/* build.timeout */
	long ccache_mib;		/* build.ccacheSize; 0: CCACHE_DEFAULT_MIB */
	struct meter *meter;		/* begun by the caller, told each phase; NULL: none */
};

struct build_result {
	enum build_status status;
	struct kernel_image image;	/* the cached artifact, hashed once as it was copied */
	char *log;		/* build log */
	char key[41];
	double seconds;
	size_t files_written;	/* by the checkout */
	struct ccache_stats ccache;	/* this build's compilations; 0 and 0: none */
	struct strbuf why;	/* BUILD_FAILED: one line */
	struct strbuf tail;	/* BUILD_FAILED: the log's end */
};

void build_result_init(struct build_result *r);
void build_result_release(struct build_result *r);

/*
 * Build (or find) commit for spec. Returns -1 when the lab itself failed:
 * no space left, make (or a program the build runs) missing, the build
 * deadline (build.timeout) passed; a kernel that does not build (a compile
 * error, a patch that does not apply) is BUILD_FAILED.
 */
int kernel_build(struct build_result *out, const struct build_env *env, struct kernel_tree *t,
		 const git_oid *commit, const struct build_spec *spec);

/*
 * A probe is a small patch that times a function ftrace cannot reach (it
 * runs before ftrace exists) with the CPU's raw counter and prints
 * "lab-probe: <name> <ns> ns". name is kernels/probes/<make arch>/<name>.patch
 * or, with a slash in it, a file. Pushes each probe's path onto patches;
 * fails naming the first probe that is missing.
 */
int build_add_probes(struct strvec *patches, const struct strvec *names, const char *arch);

#endif
