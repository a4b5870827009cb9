#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "runner-list.h"
#include "runner.h"
#include "recipe.h"
#include "strbuf.h"
#include "workload.h"
#include "capture.h"
#include "tap.h"

/* Error lines go to fd 2; tests read them back from a file. */

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(2);
	}
}

/* Load text from bad.conf; return config_load()'s result, stderr in err. */
static int load_text(struct lab_config *cfg, const char *text, struct strbuf *err)
{
	struct capture cap;
	int ret;

	write_file("bad.conf", text);
	capture_start(&cap);
	ret = config_load(cfg, "bad.conf");
	capture_end(&cap, err);
	return ret;
}

static void test_parsers(void)
{
	static const char *bad_sizes[] = {
		"", "lots", "0", "0M", "-1", "-512M", "+4G", " 4G", "4G ", "4X", "4GB",
		"4.5G", "M", "99999999999999999999", "9223372036854775807G", "9007199254740992T",
		"99999999999999G", "17T", "16385G", "16777217", "16777217M",
	};
	static const char *bad_ints[] = { "", "0", "-3", "+3", "3 ", "x", "3x", "0x10",
		"99999999999999999999", "2147483648" };
	static const char *bad_secs[] = { "", "0", "0s", "-1", "5x", "5ms", "s", "1.5m",
		"9223372036854775807h", "169h", "604801", "10081m" };
	long v;
	size_t i;

	ok(!parse_size_mib("512M", &v) && v == 512, "size 512M is 512 MiB");
	ok(!parse_size_mib("4G", &v) && v == 4096, "size 4G is 4096 MiB");
	ok(!parse_size_mib("4g", &v) && v == 4096, "size suffix is case-insensitive");
	ok(parse_size_mib("2048", &v) && parse_size_mib("4", &v), "a size without its unit is refused");
	ok(!parse_size_mib("1T", &v) && v == 1048576, "size 1T is 1048576 MiB");
	ok(!parse_size_mib("16T", &v) && v == 16777216, "size 16T, the largest, is taken");
	ok(!parse_size_mib("16384g", &v) && v == 16777216, "... and so is 16384G");
	ok(!parse_cpus("1024", &v) && v == 1024, "1024 CPUs, the most, are taken");
	v = 42;
	ok(parse_cpus("1025", &v) < 0 && v == 42, "1025 CPUs are not");
	ok(parse_cpus("0", &v) < 0 && v == 42, "nor 0 CPUs");
	ok(!parse_positive_int("2147483647", &v) && v == 2147483647, "int INT_MAX");
	ok(!parse_seconds("168h", &v) && v == 604800, "seconds: a week, the longest");
	for (i = 0; i < sizeof(bad_sizes) / sizeof(*bad_sizes); i++) {
		char name[128];
		v = 42;
		snprintf(name, sizeof(name), "size '%s' is rejected", bad_sizes[i]);
		ok(parse_size_mib(bad_sizes[i], &v) < 0 && v == 42, name);
	}

	ok(!parse_positive_int("1", &v) && v == 1, "int 1");
	ok(!parse_positive_int("64", &v) && v == 64, "int 64");
	for (i = 0; i < sizeof(bad_ints) / sizeof(*bad_ints); i++) {
		char name[128];
		snprintf(name, sizeof(name), "int '%s' is rejected", bad_ints[i]);
		ok(parse_positive_int(bad_ints[i], &v) < 0, name);
	}

	ok(!parse_seconds("300", &v) && v == 300, "seconds 300");
	ok(!parse_seconds("300s", &v) && v == 300, "seconds 300s");
	ok(!parse_seconds("5m", &v) && v == 300, "seconds 5m");
	ok(!parse_seconds("2h", &v) && v == 7200, "seconds 2h");
	for (i = 0; i < sizeof(bad_secs) / sizeof(*bad_secs); i++) {
		char name[128];
		snprintf(name, sizeof(name), "seconds '%s' are rejected", bad_secs[i]);
		ok(parse_seconds(bad_secs[i], &v) < 0, name);
	}
}

static void check_defaults(const struct lab_config *cfg, const char *what)
{
	char name[160];

#define CHECK(expr, label) do { \
	snprintf(name, sizeof(name), "%s: %s", what, label); \
	ok(expr, name); \
} while (0)
	CHECK(!cfg->path, "no file");
	CHECK(!cfg->db && !cfg->state, "core.db, core.state: settled by the context");
	CHECK(cfg->qemu_x86_64 && !strcmp(cfg->qemu_x86_64, "qemu-system-x86_64"), "x86_64 binary");
	CHECK(cfg->qemu_aarch64 && !strcmp(cfg->qemu_aarch64, "qemu-system-aarch64"), "aarch64 binary");
	CHECK(cfg->accel == LAB_ACCEL_AUTO, "qemu.accel");
	CHECK(cfg->clock == LAB_CLOCK_AUTO, "run.clock");
	CHECK(cfg->icount_shift == 0, "qemu.icountShift");
	CHECK(cfg->mem_mib == 2048, "run.mem");
	CHECK(cfg->cpus == 1, "run.cpus");
	CHECK(cfg->timeout_s == 900, "run.timeout");
	CHECK(cfg->runner == LAB_RUNNER_QEMU, "run.runner");
	CHECK(cfg->iters == 100, "run.iters");
	CHECK(!cfg->ssh.host && !cfg->ssh.restore && !cfg->ssh.deadline_s &&
	      ssh_deadline_s(&cfg->ssh, 0) == 300 && ssh_deadline_s(&cfg->ssh, 1) == 900, "ssh");
#undef CHECK
}

static const char full_conf[] =
	"# every key the lab reads\n"
	"[core]\n"
	"\tdb = /var/lib/lab/lab.db\n"
	"\tstate = /var/lib/lab\n"
	"[qemu \"x86_64\"]\n"
	"\tbinary = /opt/qemu/bin/qemu-system-x86_64\n"
	"[qemu \"aarch64\"]\n"
	"\tbinary = /opt/qemu/bin/qemu-system-aarch64\n"
	"[qemu]\n"
	"\taccel = tcg\n"
	"\ticountShift = 3\n"
	"[run]\n"
	"\tclock = icount\n"
	"\tmem = 4G\n"
	"\tcpus = 8\n"
	"\ttimeout = 5m\n"
	"\trunner = local\n"
	"\titers = 250\n"
	"[ssh]\n"
	"\thost = root@arm1\n"
	"\tport = 2222\n"
	"\tidentity = /keys/arm1\n"
	"\tknownHosts = /keys/known_hosts\n"
	"\treset = ipmitool -H arm1-bmc power cycle\n"
	"\trestore = kexec:/boot/vmlinuz,/boot/initrd.img\n"
	"\tdeadline = 2m\n";

