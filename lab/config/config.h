#ifndef CONFIG_H
#define CONFIG_H
/*
 * The lab's configuration: a lab.conf file in git-config syntax, read by
 * config_parse() below. Every key the lab knows, with its default:
 *
 *   [core]
 *       state = state                    the root of what the lab makes: the
 *                                        database, work trees, builds, images,
 *                                        caches, console logs, the report site;
 *                                        default: the folder of core.db when
 *                                        that is set, else ./state
 *       db = <state>/lab.db              database path
 *   [qemu "x86_64"]
 *       binary = qemu-system-x86_64
 *   [qemu "aarch64"]
 *       binary = qemu-system-aarch64
 *   [qemu]
 *       accel = auto                     kvm, tcg or auto
 *       icountShift = 0                  0 to 10: 2^N ns of virtual time per
 *                                        instruction under --clock icount
 *   [run]
 *       mem = 2G                         512M, 4G, 1T; a plain number is MiB; <= 16T
 *       cpus = 1                         1 to 1024
 *       timeout = 900                    seconds: 300, 300s, 5m, 1h; <= a week;
 *                                        CPU-bound work runs ~4x slower in icount
 *       runner = qemu                    qemu, local, libvirt, ssh or lava
 *       iters = 100                      a positive integer
 *       clock = auto                     wall, icount or auto: icount under
 *                                        TCG, wall under KVM (lab/plans/boot.h)
 *   [core]
 *       repo = ~/linux                   kernel repository for refs
 *   [build]
 *       config = tinyconfig              tinyconfig, defconfig or a file,
 *                                        plus kernels/configs/<arch>.config
 *       jobs = <cpus>                    make -j
 *       timeout = 3600                   seconds per build
 *       command = ./build.sh             replaces make (any project)
 *       artifact = out/image             what command leaves in the tree
 *   [libvirt]
 *       uri = qemu:///system             the libvirt runner's connection
 *   [ssh]                                the ssh runner's host (runners/ssh.h)
 *       host = root@arm1                 an ssh destination; ~/.ssh/config applies
 *       port = 22                        default: ssh's own
 *       identity = ~/.ssh/id_ed25519     default: ssh's own
 *       knownHosts = path                default: ssh's own; keys are always checked
 *       reset = ipmitool ... power cycle run when the host does not come back
 *       restore = reboot                 or kexec:IMAGE[,INITRD]: back to the default kernel
 *       deadline = 300                   seconds for the host to come back
 *   [nightly "NAME"]                     lab nightly NAME (lab/plans/nightly.h)
 *       repository = URL or path         fetched into the lab's own mirror
 *       branch = master                  the branch followed
 *       workloads = zeroing              zeroing, demote, boot (comma-separated)
 *       mem = 2G                         sizes, comma-separated; default run.mem
 *       cmdline = "..."                  a command line; repeat the key for more
 *       clock = auto                     wall, icount or auto; default run.clock
 *       boots = 3                        boots of each commit, each (mem, cmdline)
 *       iters = N                        default run.iters
 *       policy = head                    head: the branch's head only; new: up to
 *       maxCommits = 10                  maxCommits commits new since last night
 *       bisectBudget = 0                 most boots of a bisection; 0: bisect's own
 *       mailTo = a@b, c@d                mail a confirmed regression to them
 *       mailFrom = lab@host
 *       smtp = smtp://host:25            smtps:// or smtp:// (STARTTLS when offered)
 *       webhook = https://...            POST a JSON body for each change
 *       credentials = /path              "user = U", "password = P" lines, mode 0600
 *       baseUrl = https://...            where lab report's site is served, for links
 *   [target "vm1"]                       a machine boots can run on (any number)
 *       runner = libvirt                 qemu, local, libvirt, ssh or lava (default run.runner)
 *       uri = qemu+ssh://host/system     libvirt's connection (default libvirt.uri)
 *       arch = x86_64                    the kernels it boots (default: any)
 *       cpus = 4                         the largest guest it takes, in CPUs
 *       mem = 16G                        ... and in memory (default: no limit)
 *       accel = tcg                      as qemu.accel, for its boots
 *       clock = icount                   as run.clock, for its boots
 *       class = x86-tcg                  targets of one class are interchangeable
 *                                        for measurement (default: its name)
 *       host, port, identity,            runner ssh: as in [ssh], for this host;
 *       knownHosts, reset, restore,      what is not given is [ssh]'s, but for
 *       deadline                         host, port and reset when host is given
 *       url, token, deviceType, tags,    runner lava: the server, the API token's
 *       imageDir, imageUrl, queue        file, the device, where the images go
 *   [workload "pf"]                      --workload pf (any number; lab/config/workload.h)
 *       program = bench/pf               a program (relative to this file), or
 *                                        stress-ng:STRESSOR
 *       arg = -n 64                      one argument, as written; repeat the key
 *       iters = 10                       runs of the program a boot (default run.iters)
 *       deadline = 60                    seconds a run may take (default: none)
 *       higher = faults_per_ms           which way is better for a metric the program
 *       lower = fault_64m                prints no direction for; repeatable
 *
 * Git config names cannot contain '_', hence the per-architecture
 * subsections for the QEMU binaries. Section and key names are
 * case-insensitive. A key is set once in its section: only those the
 * table says repeat (nightly's cmdline, workload's arg, higher and lower)
 * may be given again; any other is refused, naming both lines, rather than
 * its last value winning as in git. A section's header may come more than
 * once: as in git, the keys under each are one section's.
 *
 * A section or key the lab does not know is an error naming its line, so
 * that a typo ("[rnu]", "run.cpu") is not silently ignored; so are a quote
 * left open and bytes that are not text (config_parse() below).
 *
 * struct lab_config owns its strings; config_release() frees them.
 */
