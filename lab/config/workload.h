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

/*
 * A plan's workloads, each parsed once where the plan learns of it (an
 * option, a recipe, a stored spec) and passed on parsed: specs as they are
 * stored and shown (a built-in's name, a user's canonical spec, a
 * [workload "NAME"]'s name until workloads_resolve()), user[i] the i-th
 * parsed, NULL for a name. The list owns both.
 */
struct workload_list {
	struct strvec specs;
	struct user_workload **user;
	size_t alloc;
};
#define WORKLOAD_LIST_INIT { STRVEC_INIT, NULL, 0 }

void workload_list_init(struct workload_list *l);
void workload_list_release(struct workload_list *l);
/* The specs, ',' between them: a variant's or a bisection's stored workloads. */
void workload_list_join(struct strbuf *out, const struct workload_list *l);

/*
 * A [workload "NAME"]'s canonical spec into out: 0, or -1 after a message
 * naming the file and line of its program key (a program that is not there
 * or is no executable file).
 */
struct lab_workload;
int workload_section_spec(struct strbuf *out, const struct lab_workload *s);

/*
 * After the config (and a recipe) is read: each name in l that is
 * neither a built-in workload nor a user's spec becomes the canonical spec
 * of its [workload "NAME"] section, found first in extra, then in the
 * config's; a name found nowhere is "unknown workload 'X' (known: ...)".
 * args (--arg, may be NULL) go to the one exec: or stress-ng: workload of
 * l, and are refused for built-in workloads and sections. Each spec it
 * makes is parsed once, into l.
 */
int workloads_resolve(struct workload_list *l, const struct strvec *args,
		      const struct lab_workload *extra, size_t nextra,
		      const struct lab_workload *cfg, size_t ncfg);

/*
 * workloads_parse() of lab/plans/boot.h: "zeroing,exec:pf -n 5" onto out, a
 * user's parsed and in canonical spelling; a plain name that is no built-in
 * workload is kept for workloads_resolve(), anything else refused.
 */
int workloads_parse_list(struct workload_list *out, const char *arg);

/*
 * Can a workload report metric, when the lab's guest program runs it (the
 * one question asked before anything is built)? spec is a built-in's name
 * (w NULL) or a user's workload w, as workloads_resolve() leaves them.
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
enum workload_metric workload_metric(const char *spec, const struct user_workload *w,
				     const char *metric, struct strbuf *known);
/*
 * The same for a list of workloads: YES when one of them says YES, NO when
 * all say NO (-1 then, after "unknown metric 'M' for workload 'W' (known:
 * ...)"), else UNKNOWN; 0 with *answer (may be NULL) otherwise.
 */
int workloads_metric_check(enum workload_metric *answer, const struct workload_list *l,
			   const char *metric);

/* word in single quotes onto out when it needs them (see above). */
void workload_quote(struct strbuf *out, const char *word);

/*
 * The user's workloads of l (as workloads_resolve() leaves it), in order:
 * copied as parsed, staged, and refused when two would be stored under one
 * name. *out (n of them) is freed by user_workloads_free(), also after a
 * failure.
 */
int user_workloads_load(struct user_workload **out, size_t *n, const struct workload_list *l);

/* The run's provenance of each: workload.NAME.program, .args, .sha256, .version. */
void user_workloads_meta(struct sample_set *set, const struct user_workload *w, size_t n);

/*
 * The refusal (-1) of a name not in known (a list as the message writes
 * it), saying what it is and of what ("metric", " for workload 'zeroing'"):
 * "unknown workload 'zeroin': did you mean 'zeroing'?" when a word of known
 * is near, else "unknown workload 'x' (known: zeroing, ...)".
 */
int workload_unknown(const char *what, const char *name, const char *of, const char *known);

#endif
