#ifndef WORKLOAD_STAGE_H
#define WORKLOAD_STAGE_H
/*
 * A user's workload (exec: or stress-ng:, lab/config/workload.h parses
 * one) as the lab stages it for the guest: in the initramfs under
 * /lab/work/NAME, with the shared libraries ldd names and, for a script,
 * busybox and its applets in /bin; for the local runner in a directory
 * of the same layout.
 */
#include "cpio.h"
#include "strbuf.h"
#include "strvec.h"

/* the stress-ng the lab runs for stress-ng: workloads (Debian's package) */
#define WORKLOAD_STRESSNG "/usr/bin/stress-ng"

struct user_workload {
	struct strbuf spec;		/* canonical: "exec:/abs/path arg..." */
	struct strbuf name;		/* stored workload name */
	struct strbuf program;		/* absolute path of what runs */
	struct strbuf format;		/* "plain" | "stress-ng STRESSOR" */
	struct strbuf version;		/* stress-ng's; empty for exec */
	struct strvec args;
	struct strvec libs;		/* shared objects to stage (ldd) */
	char sha256[65];
	int script;			/* "#!": staged with busybox */
	/* a [workload] section's: 0 for none */
	long iters, deadline_s;
	struct strvec higher, lower;	/* metrics and their direction */
};

void user_workload_init(struct user_workload *w);
void user_workload_release(struct user_workload *w);
/* dst (initialized) the same as src, for a guest that stages its own. */
void user_workload_copy(struct user_workload *dst, const struct user_workload *src);

/* Hash the program, ask stress-ng its version, list the libraries. */
int user_workload_stage(struct user_workload *w);

/* n of them, and the array (user_workloads_load() of lab/config/workload.h fills one). */
void user_workloads_free(struct user_workload **w, size_t *n);

/* initramfs_write() with them (and nothing more when n is 0). */
int user_workloads_initramfs(const char *out_path, const char *init_binary,
			     struct user_workload *w, size_t n);

/* Add /lab/work/NAME, the libraries and busybox to an initramfs. */
int user_workloads_cpio(struct cpio *c, const struct user_workload *w, size_t n);

/*
 * The local runner's staging: dir/NAME/{run,args,format,iters,deadline,
 * directions} (the last three for a section's settings), run a symlink
 * to the program. The files are temp files; user_workloads_unstage()
 * removes them and the directories.
 */
int user_workloads_stage_dir(const char *dir, const struct user_workload *w, size_t n);
void user_workloads_unstage_dir(const char *dir, const struct user_workload *w, size_t n);

#endif
