#ifndef GUEST_PARAMS_H
#define GUEST_PARAMS_H
/*
 * The guest's parameters: "lab.<key>=<value>" words, from /proc/cmdline
 * when the guest is /init, from argv otherwise. Words without the "lab."
 * prefix belong to the kernel and are skipped.
 *
 *   lab.workload=a,b,c   workloads to run, in order (required)
 *   lab.iters=N          zeroing: timed iterations, the first a warm-up (100);
 *                        demote: 1 GiB pages to demote, as many as fit if fewer
 *   lab.zeroing_mb=N     zeroing: size of the touched region in MiB (100)
 *   lab.thp=MODE         zeroing: always, never or madvise (default: leave as is)
 *   lab.pages=K          demote: 1 GiB pages, overriding lab.iters
 *   lab.trace=f1,f2      boot: functions traced by the kernel command line
 *   lab.profile=1        the function profiler around each workload (profile.h)
 *   lab.profile_functions=f1,f2  without the profiler: these functions, by function_graph
 *   lab.nonce=HEX        the boot's nonce, put in every protocol line; as /init
 *                        without one on the command line, the one in /lab.nonce
 *   lab.workdir=PATH     where the user's workloads are staged (/lab/work)
 *   lab.exec_timeout=S   a user's program run longer than S s is killed (0: never)
 *   lab.exec_pids=N      tasks a run of a user's program may have at once (4096; 0: any)
 */
#include <stddef.h>

#include "protocol.h"

struct params {
	char workloads[1024];
	long iters;
	long zeroing_mb;
	char thp[16];
	long pages;		/* 0: lab.iters */
	char trace[512];
	char nonce[PROTOCOL_NONCE_LEN + 1];
	char workdir[256];
	long exec_timeout;	/* seconds; 0: none */
	long exec_pids;		/* 0: not bounded */
	long profile;		/* 1: profile each workload */
	char profile_functions[512];	/* the profile by function_graph when no profiler */
};

void params_init(struct params *p);

/*
 * Apply one word. Returns 0 when applied or when the word is not lab.*,
 * 1 for a lab.* key this guest does not know, -1 with a reason in why
 * for a bad value.
 */
int params_apply(struct params *p, const char *word, char *why, size_t whysize);

#endif
