#ifndef BOOT_H
#define BOOT_H
/*
 * One variant's boots, from options to stored runs: the kernel recorded
 * and hashed, the initramfs written, the runner chosen, provenance taken;
 * then each boot_plan_run() is one boot stored in one transaction.
 * Shared by `lab run` and the A/B plans. The plan owns its strings and the
 * initramfs file (removed by boot_plan_release()).
 */
#include "context.h"
#include "host.h"
#include "protocol.h"
#include "runner.h"
#include "store.h"
#include "strvec.h"

struct boot_opts {
	const char *kernel;		/* image, for the qemu runner */
	const char *cmdline;		/* extra kernel command line */
	const char *runner;		/* NULL: run.runner */
	const char *accel;		/* NULL: qemu.accel */
	const char *clock;		/* wall | icount | auto; NULL: run.clock */
	const char *guest;		/* NULL: build/guest/<arch>/lab-guest */
	const struct strvec *workloads;
	const struct strvec *params;	/* K=V, passed as lab.K=V */
	long iters, mem_mib, cpus, timeout_s;	/* 0: from the config */
	long numa;			/* NUMA nodes of a qemu guest; 0: none */
	long long experiment_id, variant_id;	/* 0: none */
	/*
	 * target: a [target "NAME"] of lab.conf the boots run on: its runner,
	 * uri, accel and clock unless the command line gave them, its arch,
	 * cpus and mem as limits; each run records it and its class.
	 * targets: a class whose targets share the boots, at the same time
	 * (lab/pool.h); the plans of the pool set target.
	 */
	const char *target, *targets;
};

struct boot_plan {
	const struct runner *runner;
	struct run_spec spec;
	struct run_row row;
	struct host_info host;
	struct strbuf workloads, params, guest, initrd, log_path, cpu, kvm_note;
	struct strbuf clock;		/* as stored: "wall", "icount shift=0" */
	char *logdir;
	char nonce[PROTOCOL_NONCE_LEN + 1];	/* the current boot's */
	int has_boot;
};

/* A guest's NUMA node count: 1 to BOOT_MAX_NUMA; -1 when s is not one. */
#define BOOT_MAX_NUMA 64
int parse_numa(const char *s, long *out);

/*
 * The options every booting command shares: --iters, --mem, --cpus,
 * --cmdline, --param, --runner, --accel, --clock, --timeout, --guest, --numa,
 * --target, --targets (the last two are checked against lab.conf later).
 * Returns 1 when name is one of them and arg is good, -1 when the value is
 * bad (nothing printed), 0 when name is not one of them.
 */
int boot_opts_set(struct boot_opts *o, struct strvec *params, const char *name,
		  const char *arg);

/*
 * --target names a target of lab.conf, --targets a class of them, and not
 * both: else -1 after one line naming the bad name and the known ones.
 */
int boot_opts_check_targets(const struct boot_opts *o, const struct lab_config *cfg);
/* The runner o's boots take: --runner, its target's, or run.runner. */
const char *boot_opts_runner(const struct boot_opts *o, const struct lab_config *cfg);
/* 0 when a guest of mem_mib and cpus fits the target; else -1 after a line saying why. */
int target_fits(const struct lab_target *t, long mem_mib, long cpus);

/* Parse "zeroing,demote" into names, refusing unknown ones. */
int workloads_parse(struct strvec *out, const char *arg);

/*
 * The clock is settled here, once for the plan: "auto" is icount under
 * TCG and wall under KVM or the local runner; icount with --accel kvm,
 * or with the local runner, is refused; icount under accel auto is TCG
 * without a KVM probe. The plan's runs store it (runs.clock), so that an
 * A/B or a bisection never mixes the two clocks.
 */
int boot_plan_prepare(struct boot_plan *p, struct lab_context *ctx,
		      const struct boot_opts *o);
/*
 * Boot once and store the run, its samples and metadata. res is filled
 * (the caller releases it). Returns -1 only when storing failed; a boot
 * that failed is a stored status, not an error.
 */
int boot_plan_run(struct boot_plan *p, struct lab_context *ctx, long long *run_id,
		  struct run_result *res);
void boot_plan_release(struct boot_plan *p);

#endif
