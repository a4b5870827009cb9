/*
 * The qemu runner: direct kernel boot of an image with the lab's initramfs,
 * serial console on a pipe, parsed as it arrives.
 *
 * Memory always comes from a memory backend with reserve=off, so large
 * guests (64 GiB on a 24 GiB host) boot: only what the guest touches is
 * allocated.
 *
 * With accel "auto" the accelerator is chosen once per process, before the
 * first boot (qemu_prepare): when /dev/kvm opens and the guest is of the
 * host's architecture, the kernel under test is started under KVM until it
 * prints. A KVM start that ends before the kernel prints (QEMU aborting
 * while setting MSRs on some AMD hosts) or stays silent for KVM_PROBE_S
 * (nested guests hanging after the firmware) means KVM is unusable here:
 * TCG is used, and a note keeps the next labs from probing again for a day.
 *
 * x86 boots skip what the lab does not need before the kernel: qboot
 * (Debian's QEMU ships it) instead of SeaBIOS when it is installed, and a
 * vmlinux with the PVH entry point is loaded as it is, with no real-mode
 * setup and no decompression (read once, when the image was
 * resolved: kernel_image.pvh). Which way a boot went is
 * its run's meta entry qemu.boot. arm64 virt needs nothing of the kind:
 * QEMU starts an Image directly, without firmware.
 *
 * With numa N the memory is N backends (reserve=off each), one per node,
 * and the CPUs are spread over the nodes in contiguous blocks.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
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
#define QBOOT_ROM "/usr/share/qemu/qboot.rom"

/* "kvm" or "tcg" once auto has been settled in this process. */
static const char *auto_choice;

/* A note younger than a day says KVM failed on this host: do not probe again. */
static int kvm_noted_bad(const char *note)
{
	struct stat st;
	return note && !stat(note, &st) && time(NULL) - st.st_mtime < 86400;
}

static void kvm_note_bad(const char *note, const char *why)
{
	FILE *f;
	if (!note)
		return;
	f = fopen(note, "we");
	if (!f) {
		warning("cannot write '%s': %s", note, strerror(errno));
		return;
	}
	fprintf(f, "kvm unusable: %s: using tcg\n", why);
	if (fclose(f))
		warning("cannot write '%s': %s", note, strerror(errno));
}