static void test_files(void)
{
	struct lab_config cfg;
	struct strbuf err = STRBUF_INIT;
	struct capture cap;
	int ret;

	unsetenv("LAB_CONFIG");
	ok(!config_load(&cfg, NULL), "no lab.conf: load succeeds");
	check_defaults(&cfg, "defaults");
	config_release(&cfg);

	write_file("lab.conf", full_conf);
	ok(!config_load(&cfg, NULL), "./lab.conf is read when no path is given");
	is_str(cfg.path, "lab.conf", "path of the file read");
	is_str(cfg.db, "/var/lib/lab/lab.db", "core.db");
	is_str(cfg.state, "/var/lib/lab", "core.state");
	is_str(cfg.qemu_x86_64, "/opt/qemu/bin/qemu-system-x86_64", "qemu.x86_64.binary");
	is_str(cfg.qemu_aarch64, "/opt/qemu/bin/qemu-system-aarch64", "qemu.aarch64.binary");
	is_str(config_qemu_binary(&cfg, "aarch64"), "/opt/qemu/bin/qemu-system-aarch64",
	       "config_qemu_binary(aarch64)");
	ok(!config_qemu_binary(&cfg, "riscv64"), "no binary for an unknown arch");
	is_int(cfg.accel, LAB_ACCEL_TCG, "qemu.accel");
	is_str(config_accel_name(cfg.accel), "tcg", "accel name");
	is_int(cfg.clock, LAB_CLOCK_ICOUNT, "run.clock");
	is_str(config_clock_name(cfg.clock), "icount", "clock name");
	is_int(cfg.icount_shift, 3, "qemu.icountShift");
	is_int(cfg.mem_mib, 4096, "run.mem");
	is_int(cfg.cpus, 8, "run.cpus");
	is_int(cfg.timeout_s, 300, "run.timeout");
	is_int(cfg.runner, LAB_RUNNER_LOCAL, "run.runner");
	is_str(config_runner_name(cfg.runner), "local", "runner name");
	is_int(cfg.iters, 250, "run.iters");
	is_str(cfg.ssh.host, "root@arm1", "ssh.host");
	is_str(cfg.ssh.port, "2222", "ssh.port");
	is_str(cfg.ssh.identity, "/keys/arm1", "ssh.identity");
	is_str(cfg.ssh.known_hosts, "/keys/known_hosts", "ssh.knownHosts");
	is_str(cfg.ssh.reset, "ipmitool -H arm1-bmc power cycle", "ssh.reset");
	is_str(cfg.ssh.restore, "kexec:/boot/vmlinuz,/boot/initrd.img", "ssh.restore");
	is_int(cfg.ssh.deadline_s, 120, "ssh.deadline");
	config_release(&cfg);
	ok(!cfg.db && !cfg.path, "release clears the strings");

	write_file("env.conf", "[run]\n\tcpus = 7\n");
	setenv("LAB_CONFIG", "env.conf", 1);
	ok(!config_load(&cfg, NULL), "LAB_CONFIG: load succeeds");
	is_int(cfg.cpus, 7, "LAB_CONFIG is preferred over ./lab.conf");
	is_str(cfg.path, "env.conf", "LAB_CONFIG path");
	is_int(cfg.iters, 100, "keys not in the file keep their defaults");
	config_release(&cfg);

	ok(!config_load(&cfg, "lab.conf") && cfg.cpus == 8,
	   "an explicit path is preferred over LAB_CONFIG");
	config_release(&cfg);

	setenv("LAB_CONFIG", "", 1);
	ok(!config_load(&cfg, NULL) && cfg.cpus == 8, "empty LAB_CONFIG is unset");
	config_release(&cfg);

	setenv("LAB_CONFIG", "missing-env.conf", 1);
	capture_start(&cap);
	ret = config_load(&cfg, NULL);
	capture_end(&cap, &err);
	is_int(ret, -1, "LAB_CONFIG naming a missing file is an error");
	is_str(err.buf, "lab: cannot read config 'missing-env.conf': No such file or directory\n",
	       "... and the message names it");
	config_release(&cfg);
	unsetenv("LAB_CONFIG");

	capture_start(&cap);
	ret = config_load(&cfg, "missing.conf");
	capture_end(&cap, &err);
	is_int(ret, -1, "an explicit missing path is an error");
	is_str(err.buf, "lab: cannot read config 'missing.conf': No such file or directory\n",
	       "... and the message names it");
	check_defaults(&cfg, "after a failed load");
	config_release(&cfg);

	ret = load_text(&cfg, "[RUN]\n\tCPUs = 3\n[Core]\n\tDB = x.db\n", &err);
	ok(!ret && cfg.cpus == 3 && !strcmp(cfg.db, "x.db"), "names are case-insensitive");
	config_release(&cfg);

	ret = load_text(&cfg, "[run]\n\tmem = 4G\n\tCPUs = 3\n\tcpus = 5\n", &err);
	is_int(ret, -1, "a key given twice in one section is refused, whatever its case");
	is_str(err.buf, "lab: key 'cpus' of [run] given twice in config bad.conf line 4 "
	       "(first at line 3)\n", "... in one line naming the key, its section and both lines");
	check_defaults(&cfg, "after a key given twice");
	config_release(&cfg);

	ret = load_text(&cfg, "[run]\n\tcpus = 3\n[core]\n\tdb = x.db\n[run]\n\tmem = 4G\n", &err);
	ok(!ret && cfg.cpus == 3 && cfg.mem_mib == 4096 && !strcmp(cfg.db, "x.db"),
	   "a section's header given twice: its keys are one section's, as in git");
	config_release(&cfg);

	ret = load_text(&cfg, "[run]\n\tcpus = 3\n[core]\n\tdb = x.db\n[run]\n\tcpus = 4\n", &err);
	is_int(ret, -1, "... a key under both is given twice");
	is_str(err.buf, "lab: key 'cpus' of [run] given twice in config bad.conf line 6 "
	       "(first at line 2)\n", "... named at its second line");
	config_release(&cfg);

	ret = load_text(&cfg, "[qemu \"x86_64\"]\n\tbinary = a\n[qemu \"aarch64\"]\n\tbinary = b\n"
			"[target \"a\"]\n\tmem = 1G\n[target \"b\"]\n\tmem = 2G\n", &err);
	ok(!ret && !strcmp(cfg.qemu_aarch64, "b") && cfg.ntargets == 2,
	   "the same key in two subsections is two keys");
	config_release(&cfg);

	ret = load_text(&cfg, "[target \"a\"]\n\trunner = ssh\n\thost = arm1\n[target \"b\"]\n"
			"\tmem = 2G\n[run]\n\trunner = local\n", &err);
	ok(!ret && cfg.ntargets == 2 && cfg.targets[0].ops == &runner_ssh &&
	   cfg.targets[1].ops == &runner_local,
	   "a target's runner is decided at load: its own, else run.runner's, set after it too");
	config_release(&cfg);

	ret = load_text(&cfg, "[qemu \"aarch64\"]\n\tbinary = a\n[qemu.aarch64]\n\tbinary = b\n", &err);
	is_int(ret, -1, "the older [section.sub] is the same section");
	is_str(err.buf, "lab: key 'binary' of [qemu \"aarch64\"] given twice in config bad.conf "
	       "line 4 (first at line 2)\n", "... and named with its subsection");
	config_release(&cfg);

	ret = load_text(&cfg, "[nightly \"n\"]\n\tcmdline = a\n\tcmdline = b\n"
			"\tbranch = x\n\tbranch = y\n", &err);
	is_int(ret, -1, "a nightly's cmdline repeats, its branch does not");
	is_str(err.buf, "lab: key 'branch' of [nightly \"n\"] given twice in config bad.conf "
	       "line 5 (first at line 4; keys that may repeat: cmdline)\n",
	       "... the message says which keys repeat there");
	ok(!cfg.nnightlies, "... and nothing of the file is kept");
	config_release(&cfg);

	ret = load_text(&cfg, "[run \"x\"]\n", &err);
	ok(!ret && cfg.cpus == 1, "a known section with a subsection and no keys is fine");
	config_release(&cfg);

	ret = load_text(&cfg, "[run\n\tcpus = 2\n", &err);
	is_int(ret, -1, "a syntax error fails the load");
	is_str(err.buf, "lab: missing ']' after section header '[run' in config bad.conf line 1\n",
	       "... with the reason and the line");
	config_release(&cfg);

	ret = load_text(&cfg, "# values as git writes them\n"
			"[core]\n"
			"\tdb = \"my results/\\\"lab\\\".db\"  ; a comment\n"
			"[build] command = make\\\n"
			" -s   # inline\n"
			"[run]cpus=3\n", &err);
	ok(!ret, "quotes, escapes, comments, continuation, a key after a header: read");
	is_str(cfg.db, "my results/\"lab\".db", "... a quoted value keeps its blanks");
	is_str(cfg.build_command, "make -s", "... a continued line is one value");
	is_int(cfg.cpus, 3, "... a key on the header's line");
	config_release(&cfg);

	strbuf_release(&err);
}

