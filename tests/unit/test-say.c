/*
 * lib/say.c: the lines a plan says on stderr, byte for byte: the meter cleared
 * before them, escaped for a terminal, quiet when asked, prose and shell
 * commands kept within 100 columns.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "escape.h"
#include "meter.h"
#include "say.h"
#include "strbuf.h"
#include "strvec.h"
#include "tap.h"
#include "textfmt.h"

static struct capture cap;
static struct strbuf out = STRBUF_INIT;

static const char *heard(void)
{
	return capture_next(&cap, &out);
}

/* The widest line of s, in columns. */
static size_t widest(const char *s)
{
	size_t most = 0;

	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		char line[512];
		size_t w;

		snprintf(line, sizeof(line), "%.*s", (int)len, s);
		w = textfmt_width(line);
		most = w > most ? w : most;
		s += len + !!nl;
	}
	return most;
}

static void test_lines(void)
{
	say("experiment E%d: %s", 7, "started");
	is_str(heard(), "experiment E7: started\n", "a line, its newline the voice's");
	say("  %s: boot A BOOT_FAILED: %s", "host\x1b[2J", "no console\r\n");
	is_str(heard(), "  host\\x1b[2J: boot A BOOT_FAILED: no console\n\n",
	       "text from outside is escaped, its line ends kept");
	meter_mode = METER_QUIET;
	say_more("  boot A OK (run %d)", 3);
	say("  boot B BOOT_FAILED (run %d)", 4);
	is_str(heard(), "  boot B BOOT_FAILED (run 4)\n",
	       "under --quiet what went well is not said, what went wrong is");
	meter_mode = METER_AUTO;
	say_more("  boot A OK (run %d)", 3);
	is_str(heard(), "  boot A OK (run 3)\n", "and without it, it is");
}

static void test_meter_cleared(void)
{
	struct meter m;

	meter_init(&m, stderr);
	m.in_place = 1;
	meter_begin(&m, 0, 0, "boot 1 of 2");
	meter_phase(&m, "starting");
	heard();
	say("step 1: v1 is good");
	is_str(heard(), "\r\033[Kstep 1: v1 is good\n",
	       "a meter on the screen is cleared before the line");
	meter_release(&m);
}

static void test_wrap(void)
{
	say_wrap("  ", "hint: build the kernel with CONFIG_FUNCTION_PROFILER=y (the lab's "
		 "kernels/configs enable it), or time chosen functions by function_graph: "
		 "--functions F1,F2");
	is_str(heard(),
	       "hint: build the kernel with CONFIG_FUNCTION_PROFILER=y (the lab's kernels/configs "
	       "enable it), or\n  time chosen functions by function_graph: --functions F1,F2\n",
	       "prose is broken at a space within 100 columns, the rest indented");
}

static void test_lines_wrapped(void)
{
	const char *err = "qemu-system-x86_64: -drive file=/var/lib/lab/cache/images/rootfs.img: "
			  "Could not open: Permission denied";
	FILE *f = tmpfile();
	char got[1024];
	size_t n;

	say("  %s: boot %c %s (run %d, %.1f s): %s", "arm1", 'A', "INFRA", 12, 3.5, err);
	is_str(heard(),
	       "  arm1: boot A INFRA (run 12, 3.5 s): qemu-system-x86_64: -drive\n"
	       "    file=/var/lib/lab/cache/images/rootfs.img: Could not open: Permission denied\n",
	       "a long line of news is broken at a space, its further line indented four");
	say_more("  log: %s\n  %s", "build.log", err);
	is_str(heard(),
	       "  log: build.log\n"
	       "  qemu-system-x86_64: -drive file=/var/lib/lab/cache/images/rootfs.img: "
	       "Could not open: Permission\n    denied\n",
	       "each line of a format with a newline is wrapped on its own");
	say_to(f, "nightly %s, night %d: %d commits measured, %d regressions, %d improvements, "
	       "%d infrastructure failures", "linux-next", 120, 3, 0, 0, 0);
	rewind(f);
	n = fread(got, 1, sizeof(got) - 1, f);
	got[n] = '\0';
	is_str(got,
	       "nightly linux-next, night 120: 3 commits measured, 0 regressions, 0 improvements, "
	       "0 infrastructure\n    failures\n",
	       "a line to a stream of the command's is wrapped alike");
	ok(widest(got) <= TEXTFMT_COLUMNS, "within the columns");
	fclose(f);
}

