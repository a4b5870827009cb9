#ifndef CONFIG_VALUES_H
#define CONFIG_VALUES_H
/*
 * The values lab.conf, recipes and the command line share: sizes, counts,
 * seconds, the accelerator, the clock and the runner, each parsed from its
 * text and named back. The parsers take the whole string (no surrounding
 * spaces), return 0 and store the value, or return -1 without printing and
 * leave *out alone; the names are string constants. Pure: no I/O.
 */
#include <stddef.h>

enum lab_accel {
	LAB_ACCEL_AUTO = 0,	/* kvm when /dev/kvm is usable, else tcg */
	LAB_ACCEL_KVM,
	LAB_ACCEL_TCG,
};

enum lab_clock {
	LAB_CLOCK_AUTO = 0,	/* icount under TCG (several vCPUs: QEMU >= 8.1), wall under KVM */
	LAB_CLOCK_WALL,
	LAB_CLOCK_ICOUNT,	/* QEMU -icount: virtual time, TCG only */
};

#define LAB_MAX_ICOUNT_SHIFT 10L	/* QEMU's own bound */

/* runners/runner-list.h's runner_all, in its order */
enum lab_runner {
	LAB_RUNNER_QEMU = 0,
	LAB_RUNNER_LOCAL,	/* the guest program as a plain process */
	LAB_RUNNER_LIBVIRT,	/* a transient libvirt domain per boot */
	LAB_RUNNER_SSH,		/* a remote host, kexec per boot (runners/ssh.h) */
	LAB_RUNNER_LAVA,	/* a job per boot on a LAVA server (runners/lava.h) */
};

const char *config_accel_name(enum lab_accel accel);
const char *config_runner_name(enum lab_runner runner);
const char *config_clock_name(enum lab_clock clock);
/* "kvm", "tcg" or "auto" into *out. */
int parse_accel(const char *s, enum lab_accel *out);
/* A runner's name ("qemu", "local", "libvirt", "ssh", "lava") into *out. */
int parse_runner(const char *s, enum lab_runner *out);
/* 0 for an architecture the lab builds and boots: "x86_64" or "aarch64". */
int parse_arch(const char *s);
/* "wall", "icount" or "auto" into *out. */
int parse_clock(const char *s, enum lab_clock *out);
/* A decimal integer from 0 to LAB_MAX_ICOUNT_SHIFT. */
int parse_icount_shift(const char *s, long *out);

/*
 * Zero, negative numbers, junk after the number and values beyond the
 * maximum are rejected: the maximum keeps every product and cast in range
 * and stops a typo (99999999999999G) before it reaches QEMU.
 */
#define LAB_MAX_MEM_MIB (16L << 20)		/* 16 TiB */
#define LAB_MAX_CPUS 1024L			/* a bound; QEMU refuses beyond its own */
#define LAB_MAX_SECONDS (7L * 24 * 3600)	/* a week */
#define SIZE_EXPECTED "a size from 1M to 16T with its unit, such as 512M or 4G"
#define CPUS_EXPECTED "a CPU count from 1 to 1024"
#define SECONDS_EXPECTED "a number of seconds up to a week (168h)"

/* "512M", "4G", "1T" (case-insensitive), <= 16T; a number without its unit is refused. */
int parse_size_mib(const char *s, long *out_mib);
/* A decimal integer from 1 to LAB_MAX_CPUS. */
int parse_cpus(const char *s, long *out);
/* A decimal integer from 1 to INT_MAX. */
int parse_positive_int(const char *s, long *out);
/* "300", "300s", "5m", "1h": a positive number of seconds, at most a week. */
int parse_seconds(const char *s, long *out_s);
/*
 * A fraction from 0 up to (not including) 1: "0.05", or with percent_ok
 * also "2%"; a bare number of 1 or more is refused then (2 % or 200 %?).
 */
int parse_fraction(const char *s, double *out, int percent_ok);

/*
 * "4G,16G,64G" with parse for each item into a new array *out (caller
 * frees; an earlier one is freed) of *n values; -1 for an empty list or a
 * bad item.
 */
int parse_list(long **out, size_t *n, const char *arg, int (*parse)(const char *, long *));

#endif
