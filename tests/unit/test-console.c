/*
 * The console reader on a serial console (nonce and checksum required)
 * and on a pipe: which lines reach the sample set, which are dropped and
 * why, lines however their bytes arrive, and how a run ends: each outcome
 * console_conclude() promises, with its one-line error. Also the sample
 * set underneath: names kept once per series, a repeated iteration
 * refused however late it comes, and the console log each runner opens.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "console.h"
#include "protocol.h"
#include "tap.h"

#define NONCE "00112233445566ff"

static const struct run_spec spec = { .nonce = NONCE, .workloads = "zeroing,boot" };

/* Feed one line as the guest writes it: with the nonce and a checksum. */
__attribute__((format(printf, 2, 3)))
static void guest(struct console *c, const char *fmt, ...)
{
	char body[512], line[PROTOCOL_MAX_LINE];
	va_list ap;
	int n;

	va_start(ap, fmt);
	vsnprintf(body, sizeof(body), fmt, ap);
	va_end(ap);
	n = protocol_format(line, sizeof(line), NONCE, "%s", body);
	console_feed(c, line, (size_t)n);
}

/* A good line of another boot: its own nonce, a checksum that matches. */
static void other_boot(struct console *c, const char *body)
{
	char line[PROTOCOL_MAX_LINE];
	int n = protocol_format(line, sizeof(line), "fedcba9876543210", "%s", body);

	console_feed(c, line, (size_t)n);
}

static void raw(struct console *c, const char *line)
{
	console_feed(c, line, strlen(line));
	console_feed(c, "\n", 1);
}

static const char *reason(const struct run_result *r, size_t i)
{
	return i < r->dropped_nr ? r->dropped[i].reason : "(none)";
}

static void test_serial(void)
{
	struct run_result r;
	struct console c;
	struct sample s;

	run_result_init(&r);
	console_init(&c, &spec, &r, -1, 0, 0);
	raw(&c, "[    0.000000] Linux version 6.1.0");
	/* the kernel echoes a command line that holds a forged line, checksum and all */
	raw(&c, "[    0.000000] Kernel command line: console=ttyS0 "
		"@lab sample zeroing touch 77 1.5 us *84b84268 lab.nonce=" NONCE);
	guest(&c, "hello %d guest", PROTOCOL_VERSION);
	guest(&c, "sample zeroing touch 0 10 us warmup");
	guest(&c, "sample zeroing touch 1 11 us");
	guest(&c, "sample zeroing touch 1 12 us");
	guest(&c, "sample zeroing touch 2 13 ms");
	guest(&c, "sample demote demote_page_wall 0 5 ms");
	other_boot(&c, "sample zeroing touch 3 1 us");
	guest(&c, "done ok 5");
	guest(&c, "sample zeroing touch 4 14 us");
	console_end(&c);
	console_conclude(&c, 0);

	is_str(run_status_name(r.status), "OK", "serial: the run is OK");
	is_int(r.set.nr, 2, "serial: two samples kept");
	sample_set_get(&r.set, 1, &s);
	ok(!strcmp(s.workload, "zeroing") && !strcmp(s.metric, "touch") && s.iteration == 1 &&
	   s.value == 11 && !strcmp(s.unit, "us") && !s.flags, "serial: the second sample as sent");
	is_int(r.bad_lines, 6, "serial: six lines dropped");
	is_str(reason(&r, 0), "no nonce", "the echoed command line: no nonce");
	is_str(reason(&r, 1), "iteration 1 of zeroing.touch repeated", "a repeated iteration");
	is_str(reason(&r, 2), "unit 'ms' where zeroing.touch had 'us'", "another unit");
	is_str(reason(&r, 3), "workload 'demote' was not asked for (asked: zeroing,boot)",
	       "a workload not asked for");
	is_str(reason(&r, 4), "wrong nonce fedcba9876543210", "another boot's line");
	is_str(reason(&r, 5), "after done", "a sample after done");
	ok(!strncmp(r.dropped[0].line, "[    0.000000] Kernel command line:", 35),
	   "a dropped line is kept as read");
	console_release(&c);
	run_result_release(&r);
}

