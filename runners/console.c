#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "console.h"
#include "events.h"
#include "protocol.h"
#include "subprocess.h"

#define TAIL_BYTES 8192

static const char *const kernel_failures[] = {
	"Kernel panic", "BUG:", "Oops:", "Oops ", NULL,
};

int console_kernel_failure(const char *line)
{
	for (int i = 0; kernel_failures[i]; i++)
		if (strstr(line, kernel_failures[i]))
			return 1;
	return 0;
}

/*
 * What QEMU prints when KVM cannot go on (accel/kvm/kvm-all.c,
 * target/i386/kvm/kvm.c): after the first two it stops the guest and
 * waits for a monitor that is not there, after the others it aborts.
 */
static const char *const kvm_fatal_lines[] = {
	"KVM internal error", "kvm run failed", "failed to set MSR", "failed to get MSR",
	"KVM: entry failed", "KVM_SET_USER_MEMORY_REGION failed", NULL,
};

int console_kvm_fatal(const char *line)
{
	const char *a;

	for (int i = 0; kvm_fatal_lines[i]; i++)
		if (strstr(line, kvm_fatal_lines[i]))
			return 1;
	/* an assertion in QEMU's KVM code: "...kvm.c:3114: kvm_buf_set_msrs: Assertion `...' failed." */
	a = strstr(line, ": Assertion `");
	return a && strstr(a, "' failed") && strstr(line, "kvm");
}

int console_log_open(int *fd, const struct run_spec *spec, struct run_result *out)
{
	*fd = -1;
	if (!spec->console_log)
		return 0;
	*fd = open(spec->console_log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (*fd >= 0)
		return 0;
	run_result_infra(out, "cannot write console log '%s': %s", spec->console_log,
			 strerror(errno));
	return -1;
}

void console_init(struct console *c, const struct run_spec *spec, struct run_result *res,
		  int log_fd, unsigned proto_flags, double start)
{
	memset(c, 0, sizeof(*c));
	c->res = res;
	c->nonce = spec->nonce;
	c->workloads = spec->workloads;
	c->log_fd = log_fd;
	c->proto_flags = proto_flags;
	c->start = start;
	c->watch = spec->watch;
	strbuf_init(&c->line, 256);
	res->tail.cap = TAIL_BYTES;
}

void console_release(struct console *c)
{
	strbuf_release(&c->line);
}

static void tell(struct console *c, const char *what)
{
	if (c->watch && c->watch->phase)
		c->watch->phase(c->watch, what);
}

/* The watch hears of each sample as "<workload>: N samples". */
static void tell_sample(struct console *c, const char *workload)
{
	char what[64];

	if (!c->watch)
		return;
	if (strcmp(c->last_workload, workload)) {
		snprintf(c->last_workload, sizeof(c->last_workload), "%s", workload);
		c->workload_samples = 0;
	}
	c->workload_samples++;
	snprintf(what, sizeof(what), "%s: %ld sample%s", c->last_workload, c->workload_samples,
		 c->workload_samples == 1 ? "" : "s");
	if (c->watch->count)
		c->watch->count(c->watch, what);
}

static void note_failure(struct console *c, const char *line)
{
	if (c->kernel_failed)
		return;
	c->kernel_failed = 1;
	if (c->kvm_fatal)
		return;
	strbuf_reset(&c->res->error);
	strbuf_addf(&c->res->error, "kernel failed: %.200s", line);
}

__attribute__((format(printf, 4, 5)))
static void drop(struct console *c, const char *line, size_t len, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	run_result_drop(c->res, why, line, len);
}

static int workload_asked(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; p; p = strchr(p, ',')) {
		if (*p == ',')
			p++;
		if (!strncmp(p, name, n) && (p[n] == ',' || !p[n]))
			return 1;
	}
	return 0;
}