static void test_bad_values(void)
{
	static const struct {
		const char *text, *key, *value, *expected;
	} cases[] = {
		{ "[run]\ncpus = 0\n", "run.cpus", "0", "a CPU count from 1 to 1024" },
		{ "[run]\ncpus = lots\n", "run.cpus", "lots", "a CPU count from 1 to 1024" },
		{ "[run]\ncpus = 1025\n", "run.cpus", "1025", "a CPU count from 1 to 1024" },
		{ "[run]\nmem = lots\n", "run.mem", "lots",
		  "a size from 1M to 16T with its unit, such as 512M or 4G" },
		{ "[run]\nmem = 99999999999999G\n", "run.mem", "99999999999999G",
		  "a size from 1M to 16T with its unit, such as 512M or 4G" },
		{ "[qemu]\naccel = fast\n", "qemu.accel", "fast", "kvm, tcg or auto" },
		{ "[run]\nclock = cycles\n", "run.clock", "cycles", "wall, icount or auto" },
		{ "[qemu]\nicountShift = 11\n", "qemu.icountshift", "11",
		  "a shift from 0 to 10 (2^N ns per instruction)" },
		{ "[qemu]\nicountShift = -1\n", "qemu.icountshift", "-1",
		  "a shift from 0 to 10 (2^N ns per instruction)" },
		{ "[run]\ntimeout = -1\n", "run.timeout", "-1",
		  "a number of seconds up to a week (168h) such as 300, 300s or 5m" },
		{ "[run]\nrunner = rsh\n", "run.runner", "rsh", "qemu, local, libvirt, ssh or lava" },
		{ "[run]\niters = 1e3\n", "run.iters", "1e3", "a positive integer" },
		{ "[ssh]\nport = 0\n", "ssh.port", "0", "a port number from 1 to 65535" },
		{ "[ssh]\ndeadline = 25h\n", "ssh.deadline", "25h",
		  "a time from 1s to 24h such as 300, 300s or 5m" },
		{ "[ssh]\ndeadline = +5\n", "ssh.deadline", "+5",
		  "a time from 1s to 24h such as 300, 300s or 5m" },
		{ "[ssh]\nrestore = kexec:vmlinuz\n", "ssh.restore", "kexec:vmlinuz",
		  "reboot or kexec:IMAGE[,INITRD] (paths on the host)" },
		{ "[ssh]\nhost = -oProxyCommand=x\n", "ssh.host", "-oProxyCommand=x",
		  "an ssh destination such as root@arm1 or a Host of ~/.ssh/config" },
		{ "[core]\ndb =\n", "core.db", "", "a path" },
		{ "[run]\ncpus\n", "run.cpus", "", "a CPU count from 1 to 1024" },
		{ "[qemu \"x86_64\"]\nbinary = \"\"\n", "qemu.x86_64.binary", "",
		  "a program name or path" },
	};
	static const struct {
		const char *text, *key, *known;
	} unknown[] = {
		{ "[run]\ncpu = 4\n", "run.cpu",
		  "run.mem, run.cpus, run.timeout, run.runner, run.iters, run.clock" },
		{ "[qemu]\nx86-64 = q\n", "qemu.x86-64",
		  "qemu.x86_64.binary, qemu.aarch64.binary, qemu.accel, qemu.icountshift" },
		{ "[qemu \"riscv64\"]\nbinary = q\n", "qemu.riscv64.binary",
		  "qemu.x86_64.binary, qemu.aarch64.binary, qemu.accel, qemu.icountshift" },
		{ "[core]\ndatabase = x.db\n", "core.database", "core.db, core.state, core.repo" },
	};
	struct lab_config cfg;
	struct strbuf err = STRBUF_INIT;
	struct strbuf want = STRBUF_INIT;
	char name[160];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		int ret = load_text(&cfg, cases[i].text, &err);
		snprintf(name, sizeof(name), "%s = '%s' is rejected", cases[i].key, cases[i].value);
		is_int(ret, -1, name);
		strbuf_reset(&want);
		strbuf_addf(&want, "lab: bad value '%s' for '%s' in config bad.conf line 2: "
			    "expected %s\n",
			    cases[i].value, cases[i].key, cases[i].expected);
		snprintf(name, sizeof(name), "%s: one line naming key, value and file",
			 cases[i].key);
		is_str(err.buf, want.buf, name);
		config_release(&cfg);
	}

	for (i = 0; i < sizeof(unknown) / sizeof(*unknown); i++) {
		int ret = load_text(&cfg, unknown[i].text, &err);
		snprintf(name, sizeof(name), "unknown key %s is rejected", unknown[i].key);
		is_int(ret, -1, name);
		strbuf_reset(&want);
		strbuf_addf(&want, "lab: unknown key '%s' in config bad.conf line 2 (known: %s)\n",
			    unknown[i].key, unknown[i].known);
		is_str(err.buf, want.buf, "... and named");
		config_release(&cfg);
	}

	load_text(&cfg, "[run]\ncpus = 4\niters = 0\n", &err);
	check_defaults(&cfg, "after a bad value");
	config_release(&cfg);

	strbuf_release(&want);
	strbuf_release(&err);
}

