/*
 * lab-guest: runs the lab's workloads and reports them in the console
 * protocol (../protocol.h) on stdout.
 *
 * As PID 1 (/init of the lab's initramfs) it mounts what the workloads
 * need, takes its lab.* parameters from /proc/cmdline and powers the
 * machine off at the end; it never exits, since init exiting panics the
 * kernel. As an ordinary process it takes them from argv and exits 0 when
 * every workload ran, 1 otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "boot.h"
#include "demote.h"
#include "emit.h"
#include "exec.h"
#include "meta.h"
#include "params.h"
#include "parse.h"
#include "profile.h"
#include "sysfs.h"
#include "trace.h"
#include "zeroing.h"

#define SYSLOG_ACTION_CONSOLE_LEVEL 8
/* Messages below this level still print: up to KERN_WARNING. */
#define CONSOLE_LEVEL 5
/* where the qemu runner puts the boot's nonce (runners/qemu.c) */
#define NONCE_FILE "/lab.nonce"

static const struct workload {
	const char *name;
	int (*run)(const struct params *p, int pid1);
} workloads[] = {
	{ "zeroing", zeroing_run },
	{ "demote", demote_run },
	{ "boot", boot_run },
};

static const char usage[] =
	"usage: lab-guest lab.workload=NAME[,NAME...] [lab.KEY=VALUE...]\n"
	"workloads: zeroing, demote, boot, or a user's program staged in lab.workdir\n"
	"  lab.iters=N       zeroing: timed iterations, the first a warm-up (100);\n"
	"                    demote: 1 GiB pages to demote, as many as fit if fewer\n"
	"  lab.zeroing_mb=N  zeroing: MiB touched per iteration (100)\n"
	"  lab.thp=MODE      zeroing: set THP to always, never or madvise\n"
	"  lab.pages=K       demote: 1 GiB pages, overriding lab.iters\n"
	"  lab.trace=F1,F2   boot: functions traced by ftrace_graph_filter=\n"
	"  lab.profile=1     the kernel's function profiler around each workload\n"
	"  lab.profile_functions=f1,f2  without that profiler: f1 and f2 by function_graph\n"
	"  lab.nonce=HEX     the boot's nonce, put in every output line (as /init\n"
	"                    without one on the command line: the one in /lab.nonce)\n"
	"  lab.workdir=PATH  user workloads: PATH/NAME/{run,args,format} (/lab/work)\n"
	"  lab.exec_timeout=S  user workloads: kill a run longer than S seconds\n"
	"  lab.exec_pids=N     user workloads: tasks a run may have at once (4096; 0: any)\n"
	"Output: the lab console protocol on stdout.\n";

/* Console log level before setup_pid1() lowered it; 0 when left alone. */
static int saved_console_level;

static void power_off(void) __attribute__((noreturn));

static void power_off(void)
{
	if (saved_console_level)
		klogctl(SYSLOG_ACTION_CONSOLE_LEVEL, NULL, saved_console_level);
	/* Let the serial port send what is queued before the machine goes. */
	tcdrain(1);
	sync();
	reboot(RB_POWER_OFF);
	reboot(RB_AUTOBOOT);
	for (;;)
		pause();
}

/* A crash of init panics the kernel; report it and power off instead. */
static void on_fatal_signal(int sig)
{
	emit_error("guest", "crashed with signal %d (%s)", sig, strsignal(sig));
	emit_done();
	power_off();
}

/*
 * What setup_pid1() found, held until the hello line is out: mounting
 * comes first so that the console is quiet before anything is printed.
 */
static struct {
	int error;
	char key[32];
	char text[384];
} notes[8];
static int nnotes;

__attribute__((format(printf, 3, 4)))
static void note(int error, const char *key, const char *fmt, ...)
{
	va_list ap;

	if (nnotes == (int)(sizeof(notes) / sizeof(notes[0])))
		return;
	notes[nnotes].error = error;
	snprintf(notes[nnotes].key, sizeof(notes[nnotes].key), "%s", key);
	va_start(ap, fmt);
	vsnprintf(notes[nnotes].text, sizeof(notes[nnotes].text), fmt, ap);
	va_end(ap);
	nnotes++;
}

