/*
 * The qemu runner: direct kernel boot of an image with the lab's initramfs,
 * serial console on a pipe, parsed as it arrives.
 *
 * Memory always comes from a memory backend with reserve=off, so large
 * guests (64 GiB on a 24 GiB host) boot: only what the guest touches is
 * allocated. With accel "auto" the runner tries KVM when /dev/kvm opens, but
 * a KVM guest that prints no kernel output within KVM_PROBE_S is killed and
 * the boot is redone under TCG (nested KVM can hang right after the
 * firmware), and TCG is used for the rest of the process.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "drive.h"
#include "host.h"
#include "log.h"
#include "protocol.h"
#include "runner.h"
#include "strvec.h"

#define KVM_PROBE_S 20.0

static int kvm_failed;

/* A note younger than a day says KVM hung on this host: do not wait again. */
static int kvm_noted_bad(const char *note)
{
	struct stat st;
	return note && !stat(note, &st) && time(NULL) - st.st_mtime < 86400;
}

static void kvm_note_bad(const char *note)
{
	int fd;
	if (!note)
		return;
	fd = open(note, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0) {
		if (write(fd, "kvm guests printed nothing: using tcg\n", 38) < 0)
			warning("cannot write '%s'", note);
		close(fd);
	}
}

static int kvm_usable(const char *note)
{
	int fd;
	if (kvm_failed || kvm_noted_bad(note))
		return 0;
	fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

static const char *default_qemu(const char *arch)
{
	return strcmp(arch, "aarch64") ? "qemu-system-x86_64" : "qemu-system-aarch64";
}

/*
 * cmdline gets the command line as stored with the run: the nonce differs
 * per boot and is left out (runs of one kernel and command line group
 * together). It goes last, so that a lab.nonce= in --cmdline cannot
 * override it.
 */
static void build_argv(struct strvec *av, const struct run_spec *spec,
		       const char *accel, char *cmdline, size_t cmdline_size)
{
	int arm = !strcmp(spec->arch, "aarch64");

	snprintf(cmdline, cmdline_size, "console=%s panic=-1 %s%s%s",
		 arm ? "ttyAMA0" : "ttyS0", spec->params ? spec->params : "",
		 spec->cmdline && *spec->cmdline ? " " : "",
		 spec->cmdline ? spec->cmdline : "");

	strvec_push(av, spec->qemu ? spec->qemu : default_qemu(spec->arch));
	strvec_push(av, "-nodefaults");
	strvec_push(av, "-machine");
	strvec_pushf(av, "%s,memory-backend=ram0", arm ? "virt" : "pc");
	strvec_push(av, "-object");
	strvec_pushf(av, "memory-backend-ram,id=ram0,size=%ldM,reserve=off",
		     spec->mem_mib);
	strvec_push(av, "-m");
	strvec_pushf(av, "%ldM", spec->mem_mib);
	strvec_push(av, "-smp");
	strvec_pushf(av, "%d", spec->cpus);
	strvec_push(av, "-accel");
	strvec_push(av, accel);
	strvec_push(av, "-cpu");
	strvec_push(av, !strcmp(accel, "kvm") ? "host" : "max");
	strvec_push(av, "-kernel");
	strvec_push(av, spec->kernel);
	strvec_push(av, "-initrd");
	strvec_push(av, spec->initrd);
	strvec_push(av, "-append");
	if (spec->nonce)
		strvec_pushf(av, "%s lab.nonce=%s", cmdline, spec->nonce);
	else
		strvec_push(av, cmdline);
	strvec_push(av, "-display");
	strvec_push(av, "none");
	strvec_push(av, "-monitor");
	strvec_push(av, "none");
	strvec_push(av, "-serial");
	strvec_push(av, "stdio");
	strvec_push(av, "-no-reboot");
}

/* One attempt; returns the drive outcome, or -1 when QEMU could not start. */
static int boot_once(const struct run_spec *spec, const char *accel,
		     struct run_result *out, int log_fd)
{
	struct strvec av = STRVEC_INIT;
	struct console con;
	struct child child;
	double start = now_monotonic();
	double probe = 0;
	int ret;
	enum drive_end end;

	build_argv(&av, spec, accel, out->full_cmdline, sizeof(out->full_cmdline));
	snprintf(out->accel, sizeof(out->accel), "%s", accel);
	if (subprocess_start(&child, strvec_argv(&av), NULL, SUBPROCESS_CAPTURE)) {
		strvec_release(&av);
		return -1;
	}
	console_init(&con, spec, out, log_fd, 0, start);
	if (!strcmp(accel, "kvm") && !strcmp(spec->accel, "auto"))
		probe = start + KVM_PROBE_S;
	end = drive_child(&child, &con, start + spec->timeout_s, probe);
	ret = subprocess_finish(&child);
	out->wall_s = now_monotonic() - start;

	if (end == DRIVE_PROBE_FAILED) {
		ret = DRIVE_PROBE_FAILED;
	} else {
		console_conclude(&con, end == DRIVE_TIMEOUT);
		/* QEMU refusing its arguments is the lab's problem, not the kernel's. */
		if (out->status == RUN_BOOT_FAILED && !con.saw_kernel && ret != 0 &&
		    ret < 128) {
			const char *t = strbuf_str(&out->tail);
			const char *last = t, *p;
			size_t n = strlen(t);
			while (n && (t[n - 1] == '\n' || t[n - 1] == '\r'))
				n--;
			for (p = t; p < t + n; p++)
				if (*p == '\n')
					last = p + 1;
			out->status = RUN_INFRA;
			strbuf_reset(&out->error);
			strbuf_addf(&out->error, "qemu exited with status %d: %.*s",
				    ret, (int)(t + n - last), last);
		}
		ret = end;
	}
	console_release(&con);
	strvec_release(&av);
	return ret;
}

static int qemu_run(const struct run_spec *spec, struct run_result *out)
{
	const char *accel = spec->accel;
	int log_fd = -1, ret;

	if (spec->console_log) {
		log_fd = open(spec->console_log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (log_fd < 0) {
			out->status = RUN_INFRA;
			strbuf_addf(&out->error, "cannot write console log '%s': %s",
				    spec->console_log, strerror(errno));
			return 0;
		}
	}
	/* KVM runs only guests of the host's own architecture */
	if (!strcmp(accel, "auto"))
		accel = kvm_usable(spec->kvm_note) && !strcmp(spec->arch, host_arch()) ? "kvm" : "tcg";

	ret = boot_once(spec, accel, out, log_fd);
	if (ret == DRIVE_PROBE_FAILED) {
		warning("kvm guest printed nothing in %.0f s: using tcg from now on",
			KVM_PROBE_S);
		kvm_failed = 1;
		kvm_note_bad(spec->kvm_note);
		run_result_release(out);
		run_result_init(out);
		if (log_fd >= 0 && (ftruncate(log_fd, 0) || lseek(log_fd, 0, SEEK_SET)))
			warning("cannot truncate console log '%s'", spec->console_log);
		ret = boot_once(spec, "tcg", out, log_fd);
	}
	if (ret < 0) {
		out->status = RUN_INFRA;
		strbuf_reset(&out->error);
		strbuf_addf(&out->error, "cannot start '%s'",
			    spec->qemu ? spec->qemu : default_qemu(spec->arch));
	}
	if (log_fd >= 0)
		close(log_fd);
	return 0;
}

const struct runner runner_qemu = { "qemu", qemu_run };