/* Text that git or libgit2 would take, or take differently: refused, named. */
static void test_bad_syntax(void)
{
	static const struct {
		const char *text;
		size_t len;	/* 0: strlen */
		const char *err;
	} cases[] = {
		{ "[rnu]\n\tmem = 4G\n", 0,
		  "unknown section 'rnu' in config bad.conf line 1 (known: core, qemu, run, build, libvirt, report, nightly, ssh, target, workload)" },
		{ "[run]\n\tmem = 4G\n\n[user]\n\tname = x\n", 0,
		  "unknown section 'user' in config bad.conf line 4 (known: core, qemu, run, build, libvirt, report, nightly, ssh, target, workload)" },
		{ "[Run \"x\"]\n[core.Sub]\n[qmeu \"x86_64\"]\n", 0,
		  "unknown section 'qmeu' in config bad.conf line 3 (known: core, qemu, run, build, libvirt, report, nightly, ssh, target, workload)" },
		{ "[core]\n\tdb = \"results/lab.db\n", 0, "unterminated quote in config bad.conf line 2" },
		{ "[core]\n\tdb = a\\\n\t\"b\n[run]\n", 0,
		  "unterminated quote in config bad.conf line 3" },
		{ "[qemu \"x86_64]\n", 0,
		  "unterminated quote in section header '[qemu' in config bad.conf line 1" },
		{ "[core]\n\tdb = x\001.db\n", 0,
		  "binary byte 0x01 in config bad.conf line 2: expected UTF-8 text" },
		{ "[core]\n\tdb = x.db\0junk\n", 18,
		  "binary byte 0x00 in config bad.conf line 2: expected UTF-8 text" },
		{ "[core]\n\n\tdb = caf\xc3.db\n", 0,
		  "binary byte 0xc3 in config bad.conf line 3: expected UTF-8 text" },
		{ "\x7f" "ELF\002\001\001", 7,
		  "binary byte 0x7f in config bad.conf line 1: expected UTF-8 text" },
		{ "[core]\n\tdb = a\\qb\n", 0,
		  "unknown escape '\\q' in config bad.conf line 2 (known: \\\" \\\\ \\n \\t \\b)" },
		{ "cpus = 2\n", 0, "key 'cpus' outside any section in config bad.conf line 1" },
		{ "[run]\n\tcpus two = 2\n", 0,
		  "bad key 'cpus two' in config bad.conf line 2: a key is a letter, then letters, "
		  "digits and '-'" },
		{ "[run]\n\t2cpus = 2\n", 0,
		  "bad key '2cpus' in config bad.conf line 2: a key is a letter, then letters, "
		  "digits and '-'" },
	};
	struct lab_config cfg;
	struct strbuf err = STRBUF_INIT, want = STRBUF_INIT;
	char name[200];

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct capture cap;
		int fd = open("bad.conf", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		size_t len = cases[i].len ? cases[i].len : strlen(cases[i].text);
		int ret;

		if (fd < 0 || write(fd, cases[i].text, len) != (ssize_t)len || close(fd)) {
			perror("bad.conf");
			exit(2);
		}
		capture_start(&cap);
		ret = config_load(&cfg, "bad.conf");
		capture_end(&cap, &err);
		snprintf(name, sizeof(name), "refused: %s", cases[i].err);
		is_int(ret, -1, name);
		strbuf_reset(&want);
		strbuf_addf(&want, "lab: %s\n", cases[i].err);
		is_str(err.buf, want.buf, "... in one line naming file, line and the bad thing");
		check_defaults(&cfg, "after a refused file");
		config_release(&cfg);
	}
	strbuf_release(&err);
	strbuf_release(&want);
}

static int count_entry(const struct config_entry *e, void *data)
{
	struct strbuf *seen = data;

	if (!e->value)
		strbuf_addf(seen, "[%s]:%d;", e->name, e->line);
	else
		strbuf_addf(seen, "%s:%d/%d=%s;", e->name, e->line, e->section_line, e->value);
	return 0;
}

/* Recipes read the same syntax with sections of their own. */
static void test_sections_parameter(void)
{
	static const char *const recipe_sections[] = { "recipe", "variant", NULL };
	static const char text[] = "[recipe]\n\ttitle = t\n[variant \"Base\"]\n\tref = v1\n";
	struct strbuf seen = STRBUF_INIT, err = STRBUF_INIT;
	struct capture cap;
	int ret;

	ret = config_parse(text, strlen(text), "x.recipe", "recipe", recipe_sections, NULL,
			   count_entry, &seen);
	is_int(ret, 0, "recipe sections: read");
	is_str(seen.buf, "[recipe]:1;recipe.title:2/1=t;[variant.Base]:3;variant.Base.ref:4/3=v1;",
	       "... headers and keys: names, lines and values, the subsection's case kept");
	strbuf_reset(&seen);
	capture_start(&cap);
	ret = config_parse(text, strlen(text), "x.conf", "config", (const char *const[]){
			   "core", "run", NULL }, NULL, count_entry, &seen);
	capture_end(&cap, &err);
	is_int(ret, -1, "the same text against the config's sections: refused");
	is_str(err.buf, "lab: unknown section 'recipe' in config x.conf line 1 (known: core, run)\n",
	       "... naming the known set given");
	strbuf_release(&seen);
	strbuf_release(&err);
}

