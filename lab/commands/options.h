#ifndef OPTIONS_H
#define OPTIONS_H
/*
 * The option tables the commands share (lib/parse-options.h entries) and
 * their callbacks: what a booting command takes (run, ab, bisect, recipe,
 * explain), what an A/B takes (ab, recipe, explain). A new option of the
 * boots goes here, and every command that boots has it.
 */
#include <limits.h>

#include "ab-spec.h"
#include "boot.h"
#include "parse-options.h"

/*
 * The options every booting command shares, filling a struct boot_opts
 * o; --param pushes K=V onto the strvec params.
 */
#define BOOT_OPTIONS(o, params) \
	OPT_INT(0, "iters", &(o)->iters, 1, INT_MAX, "N", \
		"iterations per workload in a boot (default run.iters)"), \
	OPT_CALLBACK(0, "param", (params), "K=V", \
		     "extra guest parameter lab.K=V (repeatable)", boot_opt_param), \
	OPT_STRING(0, "runner", &(o)->runner, "R", \
		   "qemu, local, libvirt, ssh or lava (default run.runner)"), \
	OPT_STRING(0, "target", &(o)->target, "NAME", \
		   "boot on the [target \"NAME\"] of lab.conf"), \
	OPT_STRING(0, "targets", &(o)->targets, "CLASS", \
		   "boot on every target of CLASS at once"), \
	OPT_CALLBACK(0, "accel", &(o)->accel, "A", "kvm, tcg or auto (default qemu.accel)", \
		     boot_opt_accel), \
	OPT_CALLBACK(0, "clock", &(o)->clock, "C", \
		     "wall, icount or auto: QEMU's -icount makes guest time count\n" \
		     "instructions, 2^qemu.icountShift ns each, TCG only; auto is\n" \
		     "icount under TCG (several vCPUs need QEMU 8.1 or later), wall\n" \
		     "under KVM (default run.clock)", boot_opt_clock), \
	OPT_CALLBACK(0, "timeout", &(o)->timeout_s, "S", \
		     "deadline per boot in seconds (default run.timeout)", boot_opt_seconds), \
	OPT_INT(0, "numa", &(o)->numa, 1, BOOT_MAX_NUMA, "N", \
		"N NUMA nodes sharing the memory and CPUs (qemu)")

/* What one guest is, for the commands that boot one shape of guest (run, bisect). */
#define BOOT_GUEST_OPTIONS(o) \
	OPT_CALLBACK(0, "mem", &(o)->mem_mib, "SIZE", \
		     "guest memory: 512M, 4G, 64G (default run.mem)", boot_opt_size), \
	OPT_CALLBACK(0, "cpus", &(o)->cpus, "N", "guest CPUs (default run.cpus)", boot_opt_cpus), \
	OPT_STRING(0, "cmdline", &(o)->cmdline, "STR", "extra kernel command line")

/* The option callbacks behind them, for other tables too: opt->value is the field. */
int boot_opt_param(const struct parse_option *opt, const char *arg);
int boot_opt_accel(const struct parse_option *opt, const char *arg);
/* --arch of the commands that build: x86_64 or aarch64 into the const char *opt->value. */
int boot_opt_arch(const struct parse_option *opt, const char *arg);
int boot_opt_clock(const struct parse_option *opt, const char *arg);
int boot_opt_seconds(const struct parse_option *opt, const char *arg);
int boot_opt_size(const struct parse_option *opt, const char *arg);
int boot_opt_cpus(const struct parse_option *opt, const char *arg);
/* --workload W1,W2 onto the strvec opt->value, refusing unknown ones. */
int boot_opt_workloads(const struct parse_option *opt, const char *arg);

/* The callbacks of its options: opt->value is the field, or the spec for lists. */
int ab_opt_mems(const struct parse_option *opt, const char *arg);
int ab_opt_cpus(const struct parse_option *opt, const char *arg);
int ab_opt_alpha(const struct parse_option *opt, const char *arg);
int ab_opt_delta(const struct parse_option *opt, const char *arg);
int ab_opt_format(const struct parse_option *opt, const char *arg);

/*
 * The options of an A/B, for lab ab's table and lab recipe's: all but
 * --arch (lab recipe's picks one of the recipe's), --resume, --db and
 * --config, which each command says in its own way.
 */
