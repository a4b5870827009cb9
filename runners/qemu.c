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
 * (or the guest) prints. A KVM start that ends before that (QEMU aborting
 * while setting MSRs on some AMD hosts), stays silent for KVM_PROBE_S
 * (nested guests hanging after the firmware) or has QEMU say KVM failed
 * means KVM is unusable here, if the same start under TCG prints: TCG is
 * used. When TCG fails the same way, the options or the kernel are at
 * fault, not KVM: nothing is noted. Either verdict is noted with its
 * reason (spec->kvm_note) under the host's key (host_kvm_key(): its
 * kernel, /dev/kvm, QEMU), so that a host is probed once per kernel, not
 * once per command: on a host where KVM hangs that is 20 s each time. The
 * lab says so before it probes. A note of another key is stale.
 *
 * KVM can also fail later, after the kernel printed (a nested host whose
 * KVM cannot emulate an xrstor): QEMU says "KVM internal error", stops the
 * guest and waits. Such a line on QEMU's stderr ends the boot at once as
 * INFRA; under auto the boot is done again under TCG, as are the boots
 * after it, and KVM is noted unusable when the kernel printed under TCG.
 *
 * Before anything is stored, qemu_fits() asks QEMU whether it takes a
 * guest of that size at all (--cpus 1024 on a machine of 255, --mem 16T
 * beyond the CPU's address bits): QEMU is started with the guest's
 * machine, memory and CPUs and a kernel that does not exist, so that it
 * stops at loading the kernel when it took the rest.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "array.h"
#include "drive.h"
#include "host.h"
#include "log.h"
#include "protocol.h"
#include "runner.h"
#include "strvec.h"

#define KVM_PROBE_S 20.0
#define QBOOT_ROM "/usr/share/qemu/qboot.rom"
/* qemu_fits()'s kernel: a path QEMU cannot open, named in its answer */
#define FITS_KERNEL "/nonexistent/lab-size-check"
#define FITS_TIMEOUT_S 120.0

/* "kvm" or "tcg" once auto has been settled in this process. */
static const char *auto_choice;

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

/* This host's KVM key (host_kvm_key()) for spec's QEMU. */
static void kvm_key(struct strbuf *key, const struct run_spec *spec)
{
	char version[128];

	host_qemu_version(version, sizeof(version), spec->qemu ? spec->qemu :
			  default_qemu(spec->arch ? spec->arch : host_arch()));
	host_kvm_key(key, version);
}

/* The verdict cached for this host as it is now: 1 usable, 0 unusable, -1 none (or stale). */
static int kvm_cached(const struct run_spec *spec, struct host_kvm_verdict *v)
{
	struct strbuf key = STRBUF_INIT;
	int found;

	kvm_key(&key, spec);
	found = host_kvm_verdict_read(v, spec->kvm_note, key.buf);
	strbuf_release(&key);
	return found ? v->usable : -1;
}

static void kvm_note(const struct run_spec *spec, int usable, const char *why)
{
	struct strbuf key = STRBUF_INIT;

	if (!spec->kvm_note)
		return;
	kvm_key(&key, spec);
	host_kvm_verdict_write(spec->kvm_note, key.buf, usable, why);
	strbuf_release(&key);
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

/* The binary and the machine: firmware, memory, CPUs, accelerator. */
static void add_machine(struct strvec *av, const struct run_spec *spec, const char *accel)
{
	int arm = !strcmp(spec->arch, "aarch64");

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
}

/* cmdline gets the command line as stored with the run (run_spec_cmdline()). */
static void build_argv(struct strvec *av, const struct run_spec *spec,
		       const char *accel, char *cmdline, size_t cmdline_size)
{
	run_spec_cmdline(spec, cmdline, cmdline_size);
	add_machine(av, spec, accel);
	run_spec_clock_args(av, spec);
	strvec_push(av, "-kernel");
	strvec_push(av, spec->kernel->path);
	strvec_push(av, "-initrd");
	strvec_push(av, spec->initrd);
	strvec_push(av, "-append");
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
 * Start the kernel under accel and stop it as soon as it, or the guest,
 * prints. Returns 1 when it printed, 0 when it did not (why says how),
 * -1 when QEMU could not be started at all.
 */
static int probe(const struct run_spec *spec, const char *accel, struct strbuf *why)
{
	struct strvec av = STRVEC_INIT;
	struct run_result res;
	struct console con;
	struct child child;
	char cmdline[4096];
	double start = now_monotonic(), deadline = start + KVM_PROBE_S;
	int ret = 0;

	run_result_init(&res);
	build_argv(&av, spec, accel, cmdline, sizeof(cmdline));
	if (subprocess_start(&child, strvec_argv(&av), NULL, SUBPROCESS_CAPTURE)) {
		ret = -1;
		goto out;
	}
	console_init(&con, spec, &res, -1, 0, start);
	con.kvm_stderr = !strcmp(accel, "kvm");
	/* a kernel told to be quiet (loglevel=0) still has the guest's hello */
	while (!con.saw_kernel && !con.saw_hello && !con.kvm_fatal) {
		char buf[4096];
		double now = now_monotonic();
		ssize_t got;

		if (now >= deadline)
			break;
		got = subprocess_read(&child, buf, sizeof(buf), (int)((deadline - now) * 1000) + 1);
		if (got < 0)
			continue;
		if (!got)
			break;
		console_feed(&con, buf, (size_t)got);
	}
	console_end(&con);
	if (con.kvm_fatal) {
		strbuf_addstr(why, strbuf_str(&res.error));
	} else if (con.saw_kernel || con.saw_hello) {
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

/*
 * KVM failed to start spec's kernel (why): it is noted unusable here only
 * when the same start under TCG prints, for a kernel or options that fail
 * everywhere are no fault of KVM's.
 */
static void kvm_failed(const struct run_spec *spec, const char *why)
{
	struct strbuf tcg_why = STRBUF_INIT;
	int tcg = probe(spec, "tcg", &tcg_why);

	if (tcg > 0) {
		warning("kvm is unusable here (%s): using tcg", why);
		kvm_note(spec, 0, why);
	} else {
		warning("kvm did not start this guest (%s), nor did tcg (%s): using tcg, "
			"kvm not noted as unusable", why, tcg < 0 ? "qemu did not start" :
			tcg_why.buf);
	}
	strbuf_release(&tcg_why);
}

static int qemu_prepare(struct run_spec *spec)
{
	struct strbuf why = STRBUF_INIT;
	struct host_kvm_verdict cached;
	int usable;

	/* auto settled before, and maybe turned to tcg by a boot KVM failed since */
	if (spec->accel_auto && auto_choice) {
		spec->accel = auto_choice;
		return 0;
	}
	if (strcmp(spec->accel, "auto"))
		return 0;
	spec->accel_auto = 1;
	if (auto_choice) {
		spec->accel = auto_choice;
		return 0;
	}
	/* KVM runs only guests of the host's own architecture */
	if (strcmp(spec->arch, host_arch()) || !kvm_opens()) {
		auto_choice = "tcg";
	} else if ((usable = kvm_cached(spec, &cached)) >= 0) {
		debug("accel auto: %s, as noted in '%s' (%s)", usable ? "kvm" : "tcg",
		      spec->kvm_note, cached.reason);
		auto_choice = usable ? "kvm" : "tcg";
	} else {
		/* a host where KVM hangs takes the whole wait: say what it is, once */
		info("probing kvm (up to %.0f s, once per host kernel)", KVM_PROBE_S);
		usable = probe(spec, "kvm", &why);
		/* a QEMU that cannot start at all is for the boot to report: INFRA */
		if (usable < 0) {
			strbuf_release(&why);
			spec->accel = "tcg";
			return 0;
		}
		if (usable)
			kvm_note(spec, 1, "the kernel printed under kvm");
		else
			kvm_failed(spec, why.buf);
		auto_choice = usable ? "kvm" : "tcg";
	}
	strbuf_release(&why);
	spec->accel = auto_choice;
	return 0;
}

/* What a boot saw that qemu_run() acts on. */
struct boot_seen {
	int kvm_fatal;		/* QEMU said KVM failed */
};

/* One boot; returns the drive outcome, or -1 when QEMU could not start. */
static int boot_once(const struct run_spec *spec, struct run_result *out, int log_fd,
		     struct boot_seen *seen)
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
	con.kvm_stderr = !strcmp(spec->accel, "kvm");
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
		run_result_infra(out, "qemu exited with status %d: ", st);
		add_last_line(&out->error, &out->tail);
	}
	seen->kvm_fatal = con.kvm_fatal;
	console_release(&con);
	strvec_release(&av);
	return (int)end;
}

static int qemu_run(const struct run_spec *spec, struct run_result *out)
{
	struct run_spec settled = *spec;
	struct boot_seen seen = { 0 };
	struct strbuf why = STRBUF_INIT, initrd = STRBUF_INIT;
	int log_fd, ret;

	if (console_log_open(&log_fd, spec, out))
		return 0;
	if (run_spec_nonce_initrd(&initrd, spec)) {
		run_result_infra(out, "cannot write initramfs '%s'", initrd.buf);
		goto out;
	}
	settled.initrd = initrd.buf;
	qemu_prepare(&settled);
	ret = boot_once(&settled, out, log_fd, &seen);
	/*
	 * KVM failed after the probe passed: this boot again under TCG, and
	 * every boot after it (auto_choice), when the accelerator was the
	 * lab's choice. --accel kvm asked for KVM: its boot ends INFRA.
	 */
	if (ret >= 0 && seen.kvm_fatal && settled.accel_auto) {
		static const char again[] = "\n[lab: kvm failed; the boot again under tcg]\n";

		strbuf_addstr(&why, strbuf_str(&out->error));
		warning("%s: booting again under tcg", why.buf);
		auto_choice = "tcg";
		settled.accel = auto_choice;
		if (log_fd >= 0 && write(log_fd, again, sizeof(again) - 1) < 0)
			warning("cannot write console log '%s': %s", spec->console_log,
				strerror(errno));
		run_result_release(out);
		run_result_init(out);
		ret = boot_once(&settled, out, log_fd, &seen);
		sample_set_meta(&out->set, "qemu.kvm_failed", why.buf);
		/*
		 * The kernel printed under KVM too before it failed, so only a
		 * boot that ends OK under TCG clears the guest: an emulation
		 * failure a kernel bug caused must not turn KVM off for the host.
		 */
		if (ret >= 0 && out->status == RUN_OK)
			kvm_note(spec, 0, why.buf);
		else if (ret >= 0)
			warning("the boot under tcg ended %s too: kvm not noted as unusable",
				run_status_name(out->status));
	}
	if (ret < 0) {
		run_result_infra(out, "cannot start '%s'",
				 spec->qemu ? spec->qemu : default_qemu(spec->arch));
	}
out:
	run_spec_nonce_initrd_drop(&initrd, spec);
	if (log_fd >= 0)
		close(log_fd);
	strbuf_release(&initrd);
	strbuf_release(&why);
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

/*
 * QEMU asked whether it takes spec's machine, memory and CPUs: started
 * with them and a kernel it cannot open, it names that kernel when it got
 * that far. The accelerator is TCG's unless KVM was asked for (auto falls
 * back to TCG, so its guests must fit there). A size once taken is not
 * asked again in this process.
 */
static int qemu_fits(const struct run_spec *spec)
{
	static char taken[8][192];
	static unsigned ntaken;
	const char *accel = spec->accel && !strcmp(spec->accel, "kvm") ? "kvm" : "tcg";
	const char *qemu = spec->qemu ? spec->qemu : default_qemu(spec->arch);
	struct strvec av = STRVEC_INIT;
	struct strbuf out = STRBUF_INIT, what = STRBUF_INIT;
	char key[192];
	int st, ret = 0;

	snprintf(key, sizeof(key), "%s %s %s %ld %d %d", qemu, spec->arch, accel, spec->mem_mib,
		 spec->cpus, spec->numa);
	for (unsigned i = 0; i < ntaken && i < ARRAY_SIZE(taken); i++)
		if (!strcmp(taken[i], key))
			return 0;
	/* a QEMU that is not there is its boots' INFRA to report */
	if (!program_found(qemu))
		return 0;
	add_machine(&av, spec, accel);
	strvec_pushl(&av, "-kernel", FITS_KERNEL, "-display", "none", "-monitor", "none",
		     "-serial", "none", "-no-reboot", NULL);
	st = subprocess_run(strvec_argv(&av), NULL, &out, FITS_TIMEOUT_S);
	if (st == -1 || st == SUBPROCESS_TIMED_OUT || strstr(strbuf_str(&out), "'" FITS_KERNEL "'")) {
		snprintf(taken[ntaken++ % ARRAY_SIZE(taken)], sizeof(taken[0]), "%s", key);
		goto out;
	}
	strbuf_addf(&what, "%ldM and %d CPU%s", spec->mem_mib, spec->cpus,
		    spec->cpus == 1 ? "" : "s");
	if (spec->numa > 0)
		strbuf_addf(&what, " in %d NUMA nodes", spec->numa);
	strbuf_addf(&what, " (accel %s): ", accel);
	if (strbuf_str(&out)[0])
		add_last_line(&what, &out);
	else
		strbuf_addf(&what, "it exited with status %d before loading the kernel", st);
	ret = error("qemu refuses a guest of %s", what.buf);
out:
	strvec_release(&av);
	strbuf_release(&out);
	strbuf_release(&what);
	return ret;
}

static void qemu_check(const struct run_spec *spec, struct strbuf *missing,
		       struct strbuf *found)
{
	(void)found;
	const char *arch = spec->arch ? spec->arch : host_arch();
	struct host_kvm_verdict cached;
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
		else if (!kvm_cached(spec, &cached))
			runner_missing(missing, "kvm that works (%s says it did not on this host "
				       "kernel: %s)", spec->kvm_note, cached.reason);
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
	.fits = qemu_fits,
	.check = qemu_check,
	.where = qemu_where,
};
