#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <unistd.h>

#include "array.h"
#include "boot.h"
#include "cpio.h"
#include "kcmdline.h"
#include "log.h"
#include "runner-list.h"
#include "tempfile.h"
#include "xalloc.h"

#define BOOT_MIN_NODE_MIB 128

int workloads_parse(struct workload_list *out, const char *arg)
{
	return workloads_parse_list(out, arg);
}

int parse_numa(const char *s, long *out)
{
	return parse_positive_int(s, out) || *out > BOOT_MAX_NUMA ? -1 : 0;
}

int boot_opts_check_targets(const struct boot_opts *o, const struct lab_config *cfg)
{
	const struct lab_target **all;
	size_t n;

	if (o->target && o->targets)
		return error("--target and --targets both say where to boot: give one");
	if (o->target)
		return config_target(cfg, o->target) ? 0 : -1;
	if (o->targets) {
		if (config_target_class(cfg, o->targets, &all, &n))
			return -1;
		free(all);
	}
	return 0;
}

/* o's runner, or NULL for a --runner that names none; nothing printed. */
static const struct runner *runner_of_opts(const struct boot_opts *o, const struct lab_config *cfg)
{
	if (o->runner)
		return runner_find(o->runner);
	/* the first target of a class speaks for it: a class is one kind of machine */
	for (size_t i = 0; i < cfg->ntargets; i++)
		if ((o->target && !strcmp(cfg->targets[i].name, o->target)) ||
		    (!o->target && o->targets && !strcmp(cfg->targets[i].class, o->targets)))
			return cfg->targets[i].ops;
	return runner_find(config_runner_name(cfg->runner));
}

const struct runner *boot_opts_runner(const struct boot_opts *o, const struct lab_config *cfg)
{
	const struct runner *r = runner_of_opts(o, cfg);

	if (!r)
		error("unknown runner '%s' (known: qemu, local, libvirt, ssh, lava)", o->runner);
	return r;
}

unsigned boot_opts_runner_flags(const struct boot_opts *o, const struct lab_config *cfg)
{
	const struct runner *r = runner_of_opts(o, cfg);

	return r ? r->flags : 0;
}

int boot_opts_lab_guest(const struct boot_opts *o, const struct lab_config *cfg)
{
	/* as boot_plan_prepare() picks the program */
	return !o->guest && !(boot_opts_runner_flags(o, cfg) & RUNNER_THIS_HOST);
}

int target_fits(const struct lab_target *t, long mem_mib, long cpus)
{
	if (t->mem_mib && mem_mib > t->mem_mib)
		return error("target '%s' takes guests of up to %ldM, not %ldM (its mem in lab.conf)",
			     t->name, t->mem_mib, mem_mib);
	if (t->cpus && cpus > t->cpus)
		return error("target '%s' takes guests of up to %ld CPUs, not %ld (its cpus in lab.conf)",
			     t->name, t->cpus, cpus);
	return 0;
}

/*
 * Before the runner settles the accelerator: icount is TCG's alone, so it
 * refuses kvm and skips the KVM probe of auto.
 */
static int clock_before_prepare(struct boot_plan *p, const char *clock)
{
	if (!strcmp(clock, "icount")) {
		if (!(p->runner->flags & RUNNER_BOOTS_KERNEL))
			return error("clock 'icount' needs the qemu runner or the libvirt runner: the %s runner "
				     "measures in wall time (use --clock wall)", p->runner->name);
		if (!strcmp(p->spec.accel, "kvm"))
			return error("clock 'icount' needs accel tcg: kvm runs the guest in "
				     "wall time (use --accel tcg, or --clock wall with kvm)");
		p->spec.accel = "tcg";
	}
	return 0;
}

/*
 * Whether this plan's QEMU runs a guest of cpus vCPUs in virtual time
 * (qemu_icount_smp()), version the --version line of the QEMU asked ("" for
 * a runner whose QEMU the lab does not start). When not, why says so.
 */
static int clock_icount_fits(struct strbuf *why, const char *version, const char *qemu,
			     long cpus)
{
	struct qemu_version v;

	if (cpus < 2 || qemu_icount_smp(&v, version))
		return 1;
	if (!qemu)
		strbuf_addf(why, "the QEMU of this runner is not known before a boot, and "
			    "one before 8.1 cannot run %ld vCPUs in virtual time", cpus);
	else if (!v.major)
		strbuf_addf(why, "QEMU '%s' names no version ('%s'), and one before 8.1 "
			    "cannot run %ld vCPUs in virtual time", qemu, version, cpus);
	else
		strbuf_addf(why, "QEMU %d.%d.%d < 8.1 cannot run %ld vCPUs in virtual time",
			    v.major, v.minor, v.micro, cpus);
	return 0;
}