/* how a command prints what it reports: its own, never the plan's */
#define FORMAT_OPTION(fmt) \
	OPT_CALLBACK(0, "format", (fmt), "F", "text, csv or json (default text)", ab_opt_format)

#define AB_SPEC_OPTIONS(s) \
	OPT_STRING(0, "a", &(s)->ref[0], "REF, --b REF", \
		   "git refs to build (or find in the cache) as A and B"), \
	{ .type = OPTION_STRING, .long_name = "b", .value = &(s)->ref[1], .argh = "REF", \
	  .flags = PARSE_OPT_HIDDEN }, \
	OPT_STRING(0, "patch", &(s)->patch, "FILE|URL", \
		   "B is A plus this patch series (mbox), applied as commits"), \
	OPT_STRING(0, "repo", &(s)->repo, "PATH", "kernel repository (default core.repo)"), \
	OPT_STRVEC(0, "a-config", &(s)->frags[0], "FILE", \
		   "config fragment for A only (repeatable); --b-config for B"), \
	{ .type = OPTION_STRVEC, .long_name = "b-config", .value = &(s)->frags[1], \
	  .argh = "FILE", .flags = PARSE_OPT_HIDDEN }, \
	OPT_STRVEC(0, "a-apply", &(s)->apply[0], "FILE", \
		   "patch applied to A's tree for the build, never committed\n" \
		   "(repeatable); --b-apply for B"), \
	{ .type = OPTION_STRVEC, .long_name = "b-apply", .value = &(s)->apply[1], \
	  .argh = "FILE", .flags = PARSE_OPT_HIDDEN }, \
	OPT_STRVEC(0, "probe", &(s)->probes, "NAME", \
		   "probe patch from kernels/probes/<arch>/ (or a file) on both\n" \
		   "sides: times a function before ftrace exists (repeatable)"), \
	OPT_STRING(0, "kernel", &(s)->kernel, "IMG", \
		   "kernel for both variants (then they differ in command line)"), \
	OPT_STRING(0, "a-kernel", &(s)->side_kernel[0], "IMG", "kernel of A (the base)"), \
	OPT_STRING(0, "b-kernel", &(s)->side_kernel[1], "IMG", "kernel of B"), \
	OPT_STRING(0, "cmdline", &(s)->cmdline, "STR", "command line for both variants"), \
	OPT_STRING(0, "a-cmdline", &(s)->side_cmdline[0], "STR", "extra command line of A"), \
	OPT_STRING(0, "b-cmdline", &(s)->side_cmdline[1], "STR", "extra command line of B"), \
	OPT_CALLBACK(0, "workload", &(s)->workloads, "W", \
		     "zeroing, demote, boot, exec:PATH, stress-ng:STRESSOR or a\n" \
		     "[workload] section's name (repeatable, or W1,W2)", boot_opt_workloads), \
	OPT_STRVEC(0, "arg", &(s)->args, "ARG", \
		   "argument of the exec: or stress-ng: workload (repeatable)"), \
	OPT_CALLBACK(0, "mem", (s), "LIST", "memory sizes: 4G or 4G,16G,64G (a sweep)", \
		     ab_opt_mems), \
	OPT_CALLBACK(0, "cpus", (s), "LIST", "CPU counts: 1 or 1,2,4 (a sweep)", ab_opt_cpus), \
	OPT_INT(0, "boots", &(s)->o.boots, 1, INT_MAX, "N", \
		"N boots per variant and point (default: adaptive)"), \
	OPT_INT(0, "max-boots", &(s)->o.max_boots, 1, INT_MAX, "N", \
		"adaptive: most boots per variant and point (default 20)"), \
	OPT_CALLBACK(0, "alpha", &(s)->o.alpha, "A", "false-positive rate (default 0.05)", \
		     ab_opt_alpha), \
	OPT_CALLBACK(0, "delta", &(s)->o.delta, "D", \
		     "smallest change that matters: 2% or 0.02 (default 2%; virtual time 0.1%)", \
		     ab_opt_delta), \
	OPT_BOOL(0, "force", &(s)->o.force, "compare even when runs differ in provenance"), \
	BOOT_OPTIONS(&(s)->o.boot, &(s)->params), \
	OPT_STRING(0, "guest", &(s)->o.boot.guest, "PATH", \
		   "guest program (default: the one built beside lab)")

#endif