/* One run on a pipe from lines; returns its status name. */
static const char *pipe_run(struct run_result *r, const char *const *lines)
{
	struct console c;

	run_result_init(r);
	console_init(&c, &spec, r, -1, PROTOCOL_CHECKSUM_OPTIONAL | PROTOCOL_NONCE_OPTIONAL, 0);
	for (; *lines; lines++)
		raw(&c, *lines);
	console_end(&c);
	console_conclude(&c, 0);
	console_release(&c);
	return run_status_name(r->status);
}

static void test_pipe(void)
{
	static const char *const plain[] = {
		"@lab hello 1 script", "@lab sample zeroing touch 0 1 us", "@lab done ok 1", NULL,
	};
	static const char *const bound[] = {
		"@lab " NONCE " hello 2 script", "@lab " NONCE " sample zeroing touch 0 1 us",
		"@lab sample zeroing touch 1 1 us", "@lab " NONCE " done ok 1", NULL,
	};
	static const char *const short_count[] = {
		"@lab hello 2 s", "@lab sample zeroing touch 0 1 us", "@lab done ok 10", NULL,
	};
	static const char *const two_dones[] = {
		"@lab hello 2 s", "@lab done error 0", "@lab done ok 0", NULL,
	};
	static const char *const two_oks[] = {
		"@lab hello 2 s", "@lab sample zeroing touch 0 1 us", "@lab done ok 1",
		"@lab done ok 1", NULL,
	};
	static const char *const future[] = {
		"@lab hello 99 s", "@lab sample zeroing touch 0 1 us", "@lab done ok 1", NULL,
	};
	struct run_result r;

	is_str(pipe_run(&r, plain), "OK", "pipe: plain lines as in version 1");
	is_int(r.set.nr, 1, "pipe: plain sample kept");
	run_result_release(&r);

	is_str(pipe_run(&r, bound), "OK", "pipe: a bound run");
	is_str(reason(&r, 0), "no nonce", "pipe: no nonce after a hello with one");
	run_result_release(&r);

	is_str(pipe_run(&r, short_count), "FAILED", "pipe: done counts more than arrived");
	is_str(strbuf_str(&r.error), "guest said it sent 10 sample(s), 1 arrived",
	       "pipe: the count in the error");
	run_result_release(&r);

	is_str(pipe_run(&r, two_dones), "FAILED", "pipe: done error, then done ok");
	is_str(reason(&r, 0), "a second done", "pipe: the second done dropped");
	is_str(strbuf_str(&r.error), "guest said done twice (the second: done ok 0)",
	       "pipe: ... and named in the error");
	run_result_release(&r);

	is_str(pipe_run(&r, two_oks), "FAILED", "pipe: done ok twice fails the run");
	is_str(strbuf_str(&r.error), "guest said done twice (the second: done ok 1)",
	       "pipe: ... saying why");
	is_str(reason(&r, 0), "a second done", "pipe: ... the second done dropped");
	is_int(r.set.nr, 1, "pipe: ... the sample before it kept, to be stored uncounted");
	run_result_release(&r);

	is_str(pipe_run(&r, future), "FAILED", "pipe: hello of version 99");
	is_str(strbuf_str(&r.error), "guest speaks protocol version 99; this lab reads 1 to 2",
	       "pipe: the version in the error");
	is_int(r.set.nr, 0, "pipe: nothing of an unknown version kept");
	run_result_release(&r);
}

/*
 * One run on a pipe, its console fed in pieces of step bytes (0: a line
 * at a time, each with its newline), concluded as timed out or not.
 */
