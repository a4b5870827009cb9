/*
 * The libvirt runner: each boot is a transient domain, created from XML
 * built here, on the connection of lab.conf's libvirt.uri (qemu:///system
 * by default). Direct kernel boot of the image with the lab's initramfs
 * and the same command line as the qemu runner (run_spec_cmdline()).
 *
 * The domain is created paused, its serial console opened as a virStream,
 * and only then resumed, so that no byte of the boot is lost. The stream
 * feeds the console parser through drive_source(), with the qemu runner's
 * deadline and graces; stopping the guest is virDomainDestroy(). The
 * domain is also created with VIR_DOMAIN_START_AUTODESTROY: if the lab
 * dies, libvirtd destroys it when the connection goes.
 *
 * Memory: libvirt 9 cannot ask QEMU for reserve=off. The domain's memory
 * is a memfd instead (<source type='memfd'/>, shared): memfd_create()
 * memory is never charged up front either, so a 64G guest starts on a
 * smaller host, where plain anonymous memory fails with "cannot set up
 * guest memory 'pc.ram': Cannot allocate memory". With numa N the memory
 * is N cells, the CPUs spread as in the qemu runner.
 *
 * The icount clock goes through libvirt's QEMU command-line passthrough
 * (<qemu:commandline>), the qemu runner's options as they are
 * (run_spec_clock_args()): libvirt has no element of its own for icount,
 * and its <clock> would give the RTC the host's date.
 *
 * The hypervisor may be another host, and QEMU runs as its user
 * (libvirt-qemu on Debian), which may not reach the lab's files (a results
 * directory under a 0700 home): each boot uploads the kernel and the
 * initramfs through the connection into volumes of a storage pool "lab"
 * (a directory pool in /var/lib/libvirt/lab on the hypervisor's host,
 * made by the first lab that needs it), mode 0644, deleted after the boot.
 * A volume is named lab-<host>-<pid>-<seq>-<nonce>-kernel (or -initrd)
 * after the lab's host and process: a lab killed by SIGKILL leaves its
 * two, and the next libvirt boot from that host removes those whose
 * process is gone, and no other (remove_stale_volumes()).
 *
 * Accel auto is tcg here: the qemu runner's KVM probe starts QEMU itself,
 * which says nothing of a libvirt host; ask for kvm with --accel kvm.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include "drive.h"
#include "host.h"
#include "log.h"
#include "runner.h"
#include "strvec.h"

#define QBOOT_ROM "/usr/share/qemu/qboot.rom"
#define POOL_NAME "lab"
#define POOL_DIR "/var/lib/libvirt/lab"

struct lv_boot {
	struct drive_source src;
	virDomainPtr dom;
	virStreamPtr st;
	int timer;		/* wakes the event loop at drive's next decision */
	int hangup;		/* the stream said it ended or failed */
	struct strbuf failed;	/* why the stream failed; empty: it did not */
};

/* libvirt prints every error on stderr unless told otherwise: runs report their own. */
static void quiet_errors(void *data, virErrorPtr err)
{
	(void)data;
	(void)err;
}

static void lv_timer(int timer, void *data)
{
	(void)timer;
	(void)data;
}

static int lv_init(void)
{
	static int done;

	if (done)
		return 0;
	virSetErrorFunc(NULL, quiet_errors);
	/* before the first connection, or its streams never see events */
	if (virEventRegisterDefaultImpl() < 0)
		return -1;
	done = 1;
	return 0;
}

static const char *lv_error(void)
{
	const char *msg = virGetLastErrorMessage();
	return msg ? msg : "unknown libvirt error";
}

/* XML text and attribute values: nothing from the command line is markup. */
/* The connection spec's boots use. */
static const char *lv_uri(const struct run_spec *spec)
{
	return spec->libvirt_uri ? spec->libvirt_uri : "qemu:///system";
}

static void xml_add(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': strbuf_addstr(sb, "&amp;"); break;
		case '<': strbuf_addstr(sb, "&lt;"); break;
		case '>': strbuf_addstr(sb, "&gt;"); break;
		case '\'': strbuf_addstr(sb, "&apos;"); break;
		case '"': strbuf_addstr(sb, "&quot;"); break;
		default: strbuf_addch(sb, *s);
		}
	}
}