/* [nightly "NAME"]: one struct per name, keys read into it, bad ones named. */
static void test_nightly(void)
{
	static const char text[] =
		"[nightly \"mm-unstable\"]\n"
		"\trepository = git://127.0.0.1/linux\n"
		"\tbranch = mm-unstable\n"
		"\tworkloads = zeroing,demote\n"
		"\tmem = 1G,4G\n"
		"\tcmdline = \"hugetlb_free_vmemmap=on nokaslr\"\n"
		"\tcmdline = nokaslr\n"
		"\tclock = icount\n"
		"\tboots = 5\n"
		"\tpolicy = new\n"
		"\tmaxCommits = 4\n"
		"\tbisectBudget = 40\n"
		"\tdelta = 0.5%\n"
		"\tmailTo = mm@example.org\n"
		"\tsmtp = smtp://127.0.0.1:2525\n"
		"\twebhook = http://127.0.0.1:8080/hook\n"
		"\tcredentials = /etc/lab/secret\n"
		"[nightly \"Own.Tree\"]\n"
		"\trepository = /src/linux\n";
	static const struct {
		const char *text, *err;
	} bad[] = {
		{ "[nightly]\n\tbranch = x\n",
		  "lab: a nightly needs a name: [nightly \"NAME\"] in config bad.conf line 1\n" },
		{ "[nightly \"\"]\n\tbranch = x\n",
		  "lab: a nightly needs a name: [nightly \"NAME\"] in config bad.conf line 1\n" },
		{ "[nightly \"a\"]\n\tpolicy = all\n",
		  "lab: bad value 'all' for 'nightly.a.policy' in config bad.conf line 2: expected head or new\n" },
		{ "[nightly \"a\"]\n\tsmtp = mail.example.org\n",
		  "lab: bad value 'mail.example.org' for 'nightly.a.smtp' in config bad.conf line 2: "
		  "expected an smtp:// or smtps:// URL\n" },
		{ "[nightly \"a\"]\n\tdelta = 2\n",
		  "lab: bad value '2' for 'nightly.a.delta' in config bad.conf line 2: "
		  "expected a fraction such as 0.5% or 0.005\n" },
		{ "[nightly \"a\"]\n\tboots = 0\n",
		  "lab: bad value '0' for 'nightly.a.boots' in config bad.conf line 2: expected a positive integer\n" },
		{ "[nightly \"a\"]\n\tbranches = x\n",
		  "lab: unknown key 'nightly.a.branches' in config bad.conf line 2 (known: repository, "
		  "branch, workloads, mem, cmdline, clock, boots, iters, policy, maxcommits, bisectbudget, "
		  "delta, mailto, mailfrom, smtp, webhook, credentials, baseurl)\n" },
	};
	struct lab_config cfg;
	struct strbuf err = STRBUF_INIT;
	const struct lab_nightly *n;

	ok(!load_text(&cfg, text, &err), "nightly sections: read");
	is_int(cfg.nnightlies, 2, "two nightlies");
	n = config_nightly(&cfg, "mm-unstable");
	ok(n != NULL, "found by name");
	if (n) {
		is_str(n->repository, "git://127.0.0.1/linux", "repository");
		is_str(n->branch, "mm-unstable", "branch");
		is_str(n->workloads, "zeroing,demote", "workloads");
		is_str(n->mem, "1G,4G", "two sizes, checked, as written");
		is_int(n->ncmdlines, 2, "cmdline repeated: two command lines");
		is_str(n->ncmdlines ? n->cmdlines[0] : NULL, "hugetlb_free_vmemmap=on nokaslr",
		       "the first, unquoted");
		is_str(n->clock, "icount", "clock");
		is_int(n->boots, 5, "boots");
		is_int(n->policy, NIGHTLY_NEW, "policy new");
		is_int(n->max_commits, 4, "maxCommits, case-insensitive");
		is_int(n->bisect_budget, 40, "bisectBudget");
		ok(n->delta == 0.005, "delta 0.5 percent is 0.005");
		is_str(n->smtp, "smtp://127.0.0.1:2525", "smtp");
		is_str(n->credentials, "/etc/lab/secret", "credentials");
	}
	n = config_nightly(&cfg, "Own.Tree");
	ok(n && !strcmp(n->branch, "master") && n->boots == 3 && n->policy == NIGHTLY_HEAD,
	   "a name with a dot and case kept; defaults: master, 3 boots, head only");
	ok(!config_nightly(&cfg, "own.tree"), "names are case-sensitive");
	config_release(&cfg);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		strbuf_reset(&err);
		ok(load_text(&cfg, bad[i].text, &err) == -1, "bad nightly refused");
		is_str(err.buf, bad[i].err, "... with its message");
		config_release(&cfg);
	}
	strbuf_release(&err);
}

/* [target "NAME"] sections: read, defaulted, looked up by name and class. */
static void test_targets(void)
{
	struct lab_config cfg;
	struct strbuf err = STRBUF_INIT;
	const struct lab_target *t, **all;
	size_t n;
	struct capture cap;

	ok(!load_text(&cfg, "[target \"vm1\"]\n\trunner = libvirt\n\turi = qemu+ssh://a/system\n"
		      "\tmem = 16G\n\tcpus = 4\n\tclass = big\n[target \"Vm_2\"]\n\tclass = big\n"
		      "\taccel = tcg\n\tclock = icount\n\tarch = aarch64\n[target \"solo\"]\n"
		      "\trunner = local\n", &err), "targets are read");
	is_int(cfg.ntargets, 3, "three targets, in file order");
	t = config_target(&cfg, "vm1");
	ok(t && !strcmp(t->runner, "libvirt") && !strcmp(t->uri, "qemu+ssh://a/system") &&
	   t->mem_mib == 16384 && t->cpus == 4 && !strcmp(t->class, "big"), "vm1's keys");
	t = config_target(&cfg, "Vm_2");
	ok(t && !t->runner && !strcmp(t->accel, "tcg") && !strcmp(t->clock, "icount") &&
	   !strcmp(t->arch, "aarch64") && !t->mem_mib, "a target's name keeps its case; keys not given stay unset");
	t = config_target(&cfg, "solo");
	ok(t && !strcmp(t->class, "solo"), "a target without a class is a class of its own");
	ok(!config_target_class(&cfg, "big", &all, &n) && n == 2 && !strcmp(all[0]->name, "vm1") &&
	   !strcmp(all[1]->name, "Vm_2"), "the targets of a class, in file order");
	free(all);
	strbuf_reset(&err);
	capture_start(&cap);
	t = config_target(&cfg, "vm3");
	capture_end(&cap, &err);
	ok(!t, "an unknown target is not found");
	is_str(err.buf, "lab: unknown target 'vm3' (known: vm1, Vm_2, solo)\n", "... and named with the known ones");
	strbuf_reset(&err);
	capture_start(&cap);
	n = (size_t)config_target_class(&cfg, "small", &all, &n);
	capture_end(&cap, &err);
	is_str(err.buf, "lab: no target of class 'small' (known classes: big, solo)\n",
	       "an unknown class is named with the known ones");
	config_release(&cfg);

	strbuf_reset(&err);
	ok(load_text(&cfg, "[target \"x\"]\n\tclock = fast\n", &err) < 0, "a bad clock is refused");
	is_str(err.buf, "lab: bad value 'fast' for 'target.x.clock' in config bad.conf line 2: "
	       "expected wall, icount or auto\n", "... naming the key and the line");
	config_release(&cfg);
	strbuf_reset(&err);
	ok(load_text(&cfg, "[target \"a b\"]\n\tclass = c\n", &err) < 0, "a target name with a blank is refused");
	config_release(&cfg);
	strbuf_reset(&err);
	ok(load_text(&cfg, "[target \"arm1.lab\"]\n\tclass = c\n", &err) < 0, "... so is one with a dot");
	is_str(err.buf, "lab: bad target name 'arm1.lab' in config bad.conf line 2: expected letters, "
	       "digits, '-' and '_'\n", "... naming it");
	config_release(&cfg);
	strbuf_release(&err);
}