static void fed_run(struct run_result *r, struct console *c, const char *const *lines,
		    size_t step, int timed_out)
{
	run_result_init(r);
	console_init(c, &spec, r, -1, PROTOCOL_CHECKSUM_OPTIONAL | PROTOCOL_NONCE_OPTIONAL, 0);
	for (; *lines; lines++) {
		size_t len = strlen(*lines);
		if (!step) {
			raw(c, *lines);
			continue;
		}
		for (size_t i = 0; i < len; i += step)
			console_feed(c, *lines + i, len - i < step ? len - i : step);
	}
	console_end(c);
	console_conclude(c, timed_out);
}

static void test_pieces(void)
{
	static const char *const crlf[] = {
		"@lab hello 2 s\r\n@lab sample zeroing ", "touch 0 5 us\r", "\n@lab sample zer",
		"oing touch 1 6 us\r\n@lab done ok 2", NULL,
	};
	static const char *const order[] = {
		"@lab sample zeroing touch 0 5 us", "@lab hello 2 s", "@lab hello 2 s",
		"@lab done ok 0", NULL,
	};
	struct run_result r;
	struct console c;
	struct sample s;

	for (size_t step = 1; step <= 7; step += 6) {
		fed_run(&r, &c, crlf, step, 0);
		is_str(run_status_name(r.status), "OK",
		       step == 1 ? "a byte at a time, CR LF: the run is OK" :
				   "lines split anywhere, CR LF: the run is OK");
		is_int(r.set.nr, 2, "... both samples");
		sample_set_get(&r.set, 1, &s);
		ok(s.iteration == 1 && s.value == 6 && !strcmp(s.unit, "us"),
		   "... the second as sent, no CR in its unit");
		is_int(r.bad_lines, 0, "... nothing dropped");
		console_release(&c);
		run_result_release(&r);
	}

	fed_run(&r, &c, order, 0, 0);
	is_str(run_status_name(r.status), "OK", "a sample before hello and a second hello: dropped");
	is_str(reason(&r, 0), "before hello", "... the sample before hello");
	is_str(reason(&r, 1), "a second hello", "... the second hello");
	ok(r.to_hello_s >= 0, "... the time to hello is taken at the first");
	console_release(&c);
	run_result_release(&r);
}

struct ending {
	const char *what;
	const char *lines[5];
	int timed_out;
	const char *status, *error;
	int halted;
};