/*
 * icount of several vCPUs with a QEMU that cannot run them stalls until
 * the boot's timeout: refused before anything is started. Only the QEMU
 * the lab starts itself can be asked; libvirt's is known after a boot.
 */
static int clock_check_cpus(const struct boot_plan *p, const char *clock, long cpus,
			    const char *qemu)
{
	struct strbuf why = STRBUF_INIT;
	char version[128];
	int ret = 0;

	if (strcmp(clock, "icount") || cpus < 2 || !(p->runner->flags & RUNNER_RUNS_QEMU))
		return 0;
	host_qemu_version(version, sizeof(version), qemu);
	if (!clock_icount_fits(&why, version, qemu, cpus))
		ret = error("clock 'icount': %s: use --clock wall", why.buf);
	strbuf_release(&why);
	return ret;
}

/*
 * After it: auto becomes what the accelerator allows, icount under TCG
 * when QEMU can run the guest's vCPUs in virtual time; wall time, said
 * once, when it cannot.
 */
static void clock_after_prepare(struct boot_plan *p, const char *clock, long shift)
{
	static int said;
	struct strbuf why = STRBUF_INIT;
	int icount = !strcmp(clock, "icount");

	if (!strcmp(clock, "auto") && (p->runner->flags & RUNNER_BOOTS_KERNEL) &&
	    !strcmp(p->spec.accel, "tcg")) {
		icount = clock_icount_fits(&why, p->host.qemu_version,
					   p->runner->flags & RUNNER_RUNS_QEMU ? p->spec.qemu : NULL,
					   p->spec.cpus);
		if (!icount && !said++)
			info("%s: wall time", why.buf);
	}
	p->spec.clock = icount ? "icount" : "wall";
	p->spec.icount_shift = (int)shift;
	if (icount)
		strbuf_addf(&p->clock, "icount shift=%ld", shift);
	else
		strbuf_addstr(&p->clock, "wall");
	strbuf_release(&why);
}

/*
 * The runs an experiment already has (it is resumed, or a bisection goes
 * on) were measured with the clock this plan is about to use, or the plan
 * stops here, having booted nothing: instructions and seconds never meet
 * in one comparison.
 */
static int check_experiment_clock(struct store *st, long long exp_id, const char *clock)
{
	struct strvec had = STRVEC_INIT;
	struct strbuf was = STRBUF_INIT, now = STRBUF_INIT;
	int ret = -1;

	if (store_experiment_clocks(st, &had, exp_id))
		goto out;
	ret = 0;
	for (size_t i = 0; i < had.nr && !ret; i++) {
		if (!strcmp(had.v[i], clock))
			continue;
		clock_words(&was, had.v[i]);
		clock_words(&now, clock);
		ret = error("experiment E%lld was measured with clock '%s' (%s), not '%s' (%s): "
			    "an experiment never mixes clocks (use --clock %.*s%s)",
			    exp_id, had.v[i], was.buf, clock, now.buf,
			    (int)strcspn(had.v[i], " "), had.v[i],
			    strchr(had.v[i], ' ') ? " and its qemu.icountShift" : "");
	}
out:
	strvec_release(&had);
	strbuf_release_all(&was, &now);
	return ret;
}

/* The lab's own CPU time, children excluded: its cost per boot. */
static double self_cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

void boot_guests_init(struct boot_guests *gs)
{
	memset(gs, 0, sizeof(*gs));
}

static void guest_free(struct boot_guest *g)
{
	if (g->initrd.len)
		tempfile_delete(g->initrd.buf);
	if (g->workdir.len)
		user_workloads_unstage_dir(g->workdir.buf, g->user, g->nuser);
	user_workloads_free(&g->user, &g->nuser);
	strbuf_release_all(&g->key, &g->program, &g->initrd, &g->workdir);
	free(g);
}

void boot_guests_release(struct boot_guests *gs)
{
	for (size_t i = 0; i < gs->n; i++)
		guest_free(gs->g[i]);
	free(gs->g);
	boot_guests_init(gs);
}

