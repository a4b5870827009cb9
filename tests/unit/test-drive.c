/*
 * runners/drive.c with real children on a pipe: how each way of ending
 * is told apart (the child closed its output, the guest said done or the
 * kernel failed and the child lingered, the deadline), that the child's
 * group is killed when the lab stops it, and what the console made of it.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "drive.h"
#include "protocol.h"
#include "tap.h"

static const struct run_spec spec = { .workloads = "zeroing" };

struct drive {
	enum drive_end end;
	double took;		/* seconds drive_child() ran */
	int status;		/* subprocess_finish()'s */
	pid_t bg;		/* a pid the script wrote to ./bg-pid, or 0 */
	struct run_result res;
};

static const char *end_name(enum drive_end e)
{
	switch (e) {
	case DRIVE_EXITED: return "EXITED";
	case DRIVE_FINISHED: return "FINISHED";
	case DRIVE_TIMEOUT: return "TIMEOUT";
	}
	return "?";
}

/* The script under sh -c, driven until timeout_s, its console concluded. */
static int drive(struct drive *d, const char *script, double timeout_s)
{
	char *argv[] = { "sh", "-c", (char *)script, NULL };
	struct console con;
	struct child c;
	double t0 = now_monotonic();
	FILE *f;

	memset(d, 0, sizeof(*d));
	run_result_init(&d->res);
	unlink("bg-pid");
	if (subprocess_start(&c, argv, NULL, SUBPROCESS_CAPTURE))
		return -1;
	console_init(&con, &spec, &d->res, -1,
		     PROTOCOL_CHECKSUM_OPTIONAL | PROTOCOL_NONCE_OPTIONAL, t0);
	d->end = drive_child(&c, &con, t0 + timeout_s);
	d->took = now_monotonic() - t0;
	d->status = subprocess_finish(&c);
	d->res.wall_s = d->took;
	console_conclude(&con, d->end == DRIVE_TIMEOUT);
	console_release(&con);
	f = fopen("bg-pid", "r");
	if (f) {
		if (fscanf(f, "%d", &d->bg) != 1)
			d->bg = 0;
		fclose(f);
	}
	return 0;
}

/* No process with that pid left; orphans are reaped here, a subreaper. */
static int gone_within(pid_t pid, double seconds)
{
	double until = now_monotonic() + seconds;

	do {
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (kill(pid, 0) && errno == ESRCH)
			return 1;
		usleep(20000);
	} while (now_monotonic() < until);
	return 0;
}

static void test_exited(void)
{
	struct drive d;

	ok(!drive(&d, "echo '@lab hello 2 t'; echo '@lab sample zeroing touch 0 5 us';"
		  "printf '@lab sample zeroing touch 1 6 us\\n@lab done ok 2\\n'", 30),
	   "a child that prints its run and exits");
	is_str(end_name(d.end), "EXITED", "... ends EXITED");
	ok(d.took < 5, "... at once, not after a grace period");
	is_int(d.status, 0, "... with its exit status");
	is_str(run_status_name(d.res.status), "OK", "... and its run is OK");
	is_int(d.res.set.nr, 2, "... with both samples");
	run_result_release(&d.res);

	ok(!drive(&d, "echo '@lab hello 2 t'; echo '@lab sample zeroing touch 0 5 us';"
		  "printf '@lab done ok 1'", 30),
	   "a last line without its newline");
	is_str(end_name(d.end), "EXITED", "... ends EXITED");
	is_str(run_status_name(d.res.status), "OK", "... and is read: the run is OK");
	is_int(d.res.set.nr, 1, "... with its sample");
	run_result_release(&d.res);

	ok(!drive(&d, "echo '@lab hello 2 t'; echo '@lab sample zeroing touch 0 5 us'; exit 3", 30),
	   "a child that exits before done");
	is_str(end_name(d.end), "EXITED", "... ends EXITED");
	is_int(d.status, 3, "... with its exit status");
	is_str(run_status_name(d.res.status), "BOOT_FAILED", "... the run BOOT_FAILED");
	is_str(strbuf_str(&d.res.error), "guest stopped before done", "... saying so");
	is_int(d.res.set.nr, 0, "... and keeping no sample");
	run_result_release(&d.res);
}

