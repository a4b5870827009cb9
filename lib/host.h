#ifndef HOST_H
#define HOST_H
/*
 * Provenance of the machine a run happens on: host name, CPU model and
 * the QEMU version, recorded with every run so that runs made under
 * different conditions are never silently compared. And where this lab
 * itself is: its architecture and its checkout.
 */

#include <stddef.h>
#include <sys/types.h>

#include "strbuf.h"

struct host_info {
	char name[256];
	char cpu[256];
	char qemu_version[128];	/* "" for runners without QEMU */
};

/* Fills *h; the QEMU version is asked of the binary qemu, none when it is NULL. */
void host_info_get(struct host_info *h, const char *qemu);
/* The first line of `qemu --version`, "" when it does not answer; always terminated. */
void host_qemu_version(char *out, size_t size, const char *qemu);

struct qemu_version {
	int major, minor, micro;
};
/* The numbers of a "QEMU emulator version 10.0.2 (Debian ...)" line; -1 when it is none. */
int qemu_version_parse(struct qemu_version *v, const char *line);
/*
 * Does the QEMU of that --version line run a guest of several vCPUs in
 * virtual time (icount)? 8.1 and later do; an older one, or a line that
 * names no version, does not. *v gets its numbers (zeros when none).
 */
int qemu_icount_smp(struct qemu_version *v, const char *line);
/*
 * Whether KVM runs guests here is a property of the host as it is now:
 * its name and CPU, its kernel (release and build: `uname -r`, `uname
 * -v`), the kvm module that made /dev/kvm (the device's number and when
 * it appeared: a module reloaded or another boot makes it anew) and the
 * QEMU that starts the guests (qemu_version, its --version line). out
 * gets them as one line: a verdict cached under another line is stale.
 */
void host_kvm_key(struct strbuf *out, const char *qemu_version);

struct host_kvm_verdict {
	int usable;
	char reason[512];	/* what the probe saw */
};
/*
 * The verdict cached in file path for key: 1 when there is one (*v
 * filled), 0 when there is none or it was made under another key.
 */
int host_kvm_verdict_read(struct host_kvm_verdict *v, const char *path, const char *key);
/* Cache a verdict and its reason for key: 0, or -1 after a warning (nothing is lost). */
int host_kvm_verdict_write(const char *path, const char *key, int usable, const char *reason);

/*
 * This host's memory (MemTotal, in MiB; 0 when /proc/meminfo does not
 * say) and the CPUs this process may run on (its affinity, as nproc
 * counts them; at least 1).
 */
void host_size(long *mem_mib, int *cpus);

/* This machine's name, "unknown" when it has none; always terminated. */
void host_name(char *out, size_t size);
/*
 * "<boot id> <start time in clock ticks>" of a running process: with the
 * pid, what names it across pid reuse and reboots (start times restart
 * with each boot). -1 when pid is not running or is a zombie.
 */
int host_process_start(char *out, size_t size, pid_t pid);
/* "x86_64" or "aarch64": the architecture this lab was built for. */
const char *host_arch(void);
/*
 * Where the running lab's own files are (build/guest, kernels/configs,
 * web/style.css): its checkout, or <prefix>/share/lab once installed.
 */
const char *lab_source_dir(void);
/* The running lab's own binary (to start another lab command), NULL when unknown. */
const char *lab_program(void);

#endif
