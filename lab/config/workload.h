#ifndef WORKLOAD_H
#define WORKLOAD_H
/*
 * Workloads the user brings, beside the guest's built-in ones:
 *
 *   exec:PATH [ARG...]       a program (static or dynamic binary, or a
 *                            script run by busybox-static's shell in the
 *                            VM) printing "name value unit [higher|lower]"
 *                            lines (runners/userwork.h), run lab.iters times
 *   stress-ng:STRESSOR [ARG...]   Debian's stress-ng, one instance of the
 *                            stressor, 10 s a run unless ARGs say
 *                            otherwise, its --yaml metrics as samples
 *
 * Each has a short name, the workload its samples are stored under: the
 * program's file name without its extension ("exec:bench/pf.sh" is pf),
 * or stress-ng-STRESSOR.
 *
 * A [workload "NAME"] section of lab.conf or of a recipe (struct
 * lab_workload, config.h) names one: "--workload NAME" is, once resolved
 * (workloads_resolve()), the canonical spec
 *
 *   [NAME iters=N deadline=S higher=M lower=M] exec:/abs/path ARG...
 *
 * where the bracket says what the section adds: the stored name, its own
 * iterations per boot, a deadline per run of the program, and which way
 * is better for metrics the program prints no direction for. An ARG with
 * a space, a quote, a comma or a backslash is in single quotes ('it'\''s'),
 * so that a spec is one word of a comma-separated list and reads back the
 * same (a bisection's stored spec, `lab list`). The lab stages it for the
 * guest (runners/workload-stage.h). Its provenance (the program's
 * sha256, stress-ng's version) becomes the run's meta entries
 * workload.NAME.sha256, .program and .version, which an A/B compares.
 */
#include "sample.h"
#include "strbuf.h"
#include "strvec.h"
#include "workload-stage.h"

/* Does spec name a user's workload (exec:..., stress-ng:...)? */
int workload_is_user(const char *spec);

/*
 * Parse and check spec (the program exists and runs, the stressor is one
 * stress-ng has): fills spec, name, program, format and args. Returns 0,
 * or -1 after a message naming spec.
 */
int user_workload_parse(struct user_workload *w, const char *spec);

/*
 * A [workload "NAME"]'s canonical spec into out: 0, or -1 after a message
 * naming the file and line of its program key (a program that is not there
 * or is no executable file).
 */
struct lab_workload;
int workload_section_spec(struct strbuf *out, const struct lab_workload *s);

/*
 * After the config (and a recipe) is read: each name in specs that is
 * neither a built-in workload nor a user's spec becomes the canonical spec
 * of its [workload "NAME"] section, found first in extra, then in the
 * config's; a name found nowhere is "unknown workload 'X' (known: ...)".
 * args (--arg, may be NULL) go to the one exec: or stress-ng: workload of
 * specs, and are refused for built-in workloads and sections.
 */
int workloads_resolve(struct strvec *specs, const struct strvec *args,
		      const struct lab_workload *extra, size_t nextra,
		      const struct lab_workload *cfg, size_t ncfg);

/*
 * workloads_parse() of lab/plans/boot.h: "zeroing,exec:pf -n 5" into specs, a
 * user's in canonical spelling; a plain name that is no built-in workload
 * is kept for workloads_resolve(), anything else refused.
 */
int workloads_parse_list(struct strvec *out, const char *arg);

/*
 * Can a workload report metric, when the lab's guest program runs it (the
 * one question asked before anything is built)? spec is a built-in's name
 * or a canonical spec, as workloads_resolve() leaves it.
 */
enum workload_metric {
	WORKLOAD_METRIC_NO = 0,		/* never: zeroing has no "nosuch" */
	WORKLOAD_METRIC_YES,		/* it does, or may: a member of boot's fn_* */
	WORKLOAD_METRIC_UNKNOWN,	/* only a run tells: an exec: program's own names */
};
/*
 * Built-in workloads: the guest's table (runners/runner.h), families
 * included. stress-ng: its five (runners/userwork.h). A [workload]
 * section: YES for a metric its higher= or lower= names, else as its
 * program. exec: UNKNOWN. known (may be NULL) gets the names known, ", "
 * between them.
 */
enum workload_metric workload_metric(const char *spec, const char *metric, struct strbuf *known);
/*
 * The same for a list of workloads: YES when one of them says YES, NO when
 * all say NO (-1 then, after "unknown metric 'M' for workload 'W' (known:
 * ...)"), else UNKNOWN; 0 with *answer (may be NULL) otherwise.
 */
int workloads_metric_check(enum workload_metric *answer, const struct strvec *specs,
			   const char *metric);

/* word in single quotes onto out when it needs them (see above). */
void workload_quote(struct strbuf *out, const char *word);

/*
 * The user's workloads among specs (as workloads_parse() keeps them), in
 * order: parsed, staged, and refused when two would be stored under one
 * name. *out (n of them) is freed by user_workloads_free(), also after a
 * failure.
 */
int user_workloads_load(struct user_workload **out, size_t *n, const struct strvec *specs);

/* The run's provenance of each: workload.NAME.program, .args, .sha256, .version. */
void user_workloads_meta(struct sample_set *set, const struct user_workload *w, size_t n);

#endif
