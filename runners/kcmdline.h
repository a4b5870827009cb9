#ifndef KCMDLINE_H
#define KCMDLINE_H
/*
 * What may go on a kernel command line the lab assembles: the lab's own
 * words (lab.workload=..., lab.iters=..., each --param K=V as lab.K=V)
 * and a user's extra words (--cmdline, a recipe's or lab.conf's). Every
 * piece is checked here before anything joins them; nothing is spliced
 * or quoted.
 *
 * The kernel splits its command line at blanks and groups a "quoted"
 * value into one parameter, while the guest (and a local or ssh runner's
 * argv) split at spaces only: a value with a blank, a double quote or a control
 * character would be read as other words than the lab meant (a
 * profile_functions value "f lab.workload=demote" runs demote). Bytes
 * past ASCII are refused too: the kernel's isspace() takes 0xa0 for a
 * blank. A lab.KEY word of the user's that names a key the lab sets on
 * this boot would override it (the guest keeps the last), so it is
 * refused, naming the key, as is a key given twice.
 *
 * Each function returns 0, or -1 after one line naming the bad piece.
 */
#include "strvec.h"

/* The kernel's COMMAND_LINE_SIZE on x86_64 and arm64, its NUL included. */
#define KCMDLINE_MAX 2048

/* Is value (what names it in a message) one word: printable ASCII, no blank or double quote? */
int kcmdline_word_check(const char *what, const char *value);

/*
 * Is name a function ftrace can be told of by name: a C identifier,
 * perhaps with the suffixes of a compiler's clone (".isra.0", ".cold")?
 * No glob and no ":mod:" command: the guest times each name it is given.
 */
int kcmdline_function_ok(const char *name);

/*
 * The pieces of one boot's command line: workloads (lab.workload's value),
 * params (each "K=V", passed as lab.K=V), cmdline (the user's words, NULL
 * for none; what names where they came from). limit: the longest line
 * the target kernel takes (KCMDLINE_MAX), 0 when no kernel reads it.
 */
int kcmdline_check(const char *workloads, const struct strvec *params, const char *cmdline,
		   const char *what, size_t limit);

/*
 * The words of a host's own command line (host_cmdline, its /proc/cmdline)
 * that a kernel kexec'd there needs to come up as the host does, added to
 * sb, blank-separated: its root (root=, rootfstype=, rootflags=, ro, rw),
 * its console (console=) and its network's names and addresses (ip=,
 * net.ifnames=, biosdevname=, ifname=): a host whose NIC is eth0 by
 * net.ifnames=0, or whose address is ip=, comes back without its network
 * when they are dropped. Each kept word must be one word as
 * kcmdline_word_check() says; -1 with the first that is not in *why,
 * nothing printed (a runner puts it in its run's error).
 */
struct strbuf;
int kcmdline_host_words(struct strbuf *sb, const char *host_cmdline, struct strbuf *why);

/*
 * 1 when command lines a and b (NULL: none) give a kernel the same: the
 * same parameters, in any order, but a parameter given more than once
 * (the kernel takes the last) in the same order, and the same arguments
 * for init after "--" in the same order. "a=1 b=2" is "b=2 a=1"; "a=1 a=2"
 * is not "a=2 a=1".
 */
int kcmdline_same(const char *a, const char *b);

#endif