static void add_sample(struct console *c, const struct protocol_msg *m, const char *line,
		       size_t len)
{
	struct sample s = { m->workload, m->metric, m->unit, m->iteration, m->value, m->flags };

	c->samples_read++;
	if (c->workloads && !workload_asked(c->workloads, m->workload)) {
		drop(c, line, len, "workload '%s' was not asked for (asked: %s)", m->workload,
		     c->workloads);
		return;
	}
	switch (sample_set_add(&c->res->set, &s)) {
	case SAMPLE_ADDED:
		/* the progress counts measurements; event counts ride along */
		if (!metric_is_event(m->metric))
			tell_sample(c, m->workload);
		break;
	case SAMPLE_REPEATED:
		drop(c, line, len, "iteration %ld of %s.%s repeated", m->iteration, m->workload,
		     m->metric);
		break;
	case SAMPLE_OTHER_UNIT:
		drop(c, line, len, "unit '%s' where %s.%s had '%s'", m->unit, m->workload,
		     m->metric, sample_set_unit(&c->res->set, m->workload, m->metric));
		break;
	}
}

static void add_profile(struct console *c, const struct protocol_msg *m, const char *line,
			size_t len)
{
	if (c->workloads && !workload_asked(c->workloads, m->workload))
		drop(c, line, len, "workload '%s' was not asked for (asked: %s)", m->workload,
		     c->workloads);
	else if (run_result_add_profile(c->res, m->workload, m->metric, m->count, m->value))
		drop(c, line, len, "profile of %s in %s repeated", m->metric, m->workload);
}

static void handle_line(struct console *c, const char *line, size_t len)
{
	struct protocol_msg m;

	switch (protocol_parse(&m, line, len, c->nonce, c->proto_flags)) {
	case PROTOCOL_NONE:
		if (!c->saw_kernel && strstr(line, "Linux version")) {
			c->saw_kernel = 1;
			tell(c, "kernel booting");
		}
		/* a kernel without a power-off handler halts and QEMU stays up */
		if (strstr(line, "reboot: System halted") || strstr(line, "reboot: Power down"))
			c->halted = 1;
		if (console_kernel_failure(line))
			note_failure(c, line);
		if (c->kvm_stderr && !c->kvm_fatal && console_kvm_fatal(line)) {
			c->kvm_fatal = 1;
			strbuf_reset(&c->res->error);
			strbuf_addf(&c->res->error, "qemu stopped the guest under kvm: %.200s", line);
		}
		return;
	case PROTOCOL_BAD:
		drop(c, line, len, "%s", m.why);
		return;
	default:
		break;
	}
	/* everything below came from this boot's guest, or a program on a pipe */
	if (c->saw_done) {
		/* the guest ends once: another end puts the whole run in doubt */
		if (m.kind == PROTOCOL_DONE && !c->second_done) {
			c->second_done = 1;
			snprintf(c->second_done_text, sizeof(c->second_done_text), "%.16s %ld",
				 m.text, m.count);
		}
		drop(c, line, len, m.kind == PROTOCOL_DONE ? "a second done" : "after done");
		return;
	}
	if (m.kind == PROTOCOL_HELLO) {
		if (c->saw_hello) {
			drop(c, line, len, "a second hello");
			return;
		}
		c->saw_hello = 1;
		c->res->to_hello_s = now_monotonic() - c->start;
		c->version = m.version;
		c->bad_version = m.version < PROTOCOL_MIN_VERSION || m.version > PROTOCOL_VERSION;
		if (m.nonce[0])
			c->proto_flags &= ~(unsigned)PROTOCOL_NONCE_OPTIONAL;
		tell(c, "workloads started");
		return;
	}
	if (!c->saw_hello) {
		drop(c, line, len, "before hello");
		return;
	}
	if (c->bad_version) {
		drop(c, line, len, "after a hello of protocol version %d", c->version);
		return;
	}
	switch (m.kind) {
	case PROTOCOL_META:
		sample_set_meta(&c->res->set, m.key, m.text);
		break;
	case PROTOCOL_SAMPLE:
		add_sample(c, &m, line, len);
		break;
	case PROTOCOL_PROFILE:
		add_profile(c, &m, line, len);
		break;
	case PROTOCOL_ERROR:
		if (!c->res->error.len)
			strbuf_addf(&c->res->error, "%s: %s", m.workload, m.text);
		break;
	case PROTOCOL_DONE:
		c->saw_done = strcmp(m.text, "ok") ? 2 : 1;
		c->res->done_count = m.count;
		break;
	default:
		break;
	}
}

