#ifndef BOOT_H
#define BOOT_H
/*
 * One variant's boots, from options to stored runs: the kernel recorded,
 * the guest found or made, the runner chosen, provenance taken; then each
 * boot_plan_run() is one boot stored in one transaction. Shared by `lab
 * run` and the A/B plans.
 *
 * The kernel comes resolved (results/kernel-image.h): the plan reads
 * nothing of it. The guest (its program, the user's workloads, the
 * initramfs with them or the local runner's staging of them) is made once
 * per content in a struct boot_guests that the caller may share between
 * the plans of its sides, sweep points and targets; a plan given none
 * makes its own. The plan owns its strings; the guests' files go with
 * boot_guests_release().
 */
#include "context.h"
#include "host.h"
#include "kernel-image.h"
#include "protocol.h"
#include "runner.h"
#include "store.h"
#include "strvec.h"
#include "workload.h"

/*
 * One guest content: arch, program and workloads make its key. initrd is
 * its initramfs (the runners that boot a kernel), workdir the local or ssh
 * runner's staging of the user's workloads.
 */
struct boot_guest {
	struct strbuf key, program, initrd, workdir;
	const char *arch;
	struct user_workload *user;	/* exec: and stress-ng: workloads */
	size_t nuser;
	int boots;			/* an initramfs, not a staging */
	int written;
};

/* The guests a command made, each once; the plans point into it. */
struct boot_guests {
	struct boot_guest **g;
	size_t n, alloc;
};

void boot_guests_init(struct boot_guests *gs);
/* Removes the guests' initramfs files and stagings: after the plans' release. */
void boot_guests_release(struct boot_guests *gs);

struct boot_opts {
	/*
	 * resolved, for the runners that boot one; recorded once (kernel->id),
	 * by its build or by the plan that first prepares a boot of it
	 */
	struct kernel_image *kernel;
	struct boot_guests *guests;	/* shared guests; NULL: the plan makes its own */
	const char *cmdline;		/* extra kernel command line */
	const char *runner;		/* NULL: run.runner */
	const char *accel;		/* NULL: qemu.accel */
	const char *clock;		/* wall | icount | auto; NULL: run.clock */
	const char *guest;		/* NULL: build/guest/<arch>/lab-guest */
	const struct workload_list *workloads;	/* resolved: each parsed once */
	const struct strvec *params;	/* K=V, passed as lab.K=V */
	long iters, mem_mib, cpus, timeout_s;	/* 0: from the config */
	long numa;			/* NUMA nodes of a qemu guest; 0: none */
	long long experiment_id, variant_id;	/* 0: none */
	/*
	 * target: a [target "NAME"] of lab.conf the boots run on: its runner,
	 * uri, accel and clock unless the command line gave them, its arch,
	 * cpus and mem as limits; each run records it and its class.
	 * targets: a class whose targets share the boots, at the same time
	 * (lab/plans/pool.h); the plans of the pool set target.
	 */
	const char *target, *targets;
};

struct boot_plan {
	const struct runner *runner;
	struct run_spec spec;
	struct run_row row;
	struct host_info host;
	struct strbuf workloads, params, log_path, cpu, kvm_note;
	struct strbuf cache;		/* the state root's cache folder (spec.cache) */
	struct strbuf clock;		/* as stored: "wall", "icount shift=0" */
	char *logdir;
	char nonce[PROTOCOL_NONCE_LEN + 1];	/* the current boot's */
	const struct boot_guest *guest;	/* in opts' guests, or in own */
	struct boot_guests own;
	int has_boot;
};

/* A guest's NUMA node count: 1 to BOOT_MAX_NUMA; -1 when s is not one. */
#define BOOT_MAX_NUMA 64
int parse_numa(const char *s, long *out);

/* The guest's lab.* parameters of these options, as runs store them. */
void boot_params(struct strbuf *sb, const struct boot_opts *o, const char *workloads,
		 long default_iters);

/*
 * --target names a target of lab.conf, --targets a class of them, and not
 * both: else -1 after one line naming the bad name and the known ones.
 */
int boot_opts_check_targets(const struct boot_opts *o, const struct lab_config *cfg);
/*
 * The runner o's boots take: --runner, its target's (a class's first
 * target's, decided when lab.conf was read), or run.runner. NULL after
 * one line for a --runner that names none.
 */
const struct runner *boot_opts_runner(const struct boot_opts *o, const struct lab_config *cfg);
/*
 * What that runner can do (enum runner_flags), for what is decided before
 * a plan is made; 0 when there is no runner of that name.
 */
unsigned boot_opts_runner_flags(const struct boot_opts *o, const struct lab_config *cfg);
/*
 * Does the lab's guest program report the samples of o's boots of a
 * kernel? 0 when a program of the user's does: o->guest, or what the
 * local runner runs in a kernel's place (a build.command's artifact).
 */
int boot_opts_lab_guest(const struct boot_opts *o, const struct lab_config *cfg);
/* 0 when a guest of mem_mib and cpus fits the target; else -1 after a line saying why. */
int target_fits(const struct lab_target *t, long mem_mib, long cpus);

/*
 * Parse "zeroing,demote" onto out, refusing unknown ones; a user's
 * workload (workload.h) is checked, kept parsed and in its canonical
 * spelling.
 */
int workloads_parse(struct workload_list *out, const char *arg);

/*
 * The clock is settled here, once for the plan: "auto" is icount under
 * TCG and wall under KVM or the local runner, and wall for a guest of
 * several vCPUs unless its QEMU is 8.1 or later (host.h); icount with
 * --accel kvm, with the local runner, or of several vCPUs under an older
 * QEMU is refused; icount under accel auto is TCG without a KVM probe. The plan's runs store it (runs.clock), so that an
 * A/B or a bisection never mixes the two clocks.
 */
int boot_plan_prepare(struct boot_plan *p, struct lab_context *ctx,
		      const struct boot_opts *o);
/*
 * What boot_plan_prepare() would refuse in o, said before anything is
 * stored or started (a class of targets checked as its first target):
 * -1 after one line, 0 when a plan of o may be made.
 */
int boot_opts_check(const struct lab_context *ctx, const struct boot_opts *o);
/*
 * The part of boot_opts_check() that needs no kernel: the clock against
 * the runner, the accelerator and arch's QEMU, for a command to ask before
 * it builds one. A class of targets is left to boot_opts_check(). -1
 * after one line.
 */
int boot_opts_check_clock(const struct lab_context *ctx, const struct boot_opts *o,
			  const char *arch);
/*
 * The pieces o puts on a kernel command line (workloads, params, cmdline),
 * each checked by runners/kcmdline.h: -1 after one line naming the bad one.
 */
int boot_opts_check_cmdline(const struct boot_opts *o, const struct lab_config *cfg);
/*
 * Boot once and store the run, its samples and metadata. res is filled
 * (the caller releases it). Returns -1 only when storing failed; a boot
 * that failed is a stored status, not an error.
 */
int boot_plan_run(struct boot_plan *p, struct lab_context *ctx, long long *run_id,
		  struct run_result *res);
void boot_plan_release(struct boot_plan *p);

#endif
