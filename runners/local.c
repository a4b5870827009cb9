/*
 * The local runner: the guest program (or any command that prints @lab
 * lines) runs as an ordinary process on this host, measuring the kernel
 * that runs here. Parameters, a variant's command line and the boot's
 * nonce go on its command line; checksums and nonces are optional on a
 * pipe (protocol.h). The run's command line is what the program was
 * given, the nonce left out as for the qemu runner; the host's own
 * /proc/cmdline goes into the run's metadata. Whatever the program starts
 * ends with the run, setsid and double forks included (SUBPROCESS_CONTAIN).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "drive.h"
#include "host.h"
#include "protocol.h"
#include "runner.h"
#include "strvec.h"

static int local_run(const struct run_spec *spec, struct run_result *out)
{
	struct strvec av = STRVEC_INIT;
	struct strbuf args = STRBUF_INIT;
	char host_cmdline[4096], size[32];
	struct console con;
	long mem_mib;
	int cpus;
	struct child child;
	double start;
	int log_fd = -1, st;
	enum drive_end end;
	FILE *f;

	snprintf(out->accel, sizeof(out->accel), "none");
	/* the run's memory and CPUs are the options' (nothing here can change): what ran is this */
	host_size(&mem_mib, &cpus);
	snprintf(size, sizeof(size), "%ld", mem_mib);
	sample_set_meta(&out->set, "host.mem_mib", size);
	snprintf(size, sizeof(size), "%d", cpus);
	sample_set_meta(&out->set, "host.cpus", size);
	f = fopen("/proc/cmdline", "r");
	if (f) {
		if (fgets(host_cmdline, sizeof(host_cmdline), f)) {
			host_cmdline[strcspn(host_cmdline, "\n")] = '\0';
			sample_set_meta(&out->set, "host.cmdline", host_cmdline);
		}
		fclose(f);
	}
	if (console_log_open(&log_fd, spec, out))
		return 0;
	strvec_split(&av, spec->guest);
	if (spec->params)
		strvec_split(&av, spec->params);
	/* there is no kernel to boot: a variant's command line goes to the program */
	if (spec->cmdline)
		strvec_split(&av, spec->cmdline);
	for (size_t i = 1; i < av.nr; i++)
		strbuf_addf(&args, "%s%s", i > 1 ? " " : "", av.v[i]);
	snprintf(out->full_cmdline, sizeof(out->full_cmdline), "%s", strbuf_str(&args));
	/* like the nonce, a path of this run only: not part of what is compared */
	if (spec->workdir)
		strvec_pushf(&av, "lab.workdir=%s", spec->workdir);
	if (spec->nonce)
		strvec_pushf(&av, "lab.nonce=%s", spec->nonce);

	start = now_monotonic();
	/* what it starts in a session of its own (setsid) ends with the run too */
	if (subprocess_start(&child, strvec_argv(&av), NULL,
			     SUBPROCESS_CAPTURE | SUBPROCESS_CONTAIN)) {
		out->status = RUN_INFRA;
		strbuf_addf(&out->error, "cannot start '%s'", av.v[0]);
		goto out;
	}
	console_init(&con, spec, out, log_fd,
		     PROTOCOL_CHECKSUM_OPTIONAL | PROTOCOL_NONCE_OPTIONAL, start);
	con.saw_kernel = 1;
	end = drive_child(&child, &con, start + spec->timeout_s);
	st = subprocess_finish(&child);
	out->wall_s = now_monotonic() - start;
	console_conclude(&con, end == DRIVE_TIMEOUT);
	if (out->status == RUN_BOOT_FAILED && !con.saw_hello) {
		out->status = RUN_FAILED;
		strbuf_reset(&out->error);
		strbuf_addf(&out->error, "'%s' exited with status %d before saying hello",
			    av.v[0], st);
	}
	console_release(&con);
out:
	if (log_fd >= 0)
		close(log_fd);
	strvec_release(&av);
	strbuf_release(&args);
	return 0;
}

const struct runner runner_local = {
	.name = "local",
	.flags = RUNNER_THIS_HOST,
	.run = local_run,
};