#include <stddef.h>

#include "config-values.h"
#include "lava.h"
#include "runner.h"
#include "ssh.h"
#include "strvec.h"

enum nightly_policy {
	NIGHTLY_HEAD = 0,	/* the branch's head only */
	NIGHTLY_NEW,		/* up to max_commits commits new since the last night */
};

struct lab_nightly {
	char *name;		/* the subsection, as written */
	char *repository, *branch, *workloads;
	char *mem;		/* sizes such as "1G,4G", checked; NULL: run.mem */
	char **cmdlines;	/* ncmdlines 0: one empty command line */
	size_t ncmdlines, cmdlines_alloc;
	char *clock;		/* NULL: run.clock */
	long boots, iters;	/* iters 0: run.iters */
	enum nightly_policy policy;
	long max_commits;
	long bisect_budget;	/* 0: the bisect driver's default */
	double delta;		/* the band of its changes, A/Bs and bisections; 0: 2 % */
	char *mail_to, *mail_from, *smtp, *webhook, *credentials, *base_url;
};

/*
 * A [target "NAME"] section: where boots may run (lab/plans/boot.h's --target and
 * --targets). NULL strings and 0 limits were not given.
 */
struct lab_target {
	char *name, *class;
	char *runner, *uri, *arch, *accel, *clock;
	long cpus, mem_mib;	/* the largest guest it takes; 0: no limit */
	struct ssh_config ssh;	/* its host for the ssh runner; completed from [ssh] */
	struct lava_config lava;	/* its server for the lava runner */
	const struct runner *ops;	/* runner's, or run.runner's: decided once, at load */
};

/*
 * A [workload "NAME"] section: a user's program under a name of its own.
 * program is the path as written, joined to the file's folder when
 * relative, or "stress-ng:STRESSOR"; 0 was not given. file, kind and the
 * lines are where it was written, for messages.
 */
struct lab_workload {
	char *name, *program;
	struct strvec args, higher, lower;
	long iters, deadline_s;
	char *file;
	const char *kind;	/* "config" or "recipe": a string constant */
	int line;		/* of its (first) header */
	int program_line;	/* of its program key */
};

struct lab_config {
	char *path;		/* the file read; NULL when only defaults */
	char *db;		/* NULL: <state>/lab.db (context_load_config) */
	char *state;		/* NULL: core.db's folder, else ./state */
	char *qemu_x86_64;
	char *qemu_aarch64;
	enum lab_accel accel;
	enum lab_clock clock;
	long icount_shift;
	long mem_mib;
	long cpus;
	long timeout_s;
	enum lab_runner runner;
	long iters;
	char *repo;		/* kernel repository; NULL: none */
	char *build_command;	/* replaces the kernel build; NULL: make */
	char *build_artifact;	/* what build_command leaves, in the work tree */
	char *build_config;	/* tinyconfig, defconfig or a file */
	long build_jobs;	/* 0: the number of CPUs */
	long build_timeout_s;
	long build_ccache_mib;	/* build.ccacheSize: the compiler cache's cap; 0: 5 GiB */
	char *libvirt_uri;
	char *report_commit_url;	/* report.commitUrl; NULL: commits are not links */
	struct lab_nightly *nightlies;	/* in the order of their first key */
	size_t nnightlies;
	struct ssh_config ssh;
	struct lab_target *targets;	/* in the order the file names them */
	size_t ntargets;
	struct lab_workload *workloads;	/* in the order the file names them */
	size_t nworkloads;
};