/*
 * The guest of this content, from gs or new (its user workloads copied
 * as parsed and staged, nothing written yet): the initramfs is the same
 * bytes for every plan of one arch, program and workloads (cpio archives
 * are reproducible, and nothing of the kernel, memory, CPUs or command
 * line goes in), so guest_write() writes it once.
 */
static int guest_find(struct boot_guest **out, struct boot_guests *gs, int boots,
		      const char *arch, const char *program, const struct workload_list *workloads)
{
	struct strbuf key = STRBUF_INIT;
	struct boot_guest *g;

	strbuf_addf(&key, "%s %s %s", boots ? "initramfs" : "staged", arch, program);
	for (size_t i = 0; i < workloads->specs.nr; i++)
		strbuf_addf(&key, "\n%s", workloads->specs.v[i]);
	for (size_t i = 0; i < gs->n; i++)
		if (!strcmp(gs->g[i]->key.buf, key.buf)) {
			*out = gs->g[i];
			strbuf_release(&key);
			return 0;
		}
	g = xcalloc(1, sizeof(*g));
	g->key = key;
	g->boots = boots;
	g->arch = arch;
	strbuf_addstr(&g->program, program);
	/* a bad workload is refused here, before the database is touched */
	if (user_workloads_load(&g->user, &g->nuser, workloads)) {
		guest_free(g);
		return -1;
	}
	ALLOC_GROW(gs->g, gs->n + 1, gs->alloc);
	gs->g[gs->n++] = g;
	*out = g;
	return 0;
}

/* Its initramfs (or the local runner's staging), unless written already. */
static int guest_write(struct boot_guest *g, const char *cachedir)
{
	static int seq;

	if (g->written)
		return 0;
	if (g->boots) {
		strbuf_reset(&g->initrd);
		strbuf_addf(&g->initrd, "%s/initramfs-%s-%d-%d.cpio", cachedir, g->arch,
			    (int)getpid(), seq++);
		if (tempfile_register(g->initrd.buf)) {
			strbuf_reset(&g->initrd);
			return -1;
		}
		if (user_workloads_initramfs(g->initrd.buf, g->program.buf, g->user, g->nuser))
			return -1;
		debug("initramfs '%s' written (%s guest, %zu user workload%s)", g->initrd.buf,
		      g->arch, g->nuser, g->nuser == 1 ? "" : "s");
	} else if (g->nuser) {
		strbuf_reset(&g->workdir);
		strbuf_addf(&g->workdir, "%s/work-%d-%d", cachedir, (int)getpid(), seq++);
		if (user_workloads_stage_dir(g->workdir.buf, g->user, g->nuser))
			return -1;
	}
	g->written = 1;
	return 0;
}

void boot_params(struct strbuf *sb, const struct boot_opts *o, const char *workloads,
		 long default_iters)
{
	strbuf_addf(sb, "lab.workload=%s lab.iters=%ld", workloads,
		    o->iters ? o->iters : default_iters);
	for (size_t i = 0; o->params && i < o->params->nr; i++)
		strbuf_addf(sb, " lab.%s", o->params->v[i]);
}

/* lab.workload's value: the workloads' names, as the guest knows them */
static void workload_names(struct strbuf *sb, const struct workload_list *w)
{
	for (size_t i = 0; i < w->specs.nr; i++)
		strbuf_addf(sb, "%s%s", i ? "," : "",
			    w->user[i] ? w->user[i]->name.buf : w->specs.v[i]);
}

int boot_opts_check_cmdline(const struct boot_opts *o, const struct lab_config *cfg)
{
	struct strbuf names = STRBUF_INIT;
	unsigned flags = boot_opts_runner_flags(o, cfg);
	int ret;

	workload_names(&names, o->workloads);
	ret = kcmdline_check(names.buf, o->params, o->cmdline, "extra kernel command line",
			     flags & RUNNER_BOOTS_KERNEL ? KCMDLINE_MAX : 0);
	strbuf_release(&names);
	return ret;
}

/*
 * What a plan refuses before it writes anything: the targets, the runner,
 * the workloads, the clock, a kernel where the runner boots one and its
 * arch on the target, the guest program, the NUMA nodes. Fills p->runner
 * (decided here, once: the plan asks its flags from then on) and
 * p->spec.accel, *t, *clock, *arch and program. -1 after one line.
 */
