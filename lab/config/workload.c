/*
 * Users' workloads as specs (workload.h): exec: programs and stress-ng
 * stressors parsed and checked, [workload] sections resolved, the
 * provenance a run stores of them.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "config-values.h"
#include "config.h"
#include "escape.h"
#include "log.h"
#include "runner.h"
#include "sha256.h"
#include "strbuf.h"
#include "subprocess.h"
#include "suggest.h"
#include "tempfile.h"
#include "userwork.h"
#include "xalloc.h"
#include "workload.h"


int workload_unknown(const char *what, const char *name, const char *of, const char *known)
{
	char near[64];

	/* as for a command: the one word meant, or else all of them */
	if (suggest_in_list(near, sizeof(near), name, known))
		return error("unknown %s '%s'%s: did you mean '%s'?", what, name, of, near);
	return error("unknown %s '%s'%s (known: %s)", what, name, of, known);
}

/* a stored workload name is a protocol word of at most 31 bytes */
#define NAME_MAX_LEN 31

/* Does spec name a user's workload (exec:..., stress-ng:..., a section's)? */
static int workload_is_user(const char *spec)
{
	return !strncmp(spec, "exec:", 5) || !strncmp(spec, "stress-ng:", 10) || spec[0] == '[';
}

void workload_quote(struct strbuf *out, const char *word)
{
	if (*word && !word[strcspn(word, " \t\n',\\\"")])
		strbuf_addstr(out, word);
	else
		escape_shell_quoted(out, word);
}

static void quote_all(struct strbuf *out, const struct strvec *words, size_t from)
{
	for (size_t i = from; i < words->nr; i++) {
		strbuf_addch(out, ' ');
		workload_quote(out, words->v[i]);
	}
}