/*
 * The pid in a volume name of a lab of this host ("lab-<host>-<pid>-<seq>-
 * <nonce>-kernel"), or 0 when the name is not one.
 */
static pid_t volume_owner(const char *name, const char *host)
{
	size_t hl = strlen(host);
	int pid, seq, used = 0;

	if (strncmp(name, "lab-", 4) || strncmp(name + 4, host, hl) || name[4 + hl] != '-')
		return 0;
	if (sscanf(name + 5 + hl, "%d-%d-%n", &pid, &seq, &used) != 2 || !used || pid <= 0)
		return 0;
	return (pid_t)pid;
}

/*
 * Volumes of labs of this host that died mid-boot (kill -9: no cleanup
 * ran). A pid of this host that is alive, or that another user owns,
 * keeps its volumes; those of other hosts are never touched.
 */
static void remove_stale_volumes(virStoragePoolPtr pool, const char *host)
{
	virStorageVolPtr *vols = NULL;
	int n = virStoragePoolListAllVolumes(pool, &vols, 0);

	for (int i = 0; i < n; i++) {
		const char *name = virStorageVolGetName(vols[i]);
		pid_t pid = name ? volume_owner(name, host) : 0;

		if (pid > 0 && kill(pid, 0) < 0 && errno == ESRCH) {
			if (virStorageVolDelete(vols[i], 0) < 0)
				warning("cannot delete volume '%s' of a lab that died: %s", name,
					lv_error());
			else
				fprintf(stderr, "removed volume '%s' of a lab that died (pid %d)\n",
					name, (int)pid);
		}
		virStorageVolFree(vols[i]);
	}
	free(vols);
}

/* A URI without a host ("qemu:///system") is a hypervisor on this machine. */
static int uri_is_local(const char *uri)
{
	const char *p = strstr(uri, "://");
	return p && p[3] == '/';
}

/*
 * The pool the boots' files go to: the same for every lab on that host,
 * made (transient, its directory built) by the first that needs it.
 */
static virStoragePoolPtr staging_pool(virConnectPtr conn, struct strbuf *why)
{
	virStoragePoolPtr pool = virStoragePoolLookupByName(conn, POOL_NAME);

	if (pool && virStoragePoolIsActive(pool) != 1 && virStoragePoolCreate(pool, 0) < 0) {
		strbuf_addf(why, "cannot start storage pool '%s': %s", POOL_NAME, lv_error());
		virStoragePoolFree(pool);
		return NULL;
	}
	if (pool)
		return pool;
	pool = virStoragePoolCreateXML(conn,
				       "<pool type='dir'><name>" POOL_NAME "</name><target><path>"
				       POOL_DIR "</path><permissions><mode>0755</mode></permissions>"
				       "</target></pool>", VIR_STORAGE_POOL_CREATE_WITH_BUILD);
	/* another lab may have made it in the meantime */
	if (!pool)
		pool = virStoragePoolLookupByName(conn, POOL_NAME);
	if (!pool)
		strbuf_addf(why, "cannot make storage pool '%s' in " POOL_DIR ": %s", POOL_NAME,
			    lv_error());
	return pool;
}

