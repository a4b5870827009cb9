/*
 * lab run: boot a kernel N times (or run the guest locally), run workloads,
 * store every boot, print a table per metric.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot.h"
#include "commands.h"
#include "log.h"
#include "options.h"
#include "pool.h"
#include "progress.h"
#include "subprocess.h"
#include "table.h"

static const char run_usage[] =
"usage: lab run --kernel IMAGE --workload W [options]\n"
"\n"
"  --kernel IMAGE     kernel image to boot (bzImage, vmlinux with PVH, arm64 Image)\n"
"  --workload W       zeroing, demote or boot; repeat or use W1,W2\n"
"  --boots N          boots to run (default 1)\n"
"  --iters N          iterations per workload in a boot (default run.iters)\n"
"  --mem SIZE         guest memory: 512M, 4G, 64G (default run.mem)\n"
"  --cpus N           guest CPUs (default run.cpus)\n"
"  --numa N           N NUMA nodes sharing the memory and CPUs (qemu)\n"
"  --cmdline STR      extra kernel command line\n"
"  --param K=V        extra guest parameter lab.K=V (repeatable)\n"
"  --runner R         qemu, local or libvirt (default run.runner)\n"
"  --accel A          kvm, tcg or auto (default qemu.accel)\n"
"  --clock C          wall, icount or auto: QEMU's -icount makes guest time count\n"
"                     instructions, 2^qemu.icountShift ns each, TCG only; auto is\n"
"                     icount under TCG, wall under KVM (default run.clock)\n"
"  --timeout S        deadline per boot in seconds (default run.timeout)\n"
"  --guest PATH       guest program (default: the one built beside lab)\n"
"  --target NAME      boot on lab.conf's [target \"NAME\"]\n"
"  --targets CLASS    share the boots among the targets of CLASS, at the same time\n"
"  --db PATH          database (default core.db, results/lab.db)\n"
"  --config FILE      configuration file (default ./lab.conf)\n";

int cmd_run(int argc, char **argv)
{
	enum { O_KERNEL = 256, O_WORKLOAD, O_BOOTS, O_ITERS, O_MEM, O_CPUS, O_CMDLINE,
	       O_PARAM, O_RUNNER, O_ACCEL, O_CLOCK, O_TIMEOUT, O_GUEST, O_NUMA, O_DB, O_CONFIG, O_TARGET, O_TARGETS };
	static const struct option longopts[] = {
		{ "kernel", required_argument, NULL, O_KERNEL },
		{ "workload", required_argument, NULL, O_WORKLOAD },
		{ "boots", required_argument, NULL, O_BOOTS },
		{ "iters", required_argument, NULL, O_ITERS },
		{ "mem", required_argument, NULL, O_MEM },
		{ "cpus", required_argument, NULL, O_CPUS },
		{ "cmdline", required_argument, NULL, O_CMDLINE },
		{ "param", required_argument, NULL, O_PARAM },
		{ "runner", required_argument, NULL, O_RUNNER },
		{ "accel", required_argument, NULL, O_ACCEL },
		{ "clock", required_argument, NULL, O_CLOCK },
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "guest", required_argument, NULL, O_GUEST },
		{ "numa", required_argument, NULL, O_NUMA },
		{ "db", required_argument, NULL, O_DB },
		{ "config", required_argument, NULL, O_CONFIG },
		{ "target", required_argument, NULL, O_TARGET }, { "targets", required_argument, NULL, O_TARGETS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct strvec workloads = STRVEC_INIT, params = STRVEC_INIT;
	struct boot_opts o = { .workloads = &workloads, .params = &params };
	struct lab_context ctx;
	struct boot_plan plan;
	struct progress pr;
	const char *db = NULL, *config = NULL;
	long long *run_ids = NULL;
	long boots = 1;
	long bad_boots = 0;
	int c, ret = 2;

	memset(&ctx, 0, sizeof(ctx));
	memset(&plan, 0, sizeof(plan));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		int bad = 0;
		switch (c) {
		case O_KERNEL: o.kernel = optarg; break;
		case O_WORKLOAD:
			if (workloads_parse(&workloads, optarg))
				goto out;
			break;
		case O_BOOTS: bad = parse_positive_int(optarg, &boots); break;
		case O_ITERS: case O_MEM: case O_CPUS: case O_CMDLINE: case O_PARAM:
		case O_RUNNER: case O_ACCEL: case O_CLOCK: case O_TIMEOUT: case O_GUEST: case O_NUMA: case O_TARGET: case O_TARGETS:
			bad = boot_opts_set(&o, &params, longopts[c - O_KERNEL].name, optarg) < 0;
			break;
		case O_DB: db = optarg; break;
		case O_CONFIG: config = optarg; break;
		case 'h':
			fputs(run_usage, stdout);
			ret = 0;
			goto out;
		default:
			option_error("lab run", "h", longopts, argv);
			goto out;
		}
		if (bad) {
			error("bad value '%s' for --%s (see 'lab run --help')", optarg,
			      longopts[c - O_KERNEL].name);
			goto out;
		}
	}
	if (optind < argc) {
		error("unexpected argument '%s' for 'lab run'", argv[optind]);
		goto out;
	}
	run_ids = calloc((size_t)boots, sizeof(*run_ids));
	if (!run_ids) {
		error("out of memory");
		goto out;
	}
	if (context_load_config(&ctx, config, db))
		goto out;
	if (o.targets) {
		if (pool_run_boots(&ctx, &o, boots, run_ids, &bad_boots))
			goto out;
		goto print;
	}
	if (boot_plan_prepare(&plan, &ctx, &o))
		goto out;
	progress_start(&pr, boots);
	for (long k = 0; k < boots; k++) {
		struct run_result res;

		progress_update(&pr, k + 1, NULL);
		if (boot_plan_run(&plan, &ctx, &run_ids[k], &res)) {
			run_result_release(&res);
			goto out;
		}
		progress_boot_done(&pr, k + 1, run_ids[k], &res, plan.log_path.buf);
		bad_boots += res.status != RUN_OK;
		run_result_release(&res);
	}
print:
	if (table_print_runs(stdout, &ctx.st, run_ids, (size_t)boots))
		goto out;
	ret = bad_boots ? 1 : 0;
out:
	boot_plan_release(&plan);
	context_release(&ctx);
	free(run_ids);
	strvec_release(&workloads);
	strvec_release(&params);
	return ret;
}