static int name_ok(const char *s)
{
	if (!*s || strlen(s) > NAME_MAX_LEN)
		return 0;
	for (; *s; s++)
		if (!(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z') &&
		    !(*s >= '0' && *s <= '9') && *s != '_' && *s != '-')
			return 0;
	return 1;
}

/*
 * Is stressor one of stress-ng's? Its list is asked once a process: a
 * recipe's or a resumed experiment's stress-ng: workloads each parse.
 */
static int stressor_known(const char *stressor)
{
	static struct strvec names = STRVEC_INIT;
	int found = 0;

	if (!names.nr) {
		char *argv[] = { WORKLOAD_STRESSNG, "--stressors", NULL };
		struct strbuf list = STRBUF_INIT;
		int st = subprocess_run(argv, NULL, &list, 30);

		if (!st)
			strvec_split(&names, strbuf_str(&list));
		strbuf_release(&list);
		if (st)
			return -1;
	}
	for (size_t i = 0; i < names.nr; i++)
		found |= !strcmp(names.v[i], stressor);
	return found;
}

/* args without its first word (the spec's stressor or program), after the words of lead */
static void args_replace_first(struct strvec *args, const struct strvec *lead)
{
	struct strvec out = STRVEC_INIT;

	strvec_push_all(&out, lead);
	for (size_t i = 1; i < args->nr; i++)
		strvec_push(&out, args->v[i]);
	strvec_release(args);
	*args = out;
}

/* One instance of the stressor, its options from the spec after the lab's. */
static void stressng_args(struct strvec *args, const char *stressor)
{
	struct strvec lab = STRVEC_INIT;
	int has_timeout = 0;

	for (size_t i = 1; i < args->nr; i++)
		has_timeout |= !strcmp(args->v[i], "--timeout") || !strcmp(args->v[i], "-t");
	strvec_pushf(&lab, "--%s", stressor);
	strvec_push(&lab, "1");
	if (!has_timeout)
		strvec_pushl(&lab, "--timeout", "10s", NULL);
	strvec_push(&lab, "--metrics-brief");
	args_replace_first(args, &lab);
	strvec_release(&lab);
}

static int parse_stressng(struct user_workload *w, const char *spec)
{
	struct strbuf name = STRBUF_INIT;
	const char *stressor;
	int known, ret = -1;

	if (!w->args.nr)
		return error("no stressor in workload '%s' (want stress-ng:STRESSOR, e.g. stress-ng:mmap)",
			     spec);
	strbuf_addstr(&name, w->args.v[0]);
	stressor = name.buf;
	if (access(WORKLOAD_STRESSNG, X_OK))
		return error("workload '%s' needs %s (Debian's stress-ng package: make deps)", spec,
			     WORKLOAD_STRESSNG);
	if (!name_ok(stressor)) {
		error("unknown stressor '%s' in workload '%s' (see 'stress-ng --stressors')",
		      stressor, spec);
		goto out;
	}
	known = stressor_known(stressor);
	if (known < 0) {
		error("cannot list the stressors of %s for workload '%s'", WORKLOAD_STRESSNG, spec);
		goto out;
	}
	if (!known) {
		error("unknown stressor '%s' in workload '%s' (see 'stress-ng --stressors')",
		      stressor, spec);
		goto out;
	}
	strbuf_addf(&w->name, "stress-ng-%s", stressor);
	if (!name_ok(w->name.buf)) {
		error("stressor name '%s' in workload '%s' is too long", stressor, spec);
		goto out;
	}
	strbuf_addf(&w->spec, "stress-ng:%s", stressor);
	quote_all(&w->spec, &w->args, 1);
	strbuf_addstr(&w->program, WORKLOAD_STRESSNG);
	strbuf_addf(&w->format, "stress-ng %s", stressor);
	stressng_args(&w->args, stressor);
	ret = 0;
out:
	strbuf_release(&name);
	return ret;
}

static int parse_exec(struct user_workload *w, const char *spec)
{
	char real[PATH_MAX], *dot, *base;
	struct strbuf name = STRBUF_INIT;
	struct stat st;
	int ret = -1;

	if (!w->args.nr)
		return error("no program in workload '%s' (want exec:PATH [ARG...])", spec);
	if (!realpath(w->args.v[0], real) || stat(real, &st))
		return error("cannot find program '%s' of workload '%s': %s", w->args.v[0], spec,
			     strerror(errno));
	if (!S_ISREG(st.st_mode) || access(real, X_OK))
		return error("program '%s' of workload '%s' is not an executable file", real, spec);
	strbuf_addstr(&w->program, real);
	base = strrchr(real, '/') + 1;
	strbuf_addstr(&name, base);
	dot = strrchr(name.buf, '.');
	if (dot && dot != name.buf)
		strbuf_setlen(&name, (size_t)(dot - name.buf));
	for (size_t i = 0; i < name.len; i++)
		if (!name_ok((char[]){ name.buf[i], 0 }))
			name.buf[i] = '_';
	if (!name_ok(name.buf)) {
		error("program name '%s' of workload '%s' is too long for a workload name "
		      "(at most %d characters)", base, spec, NAME_MAX_LEN);
		goto out;
	}
	if (workload_known(name.buf)) {
		error("program '%s' of workload '%s' has the name of a built-in workload: rename it",
		      base, spec);
		goto out;
	}
	strbuf_addstr(&w->name, name.buf);
	strbuf_addstr(&w->spec, "exec:");
	workload_quote(&w->spec, real);
	quote_all(&w->spec, &w->args, 1);
	strbuf_addstr(&w->format, "plain");
	/* the program is run as itself: argv[0] is its staged path */
	args_replace_first(&w->args, &(struct strvec)STRVEC_INIT);
	ret = 0;
out:
	strbuf_release(&name);
	return ret;
}

/* "[NAME iters=N deadline=S higher=M lower=M]": a section's settings. */
static int parse_header(struct user_workload *w, struct strbuf *name, const char *spec,
			const char *head, size_t len)
{
	struct strbuf text = STRBUF_INIT;
	struct strvec words = STRVEC_INIT;
	int ret = -1;

	strbuf_add(&text, head, len);
	strvec_split(&words, text.buf);
	if (!words.nr || !name_ok(words.v[0]) || workload_known(words.v[0])) {
		error("bad workload name in '%s' (want [NAME ...] with NAME no built-in workload)",
		      spec);
		goto out;
	}
	strbuf_addstr(name, words.v[0]);
	for (size_t i = 1; i < words.nr; i++) {
		const char *v = strchr(words.v[i], '=');
		size_t klen = v ? (size_t)(v - words.v[i]) : 0;
		int bad = !v || !v[1];

		v = v ? v + 1 : "";
		if (!bad && klen == 5 && !strncmp(words.v[i], "iters", 5))
			bad = parse_positive_int(v, &w->iters);
		else if (!bad && klen == 8 && !strncmp(words.v[i], "deadline", 8))
			bad = parse_seconds(v, &w->deadline_s);
		else if (!bad && klen == 6 && !strncmp(words.v[i], "higher", 6))
			strvec_push(&w->higher, v);
		else if (!bad && klen == 5 && !strncmp(words.v[i], "lower", 5))
			strvec_push(&w->lower, v);
		else
			bad = 1;
		if (bad) {
			error("bad setting '%s' in workload '%s' (known: iters=N, deadline=S, "
			      "higher=METRIC, lower=METRIC)", words.v[i], spec);
			goto out;
		}
	}
	ret = 0;
out:
	strbuf_release(&text);
	strvec_release(&words);
	return ret;
}

static void header_text(struct strbuf *out, const char *name, long iters, long deadline_s,
			const struct strvec *higher, const struct strvec *lower)
{
	strbuf_addf(out, "[%s", name);
	if (iters)
		strbuf_addf(out, " iters=%ld", iters);
	if (deadline_s)
		strbuf_addf(out, " deadline=%ld", deadline_s);
	for (size_t i = 0; i < higher->nr; i++)
		strbuf_addf(out, " higher=%s", higher->v[i]);
	for (size_t i = 0; i < lower->nr; i++)
		strbuf_addf(out, " lower=%s", lower->v[i]);
	strbuf_addstr(out, "] ");
}

/*
 * Parse and check spec (the program exists and runs, the stressor is one
 * stress-ng has): fills spec, name, program, format and args. Returns 0,
 * or -1 after a message naming spec.
 */
static int user_workload_parse(struct user_workload *w, const char *spec)
{
	struct strbuf name = STRBUF_INIT, head = STRBUF_INIT;
	const char *body = spec;
	int stressng, ret = -1;

	if (spec[0] == '[') {
		const char *end = strchr(spec, ']');
		if (!end) {
			error("no ']' after the settings of workload '%s'", spec);
			goto out;
		}
		if (parse_header(w, &name, spec, spec + 1, (size_t)(end - spec - 1)))
			goto out;
		body = end + 1 + strspn(end + 1, " ");
	}
	stressng = !strncmp(body, "stress-ng:", 10);
	if (!stressng && strncmp(body, "exec:", 5)) {
		error("workload '%s' runs neither exec:PATH nor stress-ng:STRESSOR", spec);
		goto out;
	}
	if (split_shell_words(&w->args, body + (stressng ? 10 : 5))) {
		error("unterminated quote in workload '%s'", spec);
		goto out;
	}
	/* the guest reads its arguments a line each */
	for (size_t i = 0; i < w->args.nr; i++)
		if (strchr(w->args.v[i], '\n')) {
			error("an argument of '%s' holds a newline: the guest reads one argument a line",
			      w->args.v[0]);
			goto out;
		}
	if (stressng ? parse_stressng(w, spec) : parse_exec(w, spec))
		goto out;
	if (name.len) {
		strbuf_reset(&w->name);
		strbuf_addstr(&w->name, name.buf);
		header_text(&head, name.buf, w->iters, w->deadline_s, &w->higher, &w->lower);
		strbuf_addstr(&head, w->spec.buf);
		strbuf_reset(&w->spec);
		strbuf_addstr(&w->spec, head.buf);
	}
	ret = 0;
out:
	strbuf_release_all(&name, &head);
	return ret;
}

int workload_section_spec(struct strbuf *out, const struct lab_workload *s)
{
	int stressng = !strncmp(s->program, "stress-ng:", 10);
	char real[PATH_MAX];
	struct stat st;

	/* here, where the key's line is known: parse_exec() would name only the spec */
	if (!stressng && (!realpath(s->program, real) || stat(real, &st)))
		return error("cannot find program '%s' for 'workload.%s.program' in %s %s line %d: "
			     "%s", s->program, s->name, s->kind, s->file, s->program_line,
			     strerror(errno));
	if (!stressng && (!S_ISREG(st.st_mode) || access(real, X_OK)))
		return error("program '%s' for 'workload.%s.program' in %s %s line %d is not an "
			     "executable file", s->program, s->name, s->kind, s->file,
			     s->program_line);
	header_text(out, s->name, s->iters, s->deadline_s, &s->higher, &s->lower);
	if (stressng) {
		strbuf_addstr(out, "stress-ng:");
		workload_quote(out, s->program + 10);
	} else {
		strbuf_addstr(out, "exec:");
		workload_quote(out, s->program);
	}
	quote_all(out, &s->args, 0);
	return 0;
}

static void parsed_free(struct user_workload *w)
{
	if (w)
		user_workload_release(w);
	free(w);
}

void workload_list_init(struct workload_list *l)
{
	memset(l, 0, sizeof(*l));
	strvec_init(&l->specs);
}

void workload_list_release(struct workload_list *l)
{
	for (size_t i = 0; i < l->specs.nr; i++)
		parsed_free(l->user[i]);
	free(l->user);
	strvec_release(&l->specs);
	workload_list_init(l);
}

void workload_list_join(struct strbuf *out, const struct workload_list *l)
{
	for (size_t i = 0; i < l->specs.nr; i++)
		strbuf_addf(out, "%s%s", i ? "," : "", l->specs.v[i]);
}

/* A built-in's or a section's name onto l. */
static void list_push_name(struct workload_list *l, const char *name)
{
	ALLOC_GROW(l->user, l->specs.nr + 1, l->alloc);
	l->user[l->specs.nr] = NULL;
	strvec_push(&l->specs, name);
}

/*
 * spec parsed into l's i-th (i may be its end): its canonical spelling
 * becomes the text. -1 after the parser's message, l as it was.
 */
static int list_parse(struct workload_list *l, size_t i, const char *spec)
{
	struct user_workload *w = xcalloc(1, sizeof(*w));

	user_workload_init(w);
	if (user_workload_parse(w, spec)) {
		parsed_free(w);
		return -1;
	}
	if (i == l->specs.nr) {
		list_push_name(l, w->spec.buf);
	} else {
		xstrset(&l->specs.v[i], w->spec.buf);
		parsed_free(l->user[i]);
	}
	l->user[i] = w;
	return 0;
}

int workloads_parse_list(struct workload_list *out, const char *arg)
{
	struct strbuf one = STRBUF_INIT;
	const char *p = arg;
	int ret = 0;

	while (*p && !ret) {
		int quoted = 0;

		strbuf_reset(&one);
		/* a comma inside quotes is an argument's */
		for (; *p && (quoted || *p != ','); p++) {
			if (!quoted && *p == '\\' && p[1])
				strbuf_addch(&one, *p++);
			else
				quoted ^= *p == '\'';
			strbuf_addch(&one, *p);
		}
		if (*p == ',')
			p++;
		if (!one.len)
			continue;
		if (workload_is_user(one.buf)) {
			ret = list_parse(out, out->specs.nr, one.buf);
			continue;
		}
		/* a [workload "NAME"] section's name: workloads_resolve() tells */
		if (!workload_known(one.buf) && !name_ok(one.buf)) {
			ret = workload_unknown("workload", one.buf, "", WORKLOAD_NAMES ", exec:PATH, "
				      "stress-ng:STRESSOR");
			break;
		}
		list_push_name(out, one.buf);
	}
	strbuf_release(&one);
	return ret;
}

static void sections_known(struct strbuf *sb, const struct lab_workload *a, size_t na,
			   const struct lab_workload *b, size_t nb)
{
	for (size_t i = 0; i < na; i++)
		strbuf_addf(sb, ", %s", a[i].name);
	for (size_t i = 0; i < nb; i++)
		if (!config_workload_find(a, na, b[i].name))
			strbuf_addf(sb, ", %s", b[i].name);
}

/*
 * --arg onto the one exec: or stress-ng: workload of l: its spec with them
 * is parsed again (the options came after it), stress-ng's stressors known
 * by then.
 */
static int add_args(struct workload_list *l, const struct strvec *args)
{
	struct strbuf spec = STRBUF_INIT;
	size_t n = 0, at = 0;
	int ret = -1;

	for (size_t i = 0; i < l->specs.nr; i++)
		if (l->user[i] && l->specs.v[i][0] != '[') {
			at = i;
			n++;
		}
	if (!n) {
		const char *w = l->specs.nr ? l->specs.v[0] : "none";
		if (l->specs.nr && w[0] == '[')
			error("--arg '%s' is for exec: and stress-ng: workloads, not the [workload] "
			      "section '%.*s' (its arguments are its arg keys)", args->v[0],
			      (int)strcspn(w + 1, " ]"), w + 1);
		else
			error("--arg '%s' is for exec: and stress-ng: workloads, not '%s'", args->v[0],
			      w);
		goto out;
	}
	if (n > 1) {
		error("--arg '%s' with %zu exec: or stress-ng: workloads: give each its arguments "
		      "in a [workload] section", args->v[0], n);
		goto out;
	}
	strbuf_addstr(&spec, l->specs.v[at]);
	quote_all(&spec, args, 0);
	ret = list_parse(l, at, spec.buf);
out:
	strbuf_release(&spec);
	return ret;
}

int workloads_resolve(struct workload_list *l, const struct strvec *args,
		      const struct lab_workload *extra, size_t nextra,
		      const struct lab_workload *cfg, size_t ncfg)
{
	struct strbuf spec = STRBUF_INIT, known = STRBUF_INIT;
	int ret = -1;

	for (size_t i = 0; i < l->specs.nr; i++) {
		const char *name = l->specs.v[i];
		const struct lab_workload *s;

		if (l->user[i] || workload_known(name))
			continue;
		s = config_workload_find(extra, nextra, name);
		if (!s)
			s = config_workload_find(cfg, ncfg, name);
		if (!s) {
			strbuf_addstr(&known, WORKLOAD_NAMES ", exec:PATH, stress-ng:STRESSOR");
			sections_known(&known, extra, nextra, cfg, ncfg);
			workload_unknown("workload", name, "", known.buf);
			goto out;
		}
		strbuf_reset(&spec);
		if (workload_section_spec(&spec, s) || list_parse(l, i, spec.buf))
			goto out;
	}
	/* after the sections, so that a message names one as such */
	if (args && args->nr && add_args(l, args))
		goto out;
	ret = 0;
out:
	strbuf_release_all(&spec, &known);
	return ret;
}

static int metric_matches(const char *pattern, const char *metric)
{
	size_t len = strlen(pattern);

	if (len && pattern[len - 1] == '*')
		return !strncmp(pattern, metric, len - 1) && metric[len - 1];
	return !strcmp(pattern, metric);
}

/* names: the one list the answer comes from, onto known */
static enum workload_metric among(const char *const *names, size_t n, const char *metric,
				  struct strbuf *known)
{
	enum workload_metric ret = WORKLOAD_METRIC_NO;

	for (size_t i = 0; i < n && names[i]; i++) {
		if (metric_matches(names[i], metric))
			ret = WORKLOAD_METRIC_YES;
		if (known)
			strbuf_addf(known, "%s%s", known->len ? ", " : "", names[i]);
	}
	return ret;
}

enum workload_metric workload_metric(const char *spec, const struct user_workload *w,
				     const char *metric, struct strbuf *known)
{
	const char *stressng[USERWORK_STRESSNG_METRICS];
	const char *const *builtin = w ? NULL : workload_metrics(spec);

	if (builtin)
		return among(builtin, SIZE_MAX, metric, known);
	if (!w)
		return WORKLOAD_METRIC_UNKNOWN;
	/* what a [workload] section declares */
	if (among((const char *const *)w->higher.v, w->higher.nr, metric, NULL) ||
	    among((const char *const *)w->lower.v, w->lower.nr, metric, NULL))
		return WORKLOAD_METRIC_YES;
	if (strncmp(w->format.buf, "stress-ng ", 10))
		return WORKLOAD_METRIC_UNKNOWN;
	for (int i = 0; i < USERWORK_STRESSNG_METRICS; i++)
		stressng[i] = userwork_stressng_metric(i);
	return among(stressng, USERWORK_STRESSNG_METRICS, metric, known);
}

int workloads_metric_check(enum workload_metric *answer, const struct workload_list *l,
			   const char *metric)
{
	struct strbuf known = STRBUF_INIT, names = STRBUF_INIT;
	enum workload_metric all = WORKLOAD_METRIC_NO;

	for (size_t i = 0; i < l->specs.nr && all != WORKLOAD_METRIC_YES; i++) {
		enum workload_metric m = workload_metric(l->specs.v[i], l->user[i], metric, &known);

		if (m != WORKLOAD_METRIC_NO)
			all = m;
	}
	workload_list_join(&names, l);
	if (answer)
		*answer = all;
	if (all == WORKLOAD_METRIC_NO) {
		struct strbuf of = STRBUF_INIT;

		strbuf_addf(&of, " for workload '%s'", names.buf);
		workload_unknown("metric", metric, of.buf, known.buf);
		strbuf_release(&of);
	}
	strbuf_release_all(&known, &names);
	return all == WORKLOAD_METRIC_NO ? -1 : 0;
}

/* The shared objects ldd names for an ELF program; none for a static one. */
void user_workloads_meta(struct sample_set *set, const struct user_workload *w, size_t n)
{
	struct strbuf key = STRBUF_INIT, text = STRBUF_INIT;

	for (size_t k = 0; k < n; k++) {
		strbuf_reset(&key);
		strbuf_addf(&key, "workload.%s.program", w[k].name.buf);
		sample_set_meta(set, key.buf, w[k].spec.buf);
		strbuf_reset(&key);
		strbuf_reset(&text);
		strbuf_addf(&key, "workload.%s.args", w[k].name.buf);
		quote_all(&text, &w[k].args, 0);
		/* the same program with other arguments is another benchmark */
		sample_set_meta(set, key.buf, text.len ? text.buf + 1 : "");
		strbuf_reset(&key);
		strbuf_addf(&key, "workload.%s.sha256", w[k].name.buf);
		sample_set_meta(set, key.buf, w[k].sha256);
		if (w[k].version.len) {
			strbuf_reset(&key);
			strbuf_addf(&key, "workload.%s.version", w[k].name.buf);
			sample_set_meta(set, key.buf, w[k].version.buf);
		}
	}
	strbuf_release_all(&key, &text);
}

int user_workloads_load(struct user_workload **out, size_t *n, const struct workload_list *l)
{
	size_t alloc = *n;	/* all *out is known to hold */

	for (size_t i = 0; i < l->specs.nr; i++) {
		struct user_workload *w;

		if (!l->user[i]) {
			/* a section's name reaches here only when nothing resolved it */
			if (!workload_known(l->specs.v[i]))
				return workload_unknown("workload", l->specs.v[i], "", WORKLOAD_NAMES
					       ", exec:PATH, stress-ng:STRESSOR");
			continue;
		}
		ALLOC_GROW(*out, *n + 1, alloc);
		w = &(*out)[(*n)++];
		user_workload_init(w);
		user_workload_copy(w, l->user[i]);
		if (user_workload_stage(w))
			return -1;
		for (size_t k = 0; k + 1 < *n; k++)
			if (!strcmp((*out)[k].name.buf, w->name.buf))
				return error("workloads '%s' and '%s' would both be stored as '%s': "
					     "rename one program", (*out)[k].spec.buf,
					     w->spec.buf, w->name.buf);
	}
	return 0;
}
