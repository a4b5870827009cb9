#ifndef CONSOLE_H
#define CONSOLE_H
/*
 * Reading a console as it arrives: bytes in, protocol messages and kernel
 * failure signs out, into a run_result. Shared by every runner. The
 * console does not own the result; it writes the raw bytes to log_fd when
 * that is >= 0, up to CONSOLE_LOG_MAX bytes, then one line saying it was
 * cut (parsing goes on).
 *
 * Only lines of this boot count: each must carry the boot's nonce (on a
 * pipe, once the hello did; see protocol.h), come between the hello and
 * the first done, name a workload that was asked for, and not repeat an
 * iteration of its metric. Any other protocol line is dropped with its
 * reason into the result (run_result_drop()). At the end, a second done,
 * a done that counts other samples than arrived, or a hello of a version
 * this lab does not read, fails the run.
 */
#include <stddef.h>

#include "runner.h"

#define CONSOLE_LOG_MAX (16u << 20)

struct console {
	struct run_result *res;
	const char *nonce;		/* the boot's; NULL: lines are not bound */
	const char *workloads;		/* asked for, comma separated; NULL: any */
	int log_fd;
	size_t logged;			/* bytes written to log_fd */
	unsigned proto_flags;		/* enum protocol_flags */
	struct strbuf line;		/* the current partial line */
	double start;			/* monotonic time the run started */
	long samples_read;		/* sample lines of this boot before done */
	int version;			/* the hello's */
	int bad_version;		/* ... is not one this lab reads */
	int saw_hello, saw_done, saw_kernel, kernel_failed;
	int halted;			/* the kernel said it stopped */
	/*
	 * QEMU's stderr is in this console and the guest runs under KVM: a
	 * console_kvm_fatal() line ends the boot (kvm_fatal, its words in
	 * the result's error). Only then: under TCG or another runner the
	 * same words are the guest's, and a guest must not pass off its
	 * own failure as the host's.
	 */
	int kvm_stderr;
	int kvm_fatal;
	struct run_watch *watch;	/* the spec's: told each phase */
	char last_workload[32];		/* of the last sample, for the watch */
	long workload_samples;		/* ... and how many it sent so far */
	int second_done;		/* another done came after the first */
	char second_done_text[64];	/* ... its words: "ok 3" */
};

/*
 * The console log of spec, opened (truncated) for writing: *fd is -1 when
 * spec asks for none. -1 when it cannot be written: out is RUN_INFRA then,
 * its error naming the file.
 */
int console_log_open(int *fd, const struct run_spec *spec, struct run_result *out);

/* 1 when a console line is the kernel's own failure: a panic, a BUG, an oops. */
int console_kernel_failure(const char *line);
/*
 * 1 when a line is QEMU saying that KVM stopped the guest for good: "KVM
 * internal error", "kvm run failed", an MSR it could not set, an assertion
 * of its KVM code. QEMU then stops the guest and waits, or aborts.
 */
int console_kvm_fatal(const char *line);

/* spec gives the nonce and the workloads asked for; proto_flags: enum protocol_flags. */
void console_init(struct console *c, const struct run_spec *spec, struct run_result *res,
		  int log_fd, unsigned proto_flags, double start);
void console_feed(struct console *c, const char *buf, size_t len);
/* Flush a final unterminated line. */
void console_end(struct console *c);
void console_release(struct console *c);

/*
 * Decide the outcome once the console is over: done ok → OK, done error →
 * FAILED, kernel failure or no done → BOOT_FAILED; timed_out wins, and
 * a KVM failure of QEMU's (kvm_fatal) wins over all: INFRA. A second
 * done, a done ok whose count is not the number of sample lines read, or a
 * hello of an unknown protocol version, is FAILED; its samples stay in the
 * result (stored, never counted: only OK runs reach a statistic).
 */
void console_conclude(struct console *c, int timed_out);

#endif