static void emit_notes(void)
{
	for (int i = 0; i < nnotes; i++) {
		if (notes[i].error)
			emit_error("guest", "%s", notes[i].text);
		else
			emit_meta(notes[i].key, "%s", notes[i].text);
	}
}

static void mount_fs(const char *source, const char *target, const char *type,
		     int required)
{
	mkdir(target, 0755);
	if (!mount(source, target, type, 0, NULL) || errno == EBUSY)
		return;
	note(required, "guest.mount", "cannot mount %s at %s: %s", type, target,
	     strerror(errno));
}

/*
 * The kernel gives init /dev/console as fds 0-2 when the initramfs has
 * that node; without it, make one from devtmpfs.
 */
static void ensure_console(void)
{
	int fd;

	if (fcntl(1, F_GETFD) >= 0)
		return;
	mkdir("/dev", 0755);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	fd = open("/dev/console", O_RDWR | O_NOCTTY);
	if (fd < 0)
		return;
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	if (fd > 2)
		close(fd);
}

/*
 * Kernel messages share the serial line with the protocol and can cut a
 * line in two. Unless the command line chose a log level, print only
 * warnings and worse on the console while the workloads run; everything
 * still reaches the kernel log.
 */
static void quiet_console(void)
{
	char cmdline[4096], printk[64];
	int level;

	if (sysfs_read("/proc/cmdline", cmdline, sizeof(cmdline)) < 0 ||
	    sysfs_read("/proc/sys/kernel/printk", printk, sizeof(printk)) < 0 ||
	    sscanf(printk, "%d", &level) != 1)
		return;
	if (level <= CONSOLE_LEVEL || strstr(cmdline, "loglevel=") ||
	    strstr(cmdline, "debug") || strstr(cmdline, "ignore_loglevel"))
		return;
	if (klogctl(SYSLOG_ACTION_CONSOLE_LEVEL, NULL, CONSOLE_LEVEL))
		return;
	saved_console_level = level;
	note(0, "guest.console_loglevel", "%d while the workloads run (was %d)",
	     CONSOLE_LEVEL, level);
}

static void setup_pid1(void)
{
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };
	struct sigaction sa;
	char why[256];

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fatal_signal;
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		sigaction(fatal[i], &sa, NULL);

	mount_fs("proc", "/proc", "proc", 1);
	mount_fs("sysfs", "/sys", "sysfs", 1);
	/* The initramfs has static nodes; devtmpfs adds the rest where built in. */
	mount_fs("devtmpfs", "/dev", "devtmpfs", 0);
	if (trace_mount(why, sizeof(why)))
		note(0, "guest.tracefs", "unavailable: %s", why);
	quiet_console();
}

static int load_cmdline(struct params *p)
{
	char buf[4096], word[2048], why[256];
	const char *s = buf;
	int ret = sysfs_read("/proc/cmdline", buf, sizeof(buf)), bad = 0;

	if (ret < 0)
		return emit_error("guest", "cannot read /proc/cmdline: %s", strerror(-ret));
	while (*s) {
		size_t n;
		s += strspn(s, " \t\n");
		n = strcspn(s, " \t\n");
		if (!n)
			break;
		if (n < sizeof(word)) {
			memcpy(word, s, n);
			word[n] = '\0';
			ret = params_apply(p, word, why, sizeof(why));
			if (ret < 0)
				bad = emit_error("guest", "%s", why);
			else if (ret > 0)
				emit_meta("guest.unknown_param", "%s", word);
		}
		s += n;
	}
	return bad;
}

static int load_argv(struct params *p, int argc, char **argv)
{
	char why[256];
	int bad = 0;

	for (int i = 1; i < argc; i++) {
		int ret = params_apply(p, argv[i], why, sizeof(why));
		if (ret < 0)
			bad = emit_error("guest", "%s", why);
		else if (ret > 0)
			emit_meta("guest.unknown_param", "%s", argv[i]);
		else if (strncmp(argv[i], "lab.", 4))
			bad = emit_error("guest", "unexpected argument '%s' (want lab.KEY=VALUE)",
					 argv[i]);
	}
	return bad;
}

