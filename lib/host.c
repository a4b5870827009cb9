#include <libgen.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "atomicfile.h"
#include "host.h"
#include "log.h"
#include "regfile.h"
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
	if (qemu)
		host_qemu_version(h->qemu_version, sizeof(h->qemu_version), qemu);
}

void host_qemu_version(char *out, size_t size, const char *qemu)
{
	struct strvec av = STRVEC_INIT;
	struct strbuf said = STRBUF_INIT;

	out[0] = '\0';
	strvec_push(&av, qemu);
	strvec_push(&av, "--version");
	if (subprocess_run(strvec_argv(&av), NULL, &said, 10) == 0) {
		size_t n = strcspn(strbuf_str(&said), "\n");
		snprintf(out, size, "%.*s", (int)n, strbuf_str(&said));
	}
	strbuf_release(&said);
	strvec_release(&av);
}

/* A number of 1 to 4 digits at *s, which moves past it; -1 when there is none. */
static int version_number(const char **s)
{
	const char *start = *s;
	int n = 0;

	while (**s >= '0' && **s <= '9' && *s - start < 4)
		n = n * 10 + (*(*s)++ - '0');
	return *s > start && !(**s >= '0' && **s <= '9') ? n : -1;
}

int qemu_version_parse(struct qemu_version *v, const char *line)
{
	static const char lead[] = "QEMU emulator version ";
	const char *s = line;

	memset(v, 0, sizeof(*v));
	if (strncmp(s, lead, sizeof(lead) - 1))
		return -1;
	s += sizeof(lead) - 1;
	if ((v->major = version_number(&s)) < 0 || *s++ != '.' ||
	    (v->minor = version_number(&s)) < 0)
		goto bad;
	/* a release has three numbers; a build from git may say only two */
	if (*s == '.') {
		s++;
		if ((v->micro = version_number(&s)) < 0)
			goto bad;
	}
	if (*s && *s != ' ' && *s != '(')
		goto bad;
	return 0;
bad:
	memset(v, 0, sizeof(*v));
	return -1;
}

int qemu_icount_smp(struct qemu_version *v, const char *line)
{
	/*
	 * With icount all vCPUs take turns on one host thread. Before 8.1 each
	 * turn was given every instruction left until the next timer, so a
	 * boot CPU polling for its second CPU never let that CPU run: Linux
	 * stops in "Booting SMP configuration". Upstream 83ecdb18eb65 ("ensure
	 * fairness with icount", 8.1) shares them out.
	 */
	if (qemu_version_parse(v, line))
		return 0;
	return v->major > 8 || (v->major == 8 && v->minor >= 1);
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

/* One word of the key: its spaces and line ends made dots, so that the key stays one line. */
static void key_word(struct strbuf *out, const char *name, const char *value)
{
	strbuf_addf(out, "%s%s=", out->len ? " " : "", name);
	for (const char *c = value; *c; c++)
		strbuf_addch(out, *c == ' ' || *c == '\n' || *c == '\t' ? '.' : *c);
}

void host_kvm_key(struct strbuf *out, const char *qemu_version)
{
	char name[256], cpu[256], dev[64] = "none";
	struct utsname u;
	struct stat st;

	strbuf_reset(out);
	host_name(name, sizeof(name));
	cpu_model(cpu, sizeof(cpu));
	if (uname(&u))
		memset(&u, 0, sizeof(u));
	if (!stat("/dev/kvm", &st))
		snprintf(dev, sizeof(dev), "%u:%u@%lld", major(st.st_rdev), minor(st.st_rdev),
			 (long long)st.st_mtime);
	key_word(out, "host", name);
	key_word(out, "cpu", cpu);
	key_word(out, "release", u.release);
	key_word(out, "build", u.version);
	key_word(out, "kvm", dev);
	key_word(out, "qemu", qemu_version && *qemu_version ? qemu_version : "none");
}

/*
 * The file: "key KEY", then "kvm usable: REASON" or "kvm unusable:
 * REASON: using tcg", the line a person reads.
 */
int host_kvm_verdict_read(struct host_kvm_verdict *v, const char *path, const char *key)
{
	static const char usable[] = "kvm usable: ", unusable[] = "kvm unusable: ",
			  tail[] = ": using tcg";
	struct strbuf sb = STRBUF_INIT;
	const char *line, *end;
	size_t n;
	int ret = 0;

	memset(v, 0, sizeof(*v));
	if (!path || strbuf_read_file(&sb, path, 64 * 1024))
		goto out;
	line = strbuf_str(&sb);
	end = strchr(line, '\n');
	if (!end || strncmp(line, "key ", 4) || (size_t)(end - line - 4) != strlen(key) ||
	    strncmp(line + 4, key, strlen(key)))
		goto out;
	line = end + 1;
	n = strcspn(line, "\n");
	if (!strncmp(line, usable, sizeof(usable) - 1)) {
		v->usable = 1;
		line += sizeof(usable) - 1;
		n -= sizeof(usable) - 1;
	} else if (!strncmp(line, unusable, sizeof(unusable) - 1)) {
		line += sizeof(unusable) - 1;
		n -= sizeof(unusable) - 1;
		if (n >= sizeof(tail) - 1 && !strncmp(line + n - (sizeof(tail) - 1), tail,
						      sizeof(tail) - 1))
			n -= sizeof(tail) - 1;
	} else {
		goto out;
	}
	snprintf(v->reason, sizeof(v->reason), "%.*s", (int)n, line);
	ret = 1;
out:
	strbuf_release(&sb);
	return ret;
}

int host_kvm_verdict_write(const char *path, const char *key, int usable, const char *reason)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	if (!path)
		return 0;
	strbuf_addf(&sb, "key %s\n", key);
	strbuf_addstr(&sb, usable ? "kvm usable: " : "kvm unusable: ");
	/* one line: what QEMU said may have had more */
	for (const char *c = reason; *c; c++)
		strbuf_addch(&sb, *c == '\n' ? ' ' : *c);
	strbuf_addstr(&sb, usable ? "\n" : ": using tcg\n");
	/* what a boot would find anyway, once more: no need to survive a crash */
	ret = atomic_write_buf(path, 0644, 0, "kvm verdict", sb.buf, sb.len);
	strbuf_release(&sb);
	if (ret)
		warning("kvm's verdict is not kept: the next lab probes again");
	return ret;
}

void host_size(long *mem_mib, int *cpus)
{
	char line[256];
	cpu_set_t set;
	FILE *f = fopen("/proc/meminfo", "r");

	*mem_mib = 0;
	while (f && fgets(line, sizeof(line), f)) {
		long kib;

		if (sscanf(line, "MemTotal: %ld kB", &kib) == 1) {
			*mem_mib = kib / 1024;
			break;
		}
	}
	if (f)
		fclose(f);
	*cpus = sched_getaffinity(0, sizeof(set), &set) ? 1 : CPU_COUNT(&set);
	if (*cpus < 1)
		*cpus = 1;
}