static void test_conclude(void)
{
	static const struct ending endings[] = {
		{ "no output at all", { NULL }, 0, "BOOT_FAILED", "guest never started", 0 },
		{ "a hello and no done", { "@lab hello 2 s", "@lab sample zeroing touch 0 1 us" }, 0,
		  "BOOT_FAILED", "guest stopped before done", 0 },
		{ "done error after the guest's error",
		  { "@lab hello 2 s", "@lab error zeroing out of memory", "@lab done error 0" }, 0,
		  "FAILED", "zeroing: out of memory", 0 },
		{ "done error alone", { "@lab hello 2 s", "@lab done error 0" }, 0,
		  "FAILED", "guest reported an error", 0 },
		{ "BUG: then a panic: the first kept",
		  { "Linux version 6.1", "BUG: kernel NULL pointer dereference", "Kernel panic - x" }, 0,
		  "BOOT_FAILED", "kernel failed: BUG: kernel NULL pointer dereference", 0 },
		{ "an Oops after done ok",
		  { "@lab hello 2 s", "@lab done ok 0", "[ 9.1] Oops: 0002 [#1]" }, 0,
		  "BOOT_FAILED", "kernel failed: [ 9.1] Oops: 0002 [#1]", 0 },
		{ "done ok, then the kernel halts",
		  { "@lab hello 2 s", "@lab done ok 0", "reboot: System halted" }, 0, "OK", "", 1 },
		{ "done ok, then the kernel powers down",
		  { "@lab hello 2 s", "@lab done ok 0", "reboot: Power down" }, 0, "OK", "", 1 },
		{ "timed out on nothing", { NULL }, 1,
		  "TIMEOUT", "no result within 7 s (no kernel output)", 0 },
		{ "timed out in the kernel", { "Linux version 6.1" }, 1,
		  "TIMEOUT", "no result within 7 s (kernel started)", 0 },
		{ "timed out in the guest", { "@lab hello 2 s" }, 1,
		  "TIMEOUT", "no result within 7 s (guest started)", 0 },
		{ "timed out after done ok: the timeout wins", { "@lab hello 2 s", "@lab done ok 0" }, 1,
		  "TIMEOUT", "no result within 7 s (after done)", 0 },
	};

	for (size_t i = 0; i < sizeof(endings) / sizeof(endings[0]); i++) {
		const struct ending *e = &endings[i];
		char name[160];
		struct run_result r;
		struct console c;

		run_result_init(&r);
		r.wall_s = 7;
		console_init(&c, &spec, &r, -1,
			     PROTOCOL_CHECKSUM_OPTIONAL | PROTOCOL_NONCE_OPTIONAL, 0);
		for (size_t k = 0; k < 5 && e->lines[k]; k++)
			raw(&c, e->lines[k]);
		console_end(&c);
		console_conclude(&c, e->timed_out);
		snprintf(name, sizeof(name), "%s: %s%s%s%s", e->what, e->status,
			 e->error[0] ? ", '" : "", e->error, e->error[0] ? "'" : "");
		ok(!strcmp(run_status_name(r.status), e->status) &&
		   !strcmp(strbuf_str(&r.error), e->error) && c.halted == e->halted, name);
		if (strcmp(run_status_name(r.status), e->status) || strcmp(strbuf_str(&r.error), e->error))
			printf("#   got %s '%s'\n", run_status_name(r.status), strbuf_str(&r.error));
		console_release(&c);
		run_result_release(&r);
	}
}

/*
 * What QEMU 7.2 printed on a nested Intel host whose KVM could not emulate
 * an xrstor: the lab's own kernel had printed its first lines, then QEMU
 * stopped the guest and waited. As the qemu runner reads it, stdout and
 * stderr in one stream.
 */
static const char *const kvm_internal_error[] = {
	"Linux version 6.1.0 (lab@build) #1 SMP PREEMPT_DYNAMIC",
	"Command line: console=ttyS0 panic=-1 lab.workload=boot",
	"x86/fpu: Supporting XSAVE feature 0x001: 'x87 floating point registers'",
	"KVM internal error. Suberror: 1",
	"extra data[0]: 0x0000000000000000",
	"extra data[1]: 0x0000000000000030",
	"emulation failure",
	"RAX=0000000000000007 RBX=ffffffff82a03e80 RCX=0000000000000000 RDX=0000000000000000",
	"RIP=ffffffff8102a5c0 RFL=00010046 [---Z-P-] CPL=0 II=0 A20=1 SMM=0 HLT=0",
	"Code=48 c7 c0 ff ff ff ff 48 89 c2 48 c1 ea 20 <48> 0f ae 2f 5d c3 cc cc cc",
	NULL,
};

static void feed_lines(struct console *c, const char *const *lines)
{
	for (size_t i = 0; lines[i]; i++)
		raw(c, lines[i]);
}