static int check_opts(struct boot_plan *p, const struct lab_target **t, const char **clock,
		      const char **arch, struct strbuf *program, const struct lab_context *ctx,
		      const struct boot_opts *o)
{
	long mem;

	*t = NULL;
	*arch = host_arch();
	if (boot_opts_check_targets(o, &ctx->cfg))
		return -1;
	if (o->target)
		*t = config_target(&ctx->cfg, o->target);
	if (!(p->runner = boot_opts_runner(o, &ctx->cfg)))
		return -1;
	if (!o->workloads || !o->workloads->specs.nr)
		return error("no workload given (--workload %s)", WORKLOAD_NAMES);
	if (boot_opts_check_cmdline(o, &ctx->cfg))
		return -1;
	/* a clock the runner cannot give is refused before anything is started or written */
	p->spec.accel = o->accel ? o->accel : *t && (*t)->accel ? (*t)->accel :
			config_accel_name(ctx->cfg.accel);
	*clock = o->clock ? o->clock : *t && (*t)->clock ? (*t)->clock :
		 config_clock_name(ctx->cfg.clock);
	if (clock_before_prepare(p, *clock))
		return -1;
	if ((p->runner->flags & RUNNER_BOOTS_KERNEL) ||
	    ((p->runner->flags & RUNNER_KEXECS_HOST) && o->kernel)) {
		if (!o->kernel)
			return error("no kernel given (--kernel IMAGE)");
		/* read once, when it was resolved */
		*arch = o->kernel->arch;
		if (*t && (*t)->arch && strcmp((*t)->arch, *arch))
			return error("target '%s' boots %s kernels, not %s ('%s')", (*t)->name,
				     (*t)->arch, *arch, o->kernel->path);
	}
	if (o->guest)
		strbuf_addstr(program, o->guest);
	else if ((p->runner->flags & RUNNER_THIS_HOST) && o->kernel)
		/* what was built is the program to run (build.command projects) */
		strbuf_addstr(program, o->kernel->path);
	else
		strbuf_addf(program, "%s/build/guest/%s/lab-guest", lab_source_dir(), *arch);
	if (access(program->buf, X_OK))
		return error("cannot find guest program '%s' (run 'make')", program->buf);
	mem = o->mem_mib ? o->mem_mib : ctx->cfg.mem_mib;
	/* Linux ignores nodes this small, and the guest would not be what was asked */
	if (o->numa && (p->runner->flags & RUNNER_BOOTS_KERNEL) && mem / o->numa < BOOT_MIN_NODE_MIB)
		return error("--numa %ld splits %ldM into nodes below %dM: give more --mem or fewer nodes",
			     o->numa, mem, BOOT_MIN_NODE_MIB);
	if (clock_check_cpus(p, *clock, o->cpus ? o->cpus : ctx->cfg.cpus,
			     config_qemu_binary(&ctx->cfg, *arch)))
		return -1;
	/* a guest the machine cannot take is refused here, not boot after boot as INFRA */
	if (p->runner->fits && (p->runner->flags & RUNNER_BOOTS_KERNEL)) {
		struct run_spec size = {
			.arch = *arch, .qemu = config_qemu_binary(&ctx->cfg, *arch),
			.accel = p->spec.accel, .mem_mib = mem, .numa = (int)o->numa,
			.cpus = (int)(o->cpus ? o->cpus : ctx->cfg.cpus),
		};
		if (p->runner->fits(&size))
			return -1;
	}
	return 0;
}

int boot_opts_check_clock(const struct lab_context *ctx, const struct boot_opts *o,
			  const char *arch)
{
	struct boot_plan p;
	const struct lab_target *t = NULL;
	const char *clock;

	if (boot_opts_check_targets(o, &ctx->cfg))
		return -1;
	if (o->targets)
		return 0;
	if (o->target)
		t = config_target(&ctx->cfg, o->target);
	memset(&p, 0, sizeof(p));
	if (!(p.runner = boot_opts_runner(o, &ctx->cfg)))
		return -1;
	p.spec.accel = o->accel ? o->accel : t && t->accel ? t->accel :
		       config_accel_name(ctx->cfg.accel);
	clock = o->clock ? o->clock : t && t->clock ? t->clock : config_clock_name(ctx->cfg.clock);
	if (clock_before_prepare(&p, clock) ||
	    clock_check_cpus(&p, clock, o->cpus ? o->cpus : ctx->cfg.cpus,
			     config_qemu_binary(&ctx->cfg, arch)))
		return -1;
	return 0;
}