static void write_all(int fd, const char *p, size_t left)
{
	while (left) {
		ssize_t n = write(fd, p, left);
		if (n <= 0)
			break;
		p += n;
		left -= (size_t)n;
	}
}

/* A guest that floods its console must not fill the disk: keep the head. */
static void log_bytes(struct console *c, const char *buf, size_t len)
{
	char note[96];
	size_t n;

	if (c->log_fd < 0 || c->logged > CONSOLE_LOG_MAX)
		return;
	n = CONSOLE_LOG_MAX - c->logged;
	if (n > len)
		n = len;
	write_all(c->log_fd, buf, n);
	c->logged += n;
	if (n < len) {
		snprintf(note, sizeof(note),
			 "\n[lab: console log cut at %u MiB; the rest was read, not kept]\n",
			 CONSOLE_LOG_MAX >> 20);
		write_all(c->log_fd, note, strlen(note));
		c->logged = CONSOLE_LOG_MAX + 1;
	}
}

void console_feed(struct console *c, const char *buf, size_t len)
{
	log_bytes(c, buf, len);
	strbuf_add(&c->res->tail, buf, len);
	for (size_t i = 0; i < len; i++) {
		char ch = buf[i];
		if (ch == '\n') {
			handle_line(c, strbuf_str(&c->line), c->line.len);
			strbuf_reset(&c->line);
		} else if (ch != '\r' && c->line.len < PROTOCOL_MAX_LINE * 2) {
			strbuf_addch(&c->line, ch);
		}
	}
}

void console_end(struct console *c)
{
	if (c->line.len) {
		handle_line(c, strbuf_str(&c->line), c->line.len);
		strbuf_reset(&c->line);
	}
}

void console_conclude(struct console *c, int timed_out)
{
	struct run_result *r = c->res;

	if (c->kvm_fatal) {
		/* the host failed, not the kernel: its error was set when the line came */
		r->status = RUN_INFRA;
	} else if (timed_out) {
		r->status = RUN_TIMEOUT;
		strbuf_reset(&r->error);
		strbuf_addf(&r->error, "no result within %.0f s (%s)", r->wall_s,
			    c->saw_done ? "after done" : c->saw_hello ?
			    "guest started" : c->saw_kernel ? "kernel started" :
			    "no kernel output");
	} else if (c->kernel_failed) {
		r->status = RUN_BOOT_FAILED;
	} else if (c->bad_version) {
		r->status = RUN_FAILED;
		strbuf_reset(&r->error);
		strbuf_addf(&r->error, "guest speaks protocol version %d; this lab reads %d to %d",
			    c->version, PROTOCOL_MIN_VERSION, PROTOCOL_VERSION);
	} else if (c->second_done) {
		r->status = RUN_FAILED;
		strbuf_reset(&r->error);
		strbuf_addf(&r->error, "guest said done twice (the second: done %s)",
			    c->second_done_text);
	} else if (c->saw_done == 1 && r->done_count != c->samples_read) {
		r->status = RUN_FAILED;
		strbuf_reset(&r->error);
		strbuf_addf(&r->error, "guest said it sent %ld sample(s), %ld arrived",
			    r->done_count, c->samples_read);
	} else if (c->saw_done == 1) {
		r->status = RUN_OK;
	} else if (c->saw_done == 2) {
		r->status = RUN_FAILED;
		if (!r->error.len)
			strbuf_addstr(&r->error, "guest reported an error");
	} else {
		r->status = RUN_BOOT_FAILED;
		if (!r->error.len)
			strbuf_addstr(&r->error, c->saw_hello ?
				      "guest stopped before done" :
				      "guest never started");
	}
	/* A run that did not finish contributes no samples (docs/statistics.md). */
	if (r->status != RUN_OK && r->status != RUN_FAILED)
		r->set.nr = 0;
}
