#include <string.h>
#include <unistd.h>

#include "console.h"
#include "protocol.h"
#include "subprocess.h"

#define TAIL_BYTES 8192

static const char *const kernel_failures[] = {
	"Kernel panic", "BUG:", "Oops:", "Oops ", NULL,
};

void console_init(struct console *c, struct run_result *res, int log_fd,
		  unsigned proto_flags, double start)
{
	memset(c, 0, sizeof(*c));
	c->res = res;
	c->log_fd = log_fd;
	c->proto_flags = proto_flags;
	c->start = start;
	strbuf_init(&c->line, 256);
	res->tail.cap = TAIL_BYTES;
}

void console_release(struct console *c)
{
	strbuf_release(&c->line);
}

static void note_failure(struct console *c, const char *line)
{
	if (c->kernel_failed)
		return;
	c->kernel_failed = 1;
	strbuf_reset(&c->res->error);
	strbuf_addf(&c->res->error, "kernel failed: %.200s", line);
}

static void handle_line(struct console *c, const char *line, size_t len)
{
	struct protocol_msg m;
	struct sample s;

	switch (protocol_parse(&m, line, len, c->proto_flags)) {
	case PROTOCOL_NONE:
		if (strstr(line, "Linux version"))
			c->saw_kernel = 1;
		/* a kernel without a power-off handler halts and QEMU stays up */
		if (strstr(line, "reboot: System halted") || strstr(line, "reboot: Power down"))
			c->halted = 1;
		for (int i = 0; kernel_failures[i]; i++)
			if (strstr(line, kernel_failures[i]))
				note_failure(c, line);
		break;
	case PROTOCOL_BAD:
		c->res->bad_lines++;
		break;
	case PROTOCOL_HELLO:
		c->saw_hello = 1;
		c->res->to_hello_s = now_monotonic() - c->start;
		break;
	case PROTOCOL_META:
		sample_set_meta(&c->res->set, m.key, m.text);
		break;
	case PROTOCOL_SAMPLE:
		memset(&s, 0, sizeof(s));
		memcpy(s.workload, m.workload, sizeof(s.workload));
		memcpy(s.metric, m.metric, sizeof(s.metric));
		memcpy(s.unit, m.unit, sizeof(s.unit));
		s.iteration = m.iteration;
		s.value = m.value;
		s.flags = m.flags;
		sample_set_add(&c->res->set, &s);
		break;
	case PROTOCOL_ERROR:
		if (!c->res->error.len)
			strbuf_addf(&c->res->error, "%s: %s", m.workload, m.text);
		break;
	case PROTOCOL_DONE:
		c->saw_done = strcmp(m.text, "ok") ? 2 : 1;
		c->res->done_count = m.count;
		break;
	}
}

void console_feed(struct console *c, const char *buf, size_t len)
{
	if (c->log_fd >= 0 && len) {
		const char *p = buf;
		size_t left = len;
		while (left) {
			ssize_t n = write(c->log_fd, p, left);
			if (n <= 0)
				break;
			p += n;
			left -= (size_t)n;
		}
	}
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

	if (timed_out) {
		r->status = RUN_TIMEOUT;
		strbuf_reset(&r->error);
		strbuf_addf(&r->error, "no result within %.0f s (%s)", r->wall_s,
			    c->saw_done ? "after done" : c->saw_hello ?
			    "guest started" : c->saw_kernel ? "kernel started" :
			    "no kernel output");
	} else if (c->kernel_failed) {
		r->status = RUN_BOOT_FAILED;
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
	/* A run that did not finish contributes no samples (STATS.md). */
	if (r->status != RUN_OK && r->status != RUN_FAILED)
		r->set.nr = 0;
}