/*
 * Every line carries the boot's nonce, the hello first: take it before
 * anything is said. The last lab.nonce= wins, as in params_apply(); a bad
 * one is reported when the parameters are loaded. Returns 1 when taken.
 */
static int take_nonce(const char *word, size_t n)
{
	char nonce[PROTOCOL_NONCE_LEN + 1];

	if (n != 10 + PROTOCOL_NONCE_LEN || strncmp(word, "lab.nonce=", 10))
		return 0;
	memcpy(nonce, word + 10, PROTOCOL_NONCE_LEN);
	nonce[PROTOCOL_NONCE_LEN] = '\0';
	emit_set_nonce(nonce);
	return 1;
}

static int take_nonce_words(const char *path)
{
	char buf[4096];
	const char *s = buf;
	int taken = 0;

	if (sysfs_read(path, buf, sizeof(buf)) < 0)
		return 0;
	while (*s) {
		size_t n;
		s += strspn(s, " \t\n");
		n = strcspn(s, " \t\n");
		taken |= take_nonce(s, n);
		s += n;
	}
	return taken;
}

/*
 * As /init: from the command line, or, where a runner keeps it off the
 * command line (the qemu runner: Linux mixes its command line into the
 * entropy pool, and boots in virtual time repeat only when that is the
 * same), from NONCE_FILE in the initramfs.
 */
static void find_nonce(int pid1, int argc, char **argv)
{
	if (!pid1) {
		for (int i = 1; i < argc; i++)
			take_nonce(argv[i], strlen(argv[i]));
		return;
	}
	if (!take_nonce_words("/proc/cmdline"))
		take_nonce_words(NONCE_FILE);
}

static const struct workload *find_workload(const char *name)
{
	for (size_t i = 0; i < sizeof(workloads) / sizeof(workloads[0]); i++)
		if (!strcmp(workloads[i].name, name))
			return &workloads[i];
	return NULL;
}

static int list_has(const char *list, const char *name)
{
	char item[64];
	int ret;

	while ((ret = parse_list_next(item, sizeof(item), &list)))
		if (ret > 0 && !strcmp(item, name))
			return 1;
	return 0;
}

static void run_workloads(const struct params *p, int pid1)
{
	const char *s = p->workloads;
	char name[64], why[256];
	int ret;

	if (!p->workloads[0]) {
		emit_error("guest", "no workload: pass lab.workload=NAME[,NAME...]");
		return;
	}
	/* The boot trace shares the ring buffer other workloads reuse: read it first. */
	if (list_has(p->workloads, "boot"))
		boot_capture(p, pid1);
	while ((ret = parse_list_next(name, sizeof(name), &s))) {
		const struct workload *w;
		if (ret < 0) {
			emit_error("guest", "workload name too long in '%s'", p->workloads);
			continue;
		}
		w = find_workload(name);
		if (!w && !exec_known(p, name)) {
			emit_error(name, "unknown workload");
			continue;
		}
		/* boot measured what happened before init: nothing to profile */
		if (p->profile && strcmp(name, "boot") && profile_begin(p->profile_functions, why, sizeof(why)))
			emit_error(name, "profile: %s", why);
		if (w)
			w->run(p, pid1);
		else
			exec_run(p, name);
		profile_end(name);
	}
}

int main(int argc, char **argv)
{
	struct params p;
	int pid1, bad;

	clock_gettime(CLOCK_BOOTTIME, &boot_init_start);
	pid1 = getpid() == 1;
	if (!pid1 && argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(usage, stdout);
		return 0;
	}
	if (pid1) {
		ensure_console();
		setup_pid1();
	}
	find_nonce(pid1, argc, argv);
	emit_hello();
	emit_notes();

	params_init(&p);
	bad = pid1 ? load_cmdline(&p) : load_argv(&p, argc, argv);
	meta_emit_run(pid1);
	if (!bad)
		run_workloads(&p, pid1);
	emit_done();

	if (pid1)
		power_off();
	if (bad)
		fputs(usage, stderr);
	return emit_error_count() ? 1 : 0;
}