int boot_opts_check(const struct lab_context *ctx, const struct boot_opts *o)
{
	struct boot_opts b = *o;
	struct boot_plan p;
	struct strbuf program = STRBUF_INIT;
	const struct lab_target *t;
	const char *clock, *arch;
	int ret;

	if (boot_opts_check_targets(o, &ctx->cfg))
		return -1;
	/* the first target of a class speaks for it, as in boot_opts_runner() */
	for (size_t i = 0; b.targets && i < ctx->cfg.ntargets; i++) {
		if (!strcmp(ctx->cfg.targets[i].class, b.targets)) {
			b.target = ctx->cfg.targets[i].name;
			b.targets = NULL;
		}
	}
	memset(&p, 0, sizeof(p));
	ret = check_opts(&p, &t, &clock, &arch, &program, ctx, &b);
	strbuf_release(&program);
	/* a class leaves out a target too small for the guest; one target named must take it */
	if (!ret && t && !o->targets &&
	    target_fits(t, o->mem_mib ? o->mem_mib : ctx->cfg.mem_mib,
			o->cpus ? o->cpus : ctx->cfg.cpus) < 0)
		ret = -1;
	return ret;
}

int boot_plan_prepare(struct boot_plan *p, struct lab_context *ctx,
		      const struct boot_opts *o)
{
	const char *arch, *clock;
	const struct lab_target *t;
	struct strbuf program = STRBUF_INIT;
	struct boot_guest *guest;
	char *cachedir = NULL;
	int ret = -1;

	memset(p, 0, sizeof(*p));
	if (check_opts(p, &t, &clock, &arch, &program, ctx, o))
		goto out;
	if (guest_find(&guest, o->guests ? o->guests : &p->own,
		       !!(p->runner->flags & RUNNER_INITRAMFS), arch, program.buf, o->workloads))
		goto out;
	p->guest = guest;

	if (context_need_store(ctx))
		goto out;
	p->logdir = context_logdir(ctx);
	cachedir = context_subdir(ctx, "cache");
	if (!p->logdir || !cachedir || guest_write(guest, cachedir))
		goto out;
	workload_names(&p->workloads, o->workloads);
	for (size_t i = 0; i < o->workloads->specs.nr; i++)
		p->has_boot |= !strcmp(o->workloads->specs.v[i], "boot");
	boot_params(&p->params, o, p->workloads.buf, ctx->cfg.iters);
	if (p->runner->flags & RUNNER_BOOTS_KERNEL) {
		strbuf_addf(&p->kvm_note, "%s/kvm-verdict", cachedir);
		p->spec.kvm_note = p->kvm_note.buf;
	} else if (p->guest->workdir.len) {
		p->spec.workdir = p->guest->workdir.buf;
	}

	host_info_get(&p->host, p->runner->flags & RUNNER_RUNS_QEMU ?
		      config_qemu_binary(&ctx->cfg, arch) : NULL);
	p->spec.kernel = o->kernel;
	p->spec.initrd = p->guest->initrd.buf;
	p->spec.arch = arch;
	p->spec.guest = p->guest->program.buf;
	p->spec.params = p->params.buf;
	p->spec.workloads = p->workloads.buf;
	p->spec.cmdline = o->cmdline;
	p->spec.qemu = config_qemu_binary(&ctx->cfg, arch);
	p->spec.libvirt_uri = t && t->uri ? t->uri : ctx->cfg.libvirt_uri;
	p->spec.ssh = t ? &t->ssh : &ctx->cfg.ssh;
	p->spec.lava = t ? &t->lava : NULL;
	strbuf_addstr(&p->cache, cachedir);
	p->spec.cache = p->cache.buf;
	p->spec.mem_mib = o->mem_mib ? o->mem_mib : ctx->cfg.mem_mib;
	p->spec.cpus = (int)(o->cpus ? o->cpus : ctx->cfg.cpus);
	p->spec.timeout_s = (double)(o->timeout_s ? o->timeout_s : ctx->cfg.timeout_s);
	/* like --mem and --cpus, nothing the local runner can change */
	p->spec.numa = (int)o->numa;
	if (t && target_fits(t, p->spec.mem_mib, p->spec.cpus) < 0)
		goto out;
	if (p->runner->prepare && p->runner->prepare(&p->spec))
		goto out;
	clock_after_prepare(p, clock, ctx->cfg.icount_shift);
	if (o->experiment_id && check_experiment_clock(&ctx->st, o->experiment_id, p->clock.buf))
		goto out;
	/* a file the user named is recorded with the first plan that boots it, once */
	if (store_kernel_once(&ctx->st, o->kernel))
		goto out;

	p->row.experiment_id = o->experiment_id;
	p->row.variant_id = o->variant_id;
	p->row.runner = p->runner->name;
	p->row.workloads = p->workloads.buf;
	p->row.params = p->params.buf;
	p->row.cmdline = o->cmdline;
	p->row.mem_mib = p->spec.mem_mib;
	p->row.cpus = p->spec.cpus;
	p->row.accel = p->spec.accel;
	p->row.clock = p->clock.buf;
	p->row.host = p->host.name;
	p->row.host_cpu = p->host.cpu;
	p->row.qemu_version = p->host.qemu_version;
	p->row.target = t ? t->name : NULL;
	p->row.target_class = t ? t->class : NULL;
	ret = 0;
out:
	free(cachedir);
	strbuf_release(&program);
	/* a plan that could not be made holds nothing: the caller may still release it */
	if (ret)
		boot_plan_release(p);
	return ret;
}