static void test_kvm_fatal(void)
{
	static const char *const fatal[] = {
		"KVM internal error. Suberror: 1",
		"error: kvm run failed Bad address",
		"qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69",
		"qemu-system-x86_64: ../../target/i386/kvm/kvm.c:3114: kvm_buf_set_msrs: "
		"Assertion `ret == cpu->kvm_msr_buf->nmsrs' failed.",
	};
	static const char *const not_fatal[] = {
		"[    0.000000] kvm-clock: Using msrs 4b564d01 and 4b564d00",
		"[    0.000000] Hypervisor detected: KVM",
		"[    0.123456] kvm-guest: setup async PF for cpu 0",
		"emulation failure",
		"x: ../lib/foo.c:12: bar: Assertion `x' failed.",
	};
	struct run_result r;
	struct console c;

	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		ok(console_kvm_fatal(fatal[i]), fatal[i]);
	for (size_t i = 0; i < sizeof(not_fatal) / sizeof(not_fatal[0]); i++)
		ok(!console_kvm_fatal(not_fatal[i]), not_fatal[i]);

	run_result_init(&r);
	r.wall_s = 3;
	console_init(&c, &spec, &r, -1, 0, 0);
	c.kvm_stderr = 1;
	feed_lines(&c, kvm_internal_error);
	console_end(&c);
	ok(c.saw_kernel && c.kvm_fatal, "QEMU's KVM internal error after the kernel printed is seen");
	console_conclude(&c, 0);
	is_str(run_status_name(r.status), "INFRA", "... and the boot is INFRA, no kernel verdict");
	is_str(strbuf_str(&r.error), "qemu stopped the guest under kvm: KVM internal error. Suberror: 1",
	       "... its error QEMU's first line of it");
	console_release(&c);
	run_result_release(&r);

	/* a deadline reached while QEMU waits is still the host's failure */
	run_result_init(&r);
	console_init(&c, &spec, &r, -1, 0, 0);
	c.kvm_stderr = 1;
	feed_lines(&c, kvm_internal_error);
	raw(&c, "Kernel panic - not syncing: the guest's words after the host's");
	console_end(&c);
	console_conclude(&c, 1);
	ok(r.status == RUN_INFRA && strstr(strbuf_str(&r.error), "KVM internal error"),
	   "a panic line and a timeout after it change nothing: INFRA, QEMU's words");
	console_release(&c);
	run_result_release(&r);

	/* under TCG (or another runner) the same words can only be the guest's */
	run_result_init(&r);
	console_init(&c, &spec, &r, -1, 0, 0);
	feed_lines(&c, kvm_internal_error);
	console_end(&c);
	console_conclude(&c, 0);
	ok(!c.kvm_fatal && r.status == RUN_BOOT_FAILED,
	   "without KVM the lines are the guest's: BOOT_FAILED, not INFRA");
	console_release(&c);
	run_result_release(&r);
}

static void test_tail(void)
{
	struct run_result r;
	struct console c;
	char line[100];

	run_result_init(&r);
	console_init(&c, &spec, &r, -1, PROTOCOL_CHECKSUM_OPTIONAL | PROTOCOL_NONCE_OPTIONAL, 0);
	for (int i = 0; i < 1000; i++) {
		snprintf(line, sizeof(line), "console line %04d", i);
		raw(&c, line);
	}
	ok(r.tail.len <= 8192 && r.tail.len > 8000, "the tail keeps the last 8 KiB, no more");
	ok(r.tail.len >= 18 && !memcmp(r.tail.buf + r.tail.len - 18, "console line 0999\n", 18),
	   "... ending with the newest line");
	console_release(&c);
	run_result_release(&r);
}

static void test_log_cap(void)
{
	char path[] = "/tmp/lab-console-XXXXXX", chunk[65536];
	struct run_result r;
	struct console c;
	struct stat st;
	int fd = mkstemp(path);

	if (fd < 0) {
		skip("no temporary file");
		return;
	}
	memset(chunk, 'x', sizeof(chunk));
	chunk[sizeof(chunk) - 1] = '\n';
	run_result_init(&r);
	console_init(&c, &spec, &r, fd, PROTOCOL_CHECKSUM_OPTIONAL | PROTOCOL_NONCE_OPTIONAL, 0);
	raw(&c, "@lab hello 2 flood");
	for (size_t n = 0; n < CONSOLE_LOG_MAX + 4 * sizeof(chunk); n += sizeof(chunk))
		console_feed(&c, chunk, sizeof(chunk));
	raw(&c, "@lab sample zeroing touch 0 1 us");
	raw(&c, "@lab done ok 1");
	console_conclude(&c, 0);
	ok(!fstat(fd, &st) && (size_t)st.st_size > CONSOLE_LOG_MAX &&
	   (size_t)st.st_size < CONSOLE_LOG_MAX + 100, "the log stops at its cap, with a note");
	is_str(run_status_name(r.status), "OK", "lines after the cap are still read");
	is_int(r.set.nr, 1, "the sample after the flood kept");
	console_release(&c);
	run_result_release(&r);
	close(fd);
	unlink(path);
}

