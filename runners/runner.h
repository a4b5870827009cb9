#ifndef RUNNER_H
#define RUNNER_H
/*
 * Runners: how a kernel gets booted (or a host gets used) and its workloads
 * driven. Every runner takes a run_spec, performs one run (one boot), and
 * fills a run_result with the outcome, the samples and metadata the guest
 * reported, and the console log path. The caller owns both structs;
 * run_result_release() frees what the runner put into the result.
 *
 * A runner never decides about kernels: an infrastructure problem (QEMU
 * missing, a pipe failing) is RUN_INFRA, not a kernel verdict.
 */
#include "sample.h"
#include "strbuf.h"

enum run_status {
	RUN_RUNNING = 0,	/* stored at the start, replaced at the end */
	RUN_OK,			/* the guest said done ok */
	RUN_FAILED,		/* booted, but a workload reported an error */
	RUN_BOOT_FAILED,	/* panic, BUG, Oops, or no done line */
	RUN_TIMEOUT,		/* deadline passed; the process group was killed */
	RUN_INFRA,		/* the lab's side failed */
};

const char *run_status_name(enum run_status s);

struct run_spec {
	const char *kernel;	/* image (qemu) */
	const char *initrd;	/* initramfs with the guest as /init (qemu) */
	const char *arch;	/* x86_64 | aarch64 */
	const char *guest;	/* guest program (local) */
	const char *params;	/* lab.* parameters, space separated */
	const char *cmdline;	/* extra kernel command line (qemu) */
	const char *nonce;	/* this boot's, passed as lab.nonce=; NULL: none */
	const char *workloads;	/* asked for, comma separated: no other's samples count */
	const char *qemu;	/* QEMU binary; NULL: by arch */
	const char *accel;	/* kvm | tcg | auto */
	const char *libvirt_uri;	/* the libvirt runner's connection */
	/*
	 * wall | icount | auto. With icount, QEMU (TCG only) runs the guest's
	 * clocks on executed instructions, 2^icount_shift ns each: a second
	 * clock beside wall time, measuring work done rather than cache or
	 * memory latency. lab/boot.c settles auto before the first
	 * boot: icount under TCG, wall under KVM and for the local runner.
	 */
	const char *clock;
	int icount_shift;
	const char *console_log;	/* where the console goes */
	const char *kvm_note;	/* file that remembers KVM hanging here; NULL: none */
	long mem_mib;
	int cpus;
	int numa;		/* NUMA nodes sharing mem_mib and the CPUs; 0: none */
	double timeout_s;
};

/* A console line the reader refused, and why (the dropped_lines table). */
struct dropped_line {
	char *reason;
	char *line;		/* cut to RUN_DROPPED_LINE_MAX bytes */
};

#define RUN_DROPPED_KEEP 100	/* lines kept with their reason; all are counted */
#define RUN_DROPPED_LINE_MAX 300

struct run_result {
	enum run_status status;
	struct sample_set set;
	struct strbuf error;		/* one line, when status != OK */
	struct strbuf tail;		/* last few KiB of the console */
	char accel[8];			/* what was really used */
	char full_cmdline[4096];	/* the kernel's, or the program's arguments */
	double wall_s;			/* start to end */
	double to_hello_s;		/* start to the guest's hello; < 0 if none */
	int bad_lines;			/* protocol lines dropped, for whatever reason */
	struct dropped_line *dropped;	/* the first RUN_DROPPED_KEEP of them */
	size_t dropped_nr;
	long done_count;		/* samples the guest said it sent; -1 if no done */
};

void run_result_init(struct run_result *r);
/* Count a dropped line, and keep it with its reason while there is room. */
void run_result_drop(struct run_result *r, const char *reason, const char *line, size_t len);
void run_result_release(struct run_result *r);

struct runner {
	const char *name;
	int (*run)(const struct run_spec *spec, struct run_result *out);
	/*
	 * Settle, before the first boot of a plan, what all its boots must
	 * share: the qemu runner turns accel "auto" into "kvm" or "tcg" here,
	 * so an experiment never mixes accelerators. NULL: nothing to settle.
	 * Returns -1 (with a message) when the runner cannot be used at all.
	 */
	int (*prepare)(struct run_spec *spec);
};

/* The workloads the guest program knows. */
#define WORKLOAD_NAMES "zeroing, demote, boot"
int workload_known(const char *name);

/* NULL when there is no runner of that name. */
const struct runner *runner_find(const char *name);
extern const struct runner runner_qemu, runner_local, runner_libvirt;
/* The runner boots a kernel image with the lab's initramfs (qemu, libvirt). */
int runner_boots_kernel(const struct runner *r);
/*
 * The kernel command line of a qemu or libvirt boot, as stored with the
 * run: without the nonce, which differs per boot (runs of one kernel and
 * command line group together) and goes last when booting, so that a
 * lab.nonce= in --cmdline cannot override it.
 */
void run_spec_cmdline(const struct run_spec *spec, char *out, size_t size);

#endif
