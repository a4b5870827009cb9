#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host.h"
#include "strbuf.h"
#include "strvec.h"
#include "subprocess.h"

const char *host_arch(void)
{
#if defined(__aarch64__)
	return "aarch64";
#else
	return "x86_64";
#endif
}

static void cpu_model(char *out, size_t size)
{
	char line[512];
	FILE *f = fopen("/proc/cpuinfo", "r");

	snprintf(out, size, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');
		if (!colon || strncmp(line, "model name", 10))
			continue;
		colon++;
		while (*colon == ' ')
			colon++;
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(out, size, "%s", colon);
		break;
	}
	fclose(f);
}

void host_info_get(struct host_info *h, const char *qemu)
{
	memset(h, 0, sizeof(*h));
	host_name(h->name, sizeof(h->name));
	cpu_model(h->cpu, sizeof(h->cpu));
	if (qemu) {
		struct strvec av = STRVEC_INIT;
		struct strbuf out = STRBUF_INIT;
		strvec_push(&av, qemu);
		strvec_push(&av, "--version");
		if (subprocess_run(strvec_argv(&av), NULL, &out, 10) == 0) {
			size_t n = strcspn(strbuf_str(&out), "\n");
			snprintf(h->qemu_version, sizeof(h->qemu_version), "%.*s", (int)n,
				 strbuf_str(&out));
		}
		strbuf_release(&out);
		strvec_release(&av);
	}
}

const char *lab_program(void)
{
	static char exe[PATH_MAX];
	ssize_t n;

	if (exe[0])
		return exe;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0) {
		exe[0] = '\0';
		return NULL;
	}
	exe[n] = '\0';
	return exe;
}

const char *lab_source_dir(void)
{
	static char dir[PATH_MAX];
	char exe[PATH_MAX];
	const char *self;
	ssize_t n;

	if (dir[0])
		return dir;
	if (!(self = lab_program())) {
		snprintf(dir, sizeof(dir), ".");
		return dir;
	}
	snprintf(exe, sizeof(exe), "%s", self);
	/*
	 * The binary is <checkout>/lab/lab, or <prefix>/bin/lab after make
	 * install, with the rest under <prefix>/share/lab.
	 */
	snprintf(dir, sizeof(dir), "%s", dirname(dirname(exe)));
	n = (ssize_t)strlen(dir);
	if ((size_t)n + sizeof("/share/lab") <= sizeof(dir)) {
		struct stat st;

		memcpy(dir + n, "/share/lab", sizeof("/share/lab"));
		if (stat(dir, &st) || !S_ISDIR(st.st_mode))
			dir[n] = '\0';
	}
	return dir;
}

int host_process_start(char *out, size_t size, pid_t pid)
{
	char path[64], boot[64] = "", stat[1024];
	const char *p;
	size_t n;
	FILE *f;

	f = fopen("/proc/sys/kernel/random/boot_id", "r");
	if (f) {
		if (!fgets(boot, sizeof(boot), f))
			boot[0] = '\0';
		boot[strcspn(boot, "\n")] = '\0';
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(stat, 1, sizeof(stat) - 1, f);
	fclose(f);
	stat[n] = '\0';
	/* the command name in parentheses may hold spaces: count fields after it */
	p = strrchr(stat, ')');
	if (!p || p[1] != ' ')
		return -1;
	p += 2;
	/* a zombie has died; only its parent has not looked yet */
	if (*p == 'Z' || *p == 'X')
		return -1;
	/* field 3 is the state; the start time is field 22 */
	for (int field = 3; field < 22; field++) {
		p = strchr(p, ' ');
		if (!p)
			return -1;
		p++;
	}
	snprintf(out, size, "%s %.*s", boot, (int)strcspn(p, " "), p);
	return 0;
}

void host_name(char *out, size_t size)
{
	if (gethostname(out, size - 1))
		snprintf(out, size, "unknown");
	out[size - 1] = '\0';
}
