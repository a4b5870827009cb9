#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "emit.h"
#include "meta.h"
#include "parse.h"
#include "pmu.h"
#include "sysfs.h"

/* The first value of any of keys in a "key : value" file, tried in order. */
static int first_field(char *value, size_t size, const char *path,
		       const char *const *keys)
{
	struct lines r;
	const char *line;
	int ret, found = -1;

	if ((ret = lines_open(&r, path)))
		return ret;
	while (lines_next(&r, &line) > 0 && found != 0) {
		for (int i = 0; keys[i] && (found < 0 || i < found); i++) {
			if (parse_field(value, size, line, keys[i])) {
				found = i;
				break;
			}
		}
	}
	lines_close(&r);
	return found < 0 ? -ENOENT : 0;
}

static void emit_cpu_model(void)
{
	static const char *const names[] = { "model name", "cpu model", "Hardware",
					     "uarch", "Processor", "cpu", NULL };
	static const char *const implementer[] = { "CPU implementer", NULL };
	static const char *const part[] = { "CPU part", NULL };
	char model[256], impl[32], pt[32];
	int ret = first_field(model, sizeof(model), "/proc/cpuinfo", names);

	if (!ret) {
		emit_meta("cpu.model", "%s", model);
		return;
	}
	/* arm64 names no model: its implementer and part numbers identify the core. */
	if (!first_field(impl, sizeof(impl), "/proc/cpuinfo", implementer) &&
	    !first_field(pt, sizeof(pt), "/proc/cpuinfo", part)) {
		emit_meta("cpu.model", "implementer %s part %s", impl, pt);
		return;
	}
	emit_meta("cpu.model", "unavailable: %s", strerror(-ret));
}

void meta_emit_run(int pid1)
{
	static const char *const memtotal[] = { "MemTotal", NULL };
	struct utsname u;
	char buf[4096];
	long n;
	int ret;

	if (!uname(&u)) {
		emit_meta("kernel.release", "%s", u.release);
		emit_meta("guest.arch", "%s", u.machine);
	} else {
		emit_meta("kernel.release", "unavailable: %s", strerror(errno));
	}
	if ((ret = sysfs_read("/proc/cmdline", buf, sizeof(buf))) >= 0)
		emit_meta("kernel.cmdline", "%s", buf);
	else
		emit_meta("kernel.cmdline", "unavailable: %s", strerror(-ret));
	emit_meta("guest.pid1", "%s", pid1 ? "yes" : "no");
	emit_cpu_model();
	pmu_describe(buf, sizeof(buf));
	emit_meta("pmu", "%s", buf);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n > 0)
		emit_meta("cpu.online", "%ld", n);
	else
		emit_meta("cpu.online", "unavailable: %s", strerror(errno));
	if (!first_field(buf, sizeof(buf), "/proc/meminfo", memtotal))
		emit_meta("mem.total_kb", "%ld", strtol(buf, NULL, 10));
	else
		emit_meta("mem.total_kb", "unavailable: cannot read /proc/meminfo");
	ret = sysfs_read("/sys/kernel/mm/transparent_hugepage/enabled", buf, sizeof(buf));
	if (ret >= 0) {
		char mode[32];
		if (!parse_bracketed(mode, sizeof(mode), buf))
			emit_meta("thp.enabled", "%s", mode);
		else
			emit_meta("thp.enabled", "unavailable: no mode in '%s'", buf);
	} else {
		emit_meta("thp.enabled", "unavailable: %s", strerror(-ret));
	}
}
