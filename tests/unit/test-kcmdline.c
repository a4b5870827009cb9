/*
 * What may go on a kernel command line the lab assembles: each value one
 * word, the user's words never setting a key the lab sets, the line
 * within what a kernel takes, and function names for ftrace.
 */
#include <string.h>

#include "capture.h"
#include "kcmdline.h"
#include "protocol.h"
#include "ssh-remote.h"
#include "strbuf.h"
#include "tap.h"

/* kcmdline_check's answer, and the line it printed into *err */
static int check(struct strbuf *err, const char *workloads, const char *const *params,
		 const char *cmdline, size_t limit)
{
	struct strvec pv = STRVEC_INIT;
	struct capture cap;
	int ret;

	for (size_t i = 0; params && params[i]; i++)
		strvec_push(&pv, params[i]);
	capture_start(&cap);
	ret = kcmdline_check(workloads, &pv, cmdline, "--cmdline", limit);
	capture_end(&cap, err);
	strvec_release(&pv);
	return ret;
}

static void test_values(void)
{
	struct strbuf err = STRBUF_INIT;
	const char *const good[] = { "thp=never", "trace=a,b", "workdir_x=1", NULL };
	const char *const spliced[] = { "profile_functions=f lab.workload=demote", NULL };
	const char *const quoted[] = { "trace=\"a\"", NULL };
	const char *const ctl[] = { "trace=a\tb", NULL };
	const char *const nbsp[] = { "trace=a\xc3\xa0", NULL };
	const char *const own[] = { "workload=demote", NULL };
	const char *const nonce[] = { "nonce=0123456789abcdef", NULL };
	const char *const twice[] = { "thp=never", "thp=always", NULL };
	const char *const nokey[] = { "=1", NULL };
	const char *const badkey[] = { "a.b=1", NULL };

	is_int(check(&err, "zeroing,demote", good, "hugetlb_free_vmemmap=on nokaslr", KCMDLINE_MAX),
	       0, "plain words pass");
	is_int((int)err.len, 0, "and say nothing");
	is_int(check(&err, "zeroing", spliced, NULL, 0), -1, "a value with a blank is refused");
	is_str(err.buf, "lab: guest parameter 'profile_functions=f lab.workload=demote' holds a "
	       "blank: it cannot be one word of a kernel command line\n", "naming it, one line");
	is_int(check(&err, "zeroing", quoted, NULL, 0), -1, "a double quote is refused");
	is_int(check(&err, "zeroing", ctl, NULL, 0), -1, "a tab is refused");
	is_str(err.buf, "lab: guest parameter 'trace=a\\x09b' holds a control character: it cannot "
	       "be one word of a kernel command line\n", "shown escaped");
	is_int(check(&err, "zeroing", nbsp, NULL, 0), -1,
	       "a byte past ASCII is refused (the kernel's isspace(0xa0))");
	is_int(check(&err, "zero ing", NULL, NULL, 0), -1, "a workload list with a blank too");
	is_int(check(&err, "zeroing", own, NULL, 0), -1, "--param workload= is refused");
	is_str(err.buf, "lab: guest parameter 'workload=demote' sets lab.workload, which the lab "
	       "sets itself (use --workload)\n", "naming the key and the option");
	is_int(check(&err, "zeroing", nonce, NULL, 0), -1, "--param nonce= is refused");
	is_str(err.buf, "lab: guest parameter 'nonce=0123456789abcdef' sets lab.nonce, which the "
	       "lab sets itself\n", "with no option to offer");
	is_int(check(&err, "zeroing", twice, NULL, 0), -1, "a key given twice is refused");
	is_str(err.buf, "lab: lab.thp is given twice on the kernel command line ('thp=never' and "
	       "'thp=always')\n", "naming both");
	is_int(check(&err, "zeroing", nokey, NULL, 0), -1, "a param without a key is refused");
	is_int(check(&err, "zeroing", badkey, NULL, 0), -1, "a key with a dot is refused");
	strbuf_release(&err);
}

