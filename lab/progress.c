#include <stdio.h>
#include <unistd.h>

#include "progress.h"
#include "subprocess.h"

void progress_start(struct progress *pr, long total)
{
	pr->total = total;
	pr->start = now_monotonic();
	pr->tty = isatty(2);
}

void progress_update(struct progress *pr, long k, const char *label)
{
	if (!pr->tty)
		return;
	fprintf(stderr, "\r\033[Kboot %ld of %ld%s%s, %.0f s elapsed", k, pr->total,
		label ? " " : "", label ? label : "", now_monotonic() - pr->start);
	fflush(stderr);
}

void progress_boot_done(struct progress *pr, long k, long long run_id,
			const struct run_result *res, const char *console_log)
{
	const char *uncontained;

	if (pr->tty)
		fputs("\r\033[K", stderr);
	fprintf(stderr, "boot %ld of %ld: %s (run %lld, %.1f s)\n", k, pr->total,
		run_status_name(res->status), run_id, res->wall_s);
	if (res->status != RUN_OK)
		fprintf(stderr, "  %s\n  console log: %s\n", strbuf_str(&res->error),
			console_log);
	/* reasons are printable: protocol.c and console.c only quote checked text */
	if (res->bad_lines)
		fprintf(stderr, "  %d protocol line(s) dropped, not used (first: %s); "
			"'lab show %lld' lists them\n", res->bad_lines,
			res->dropped_nr ? res->dropped[0].reason : "?", run_id);
	/* what the guest could not keep in here (runners/guest/contain.h): once a boot */
	uncontained = sample_set_meta_get(&res->set, "exec.uncontained");
	if (uncontained)
		fprintf(stderr, "  warning: %s\n", uncontained);
}
