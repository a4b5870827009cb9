#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "strbuf.h"
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

static size_t count_lines(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static int starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
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
	};
	static const char *bad_ints[] = { "", "0", "-3", "+3", "3 ", "x", "3x", "0x10",
		"99999999999999999999" };
	static const char *bad_secs[] = { "", "0", "0s", "-1", "5x", "5ms", "s", "1.5m",
		"9223372036854775807h" };
	long v;
	size_t i;

	ok(!parse_size_mib("512M", &v) && v == 512, "size 512M is 512 MiB");
	ok(!parse_size_mib("4G", &v) && v == 4096, "size 4G is 4096 MiB");
	ok(!parse_size_mib("4g", &v) && v == 4096, "size suffix is case-insensitive");
	ok(!parse_size_mib("2048", &v) && v == 2048, "plain size is MiB");
	ok(!parse_size_mib("1T", &v) && v == 1048576, "size 1T is 1048576 MiB");
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
	CHECK(cfg->db && !strcmp(cfg->db, "results/lab.db"), "core.db");
	CHECK(cfg->qemu_x86_64 && !strcmp(cfg->qemu_x86_64, "qemu-system-x86_64"), "x86_64 binary");
	CHECK(cfg->qemu_aarch64 && !strcmp(cfg->qemu_aarch64, "qemu-system-aarch64"), "aarch64 binary");
	CHECK(cfg->accel == LAB_ACCEL_AUTO, "qemu.accel");
	CHECK(cfg->mem_mib == 2048, "run.mem");
	CHECK(cfg->cpus == 1, "run.cpus");
	CHECK(cfg->timeout_s == 300, "run.timeout");
	CHECK(cfg->runner == LAB_RUNNER_QEMU, "run.runner");
	CHECK(cfg->iters == 100, "run.iters");
#undef CHECK
}

static const char full_conf[] =
	"# every key the lab reads\n"
	"[core]\n"
	"\tdb = /var/lib/lab/lab.db\n"
	"[qemu \"x86_64\"]\n"
	"\tbinary = /opt/qemu/bin/qemu-system-x86_64\n"
	"[qemu \"aarch64\"]\n"
	"\tbinary = /opt/qemu/bin/qemu-system-aarch64\n"
	"[qemu]\n"
	"\taccel = tcg\n"
	"[run]\n"
	"\tmem = 4G\n"
	"\tcpus = 8\n"
	"\ttimeout = 5m\n"
	"\trunner = local\n"
	"\titers = 250\n"
	"[user]\n"
	"\tname = someone else's section\n";

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
	is_str(cfg.qemu_x86_64, "/opt/qemu/bin/qemu-system-x86_64", "qemu.x86_64.binary");
	is_str(cfg.qemu_aarch64, "/opt/qemu/bin/qemu-system-aarch64", "qemu.aarch64.binary");
	is_str(config_qemu_binary(&cfg, "aarch64"), "/opt/qemu/bin/qemu-system-aarch64",
	       "config_qemu_binary(aarch64)");
	ok(!config_qemu_binary(&cfg, "riscv64"), "no binary for an unknown arch");
	is_int(cfg.accel, LAB_ACCEL_TCG, "qemu.accel");
	is_str(config_accel_name(cfg.accel), "tcg", "accel name");
	is_int(cfg.mem_mib, 4096, "run.mem");
	is_int(cfg.cpus, 8, "run.cpus");
	is_int(cfg.timeout_s, 300, "run.timeout");
	is_int(cfg.runner, LAB_RUNNER_LOCAL, "run.runner");
	is_str(config_runner_name(cfg.runner), "local", "runner name");
	is_int(cfg.iters, 250, "run.iters");
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

	ret = load_text(&cfg, "[RUN]\n\tCPUs = 3\n\tcpus = 5\n[Core]\n\tDB = x.db\n", &err);
	ok(!ret && cfg.cpus == 5 && !strcmp(cfg.db, "x.db"),
	   "names are case-insensitive and the last value wins");
	is_str(err.buf, "", "... silently");
	config_release(&cfg);

	ret = load_text(&cfg, "[other]\n\tcpus = lots\n[run \"x\"]\n", &err);
	ok(!ret && cfg.cpus == 1, "keys in other sections are ignored");
	config_release(&cfg);

	ret = load_text(&cfg, "[run\n\tcpus = 2\n", &err);
	is_int(ret, -1, "a syntax error fails the load");
	if (!ok(starts_with(err.buf, "lab: cannot read config 'bad.conf': ") &&
		strstr(err.buf, "bad.conf:1") && count_lines(err.buf) == 1,
		"... with libgit2's reason and the line"))
		printf("#   got: %s", err.buf);
	config_release(&cfg);

	strbuf_release(&err);
}

static void test_bad_values(void)
{
	static const struct {
		const char *text, *key, *value, *expected;
	} cases[] = {
		{ "[run]\ncpus = 0\n", "run.cpus", "0", "a positive integer" },
		{ "[run]\ncpus = lots\n", "run.cpus", "lots", "a positive integer" },
		{ "[run]\nmem = lots\n", "run.mem", "lots",
		  "a size such as 512M, 4G or 2048 (MiB)" },
		{ "[qemu]\naccel = fast\n", "qemu.accel", "fast", "kvm, tcg or auto" },
		{ "[run]\ntimeout = -1\n", "run.timeout", "-1",
		  "a number of seconds such as 300, 300s or 5m" },
		{ "[run]\nrunner = ssh\n", "run.runner", "ssh", "qemu or local" },
		{ "[run]\niters = 1e3\n", "run.iters", "1e3", "a positive integer" },
		{ "[core]\ndb =\n", "core.db", "", "a path" },
		{ "[run]\ncpus\n", "run.cpus", "", "a positive integer" },
		{ "[qemu \"x86_64\"]\nbinary = \"\"\n", "qemu.x86_64.binary", "",
		  "a program name or path" },
	};
	static const struct {
		const char *text, *key;
	} unknown[] = {
		{ "[run]\ncpu = 4\n", "run.cpu" },
		{ "[qemu]\nx86-64 = q\n", "qemu.x86-64" },
		{ "[qemu \"riscv64\"]\nbinary = q\n", "qemu.riscv64.binary" },
		{ "[core]\ndatabase = x.db\n", "core.database" },
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
		strbuf_addf(&want, "lab: bad value '%s' for '%s' in bad.conf: expected %s\n",
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
		strbuf_addf(&want, "lab: unknown key '%s' in bad.conf\n", unknown[i].key);
		is_str(err.buf, want.buf, "... and named");
		config_release(&cfg);
	}

	load_text(&cfg, "[run]\ncpus = 4\niters = 0\n", &err);
	check_defaults(&cfg, "after a bad value");
	config_release(&cfg);

	strbuf_release(&want);
	strbuf_release(&err);
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
	test_files();
	test_bad_values();

	for (i = 0; i < sizeof(files) / sizeof(*files); i++)
		unlink(files[i]);
	if (chdir("/") < 0 || rmdir(dir) < 0)
		printf("# cannot remove %s: %s\n", dir, strerror(errno));
	return done_testing();
}