static void test_user_words(void)
{
	struct strbuf err = STRBUF_INIT;
	const char *const thp[] = { "thp=never", NULL };

	is_int(check(&err, "zeroing", NULL, "scale=1 lab.workload=demote", 0), -1,
	       "--cmdline lab.workload= is refused");
	is_str(err.buf, "lab: --cmdline word 'lab.workload=demote' sets lab.workload, which the "
	       "lab sets itself (use --workload)\n", "naming the key");
	is_int(check(&err, "zeroing", NULL, "lab.iters", 0), -1, "a bare lab.iters too");
	is_int(check(&err, "zeroing", NULL, "lab.nonce=00", 0), -1, "and lab.nonce");
	is_int(check(&err, "zeroing", thp, "lab.thp=always", 0), -1,
	       "a key a --param sets is refused");
	is_str(err.buf, "lab: --cmdline word 'lab.thp=always' sets lab.thp, which a guest "
	       "parameter of this boot sets already\n", "saying so");
	is_int(check(&err, "zeroing", NULL, "lab.side=a  lab.thp=always laby.workload=x", 0), 0,
	       "other lab.* keys and look-alikes pass, runs of blanks too");
	is_int(check(&err, "zeroing", NULL, "dyndbg=\"file a.c +p\"", 0), -1,
	       "a quoted value is refused: the guest would split it");
	is_str(err.buf, "lab: --cmdline 'dyndbg=\"file a.c +p\"' holds a double quote: a kernel "
	       "command line takes words of printable ASCII without double quotes\n", "naming the line");
	is_int(check(&err, "zeroing", NULL, "a\nlab.workload=demote", 0), -1, "a newline too");
	is_int(check(&err, "zeroing", NULL, "x=1 y='2'", 0), 0,
	       "a single quote passes: the kernel's parser gives it no meaning");
	is_int(check(&err, "zeroing", NULL, "@lab sample zeroing touch 77 1.5 us *84b84268", 0), 0,
	       "words that look like protocol lines pass: the nonce answers them");
	strbuf_release(&err);
}

static void test_length(void)
{
	struct strbuf err = STRBUF_INIT, line = STRBUF_INIT;

	for (int i = 0; i < 1900; i++)
		strbuf_addch(&line, 'x');
	is_int(check(&err, "zeroing", NULL, line.buf, KCMDLINE_MAX), 0,
	       "1900 bytes of --cmdline fit with the lab's words");
	for (int i = 0; i < 100; i++)
		strbuf_addch(&line, 'x');
	is_int(check(&err, "zeroing", NULL, line.buf, KCMDLINE_MAX), -1,
	       "2000 do not: the kernel would cut the line, nonce and all");
	is_int(check(&err, "zeroing", NULL, line.buf, 0), 0, "no limit where no kernel reads it");
	strbuf_release(&line);
	strbuf_release(&err);
}

static void test_functions(void)
{
	ok(kcmdline_function_ok("handle_mm_fault"), "an identifier");
	ok(kcmdline_function_ok("_x9"), "underscore and digits");
	ok(kcmdline_function_ok("clear_huge_page.isra.0"), "a clone's suffixes");
	ok(kcmdline_function_ok("f.cold"), "a cold part");
	ok(!kcmdline_function_ok(""), "not empty");
	ok(!kcmdline_function_ok("9f"), "not from a digit");
	ok(!kcmdline_function_ok("f lab.workload=demote"), "no blank");
	ok(!kcmdline_function_ok("vfs_*"), "no glob");
	ok(!kcmdline_function_ok("f:mod:ext4"), "no :mod: command");
	ok(!kcmdline_function_ok("f."), "no empty suffix");
	ok(!kcmdline_function_ok("f..g"), "nor two dots");
	ok(!kcmdline_function_ok("!f"), "no negation");
}