/* A [target] of the ssh runner: its own host, the rest from [ssh]. */
static void test_ssh_targets(void)
{
	struct lab_config cfg;
	struct strbuf err = STRBUF_INIT;
	const struct lab_target *t;

	ok(!load_text(&cfg, "[target \"arm1\"]\n\trunner = ssh\n\tclass = arm\n"
		      "\thost = root@arm1\n\tport = 2201\n\tdeadline = 60\n"
		      "[target \"arm2\"]\n\trunner = ssh\n\tclass = arm\n\thost = root@arm2\n"
		      "\tknownHosts = /k2\n\treset = pdu 2\n"
		      "[target \"dflt\"]\n\trunner = ssh\n\tdeadline = 30\n"
		      "[ssh]\n\thost = root@arm0\n\tport = 2200\n\tidentity = /id\n"
		      "\tknownHosts = /k\n\treset = pdu 0\n\trestore = kexec:/boot/good\n", &err),
	   "ssh targets are read");
	is_int((long)err.len, 0, "... without a message");
	t = config_target(&cfg, "arm1");
	ok(t && !strcmp(t->ssh.host, "root@arm1") && !strcmp(t->ssh.port, "2201") &&
	   t->ssh.deadline_s == 60, "a target's own ssh keys");
	ok(t && !strcmp(t->ssh.identity, "/id") && !strcmp(t->ssh.known_hosts, "/k") &&
	   !strcmp(t->ssh.restore, "kexec:/boot/good"), "... the others from [ssh], even after it");
	ok(t && !t->ssh.reset, "... but not [ssh]'s reset: it power-cycles another host");
	t = config_target(&cfg, "arm2");
	ok(t && !t->ssh.port && !strcmp(t->ssh.known_hosts, "/k2") &&
	   !strcmp(t->ssh.reset, "pdu 2") && !t->ssh.deadline_s &&
	   ssh_deadline_s(&t->ssh, 0) == 300 && ssh_deadline_s(&t->ssh, 1) == 900,
	   "... nor [ssh]'s port; [ssh]'s deadline is its default's: 300 s after a kexec, "
	   "900 s through firmware");
	t = config_target(&cfg, "dflt");
	ok(t && !strcmp(t->ssh.host, "root@arm0") && !strcmp(t->ssh.port, "2200") &&
	   !strcmp(t->ssh.reset, "pdu 0") && t->ssh.deadline_s == 30,
	   "a target without a host is [ssh]'s host, with its own keys over it");
	ok(!strcmp(cfg.ssh.host, "root@arm0") && !cfg.ssh.deadline_s, "[ssh] stays as it was");
	t = config_target(&cfg, "arm1");
	ok(t && ssh_deadline_s(&t->ssh, 0) == 60 && ssh_deadline_s(&t->ssh, 1) == 60,
	   "a deadline set is the deadline after a kexec and through firmware");
	config_release(&cfg);

	strbuf_reset(&err);
	ok(load_text(&cfg, "[target \"x\"]\n\trunner = ssh\n\tport = 0\n", &err) < 0,
	   "a bad port of a target is refused");
	is_str(err.buf, "lab: bad value '0' for 'target.x.port' in config bad.conf line 3: "
	       "expected a port number from 1 to 65535\n", "... naming the key and the line");
	config_release(&cfg);
	strbuf_release(&err);
}

/* [workload "NAME"] sections: a program beside the file, its args, settings; bad ones named. */
static void test_workloads(void)
{
	struct lab_config cfg;
	struct strbuf err = STRBUF_INIT;
	const struct lab_workload *w;

	ok(!load_text(&cfg, "[workload \"pf\"]\n\tprogram = bench/pf\n\targ = -n\n\targ = a b\n"
		      "\titers = 3\n\tdeadline = 1m\n\thigher = ops\n\tlower = t_us\n"
		      "[workload \"sng\"]\n\tprogram = stress-ng:mmap\n", &err), "workload sections are read");
	is_int(cfg.nworkloads, 2, "two, in file order");
	w = config_workload_find(cfg.workloads, cfg.nworkloads, "pf");
	ok(w && !strcmp(w->program, "bench/pf"), "a relative program stays relative to a file named so");
	ok(w && w->args.nr == 2 && !strcmp(w->args.v[1], "a b"), "each arg is one argument, blanks and all");
	ok(w && w->iters == 3 && w->deadline_s == 60, "iters and deadline");
	ok(w && w->higher.nr == 1 && !strcmp(w->higher.v[0], "ops") && w->lower.nr == 1,
	   "the directions of metrics");
	w = config_workload_find(cfg.workloads, cfg.nworkloads, "sng");
	ok(w && !strcmp(w->program, "stress-ng:mmap") && !w->iters, "a stressor; what is not given is 0");
	config_release(&cfg);

	ok(load_text(&cfg, "[workload \"zeroing\"]\n\tprogram = /bin/true\n", &err) < 0,
	   "a section named as a built-in workload is refused");
	is_str(err.buf, "lab: workload section 'zeroing' in config bad.conf line 1 has the name of a "
	       "built-in workload: rename it\n", "... naming it and its header's line");
	config_release(&cfg);
	ok(load_text(&cfg, "[run]\n\tcpus = 2\n[workload \"x\"]\n\targ = 1\n", &err) < 0,
	   "a section without a program is refused");
	is_str(err.buf, "lab: workload section 'x' in config bad.conf line 3 has no program "
	       "(program = PATH or stress-ng:STRESSOR)\n", "... naming it and its header's line");
	ok(!cfg.nworkloads && cfg.cpus == 1, "... and nothing of the file is kept");
	config_release(&cfg);
	ok(load_text(&cfg, "[workload \"x\"]\n", &err) < 0, "so is a section without a key");
	is_str(err.buf, "lab: workload section 'x' in config bad.conf line 1 has no program "
	       "(program = PATH or stress-ng:STRESSOR)\n", "... naming its header's line");
	config_release(&cfg);
	ok(load_text(&cfg, "[workload \"x\"]\n\tprogram = /bin/true\n\targ = 1\n"
		     "\tprogram = /bin/false\n", &err) < 0, "a program given twice is refused");
	is_str(err.buf, "lab: key 'program' of [workload \"x\"] given twice in config bad.conf line 4 "
	       "(first at line 2; keys that may repeat: arg, higher, lower)\n",
	       "... naming both lines and the keys that may repeat");
	config_release(&cfg);
	ok(load_text(&cfg, "[workload \"x\"]\n\tprogram = /bin/true\n\titers = 2\n"
		     "[workload \"x\"]\n\titers = 3\n", &err) < 0,
	   "a key under two headers of one section is refused");
	is_str(err.buf, "lab: key 'iters' of [workload \"x\"] given twice in config bad.conf line 5 "
	       "(first at line 3; keys that may repeat: arg, higher, lower)\n", "... naming both lines");
	config_release(&cfg);
	ok(!load_text(&cfg, "[workload \"x\"]\n\targ = 1\n[workload \"y\"]\n\tprogram = /bin/true\n"
		      "[workload \"x\"]\n\tprogram = /bin/true\n\targ = 2\n", &err),
	   "keys under two headers of one section are one section's");
	w = config_workload_find(cfg.workloads, cfg.nworkloads, "x");
	ok(cfg.nworkloads == 2 && w && w->args.nr == 2 && w->line == 1 && w->program_line == 6,
	   "... its args in file order, its line its first header's");
	config_release(&cfg);
	ok(load_text(&cfg, "[workload \"x\"]\n\tprogram = /bin/true\n\thigher = ops\n\tlower = t\n"
		     "\tlower = ops\n", &err) < 0, "a metric both higher and lower is refused");
	is_str(err.buf, "lab: metric 'ops' of workload section 'x' is both higher and lower in "
	       "config bad.conf line 5\n", "... naming the line that says it the second time");
	config_release(&cfg);
	ok(load_text(&cfg, "[workload \"x\"]\n\tprogram = \"a\\bb\"\n", &err) < 0,
	   "a program with a control character is refused");
	config_release(&cfg);
	ok(load_text(&cfg, "[workload \"x\"]\n\tprogram = /bin/true\n\tdeadline = soon\n", &err) < 0,
	   "a bad deadline is refused");
	is_str(err.buf, "lab: bad value 'soon' for 'workload.x.deadline' in config bad.conf line 3: "
	       "expected " SECONDS_EXPECTED "\n", "... naming the key and the line");
	config_release(&cfg);
	ok(load_text(&cfg, "[workload \"x\"]\n\tprogram = /bin/true\n\tdirection = up\n", &err) < 0,
	   "an unknown key is refused");
	is_str(err.buf, "lab: unknown key 'workload.x.direction' in config bad.conf line 3 (known: "
	       "program, arg, iters, deadline, higher, lower)\n", "... with the known ones");
	config_release(&cfg);
	ok(load_text(&cfg, "[workload \"a.b\"]\n\tprogram = /bin/true\n", &err) < 0,
	   "a name that cannot be a stored workload name is refused");
	config_release(&cfg);
	strbuf_release(&err);
}