/* Every runner opens its console log by console_log_open(): truncated, or an INFRA run naming it. */
static void test_log_open(void)
{
	char path[] = "/tmp/lab-console-XXXXXX";
	struct run_spec where = spec;
	struct run_result r;
	struct stat st;
	int fd = mkstemp(path);

	if (fd < 0) {
		skip("no temporary file");
		return;
	}
	ok(write(fd, "an older boot's\n", 16) == 16, "a log from before");
	close(fd);
	run_result_init(&r);
	fd = 0;
	ok(!console_log_open(&fd, &spec, &r) && fd == -1, "no log asked for: none opened");
	where.console_log = path;
	ok(!console_log_open(&fd, &where, &r) && fd >= 0, "the log opened");
	ok(fd >= 0 && !fstat(fd, &st) && st.st_size == 0, "... and truncated");
	if (fd >= 0)
		close(fd);
	ok(r.status == RUN_RUNNING && !r.error.len, "the run still as it was");
	where.console_log = "/nonexistent-dir/run-1.log";
	ok(console_log_open(&fd, &where, &r) < 0 && fd == -1, "an unwritable log refused");
	is_str(run_status_name(r.status), "INFRA", "... as an infrastructure failure");
	is_str(r.error.buf, "cannot write console log '/nonexistent-dir/run-1.log': "
	       "No such file or directory", "... naming the file");
	run_result_release(&r);
	unlink(path);
}

static void test_sample_set(void)
{
	struct sample_set set = SAMPLE_SET_INIT;
	struct sample s = { "zeroing", "touch", "us", 0, 1.0, 0 };
	long order[] = { 5, 9, 2, 7, 2, 9, -3, 6, -3 };
	int added = 0, repeated = 0;

	is_int(sizeof(struct sample_rec), 24, "a stored sample is 24 bytes");
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		s.iteration = order[i];
		switch (sample_set_add(&set, &s)) {
		case SAMPLE_ADDED: added++; break;
		case SAMPLE_REPEATED: repeated++; break;
		case SAMPLE_OTHER_UNIT: break;
		}
	}
	is_int(added, 6, "iterations out of order: each new one added");
	is_int(repeated, 3, "iterations out of order: each repeat refused");
	for (long i = 10; i < 5000; i++) {
		s.iteration = i;
		sample_set_add(&set, &s);
	}
	s.iteration = 4000;
	is_int(sample_set_add(&set, &s), SAMPLE_REPEATED, "a repeat among thousands");
	s.metric = "clear_huge_page";
	is_int(sample_set_add(&set, &s), SAMPLE_ADDED, "the same iteration of another metric");
	is_int(set.series_nr, 2, "names kept once per series");
	s.unit = "ms";
	is_int(sample_set_add(&set, &s), SAMPLE_OTHER_UNIT, "a metric's unit cannot change");
	is_str(sample_set_unit(&set, "zeroing", "clear_huge_page"), "us", "the metric's unit");
	sample_set_release(&set);
}

int main(void)
{
	test_serial();
	test_pipe();
	test_pieces();
	test_conclude();
	test_kvm_fatal();
	test_tail();
	test_log_cap();
	test_log_open();
	test_sample_set();
	return done_testing();
}