/* the words a kexec'd kernel keeps of the host's, as the host booted */
static void test_host_words(void)
{
	struct strbuf sb = STRBUF_INIT, why = STRBUF_INIT;

	is_int(kcmdline_host_words(&sb, "BOOT_IMAGE=/vmlinuz root=UUID=4f1c ro quiet "
				   "console=ttyS0,115200 net.ifnames=0 biosdevname=0 "
				   "ip=10.0.0.5::10.0.0.1:255.255.255.0:arm1:eth0:off splash", &why),
	       0, "a host's command line");
	is_str(sb.buf, "root=UUID=4f1c ro console=ttyS0,115200 net.ifnames=0 biosdevname=0 "
	       "ip=10.0.0.5::10.0.0.1:255.255.255.0:arm1:eth0:off",
	       "its root, console and network's words kept, in its order; the rest left");
	strbuf_reset(&sb);
	is_int(kcmdline_host_words(&sb, "root=/dev/vda rw ip=dhcp ifname=eth0:52:54:00:12:34:56 "
				   "rootflags=subvol=@ rootfstype=btrfs rootwait", &why), 0,
	       "ip=dhcp, ifname=, a btrfs subvolume");
	is_str(sb.buf, "root=/dev/vda rw ip=dhcp ifname=eth0:52:54:00:12:34:56 rootflags=subvol=@ "
	       "rootfstype=btrfs", "... each kept whole");
	strbuf_reset(&sb);
	is_int(kcmdline_host_words(&sb, "root=/dev/vda ip=\"dhcp\" quiet", &why), -1,
	       "a kept word with a double quote is refused");
	is_str(why.buf, "the host's command line word 'ip=\"dhcp\"' holds a double quote: it "
	       "cannot be passed on as one word", "... named, nothing printed");
	strbuf_reset(&why);
	strbuf_reset(&sb);
	is_int(kcmdline_host_words(&sb, "root=/dev/vda dyndbg=\"file x +p\"", &why), 0,
	       "a quoted word the kernel under test does not need stays behind");
	is_str(sb.buf, "root=/dev/vda", "... as do its pieces");
	strbuf_release(&sb);
	strbuf_release(&why);
}

/* the kexec'd line with the nonce after it: exactly a kernel's limit fits, a byte more not */
static void test_kexec_length(void)
{
	struct strbuf sb = STRBUF_INIT, why = STRBUF_INIT, v = STRBUF_INIT;
	size_t host = strlen("root=/dev/vda"), nonce = strlen(" lab.nonce=") + PROTOCOL_NONCE_LEN;

	strbuf_addstr(&v, "x=");
	while (host + 1 + v.len + nonce < KCMDLINE_MAX - 1)
		strbuf_addch(&v, 'a');
	is_int(kexec_cmdline(&sb, "root=/dev/vda quiet", v.buf, &why), 0,
	       "kexec: the host's root, the variant and the nonce make 2047 bytes: taken");
	is_int((int)(sb.len + nonce), KCMDLINE_MAX - 1, "kexec: the line is the limit to the byte");
	strbuf_reset(&sb);
	strbuf_addch(&v, 'a');
	is_int(kexec_cmdline(&sb, "root=/dev/vda quiet", v.buf, &why), -1,
	       "kexec: a byte more is refused");
	ok(strstr(why.buf, "past the 2047 a kernel takes") != NULL, "kexec: the reason names the limit");
	strbuf_release(&sb);
	strbuf_release(&why);
	strbuf_release(&v);
}

/* One command line to a kernel: its parameters in any order, a repeated one's in its own. */
static void test_same(void)
{
	ok(kcmdline_same("a=1 b=2", "b=2 a=1"), "same: two parameters in either order");
	ok(kcmdline_same(" quiet  a=1\tb", "b a=1 quiet"), "same: blanks of any kind, flags");
	ok(kcmdline_same(NULL, ""), "same: none and an empty line");
	ok(kcmdline_same("a=1 x=0 a=2", "x=0 a=1 a=2"), "same: a repeated one in its order");
	ok(!kcmdline_same("a=1 a=2", "a=2 a=1"), "not: a repeated one in another order (the last wins)");
	ok(!kcmdline_same("a=1 b=2", "a=1 b=3"), "not: another value");
	ok(!kcmdline_same("a=1", "a=1 a=1"), "not: a word more");
	ok(!kcmdline_same("a", "a="), "not: a flag and an empty value");
	ok(!kcmdline_same("ab=1 a=1", "a=1b=1"), "not: names are whole");
	ok(kcmdline_same("q a=1 -- x y", "a=1 q -- x y"), "same: init's arguments after --");
	ok(!kcmdline_same("a=1 -- x y", "a=1 -- y x"), "not: init's arguments in another order");
	ok(!kcmdline_same("a=1 -- x", "-- a=1 x"), "not: a parameter moved to init");
}

int main(void)
{
	test_same();
	test_host_words();
	test_values();
	test_user_words();
	test_length();
	test_functions();
	test_kexec_length();
	return done_testing();
}