/* A program that is not there is found missing when used: named with its key's line. */
static void test_workload_program(void)
{
	struct lab_config cfg;
	struct strbuf err = STRBUF_INIT, spec = STRBUF_INIT;
	struct capture cap;
	int ret;

	ok(!load_text(&cfg, "[workload \"pf\"]\n\targ = -n\n\tprogram = nosuch\n"
		      "[workload \"txt\"]\n\tprogram = bad.conf\n", &err),
	   "a program that is not there is read: only a run needs it");
	capture_start(&cap);
	ret = workload_section_spec(&spec, config_workload_find(cfg.workloads, cfg.nworkloads, "pf"));
	capture_end(&cap, &err);
	is_int(ret, -1, "... and refused when the section is used");
	is_str(err.buf, "lab: cannot find program 'nosuch' for 'workload.pf.program' in config "
	       "bad.conf line 3: No such file or directory\n",
	       "... in one line naming the path, the key, the file and the line");
	capture_start(&cap);
	ret = workload_section_spec(&spec, config_workload_find(cfg.workloads, cfg.nworkloads, "txt"));
	capture_end(&cap, &err);
	is_int(ret, -1, "a program that is not executable is refused");
	is_str(err.buf, "lab: program 'bad.conf' for 'workload.txt.program' in config bad.conf line 5 "
	       "is not an executable file\n", "... naming the key's line");
	config_release(&cfg);
	strbuf_release(&spec);
	strbuf_release(&err);
}

/*
 * A list of workloads keeps each parsed: the text stored and shown is the
 * canonical spec, the struct beside it is what the plans read.
 */
static void test_workload_list(void)
{
	struct workload_list l = WORKLOAD_LIST_INIT, one = WORKLOAD_LIST_INIT;
	struct strvec args = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT, want = STRBUF_INIT, joined = STRBUF_INIT;
	struct lab_config cfg;
	char real[4096];

	if (!realpath("/bin/true", real))
		snprintf(real, sizeof(real), "/bin/true");
	ok(!load_text(&cfg, "[workload \"pf\"]\n\tprogram = /bin/true\n\titers = 3\n"
		      "\thigher = ops\n", &err), "a section to resolve");
	ok(!workloads_parse_list(&l, "zeroing,exec:/bin/true -n 5,pf"), "a list parses");
	is_int((int)l.specs.nr, 3, "... into three workloads");
	ok(!l.user[0] && !l.user[2], "... a built-in and a section's name not parsed");
	strbuf_addf(&want, "exec:%s -n 5", real);
	is_str(l.specs.v[1], want.buf, "... an exec: spec in canonical spelling");
	ok(l.user[1] && !strcmp(l.user[1]->name.buf, "true") && l.user[1]->args.nr == 2,
	   "... parsed beside it");
	ok(!workloads_resolve(&l, NULL, NULL, 0, cfg.workloads, cfg.nworkloads),
	   "the section resolves");
	strbuf_reset(&want);
	strbuf_addf(&want, "[pf iters=3 higher=ops] exec:%s", real);
	is_str(l.specs.v[2], want.buf, "... into its canonical spec");
	ok(l.user[2] && !strcmp(l.user[2]->name.buf, "pf") && l.user[2]->iters == 3,
	   "... parsed, with its settings");
	is_int(workload_metric(l.specs.v[2], l.user[2], "ops", NULL), WORKLOAD_METRIC_YES,
	       "its declared metric is known");
	is_int(workload_metric(l.specs.v[1], l.user[1], "ops", NULL), WORKLOAD_METRIC_UNKNOWN,
	       "an exec: program's are not");
	workload_list_join(&joined, &l);
	strbuf_reset(&want);
	strbuf_addf(&want, "zeroing,exec:%s -n 5,[pf iters=3 higher=ops] exec:%s", real, real);
	is_str(joined.buf, want.buf, "the list stored as its specs, ',' between them");

	strvec_push(&args, "a b");
	ok(!workloads_parse_list(&one, "exec:/bin/true") &&
	   !workloads_resolve(&one, &args, NULL, 0, NULL, 0), "--arg joins the exec: workload");
	strbuf_reset(&want);
	strbuf_addf(&want, "exec:%s 'a b'", real);
	is_str(one.specs.v[0], want.buf, "... quoted in its spec");
	ok(one.user[0]->args.nr == 1 && !strcmp(one.user[0]->args.v[0], "a b"),
	   "... and one argument of the parsed workload");
	workload_list_release(&l);
	workload_list_release(&one);
	strvec_release(&args);
	config_release(&cfg);
	strbuf_release(&err);
	strbuf_release(&want);
	strbuf_release(&joined);
}