/* A fresh nonce per boot binds each console line to it (protocol.h). */
static int draw_nonce(char *out)
{
	unsigned char raw[PROTOCOL_NONCE_LEN / 2];
	static const char hex[] = "0123456789abcdef";

	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw))
		return -1;
	for (size_t i = 0; i < sizeof(raw); i++) {
		out[2 * i] = hex[raw[i] >> 4];
		out[2 * i + 1] = hex[raw[i] & 0xf];
	}
	out[PROTOCOL_NONCE_LEN] = '\0';
	return 0;
}

int boot_plan_run(struct boot_plan *p, struct lab_context *ctx, long long *run_id,
		  struct run_result *res)
{
	double cpu0;

	run_result_init(res);
	/* recorded once, by its build or the plan that prepared its first boot: not here */
	p->row.kernel_id = p->spec.kernel ? p->spec.kernel->id : 0;
	if (p->spec.kernel && !p->row.kernel_id)
		return error("kernel '%s' has no row in database '%s'", p->spec.kernel->path,
			     ctx->st.path);
	if (store_run_begin(&ctx->st, run_id, &p->row))
		return -1;
	strbuf_reset(&p->log_path);
	strbuf_addf(&p->log_path, "%s/run-%lld.log", p->logdir, *run_id);
	p->spec.console_log = p->log_path.buf;

	cpu0 = self_cpu_s();
	if (draw_nonce(p->nonce)) {
		res->status = RUN_INFRA;
		strbuf_addstr(&res->error, "cannot draw a nonce: getrandom failed");
	} else {
		p->spec.nonce = p->nonce;
		p->runner->run(&p->spec, res);
		/* its children killed by a signal the command defers: not the kernel's doing */
		if (res->status != RUN_OK && fatal_signal_pending()) {
			res->status = RUN_INFRA;
			strbuf_reset(&res->error);
			strbuf_addstr(&res->error, "interrupted");
		}
		sample_set_meta(&res->set, "lab.nonce", p->nonce);
		user_workloads_meta(&res->set, p->guest->user, p->guest->nuser);
	}
	strbuf_reset(&p->cpu);
	strbuf_addf(&p->cpu, "%.6f", self_cpu_s() - cpu0);
	sample_set_meta(&res->set, "lab.cpu_s", p->cpu.buf);
	/*
	 * Only the host sees when QEMU started: its share of the boot time.
	 * It is wall time, so a sample only of a wall-clock run; in virtual
	 * time it would be the one metric the schedule cannot settle (and no
	 * A/B of icount runs would stop at its first look), so there it is
	 * kept as the run's meta entry host.to_init_s.
	 */
	if (res->status == RUN_OK && res->to_hello_s >= 0 && p->has_boot) {
		struct sample s = { "boot", "host_to_init", "s", 0, res->to_hello_s, 0 };
		if (!strcmp(p->clock.buf, "wall")) {
			sample_set_add(&res->set, &s);
		} else {
			strbuf_reset(&p->cpu);
			strbuf_addf(&p->cpu, "%.6f", res->to_hello_s);
			sample_set_meta(&res->set, "host.to_init_s", p->cpu.buf);
		}
	}
	return store_run_finish(&ctx->st, *run_id, res, p->log_path.buf);
}

void boot_plan_release(struct boot_plan *p)
{
	boot_guests_release(&p->own);
	p->guest = NULL;
	strbuf_release_all(&p->workloads, &p->params, &p->log_path, &p->cpu, &p->kvm_note,
			   &p->cache, &p->clock);
	free(p->logdir);
	p->logdir = NULL;
}
