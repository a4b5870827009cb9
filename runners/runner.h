#ifndef RUNNER_H
#define RUNNER_H
/*
 * Runners: how a kernel gets booted (or a host gets used) and its workloads
 * driven. Every runner takes a run_spec, performs one run (one boot), and
 * fills a run_result with the outcome, the samples and metadata the guest
 * reported, and the console log path. The caller owns both structs;
 * run_result_release() frees what the runner put into the result.
 *
 * The run_result is results/run.h's: the store keeps it as it is.
 *
 * The kernel comes resolved (results/kernel-image.h): its arch and PVH
 * entry were read once, by the command or the build; a runner reads the
 * file only to boot it.
 *
 * A runner never decides about kernels: an infrastructure problem (QEMU
 * missing, a pipe failing) is RUN_INFRA, not a kernel verdict.
 */
#include "kernel-image.h"
#include "run.h"

struct lava_config;
struct ssh_config;

/*
 * Whoever watches a boot as it goes (a progress line): told each new
 * phase in words ("kernel booting"), how far it is ("zeroing: 12
 * samples"), and ticked
 * about once a second while the console is quiet. Called from the
 * runner's read loop, so it must return at once.
 */
struct run_watch {
	void (*phase)(struct run_watch *w, const char *what);	/* a new phase */
	void (*count)(struct run_watch *w, const char *what);	/* how far it is */
	void (*tick)(struct run_watch *w);
};

struct run_spec {
	const struct kernel_image *kernel;	/* resolved image (qemu, libvirt, ssh, lava); NULL: none */
	const char *initrd;	/* initramfs with the guest as /init (qemu) */
	const char *arch;	/* x86_64 | aarch64 */
	const char *guest;	/* guest program (local) */
	const char *params;	/* lab.* parameters, space separated */
	const char *cmdline;	/* extra kernel command line (qemu) */
	const char *nonce;	/* this boot's, as lab.nonce= (qemu, libvirt: in the initramfs); NULL: none */
	const char *workdir;	/* local: staged user workloads, lab.workdir=; NULL: none */
	const char *workloads;	/* asked for, comma separated: no other's samples count */
	const char *qemu;	/* QEMU binary; NULL: by arch */
	const char *accel;	/* kvm | tcg | auto */
	/*
	 * accel was "auto", settled by prepare(): a boot that KVM fails
	 * (QEMU's "KVM internal error") is booted again under TCG, and so
	 * are the boots after it.
	 */
	int accel_auto;
	const char *libvirt_uri;	/* the libvirt runner's connection */
	const struct ssh_config *ssh;	/* the ssh runner's host (ssh.h) */
	const struct lava_config *lava;	/* the lava runner's server (lava.h) */
	const char *cache;	/* the state root's cache folder: what outlives a lab; NULL: none */
	/*
	 * wall | icount | auto. With icount, QEMU (TCG only) runs the guest's
	 * clocks on executed instructions, 2^icount_shift ns each: a second
	 * clock beside wall time, measuring work done rather than cache or
	 * memory latency. lab/plans/boot.c settles auto before the first
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
	struct run_watch *watch;	/* NULL: nobody watches */
};

/*
 * What a runner can do. The plans and commands ask these, and never
 * compare a runner's name or address: a new runner says what it is here.
 */
enum runner_flags {
	/*
	 * Every run boots a kernel image in a machine of its own (a VM): a
	 * kernel is required, and the runner gives the guest its NUMA nodes
	 * and its clock (icount).
	 */
	RUNNER_BOOTS_KERNEL = 1 << 0,
	/* The guest and the user's workloads go in the lab's initramfs; else they are staged. */
	RUNNER_INITRAMFS = 1 << 1,
	/* Kexecs its host into the kernel given; given none, it runs on the host's own. */
	RUNNER_KEXECS_HOST = 1 << 2,
	/*
	 * Runs on this host, in the kernel running here: an image it is
	 * given is a program to run (a build.command's artifact), not a
	 * kernel.
	 */
	RUNNER_THIS_HOST = 1 << 3,
	/* Starts spec->qemu on this host: its version is the runs' provenance. */
	RUNNER_RUNS_QEMU = 1 << 4,
};

struct runner {
	const char *name;
	unsigned flags;		/* enum runner_flags */
	int (*run)(const struct run_spec *spec, struct run_result *out);
	/*
	 * Settle, before the first boot of a plan, what all its boots must
	 * share: the qemu runner turns accel "auto" into "kvm" or "tcg" here,
	 * so an experiment never mixes accelerators. NULL: nothing to settle.
	 * Returns -1 (with a message) when the runner cannot be used at all.
	 */
	int (*prepare)(struct run_spec *spec);
	/*
	 * Whether the runner can start a guest of spec's memory, CPUs and
	 * NUMA nodes at all, asked before anything is stored: -1 after one
	 * line in the runner's own words (QEMU's "Invalid SMP CPUs 1024")
	 * when it cannot. A runner that cannot be asked says 0, and its
	 * boots report what goes wrong. NULL: nothing to ask.
	 */
	int (*fits)(const struct run_spec *spec);
	/*
	 * What the machine of spec lacks to boot there (lab target check),
	 * added to *missing with runner_missing(); it asks the machine and
	 * boots nothing. What it learned on the way that a kernel for it must
	 * fit (its firmware, the drivers of its root and network) goes to
	 * *found, a line each. NULL: there is nothing to ask.
	 */
	void (*check)(const struct run_spec *spec, struct strbuf *missing, struct strbuf *found);
	/*
	 * Where spec's boots run, in a few words, added to *sb (lab target
	 * list): the ssh host, the libvirt connection, the QEMU binary and
	 * its accelerator. NULL: on this machine.
	 */
	void (*where)(const struct run_spec *spec, struct strbuf *sb);
};

/* One more item of a list of what is missing: "a, b, c". */
void runner_missing(struct strbuf *missing, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The workloads the guest program knows. */
#define WORKLOAD_NAMES "zeroing, demote, boot"
int workload_known(const char *name);
/*
 * The metrics the guest program reports for built-in workload name (README's
 * table), NULL-terminated; a trailing '*' names a family (boot's fn_*). NULL
 * when name is no built-in workload.
 */
const char *const *workload_metrics(const char *name);

/* Every runner; runner-list.h finds them by name. */
extern const struct runner runner_qemu, runner_local, runner_libvirt, runner_ssh, runner_lava;
/* Where spec's boots run on r (its where(), or this machine), added to *sb. */
void runner_where(const struct runner *r, const struct run_spec *spec, struct strbuf *sb);
/*
 * The kernel command line of a qemu or libvirt boot, as stored with the
 * run: without the nonce, which differs per boot (runs of one kernel and
 * command line group together). Both put the nonce in the initramfs
 * (run_spec_nonce_initrd()), where it reaches no entropy pool.
 */
void run_spec_cmdline(const struct run_spec *spec, char *out, size_t size);

struct strbuf;
struct strvec;
/*
 * The initramfs a qemu or libvirt boot gets (*initrd, reset first): the
 * lab's, spec->initrd, followed by an archive holding the file /lab.nonce
 * (written next to the lab's, registered as a temp file), or the lab's as
 * it is when the boot has no nonce. run_spec_nonce_initrd_drop() removes it.
 */
int run_spec_nonce_initrd(struct strbuf *initrd, const struct run_spec *spec);
void run_spec_nonce_initrd_drop(const struct strbuf *initrd, const struct run_spec *spec);
/* QEMU's options for spec's clock (none for wall), pushed to av. */
void run_spec_clock_args(struct strvec *av, const struct run_spec *spec);

#endif