/* Read text as a recipe; recipe_read()'s result, stderr in err. */
static int recipe_text(struct recipe *r, const char *text, struct strbuf *err)
{
	struct capture cap;
	int ret;

	write_file("bad.recipe", text);
	capture_start(&cap);
	ret = recipe_read(r, "bad.recipe");
	capture_end(&cap, err);
	return ret;
}

/* Recipes: the keys recipe.h calls repeatable repeat; any other is refused twice. */
static void test_recipe_keys(void)
{
	static const char head[] = "[recipe]\n\tref = base\n\tworkload = zeroing\n";
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	struct recipe r;

	strbuf_addf(&text, "%s\tarch = x86_64\n\tarch = aarch64\n\tmetric = zeroing.touch\n"
		    "\tmetric = zeroing.clear_huge_page\n\tparam = a=1\n\tparam = b=2\n"
		    "\tprobe = p\n\tprobe = q\n\tworkload = demote\n[variant \"a\"]\n\tcmdline = x\n"
		    "[variant \"b\"]\n\tconfig = c1\n\tconfig = c2\n\tapply = p1\n\tapply = p2\n", head);
	ok(!recipe_text(&r, text.buf, &err), "a recipe with every repeatable key twice is read");
	is_int((long)err.len, 0, "... without a word");
	ok(r.arches.nr == 2 && r.metrics.nr == 2 && r.params.nr == 2 && r.probes.nr == 2 &&
	   r.workloads.nr == 2 && r.nv == 2 && r.v[1].configs.nr == 2 && r.v[1].applies.nr == 2,
	   "... each of them twice");
	recipe_release(&r);

	strbuf_reset(&text);
	strbuf_addf(&text, "%s\tmetric = zeroing.touch\n[variant \"a\"]\n\tref = v1\n"
		    "[variant \"b\"]\n\tref = v2\n\tcmdline = x\n\tref = v3\n", head);
	is_int(recipe_text(&r, text.buf, &err), -1, "a variant's ref given twice is refused");
	is_str(err.buf, "lab: key 'ref' of [variant \"b\"] given twice in recipe bad.recipe line 10 "
	       "(first at line 8; keys that may repeat: config, apply)\n",
	       "... naming the key, the variant and both lines");
	ok(!r.nv && !r.path, "... and nothing of the file is kept");
	recipe_release(&r);

	strbuf_reset(&text);
	strbuf_addf(&text, "%s\tmetric = zeroing.touch\n\tboots = 3\n\tboots = 5\n", head);
	is_int(recipe_text(&r, text.buf, &err), -1, "a recipe's boots given twice is refused");
	is_str(err.buf, "lab: key 'boots' of [recipe] given twice in recipe bad.recipe line 6 "
	       "(first at line 5; keys that may repeat: arch, workload, metric, param, probe)\n",
	       "... naming the keys that may repeat");
	recipe_release(&r);

	is_int(recipe_text(&r, "[recipe]\n\tworkload = pf\n\tmetric = pf.x\n[variant \"a\"]\n"
			   "\tref = v1\n[workload \"pf\"]\n\targ = 1\n[variant \"b\"]\n\tref = v2\n",
			   &err), -1, "a recipe's workload section without a program is refused");
	is_str(err.buf, "lab: workload section 'pf' in recipe bad.recipe line 6 has no program "
	       "(program = PATH or stress-ng:STRESSOR)\n", "... naming its header's line");
	recipe_release(&r);

	is_int(recipe_text(&r, "[recipe]\n\tworkload = zeroing\n\tmetric = zeroing.touch\n"
			   "[variant \"a\"]\n\tref = v1\n[variant \"b\"]\n\tcmdline = x\n", &err),
	       -1, "a variant without a ref is refused");
	is_str(err.buf, "lab: variant 'b' in recipe bad.recipe line 6 has no ref (variant.b.ref or "
	       "recipe.ref)\n", "... naming its header's line");
	recipe_release(&r);

	is_int(recipe_text(&r, "# no table\n[recipe]\n\tworkload = zeroing\n[variant \"a\"]\n"
			   "\tref = v1\n[variant \"b\"]\n\tref = v2\n", &err),
	       -1, "a recipe without a metric is refused");
	is_str(err.buf, "lab: [recipe] in recipe bad.recipe line 2 has no metric for its table "
	       "(recipe.metric)\n", "... naming the line of [recipe]");
	recipe_release(&r);

	unlink("bad.recipe");
	strbuf_release(&text);
	strbuf_release(&err);
}

/* lab.conf's runner numbers name the runners' own list, each both ways. */
static void test_runner_names(void)
{
	static const struct {
		enum lab_runner id;
		const char *name;
	} want[] = {
		{ LAB_RUNNER_QEMU, "qemu" }, { LAB_RUNNER_LOCAL, "local" },
		{ LAB_RUNNER_LIBVIRT, "libvirt" }, { LAB_RUNNER_SSH, "ssh" },
		{ LAB_RUNNER_LAVA, "lava" },
	};
	enum lab_runner got;

	is_int(runner_nr, sizeof(want) / sizeof(*want), "as many runners as lab.conf numbers");
	for (size_t i = 0; i < sizeof(want) / sizeof(*want); i++) {
		is_str(config_runner_name(want[i].id), want[i].name, want[i].name);
		ok(!parse_runner(want[i].name, &got) && got == want[i].id, "and back");
	}
	ok(parse_runner("rsh", &got) < 0, "an unknown name refused");
}

int main(void)
{
	char dir[] = "/tmp/test-config.XXXXXX";
	static const char *files[] = { "lab.conf", "env.conf", "bad.conf" };
	size_t i;

	if (!mkdtemp(dir) || chdir(dir) < 0) {
		perror(dir);
		return 2;
	}
	test_parsers();
	test_runner_names();
	test_files();
	test_nightly();
	test_bad_values();
	test_bad_syntax();
	test_sections_parameter();
	test_targets();
	test_ssh_targets();
	test_workloads();
	test_workload_program();
	test_workload_list();
	test_recipe_keys();

	for (i = 0; i < sizeof(files) / sizeof(*files); i++)
		unlink(files[i]);
	if (chdir("/") < 0 || rmdir(dir) < 0)
		printf("# cannot remove %s: %s\n", dir, strerror(errno));
	return done_testing();
}