static int send_file(virStreamPtr st, int fd, const char *src, struct strbuf *why)
{
	char buf[65536];
	ssize_t got;

	while ((got = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t off = 0; off < got;) {
			int n = virStreamSend(st, buf + off, (size_t)(got - off));

			if (n < 0) {
				strbuf_addf(why, "cannot upload '%s': %s", src, lv_error());
				return -1;
			}
			off += n;
		}
	}
	if (got < 0) {
		strbuf_addf(why, "cannot read '%s': %s", src, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Upload src into a new volume of the pool, readable by the hypervisor's
 * user, wherever the hypervisor is. NULL (why says why) on failure.
 */
static virStorageVolPtr upload(virConnectPtr conn, virStoragePoolPtr pool, const char *name,
			       const char *src, struct strbuf *why)
{
	struct strbuf xml = STRBUF_INIT;
	virStorageVolPtr vol = NULL;
	virStreamPtr st = NULL;
	struct stat sb;
	int fd, ok = 0;

	fd = open(src, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &sb)) {
		strbuf_addf(why, "cannot read '%s': %s", src, strerror(errno));
		goto out;
	}
	strbuf_addstr(&xml, "<volume><name>");
	xml_add(&xml, name);
	strbuf_addf(&xml, "</name><capacity unit='bytes'>%lld</capacity><target>"
		    "<format type='raw'/><permissions><mode>0644</mode></permissions>"
		    "</target></volume>", (long long)sb.st_size);
	vol = virStorageVolCreateXML(pool, xml.buf, 0);
	if (!vol) {
		strbuf_addf(why, "cannot make volume '%s' in storage pool '%s': %s", name,
			    POOL_NAME, lv_error());
		goto out;
	}
	st = virStreamNew(conn, 0);
	if (!st || virStorageVolUpload(vol, st, 0, (unsigned long long)sb.st_size, 0) < 0) {
		strbuf_addf(why, "cannot upload '%s': %s", src, lv_error());
		goto out;
	}
	if (send_file(st, fd, src, why))
		goto out;
	if (virStreamFinish(st) < 0) {
		strbuf_addf(why, "cannot upload '%s': %s", src, lv_error());
		goto out;
	}
	ok = 1;
out:
	if (st) {
		if (!ok)
			virStreamAbort(st);
		virStreamFree(st);
	}
	if (!ok && vol) {
		virStorageVolDelete(vol, 0);
		virStorageVolFree(vol);
		vol = NULL;
	}
	if (fd >= 0)
		close(fd);
	strbuf_release(&xml);
	return vol;
}

static void drop_volume(virStorageVolPtr vol)
{
	if (!vol)
		return;
	if (virStorageVolDelete(vol, 0) < 0)
		warning("cannot delete volume '%s': %s", virStorageVolGetName(vol), lv_error());
	virStorageVolFree(vol);
}

static void add_memory(struct strbuf *x, const struct run_spec *spec)
{
	strbuf_addf(x, "  <memory unit='MiB'>%ld</memory>\n", spec->mem_mib);
	strbuf_addstr(x, "  <memoryBacking><source type='memfd'/><access mode='shared'/>"
		      "</memoryBacking>\n");
	strbuf_addf(x, "  <vcpu>%d</vcpu>\n", spec->cpus);
}

static void add_cpu(struct strbuf *x, const struct run_spec *spec, int kvm)
{
	int nodes = spec->numa > 0 ? spec->numa : 0;

	strbuf_addf(x, "  <cpu mode='%s'%s>\n", kvm ? "host-passthrough" : "maximum",
		    kvm ? "" : " check='none'");
	if (nodes) {
		strbuf_addstr(x, "    <numa>\n");
		for (int i = 0; i < nodes; i++) {
			long size = spec->mem_mib / nodes + (i ? 0 : spec->mem_mib % nodes);
			int first = i * spec->cpus / nodes, end = (i + 1) * spec->cpus / nodes;

			strbuf_addf(x, "      <cell id='%d'", i);
			if (end > first)
				strbuf_addf(x, " cpus='%d-%d'", first, end - 1);
			strbuf_addf(x, " memory='%ld' unit='MiB' memAccess='shared'/>\n", size);
		}
		strbuf_addstr(x, "    </numa>\n");
	}
	strbuf_addstr(x, "  </cpu>\n");
}

static void build_xml(struct strbuf *x, const struct run_spec *spec, const char *name,
		      const char *kernel, const char *initrd, const char *cmdline, int local)
{
	int arm = !strcmp(spec->arch, "aarch64"), kvm = !strcmp(spec->accel, "kvm");
	struct strvec clock = STRVEC_INIT;

	strbuf_addf(x, "<domain type='%s' xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>\n",
		    kvm ? "kvm" : "qemu");
	strbuf_addstr(x, "  <name>");
	xml_add(x, name);
	strbuf_addstr(x, "</name>\n");
	add_memory(x, spec);
	strbuf_addf(x, "  <os>\n    <type arch='%s' machine='%s'>hvm</type>\n",
		    arm ? "aarch64" : "x86_64", arm ? "virt" : "pc");
	/* qboot, as the qemu runner: SeaBIOS spends a second of TCG time before the kernel */
	if (!arm && local && !access(QBOOT_ROM, R_OK))
		strbuf_addstr(x, "    <loader type='rom'>" QBOOT_ROM "</loader>\n");
	strbuf_addstr(x, "    <kernel>");
	xml_add(x, kernel);
	strbuf_addstr(x, "</kernel>\n    <initrd>");
	xml_add(x, initrd);
	strbuf_addstr(x, "</initrd>\n    <cmdline>");
	xml_add(x, cmdline);
	strbuf_addstr(x, "</cmdline>\n  </os>\n");
	/* ACPI, or a guest's power-off only halts it */
	if (!arm)
		strbuf_addstr(x, "  <features><acpi/><apic/></features>\n");
	add_cpu(x, spec, kvm);
	strbuf_addstr(x, "  <on_poweroff>destroy</on_poweroff>\n"
		      "  <on_reboot>destroy</on_reboot>\n"
		      "  <on_crash>destroy</on_crash>\n"
		      "  <devices>\n"
		      "    <controller type='usb' model='none'/>\n"
		      "    <serial type='pty'><target port='0'/></serial>\n"
		      "    <console type='pty'><target type='serial' port='0'/></console>\n"
		      "    <memballoon model='none'/>\n"
		      "  </devices>\n");
	run_spec_clock_args(&clock, spec);
	/*
	 * libvirt gives each domain a random UUID, which reaches an x86
	 * guest in SMBIOS and from there the kernel's entropy (dmi_setup()):
	 * in virtual time the guest sees none, as under the qemu runner.
	 */
	if (clock.nr && !arm)
		strvec_pushl(&clock, "-smbios", "type=1,uuid=00000000-0000-0000-0000-000000000000",
			     NULL);
	if (clock.nr) {
		strbuf_addstr(x, "  <qemu:commandline>\n");
		for (size_t i = 0; i < clock.nr; i++) {
			strbuf_addstr(x, "    <qemu:arg value='");
			xml_add(x, clock.v[i]);
			strbuf_addstr(x, "'/>\n");
		}
		strbuf_addstr(x, "  </qemu:commandline>\n");
	}
	strbuf_addstr(x, "</domain>\n");
	strvec_release(&clock);
}

static void lv_stream_event(virStreamPtr st, int events, void *data)
{
	struct lv_boot *b = data;

	(void)st;
	if (events & (VIR_STREAM_EVENT_HANGUP | VIR_STREAM_EVENT_ERROR))
		b->hangup = 1;
}

static ssize_t lv_read(struct drive_source *src, char *buf, size_t len, int timeout_ms)
{
	struct lv_boot *b = (struct lv_boot *)src;
	int got = virStreamRecv(b->st, buf, len);

	if (got >= 0)
		return got;
	if (got == -1) {
		strbuf_addstr(&b->failed, lv_error());
		return 0;
	}
	if (b->hangup)
		return 0;
	/* nothing yet: wait for the stream or the timer, whichever comes first */
	virEventUpdateTimeout(b->timer, timeout_ms);
	if (virEventRunDefaultImpl() < 0)
		return 0;
	virEventUpdateTimeout(b->timer, -1);
	return -1;
}

static void lv_stop(struct drive_source *src)
{
	struct lv_boot *b = (struct lv_boot *)src;

	if (virDomainDestroy(b->dom) < 0 && virDomainIsActive(b->dom) == 1)
		warning("cannot destroy domain '%s': %s", virDomainGetName(b->dom), lv_error());
}

/*
 * Start the domain paused, open its console, resume it, drive it. Returns
 * the drive outcome, or -1 (with the reason in out->error) when libvirt
 * failed before the guest ran.
 */
static int boot_domain(virConnectPtr conn, const struct run_spec *spec, const char *xml,
		       struct run_result *out, int log_fd, double t0)
{
	struct lv_boot b = { { lv_read, lv_stop }, NULL, NULL, -1, 0, STRBUF_INIT };
	struct console con;
	int ret = -1, watching = 0;
	/* from the domain's creation: uploads over a slow link do not eat the boot's time */
	double start, deadline = now_monotonic() + spec->timeout_s;
	enum drive_end end;

	b.dom = virDomainCreateXML(conn, xml,
				   VIR_DOMAIN_START_PAUSED | VIR_DOMAIN_START_AUTODESTROY);
	if (!b.dom) {
		strbuf_addf(&out->error, "cannot start libvirt domain: %s", lv_error());
		return -1;
	}
	b.st = virStreamNew(conn, VIR_STREAM_NONBLOCK);
	if (!b.st || virDomainOpenConsole(b.dom, NULL, b.st, VIR_DOMAIN_CONSOLE_FORCE) < 0) {
		strbuf_addf(&out->error, "cannot open the console of libvirt domain '%s': %s",
			    virDomainGetName(b.dom), lv_error());
		goto out;
	}
	if (virStreamEventAddCallback(b.st, VIR_STREAM_EVENT_READABLE | VIR_STREAM_EVENT_HANGUP |
				      VIR_STREAM_EVENT_ERROR, lv_stream_event, &b, NULL) < 0) {
		strbuf_addf(&out->error, "cannot watch the console stream: %s", lv_error());
		goto out;
	}
	watching = 1;
	b.timer = virEventAddTimeout(-1, lv_timer, NULL, NULL);
	if (b.timer < 0) {
		strbuf_addstr(&out->error, "cannot add a libvirt event timer");
		goto out;
	}
	/* the guest's first instruction: host_to_init leaves libvirt's setup out */
	start = now_monotonic();
	if (virDomainResume(b.dom) < 0) {
		strbuf_addf(&out->error, "cannot resume libvirt domain '%s': %s",
			    virDomainGetName(b.dom), lv_error());
		goto out;
	}
	console_init(&con, spec, out, log_fd, 0, start);
	end = drive_source(&b.src, &con, deadline);
	out->wall_s = now_monotonic() - t0;
	console_conclude(&con, end == DRIVE_TIMEOUT);
	/* a console lost before the kernel spoke says nothing of the kernel */
	if (out->status == RUN_BOOT_FAILED && !con.saw_kernel && b.failed.len) {
		run_result_infra(out, "lost the console of libvirt domain '%s': %s",
				 virDomainGetName(b.dom), b.failed.buf);
	}
	console_release(&con);
	ret = (int)end;
out:
	if (b.timer >= 0)
		virEventRemoveTimeout(b.timer);
	if (b.st) {
		if (watching)
			virStreamEventRemoveCallback(b.st);
		virStreamAbort(b.st);
		virStreamFree(b.st);
	}
	/* none left behind, whatever happened: a domain that ended is gone already */
	if (virDomainIsActive(b.dom) == 1)
		lv_stop(&b.src);
	virDomainFree(b.dom);
	strbuf_release(&b.failed);
	return ret;
}

static int libvirt_prepare(struct run_spec *spec)
{
	if (!strcmp(spec->accel, "auto"))
		spec->accel = "tcg";
	return 0;
}

static int libvirt_run(const struct run_spec *spec, struct run_result *out)
{
	struct run_spec settled = *spec;
	struct strbuf name = STRBUF_INIT, xml = STRBUF_INIT;
	struct strbuf vol_name = STRBUF_INIT, boot_initrd = STRBUF_INIT;
	virStoragePoolPtr pool = NULL;
	virStorageVolPtr kernel_vol = NULL, initrd_vol = NULL;
	char *kernel = NULL, *initrd = NULL;
	static int seq, swept;
	char host[256] = "";
	const char *uri = lv_uri(spec);
	virConnectPtr conn = NULL;
	unsigned long version;
	double t0 = now_monotonic();
	int log_fd = -1;

	libvirt_prepare(&settled);
	snprintf(out->accel, sizeof(out->accel), "%s", settled.accel);
	run_spec_cmdline(spec, out->full_cmdline, sizeof(out->full_cmdline));
	out->status = RUN_INFRA;
	if (console_log_open(&log_fd, spec, out))
		goto out;
	if (lv_init()) {
		strbuf_addf(&out->error, "cannot start libvirt's event loop: %s", lv_error());
		goto out;
	}
	conn = virConnectOpen(uri);
	if (!conn) {
		strbuf_addf(&out->error, "cannot connect to libvirt at '%s': %s", uri, lv_error());
		goto out;
	}
	host_name(host, sizeof(host));
	host[strcspn(host, ".")] = '\0';
	strbuf_addf(&name, "lab-%s-%d-%d-%s", host, (int)getpid(), seq++,
		    spec->nonce ? spec->nonce : "boot");
	strbuf_addf(&vol_name, "%s-kernel", name.buf);
	pool = staging_pool(conn, &out->error);
	/* once per lab: what labs killed before it left */
	if (pool && !swept) {
		remove_stale_volumes(pool, host);
		swept = 1;
	}
	if (!pool || !(kernel_vol = upload(conn, pool, vol_name.buf, spec->kernel->path, &out->error)))
		goto out;
	if (run_spec_nonce_initrd(&boot_initrd, spec)) {
		strbuf_addf(&out->error, "cannot write initramfs '%s'", boot_initrd.buf);
		goto out;
	}
	strbuf_reset(&vol_name);
	strbuf_addf(&vol_name, "%s-initrd", name.buf);
	initrd_vol = upload(conn, pool, vol_name.buf, boot_initrd.buf, &out->error);
	if (!initrd_vol)
		goto out;
	kernel = virStorageVolGetPath(kernel_vol);
	initrd = virStorageVolGetPath(initrd_vol);
	if (!kernel || !initrd) {
		strbuf_addf(&out->error, "cannot find the uploaded kernel: %s", lv_error());
		goto out;
	}
	build_xml(&xml, &settled, name.buf, kernel, initrd, out->full_cmdline, uri_is_local(uri));
	if (boot_domain(conn, &settled, xml.buf, out, log_fd, t0) < 0) {
		out->status = RUN_INFRA;
		goto out;
	}
	sample_set_meta(&out->set, "libvirt.uri", uri);
	sample_set_meta(&out->set, "libvirt.domain", name.buf);
	if (spec->numa > 0) {
		char nodes[16];

		snprintf(nodes, sizeof(nodes), "%d", spec->numa);
		sample_set_meta(&out->set, "qemu.numa", nodes);
	}
	if (!virConnectGetVersion(conn, &version)) {
		char v[64];

		snprintf(v, sizeof(v), "%s %lu.%lu.%lu", virConnectGetType(conn),
			 version / 1000000, version / 1000 % 1000, version % 1000);
		sample_set_meta(&out->set, "libvirt.hypervisor", v);
	}
out:
	if (out->status == RUN_INFRA && !out->wall_s)
		out->wall_s = now_monotonic() - t0;
	drop_volume(kernel_vol);
	drop_volume(initrd_vol);
	run_spec_nonce_initrd_drop(&boot_initrd, spec);
	if (pool)
		virStoragePoolFree(pool);
	free(kernel);
	free(initrd);
	if (conn)
		virConnectClose(conn);
	if (log_fd >= 0)
		close(log_fd);
	strbuf_release_all(&name, &xml, &vol_name, &boot_initrd);
	return 0;
}

static void libvirt_check(const struct run_spec *spec, struct strbuf *missing,
			  struct strbuf *found)
{
	(void)found;
	const char *uri = lv_uri(spec);
	virConnectPtr conn;

	if (lv_init()) {
		runner_missing(missing, "libvirt's event loop (%s)", lv_error());
		return;
	}
	conn = virConnectOpen(uri);
	if (!conn) {
		runner_missing(missing, "a libvirt connection to '%s' (%s)", uri, lv_error());
		return;
	}
	virConnectClose(conn);
}

static void libvirt_where(const struct run_spec *spec, struct strbuf *sb)
{
	strbuf_addstr(sb, lv_uri(spec));
}

const struct runner runner_libvirt = {
	.name = "libvirt",
	.flags = RUNNER_BOOTS_KERNEL | RUNNER_INITRAMFS,
	.run = libvirt_run,
	.prepare = libvirt_prepare,
	.check = libvirt_check,
	.where = libvirt_where,
};