static void test_finished(void)
{
	struct drive d;

	/* a guest that halts instead of powering off: a little after done */
	ok(!drive(&d, "echo '@lab hello 2 t'; echo '@lab done ok 0';"
		  "echo 'reboot: System halted'; sleep 100 & echo $! >bg-pid; wait", 30),
	   "done, then the kernel halts and the child stays");
	is_str(end_name(d.end), "FINISHED", "... ends FINISHED");
	ok(d.took < 3, "... well before the deadline");
	is_int(d.status, 128 + SIGKILL, "... the child killed");
	ok(d.bg > 0 && gone_within(d.bg, 5), "... with its whole group");
	is_str(run_status_name(d.res.status), "OK", "... and the run is OK");
	run_result_release(&d.res);

	ok(!drive(&d, "echo '@lab hello 2 t'; echo '@lab done ok 0'; exec sleep 100", 60),
	   "done, and the child does not exit");
	is_str(end_name(d.end), "FINISHED", "... ends FINISHED");
	ok(d.took > 5 && d.took < 20, "... after a grace period, well before the deadline");
	is_str(run_status_name(d.res.status), "OK", "... and the run is OK");
	run_result_release(&d.res);

	ok(!drive(&d, "echo 'Linux version 6.1.0'; echo '[    1.0] Kernel panic - not syncing: x';"
		  "exec sleep 100", 60),
	   "a kernel panic, and the child does not exit");
	is_str(end_name(d.end), "FINISHED", "... ends FINISHED");
	ok(d.took > 2 && d.took < 15, "... after a shorter grace period, well before the deadline");
	is_str(run_status_name(d.res.status), "BOOT_FAILED", "... the run BOOT_FAILED");
	is_str(strbuf_str(&d.res.error), "kernel failed: [    1.0] Kernel panic - not syncing: x",
	       "... naming the kernel's line");
	run_result_release(&d.res);
}

static void test_timeout(void)
{
	struct drive d;

	ok(!drive(&d, "echo 'Linux version 6.1.0'; echo '@lab hello 2 t';"
		  "sleep 100 & echo $! >bg-pid; sleep 100", 1),
	   "a child that says hello and then nothing");
	is_str(end_name(d.end), "TIMEOUT", "... ends TIMEOUT");
	ok(d.took >= 1 && d.took < 5, "... at the deadline");
	is_int(d.status, 128 + SIGKILL, "... the child killed");
	ok(d.bg > 0 && gone_within(d.bg, 5), "... with its whole group");
	is_str(run_status_name(d.res.status), "TIMEOUT", "... the run TIMEOUT");
	ok(!strncmp(strbuf_str(&d.res.error), "no result within ", 17) &&
	   strstr(strbuf_str(&d.res.error), " s (guest started)"),
	   "... saying how far it got");
	run_result_release(&d.res);

	ok(!drive(&d, "echo '@lab hello 2 t'; echo '@lab sample zeroing touch 0 5 us'; sleep 100", 1),
	   "a sample, then the deadline");
	is_str(end_name(d.end), "TIMEOUT", "... ends TIMEOUT");
	is_int(d.res.set.nr, 0, "... and a run that timed out keeps no sample");
	run_result_release(&d.res);
}

int main(void)
{
	char dir[] = "/tmp/test-drive.XXXXXX";

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if (!mkdtemp(dir) || chdir(dir))
		return 1;
	test_exited();
	test_finished();
	test_timeout();
	unlink("bg-pid");
	if (chdir("/") || rmdir(dir))
		perror(dir);
	return done_testing();
}
