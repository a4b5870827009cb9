/*
 * lab run: boot a kernel N times (or run the guest locally), run workloads,
 * store every boot, print a table per metric.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "commands.h"
#include "context.h"
#include "cpio.h"
#include "host.h"
#include "image.h"
#include "log.h"
#include "runner.h"
#include "strbuf.h"
#include "strvec.h"
#include "subprocess.h"
#include "table.h"

static const char run_usage[] =
"usage: lab run --kernel IMAGE --workload W [options]\n"
"\n"
"  --kernel IMAGE     kernel image to boot (bzImage or arm64 Image)\n"
"  --workload W       zeroing, demote or boot; repeat or use W1,W2\n"
"  --boots N          boots to run (default 1)\n"
"  --iters N          iterations per workload in a boot (default run.iters)\n"
"  --mem SIZE         guest memory: 512M, 4G, 64G (default run.mem)\n"
"  --cpus N           guest CPUs (default run.cpus)\n"
"  --cmdline STR      extra kernel command line\n"
"  --param K=V        extra guest parameter lab.K=V (repeatable)\n"
"  --runner R         qemu or local (default run.runner)\n"
"  --accel A          kvm, tcg or auto (default qemu.accel)\n"
"  --timeout S        deadline per boot in seconds (default run.timeout)\n"
"  --guest PATH       guest program (default: the one built beside lab)\n"
"  --db PATH          database (default core.db, results/lab.db)\n"
"  --config FILE      configuration file (default ./lab.conf)\n";

struct run_opts {
	const char *kernel, *cmdline, *runner, *accel, *guest, *db, *config;
	struct strvec workloads, params;
	long boots, iters, mem_mib, cpus, timeout_s;
};

static int parse_workloads(struct strvec *out, const char *arg)
{
	struct strbuf sb = STRBUF_INIT;
	char *save = NULL, *w;
	int ret = 0;

	strbuf_addstr(&sb, arg);
	for (w = strtok_r(sb.buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (!workload_known(w)) {
			ret = error("unknown workload '%s' (known: %s)", w, WORKLOAD_NAMES);
			break;
		}
		strvec_push(out, w);
	}
	strbuf_release(&sb);
	return ret;
}

static int parse_opts(struct run_opts *o, int argc, char **argv)
{
	enum { O_KERNEL = 256, O_WORKLOAD, O_BOOTS, O_ITERS, O_MEM, O_CPUS, O_CMDLINE,
	       O_PARAM, O_RUNNER, O_ACCEL, O_TIMEOUT, O_GUEST, O_DB, O_CONFIG };
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
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "guest", required_argument, NULL, O_GUEST },
		{ "db", required_argument, NULL, O_DB },
		{ "config", required_argument, NULL, O_CONFIG },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	o->boots = 1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case O_KERNEL: o->kernel = optarg; break;
		case O_WORKLOAD:
			if (parse_workloads(&o->workloads, optarg))
				return -1;
			break;
		case O_BOOTS:
			if (parse_positive_int(optarg, &o->boots))
				return error("bad value '%s' for --boots: expected a positive integer", optarg);
			break;
		case O_ITERS:
			if (parse_positive_int(optarg, &o->iters))
				return error("bad value '%s' for --iters: expected a positive integer", optarg);
			break;
		case O_MEM:
			if (parse_size_mib(optarg, &o->mem_mib))
				return error("bad value '%s' for --mem: expected a size like 512M or 4G", optarg);
			break;
		case O_CPUS:
			if (parse_positive_int(optarg, &o->cpus))
				return error("bad value '%s' for --cpus: expected a positive integer", optarg);
			break;
		case O_CMDLINE: o->cmdline = optarg; break;
		case O_PARAM:
			if (!strchr(optarg, '=') || strchr(optarg, ' '))
				return error("bad value '%s' for --param: expected KEY=VALUE without spaces", optarg);
			strvec_push(&o->params, optarg);
			break;
		case O_RUNNER: o->runner = optarg; break;
		case O_ACCEL:
			if (strcmp(optarg, "kvm") && strcmp(optarg, "tcg") && strcmp(optarg, "auto"))
				return error("bad value '%s' for --accel: expected kvm, tcg or auto", optarg);
			o->accel = optarg;
			break;
		case O_TIMEOUT:
			if (parse_seconds(optarg, &o->timeout_s))
				return error("bad value '%s' for --timeout: expected seconds", optarg);
			break;
		case O_GUEST: o->guest = optarg; break;
		case O_DB: o->db = optarg; break;
		case O_CONFIG: o->config = optarg; break;
		case 'h':
			fputs(run_usage, stdout);
			exit(0);
		default:
			return error("unknown option '%s' for 'lab run' (see 'lab run --help')",
				     argv[optind - 1]);
		}
	}
	if (optind < argc)
		return error("unexpected argument '%s' for 'lab run'", argv[optind]);
	if (!o->workloads.nr)
		return error("no workload given (--workload %s)", WORKLOAD_NAMES);
	return 0;
}

static void join(struct strbuf *sb, const struct strvec *sv, const char *sep)
{
	for (size_t i = 0; i < sv->nr; i++) {
		if (i)
			strbuf_addstr(sb, sep);
		strbuf_addstr(sb, sv->v[i]);
	}
}

static void progress(int tty, long k, long n, double elapsed, const char *status,
		     long long run_id)
{
	if (!status) {
		if (tty)
			fprintf(stderr, "\rboot %ld of %ld, %.0f s elapsed ", k, n, elapsed);
		return;
	}
	if (tty)
		fputs("\r\033[K", stderr);
	fprintf(stderr, "boot %ld of %ld: %s (run %lld, %.1f s)\n", k, n, status,
		run_id, elapsed);
}

/* The lab's own CPU time, children excluded: its cost per boot. */
static double self_cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

