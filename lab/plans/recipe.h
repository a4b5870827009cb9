#ifndef RECIPE_H
#define RECIPE_H
/*
 * A recipe: one experiment from a patch thread, written down so that anyone
 * can rerun it. A file in git-config syntax, read by config_parse():
 *
 *   [recipe]
 *       title = seed-001: demote 1 GiB hugetlb pages to 2 MiB
 *       repo = ../../state/fixtures/linux     kernel repository
 *       ref = fixture-base                      default ref of a variant
 *       arch = x86_64                           repeatable: one table per arch
 *       workload = demote                       repeatable; exec:PATH relative to
 *                                               the recipe, stress-ng:STRESSOR
 *       metric = demote.demote_page_wall        repeatable: the table's rows
 *       mem = 4G,16G,64G                        a sweep, as for lab ab --mem
 *       cpus = 2
 *       numa = 2                                NUMA nodes per guest (lab ab --numa)
 *       clock = icount                          wall, icount or auto (lab ab --clock)
 *       boots = 5                               per variant and point
 *       iters = 100
 *       cmdline = hugetlb_free_vmemmap=on       both variants
 *       param = trace=clear_huge_page           repeatable, lab.K=V
 *       probe = map_mem                         repeatable, kernels/probes/
 *   [workload "pf"]                             workload = pf: a program beside the
 *       program = pf                            recipe, its args (lab.conf's
 *       arg = -n                                [workload] section, config.h)
 *   [variant "base"]                            the first variant is the base
 *       ref = fixture-base
 *   [variant "regression"]
 *       ref = fixture-regression
 *       cmdline = rodata=full                   this variant only
 *       config = deferred-off.config            fragment, repeatable
 *       apply = seed-000-kmap-atomic.patch      patch on the tree, repeatable
 *
 * A variant section needs a key (ref, if nothing else): git config keeps
 * no empty sections. Every other variant is compared with the base in its
 * own A/B. Paths are
 * relative to the recipe's directory. An unknown section or key is an error
 * naming it and its line; so is a key given twice in one section, but for
 * those marked repeatable above.
 * struct recipe owns everything in it; recipe_release() frees it.
 */
#include "ab-spec.h"
#include "config.h"
#include "context.h"
#include "strvec.h"

struct recipe_variant {
	char *name;
	int line;			/* of its (first) header */
	char *ref;			/* NULL: the recipe's ref */
	char *cmdline;
	struct strvec configs;		/* paths */
	struct strvec applies;		/* paths */
};

struct recipe {
	char *path;
	char *title;
	char *repo;			/* path, NULL: core.repo */
	char *ref;
	char *mem, *cpus;		/* lists as lab ab takes them */
	long numa;			/* NUMA nodes per guest; 0: none */
	char *clock;			/* wall, icount or auto; NULL: run.clock */
	char *cmdline;
	long boots, iters;		/* 0: lab ab's defaults */
	double delta;			/* the verdicts' band; 0: lab ab's */
	struct strvec arches, workloads, metrics, params, probes;
	struct recipe_variant *v;
	size_t nv;
	struct lab_workload *sections;	/* [workload "NAME"], before lab.conf's */
	size_t nsections;
	int line;			/* of the (first) [recipe] header; 0: none */
};

/* Read path into r; -1 after a message naming the file and the bad key. */
int recipe_read(struct recipe *r, const char *path);
void recipe_release(struct recipe *r);

/* The A/B of variant i against the base (variant 0) on arch, as r says it, into s. */
int recipe_ab_spec(struct ab_spec *s, const struct recipe *r, size_t i, const char *arch);
/*
 * A table's metric ("workload.metric") that its workload cannot report,
 * refused before anything is built, where the lab's guest runs it and
 * that can be known (workload_metric()): s is one of r's A/Bs with the
 * command's options over it, its workloads resolved here. -1 after a
 * message.
 */
int recipe_check_metrics(const struct recipe *r, struct lab_context *ctx, struct ab_spec *s);

/* How recipe_run() runs a recipe's A/Bs on one of its arches. */
struct recipe_run {
	const struct recipe *r;
	const char *arch;
	int resume;			/* reuse one finished before, continue one interrupted */
	const char *command;		/* recorded with each A/B */
	struct boot_guests *guests;	/* one initramfs for all of them */
	/* Variant i's A/B into s: the recipe's, with what the command says over it. */
	int (*spec)(struct ab_spec *s, size_t i, void *data);
	/* Told each A/B this run ran, once it has its verdicts (not one reused). */
	int (*done)(long long exp, void *data);
	void *data;
};

/*
 * Each variant of the recipe against the first (the base), on ctx:
 * exp[i] the experiment of variant i. 1 when one found a REGRESSION, 0
 * when none did, -1 after a message (an A/B that stopped says how to
 * continue it).
 */
int recipe_run(long long *exp, struct lab_context *ctx, const struct recipe_run *rr);

#endif