static int kvm_opens(void)
{
	int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

static const char *default_qemu(const char *arch)
{
	return strcmp(arch, "aarch64") ? "qemu-system-x86_64" : "qemu-system-aarch64";
}

/* qboot when installed: SeaBIOS spends a second of TCG time before the kernel. */
static const char *x86_bios(void)
{
	return access(QBOOT_ROM, R_OK) ? NULL : QBOOT_ROM;
}

/* How this spec boots, as recorded in the run's meta entry qemu.boot. */
static const char *boot_way(const struct run_spec *spec)
{
	int pvh = spec->kernel->pvh;

	if (!strcmp(spec->arch, "aarch64"))
		return "image";
	if (x86_bios())
		return pvh ? "pvh+qboot" : "bzimage+qboot";
	return pvh ? "pvh+seabios" : "bzimage+seabios";
}

/*
 * One backend for all memory, or one per NUMA node: node i gets an equal
 * share (node 0 the remainder) and a contiguous block of the CPUs, if
 * there are enough CPUs for it to have any.
 */
static void add_memory(struct strvec *av, const struct run_spec *spec, int arm)
{
	int nodes = spec->numa > 0 ? spec->numa : 0;

	strvec_push(av, "-machine");
	if (!nodes) {
		strvec_pushf(av, "%s,memory-backend=ram0", arm ? "virt" : "pc");
		strvec_push(av, "-object");
		strvec_pushf(av, "memory-backend-ram,id=ram0,size=%ldM,reserve=off",
			     spec->mem_mib);
	} else {
		strvec_push(av, arm ? "virt" : "pc");
		for (int i = 0; i < nodes; i++) {
			long size = spec->mem_mib / nodes + (i ? 0 : spec->mem_mib % nodes);
			int first = i * spec->cpus / nodes, end = (i + 1) * spec->cpus / nodes;

			strvec_push(av, "-object");
			strvec_pushf(av, "memory-backend-ram,id=ram%d,size=%ldM,reserve=off", i,
				     size);
			strvec_push(av, "-numa");
			if (end > first)
				strvec_pushf(av, "node,nodeid=%d,memdev=ram%d,cpus=%d-%d", i, i,
					     first, end - 1);
			else
				strvec_pushf(av, "node,nodeid=%d,memdev=ram%d", i, i);
		}
	}
	strvec_push(av, "-m");
	strvec_pushf(av, "%ldM", spec->mem_mib);
}

/* cmdline gets the command line as stored with the run (run_spec_cmdline()). */
static void build_argv(struct strvec *av, const struct run_spec *spec,
		       const char *accel, char *cmdline, size_t cmdline_size)
{
	int arm = !strcmp(spec->arch, "aarch64");

	run_spec_cmdline(spec, cmdline, cmdline_size);

	strvec_push(av, spec->qemu ? spec->qemu : default_qemu(spec->arch));
	strvec_push(av, "-nodefaults");
	if (!arm && x86_bios()) {
		strvec_push(av, "-bios");
		strvec_push(av, x86_bios());
	}
	add_memory(av, spec, arm);
	strvec_push(av, "-smp");
	strvec_pushf(av, "%d", spec->cpus);
	strvec_push(av, "-accel");
	strvec_push(av, accel);
	strvec_push(av, "-cpu");
	strvec_push(av, !strcmp(accel, "kvm") ? "host" : "max");
	if (spec->clock && !strcmp(spec->clock, "icount")) {
		/* sleep=off: idle time is skipped, not waited for in real time */
		strvec_push(av, "-icount");
		strvec_pushf(av, "shift=%d,sleep=off", spec->icount_shift);
		/*
		 * Nothing of the host's time or chance reaches the guest, so that
		 * boots repeat to the instruction, of several vCPUs too: RDRAND
		 * draws from a seeded generator (it seeds the kernel's, hence the
		 * work and the order of its CPUs' threads), and the RTC counts
		 * virtual time from a fixed date instead of the host's clock.
		 */
		strvec_push(av, "-rtc");
		strvec_push(av, "base=2024-01-01T00:00:00,clock=vm");
		strvec_push(av, "-seed");
		strvec_push(av, "1");
	}
	strvec_push(av, "-kernel");
	strvec_push(av, spec->kernel->path);
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

/* The last non-empty line of a console tail (what QEMU said as it died). */
static void add_last_line(struct strbuf *sb, const struct strbuf *tail)
{
	const char *t = strbuf_str(tail), *last = t;
	size_t n = strlen(t);

	while (n && (t[n - 1] == '\n' || t[n - 1] == '\r'))
		n--;
	for (const char *p = t; p < t + n; p++)
		if (*p == '\n')
			last = p + 1;
	strbuf_addf(sb, "%.*s", (int)(t + n - last), last);
}

/*
 * Start the kernel under KVM and stop it as soon as it prints. Returns 1
 * when it printed, 0 when KVM is unusable (why says how), -1 when QEMU
 * could not be started at all.
 */
static int kvm_probe(const struct run_spec *spec, struct strbuf *why)
{
	struct strvec av = STRVEC_INIT;
	struct run_result res;
	struct console con;
	struct child child;
	char cmdline[4096];
	double start = now_monotonic(), deadline = start + KVM_PROBE_S;
	int ret = 0;

	run_result_init(&res);
	build_argv(&av, spec, "kvm", cmdline, sizeof(cmdline));
	if (subprocess_start(&child, strvec_argv(&av), NULL, SUBPROCESS_CAPTURE)) {
		ret = -1;
		goto out;
	}
	console_init(&con, spec, &res, -1, 0, start);
	while (!con.saw_kernel) {
		struct pollfd pfd = { .fd = child.out_fd, .events = POLLIN };
		char buf[4096];
		double now = now_monotonic();
		ssize_t got;
		int n;

		if (now >= deadline)
			break;
		n = poll(&pfd, 1, (int)((deadline - now) * 1000) + 1);
		if (n <= 0)
			continue;
		got = read(child.out_fd, buf, sizeof(buf));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		console_feed(&con, buf, (size_t)got);
	}
	console_end(&con);
	if (con.saw_kernel) {
		ret = 1;
	} else if (now_monotonic() >= deadline) {
		strbuf_addf(why, "the kernel printed nothing in %.0f s", KVM_PROBE_S);
	} else {
		strbuf_addstr(why, "qemu ended before the kernel printed: ");
		add_last_line(why, &res.tail);
	}
	subprocess_kill(&child);
	subprocess_finish(&child);
	console_release(&con);
out:
	run_result_release(&res);
	strvec_release(&av);
	return ret;
}

static int qemu_prepare(struct run_spec *spec)
{
	struct strbuf why = STRBUF_INIT;
	int usable;

	if (strcmp(spec->accel, "auto"))
		return 0;
	if (auto_choice) {
		spec->accel = auto_choice;
		return 0;
	}
	/* KVM runs only guests of the host's own architecture */
	if (strcmp(spec->arch, host_arch()) || !kvm_opens() || kvm_noted_bad(spec->kvm_note)) {
		auto_choice = "tcg";
	} else {
		usable = kvm_probe(spec, &why);
		/* a QEMU that cannot start at all is for the boot to report: INFRA */
		if (usable < 0) {
			strbuf_release(&why);
			spec->accel = "tcg";
			return 0;
		}
		if (!usable) {
			warning("kvm is unusable here (%s): using tcg", why.buf);
			kvm_note_bad(spec->kvm_note, why.buf);
		}
		auto_choice = usable ? "kvm" : "tcg";
	}
	strbuf_release(&why);
	spec->accel = auto_choice;
	return 0;
}

/* One boot; returns the drive outcome, or -1 when QEMU could not start. */
static int boot_once(const struct run_spec *spec, struct run_result *out, int log_fd)
{
	struct strvec av = STRVEC_INIT;
	struct console con;
	struct child child;
	double start = now_monotonic();
	int st;
	enum drive_end end;

	build_argv(&av, spec, spec->accel, out->full_cmdline, sizeof(out->full_cmdline));
	snprintf(out->accel, sizeof(out->accel), "%s", spec->accel);
	if (subprocess_start(&child, strvec_argv(&av), NULL, SUBPROCESS_CAPTURE)) {
		strvec_release(&av);
		return -1;
	}
	console_init(&con, spec, out, log_fd, 0, start);
	end = drive_child(&child, &con, start + spec->timeout_s);
	st = subprocess_finish(&child);
	out->wall_s = now_monotonic() - start;
	console_conclude(&con, end == DRIVE_TIMEOUT);
	sample_set_meta(&out->set, "qemu.boot", boot_way(spec));
	if (spec->numa > 0) {
		char nodes[16];

		snprintf(nodes, sizeof(nodes), "%d", spec->numa);
		sample_set_meta(&out->set, "qemu.numa", nodes);
	}

	/* QEMU refusing its arguments is the lab's problem, not the kernel's. */
	if (out->status == RUN_BOOT_FAILED && !con.saw_kernel && st != 0 && st < 128) {
		out->status = RUN_INFRA;
		strbuf_reset(&out->error);
		strbuf_addf(&out->error, "qemu exited with status %d: ", st);
		add_last_line(&out->error, &out->tail);
	}
	console_release(&con);
	strvec_release(&av);
	return (int)end;
}

static int qemu_run(const struct run_spec *spec, struct run_result *out)
{
	struct run_spec settled = *spec;
	int log_fd, ret;

	qemu_prepare(&settled);
	if (console_log_open(&log_fd, spec, out))
		return 0;
	ret = boot_once(&settled, out, log_fd);
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

/*
 * The binary for the arch, answering; the accelerator asked for: kvm
 * opening, and not noted as failing here. auto needs nothing: it falls
 * back to tcg (and the KVM probe boots a kernel, which a check does not).
 */
static int program_found(const char *name)
{
	const char *path = getenv("PATH");
	struct strbuf sb = STRBUF_INIT;
	int found = 0;

	if (strchr(name, '/'))
		return !access(name, X_OK);
	for (const char *p = path ? path : "/usr/bin:/bin"; !found && *p;) {
		size_t n = strcspn(p, ":");

		strbuf_reset(&sb);
		strbuf_addf(&sb, "%.*s/%s", (int)n, p, name);
		found = n && !access(sb.buf, X_OK);
		p += n + (p[n] == ':');
	}
	strbuf_release(&sb);
	return found;
}

static void qemu_check(const struct run_spec *spec, struct strbuf *missing,
		       struct strbuf *found)
{
	(void)found;
	const char *arch = spec->arch ? spec->arch : host_arch();
	struct strbuf out = STRBUF_INIT;
	char *argv[] = { (char *)spec->qemu, "-accel", "help", NULL };
	/* not started when it is not there: subprocess_run() would say so on stderr */
	int st = spec->qemu && program_found(spec->qemu) ?
		 subprocess_run(argv, NULL, &out, 30) : -1;

	if (st) {
		runner_missing(missing, "the QEMU binary '%s' for %s (qemu.%s.binary; Debian's "
			       "qemu-system-%s)", spec->qemu ? spec->qemu : "", arch, arch,
			       strcmp(arch, "aarch64") ? "x86" : "arm");
	} else if (!strcmp(spec->accel, "tcg") && !strstr(out.buf ? out.buf : "", "\ntcg")) {
		runner_missing(missing, "accel tcg in '%s'", spec->qemu);
	}
	if (!strcmp(spec->accel, "kvm")) {
		if (strcmp(arch, host_arch()))
			runner_missing(missing, "kvm for %s guests (this machine is %s)", arch,
				       host_arch());
		else if (!kvm_opens())
			runner_missing(missing, "kvm (/dev/kvm: %s)", strerror(errno));
		else if (kvm_noted_bad(spec->kvm_note))
			runner_missing(missing, "kvm that works (%s says it did not, within a day)",
				       spec->kvm_note);
	}
	strbuf_release(&out);
}

static void qemu_where(const struct run_spec *spec, struct strbuf *sb)
{
	strbuf_addf(sb, "%s, accel %s", spec->qemu ? spec->qemu : "(no binary)", spec->accel);
}

const struct runner runner_qemu = {
	.name = "qemu",
	.flags = RUNNER_BOOTS_KERNEL | RUNNER_INITRAMFS | RUNNER_RUNS_QEMU,
	.run = qemu_run,
	.prepare = qemu_prepare,
	.check = qemu_check,
	.where = qemu_where,
};