static void test_command(void)
{
	const char *cmd = "lab ab --a-kernel /srv/kernels/v6.12/arch/x86/boot/bzImage "
			  "--b-kernel /srv/kernels/v6.13-rc1/arch/x86/boot/bzImage "
			  "--workload 'exec:/srv/work/run.sh --ops 1000' --boots 10";
	struct strbuf sb = STRBUF_INIT;

	say_add_command(&sb, "  resume it with: ", cmd);
	is_str(sb.buf,
	       "  resume it with: lab ab --a-kernel /srv/kernels/v6.12/arch/x86/boot/bzImage \\\n"
	       "    --b-kernel /srv/kernels/v6.13-rc1/arch/x86/boot/bzImage \\\n"
	       "    --workload 'exec:/srv/work/run.sh --ops 1000' --boots 10\n",
	       "a command is broken between words, each line but the last continued");
	ok(widest(sb.buf) <= TEXTFMT_COLUMNS, "no line of it passes 100 columns");
	say_command("  resume it with: ", cmd);
	is_str(heard(), sb.buf, "said, it is the same lines");
	say_interrupted("lab bisect --db lab.db --resume E7", "bisection E%d", 7);
	is_str(heard(), "bisection E7: interrupted, its finished boots kept; resume it with:\n"
	       "  lab bisect --db lab.db --resume E7\n",
	       "an interrupted command: what stopped, then the command that goes on");
	say_interrupted("lab recipe --resume", "recipe %s",
			"/srv/lab/recipes/nightly/storage-writeback-throttling-v6.12.toml");
	is_str(heard(), "recipe /srv/lab/recipes/nightly/storage-writeback-throttling-v6.12.toml: "
	       "interrupted, its finished\n  boots kept; resume it with:\n  lab recipe --resume\n",
	       "a long headline is wrapped within 100 columns, the rest indented");
	say_stopped("lab run --boots 2", "lab run: interrupted after %d of %d boots; the other %d with:",
		    1, 3, 2);
	is_str(heard(), "lab run: interrupted after 1 of 3 boots; the other 2 with:\n"
	       "  lab run --boots 2\n", "a command's own headline, then the command that goes on");
	strbuf_reset(&sb);
	say_add_command(&sb, "  command: ", "lab ab 'unclosed");
	is_str(sb.buf, "  command: lab ab 'unclosed\n", "a line the shell cannot split stays whole");
	strbuf_release(&sb);
}

/* The words bash makes of script, after lab() is defined to print each as "[word]". */
static void pasted(struct strbuf *words, const char *script)
{
	char path[] = "/tmp/test-say-XXXXXX", buf[4096];
	int fd = mkstemp(path);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w"), *p;
	size_t n;

	if (!f)
		return;
	fprintf(f, "lab() { printf '[%%s]\\n' \"$@\"; }\n%s", script);
	fclose(f);
	snprintf(buf, sizeof(buf), "bash %s", path);
	p = popen(buf, "r");
	while (p && (n = fread(buf, 1, sizeof(buf), p)) > 0)
		strbuf_add(words, buf, n);
	if (p)
		pclose(p);
	unlink(path);
}

/* said, pasted into bash, gives back cmd's words after its name, the same bytes */
static void expect_pasted(const char *said, const char *cmd, const char *what)
{
	struct strvec words = STRVEC_INIT;
	struct strbuf want = STRBUF_INIT, got = STRBUF_INIT;

	split_shell_words(&words, cmd);
	/* lab() prints the words after its name */
	for (size_t i = 1; i < words.nr; i++)
		strbuf_addf(&want, "[%s]\n", words.v[i]);
	pasted(&got, said);
	is_str(got.buf, want.buf, what);
	strvec_release(&words);
	strbuf_release_all(&want, &got);
}

static void test_command_long_word(void)
{
	struct strbuf cmd = STRBUF_INIT, sb = STRBUF_INIT;
	const char *value;

	strbuf_addstr(&cmd, "lab ab --db int.db --a-cmdline 'sleep=1");
	for (int i = 0; i < 12; i++)
		strbuf_addf(&cmd, " hugetlb_free_vmemmap=on%d", i);
	strbuf_addstr(&cmd, " note=it'\\''s café' --b-cmdline x --resume E1");
	say_add_command(&sb, "  ", cmd.buf);
	ok(widest(sb.buf) <= TEXTFMT_COLUMNS, "a word wider than a line is split within 100 columns");
	ok(strstr(sb.buf, "'\\\n'") != NULL,
	   "a piece ends its quote and line, the next reopens it at column 0");
	value = strstr(sb.buf, "--a-cmdline '");
	ok(value && !strchr("\\\n", value[-1]), "the value starts on the line of its option");
	expect_pasted(sb.buf, cmd.buf, "pasted into bash, the pieces are the one word again");
	strbuf_release_all(&cmd, &sb);
}

/* A command holding words with control bytes, said and pasted into bash: the same words. */
static void test_command_control(void)
{
	struct strbuf cmd = STRBUF_INIT, wide = STRBUF_INIT;
	const char *value = "quiet\x1b[1m\tit's a \\ path\x7f";
	struct strvec words = STRVEC_INIT;

	strbuf_addstr(&cmd, "lab ab --b-cmdline ");
	escape_shell(&cmd, value);
	strbuf_addstr(&cmd, " --a-cmdline ");
	/* a word wider than a line, said in pieces */
	for (int i = 0; i < 12; i++)
		strbuf_addf(&wide, "x%d=\x1b[%dm\t", i, i);
	escape_shell(&cmd, wide.buf);
	strbuf_addstr(&cmd, " --resume E1");
	say_command("  ", cmd.buf);
	split_shell_words(&words, cmd.buf);
	ok(!strcmp(words.v[3], value), "the command holds the control bytes");
	heard();
	ok(widest(out.buf) <= TEXTFMT_COLUMNS, "said within 100 columns");
	ok(!strchr(out.buf, '\x1b') && !strchr(out.buf, '\t'), "no control byte reaches the terminal");
	expect_pasted(out.buf, cmd.buf, "pasted into bash, the words hold the same bytes");
	strvec_release(&words);
	strbuf_release_all(&cmd, &wide);
}

int main(void)
{
	capture_start(&cap);
	test_lines();
	test_meter_cleared();
	test_wrap();
	test_lines_wrapped();
	test_command();
	test_command_long_word();
	test_command_control();
	capture_end(&cap, &out);
	strbuf_release(&out);
	return done_testing();
}