/* The nightly named name (case-sensitive, as git's subsections), or NULL. */
const struct lab_nightly *config_nightly(const struct lab_config *cfg, const char *name);

/* Fill cfg with the defaults; cfg must not own anything yet. */
void config_init(struct lab_config *cfg);

/*
 * Initialise cfg (as config_init()) and read a file over the defaults.
 * path NULL means $LAB_CONFIG when set and not empty, else ./lab.conf when
 * it exists, else defaults only. A file named by path or $LAB_CONFIG must
 * exist. Returns 0, or -1 after one error line naming the file (and the key
 * and value, for a bad value); on failure cfg holds only defaults and
 * config_release() is still safe.
 */
int config_load(struct lab_config *cfg, const char *path);

/* Free the strings; cfg may be loaded again afterwards. */
void config_release(struct lab_config *cfg);

/* The QEMU binary for an architecture ("x86_64", "aarch64"), or NULL. */
const char *config_qemu_binary(const struct lab_config *cfg, const char *arch);

/*
 * The target called name, or NULL after one error line naming it and the
 * known ones: "unknown target 'vm3' (known: vm1, vm2)".
 */
const struct lab_target *config_target(const struct lab_config *cfg, const char *name);
/*
 * Every target of class into *out (caller frees), in file order; -1 after
 * one error line naming the class and the known ones when there is none.
 */
int config_target_class(const struct lab_config *cfg, const char *class,
			const struct lab_target ***out, size_t *n);

/*
 * "workload.NAME.key" of a config or a recipe, or the header "workload.NAME"
 * (value NULL), into *all (lab/config/config-workload.c); a relative program is
 * taken from the file's folder. -1 after one line naming the entry.
 * config_workloads_check(): each has a program, or -1 naming the section
 * and the line of its header. config_workload_section is its key table
 * (config-keys.h), for lab.conf's list of sections.
 */
#define CONFIG_WORKLOAD_REPEATABLE "workload.arg", "workload.higher", "workload.lower"
struct config_entry;
struct config_section;
extern const struct config_section config_workload_section;
int config_workload_apply(struct lab_workload **all, size_t *n, const struct config_entry *e);
int config_workloads_check(const struct lab_workload *all, size_t n);
void config_workloads_release(struct lab_workload **all, size_t *n);
/* The section called name (case-sensitive), or NULL. */
const struct lab_workload *config_workload_find(const struct lab_workload *all, size_t n,
						const char *name);

/*
 * The reader of lab.conf and of recipes: git-config syntax ("[section]",
 * "[section \"sub\"]", "key = value", quotes, \" \\ \n \t \b escapes, a
 * '\' continuing a line, '#' and ';' comments), as UTF-8 text.
 */
struct config_entry {
	const char *name;	/* "run.mem", "variant.Base.ref": lower case but the subsection;
				   a header's is its section's: "run", "variant.Base" */
	const char *value;	/* unquoted; "" for a key without "="; NULL for a header */
	const char *kind;	/* "config", "recipe": for messages */
	const char *path;
	int line;		/* where the key (or the header) is */
	int section_line;	/* where the header of the key's section is */
};

typedef int config_fn(const struct config_entry *e, void *data);

/*
 * Call fn for each section header and each entry of len bytes of buf, in
 * order; sections is the NULL-terminated list of the section names the
 * caller knows (lower case), repeatable the "section.key" pairs (lower
 * case; NULL: none) that may be given more than once in one section, with
 * any subsection. Returns 0, or -1 after fn's first negative return or one
 * error line naming the kind, the path, the line and the bad thing:
 *   lab: unknown section 'rnu' in config lab.conf line 1 (known: core, qemu, run, ...)
 *   lab: unterminated quote in recipe x.recipe line 3
 *   lab: binary byte 0x01 in config lab.conf line 2: expected UTF-8 text
 *   lab: key 'mem' of [run] given twice in config lab.conf line 5 (first at line 2)
 * Pure but for that line: no I/O.
 */
int config_parse(const char *buf, size_t len, const char *path, const char *kind,
		 const char *const *sections, const char *const *repeatable, config_fn *fn,
		 void *data);

/*
 * config_parse() on a file. A file that cannot be read is
 * "cannot read <kind> '<path>': <why>".
 */
int config_file_foreach(const char *path, const char *kind, const char *const *sections,
			const char *const *repeatable, config_fn *fn, void *data);

#endif