int cmd_run(int argc, char **argv)
{
	struct run_opts o = { 0 };
	struct lab_context ctx;
	struct run_spec spec = { 0 };
	struct strbuf params = STRBUF_INIT, workloads = STRBUF_INIT, guest = STRBUF_INIT;
	struct strbuf initrd = STRBUF_INIT, log_path = STRBUF_INIT;
	const struct runner *runner;
	struct host_info host;
	long long kernel_id = 0, *run_ids = NULL;
	char *logdir = NULL, *cachedir = NULL;
	const char *arch = "x86_64";
	int ret = 2, tty = isatty(2), bad_boots = 0, has_boot = 0;
	double t0, cpu0;

	memset(&ctx, 0, sizeof(ctx));
	if (parse_opts(&o, argc, argv) || context_load_config(&ctx, o.config, o.db))
		goto out;

	runner = runner_find(o.runner ? o.runner : config_runner_name(ctx.cfg.runner));
	if (!runner) {
		error("unknown runner '%s' (known: qemu, local)", o.runner);
		goto out;
	}
	if (!strcmp(runner->name, "qemu")) {
		if (!o.kernel) {
			error("no kernel given (--kernel IMAGE)");
			goto out;
		}
		if (kernel_image_arch(&arch, o.kernel))
			goto out;
	} else {
		arch = host_arch();
	}
	if (o.guest)
		strbuf_addstr(&guest, o.guest);
	else
		strbuf_addf(&guest, "%s/build/guest/%s/lab-guest", lab_source_dir(), arch);
	if (access(guest.buf, X_OK)) {
		error("cannot find guest program '%s' (run 'make')", guest.buf);
		goto out;
	}

	join(&workloads, &o.workloads, ",");
	for (size_t i = 0; i < o.workloads.nr; i++)
		has_boot |= !strcmp(o.workloads.v[i], "boot");
	strbuf_addf(&params, "lab.workload=%s lab.iters=%ld", workloads.buf,
		    o.iters ? o.iters : ctx.cfg.iters);
	for (size_t i = 0; i < o.params.nr; i++)
		strbuf_addf(&params, " lab.%s", o.params.v[i]);

	if (context_open_store(&ctx))
		goto out;
	logdir = context_subdir(&ctx, "logs");
	cachedir = context_subdir(&ctx, "cache");
	if (!logdir || !cachedir)
		goto out;
	if (!strcmp(runner->name, "qemu")) {
		if (store_kernel(&ctx.st, &kernel_id, o.kernel, arch))
			goto out;
		strbuf_addf(&initrd, "%s/initramfs-%s-%d.cpio", cachedir, arch, (int)getpid());
		if (initramfs_write(initrd.buf, guest.buf))
			goto out;
	}

	host_info_get(&host, runner->name, config_qemu_binary(&ctx.cfg, arch));
	spec.kernel = o.kernel;
	spec.initrd = initrd.buf;
	spec.arch = arch;
	spec.guest = guest.buf;
	spec.params = params.buf;
	spec.cmdline = o.cmdline;
	spec.qemu = config_qemu_binary(&ctx.cfg, arch);
	spec.accel = o.accel ? o.accel : config_accel_name(ctx.cfg.accel);
	spec.mem_mib = o.mem_mib ? o.mem_mib : ctx.cfg.mem_mib;
	spec.cpus = (int)(o.cpus ? o.cpus : ctx.cfg.cpus);
	spec.timeout_s = (double)(o.timeout_s ? o.timeout_s : ctx.cfg.timeout_s);

	run_ids = calloc((size_t)o.boots, sizeof(*run_ids));
	if (!run_ids) {
		error("out of memory");
		goto out;
	}
	t0 = now_monotonic();
	for (long k = 0; k < o.boots; k++) {
		struct run_row row = {
			.kernel_id = kernel_id, .runner = runner->name,
			.workloads = workloads.buf, .cmdline = o.cmdline,
			.mem_mib = spec.mem_mib, .cpus = spec.cpus, .accel = spec.accel,
			.host = host.name, .host_cpu = host.cpu,
			.qemu_version = host.qemu_version,
		};
		struct run_result res;

		if (store_run_begin(&ctx.st, &run_ids[k], &row))
			goto out;
		strbuf_reset(&log_path);
		strbuf_addf(&log_path, "%s/run-%lld.log", logdir, run_ids[k]);
		spec.console_log = log_path.buf;
		progress(tty, k + 1, o.boots, now_monotonic() - t0, NULL, 0);
		run_result_init(&res);
		cpu0 = self_cpu_s();
		runner->run(&spec, &res);
		strbuf_reset(&log_path);
		strbuf_addf(&log_path, "%.6f", self_cpu_s() - cpu0);
		sample_set_meta(&res.set, "lab.cpu_s", log_path.buf);
		strbuf_reset(&log_path);
		strbuf_addf(&log_path, "%s/run-%lld.log", logdir, run_ids[k]);
		if (res.status == RUN_OK && res.to_hello_s >= 0 && has_boot) {
			struct sample s = { "boot", "host_to_init", "s", 0, res.to_hello_s, 0 };
			sample_set_add(&res.set, &s);
		}
		if (store_run_finish(&ctx.st, run_ids[k], &res, log_path.buf)) {
			run_result_release(&res);
			goto out;
		}
		progress(tty, k + 1, o.boots, now_monotonic() - t0,
			 run_status_name(res.status), run_ids[k]);
		if (res.status != RUN_OK) {
			bad_boots++;
			fprintf(stderr, "  %s: %s\n  console log: %s\n", run_status_name(res.status),
				strbuf_str(&res.error), log_path.buf);
		}
		if (res.bad_lines)
			fprintf(stderr, "  %d protocol line(s) failed their checksum and were not used\n",
				res.bad_lines);
		run_result_release(&res);
	}
	if (table_print_runs(stdout, &ctx.st, run_ids, (size_t)o.boots))
		goto out;
	ret = bad_boots ? 1 : 0;
out:
	if (initrd.len)
		unlink(initrd.buf);
	context_release(&ctx);
	free(run_ids);
	free(logdir);
	free(cachedir);
	strbuf_release(&params);
	strbuf_release(&workloads);
	strbuf_release(&guest);
	strbuf_release(&initrd);
	strbuf_release(&log_path);
	strvec_release(&o.workloads);
	strvec_release(&o.params);
	return ret;
}
