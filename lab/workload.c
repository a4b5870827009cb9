#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "log.h"
#include "runner.h"
#include "sha256.h"
#include "subprocess.h"
#include "tempfile.h"
#include "xalloc.h"
#include "workload.h"

#define STRESSNG "/usr/bin/stress-ng"
#define BUSYBOX "/bin/busybox"
#define WORKDIR "lab/work"
/* a stored workload name is a protocol word of at most 31 bytes */
#define NAME_MAX_LEN 31

void user_workload_init(struct user_workload *w)
{
	memset(w, 0, sizeof(*w));
	strbuf_init(&w->spec, 0);
	strbuf_init(&w->name, 0);
	strbuf_init(&w->program, 0);
	strbuf_init(&w->format, 0);
	strbuf_init(&w->version, 0);
	strvec_init(&w->args);
	strvec_init(&w->libs);
	strvec_init(&w->higher);
	strvec_init(&w->lower);
}

void user_workload_release(struct user_workload *w)
{
	strbuf_release(&w->spec);
	strbuf_release(&w->name);
	strbuf_release(&w->program);
	strbuf_release(&w->format);
	strbuf_release(&w->version);
	strvec_release(&w->args);
	strvec_release(&w->libs);
	strvec_release(&w->higher);
	strvec_release(&w->lower);
}

int workload_is_user(const char *spec)
{
	return !strncmp(spec, "exec:", 5) || !strncmp(spec, "stress-ng:", 10) || spec[0] == '[';
}

void workload_quote(struct strbuf *out, const char *word)
{
	if (*word && !word[strcspn(word, " \t\n',\\\"")]) {
		strbuf_addstr(out, word);
		return;
	}
	strbuf_addch(out, '\'');
	for (; *word; word++) {
		if (*word == '\'')
			strbuf_addstr(out, "'\\''");
		else
			strbuf_addch(out, *word);
	}
	strbuf_addch(out, '\'');
}

/* Words as workload_quote() writes them; -1 for a quote left open. */
static int split_words(struct strvec *out, const char *s)
{
	struct strbuf word = STRBUF_INIT;
	int ret = 0;

	for (;;) {
		int any = 0;

		s += strspn(s, " \t\n");
		if (!*s)
			break;
		strbuf_reset(&word);
		while (*s && !strchr(" \t\n", *s)) {
			any = 1;
			if (*s == '\'') {
				const char *end = strchr(s + 1, '\'');
				if (!end) {
					ret = -1;
					goto out;
				}
				strbuf_add(&word, s + 1, (size_t)(end - s - 1));
				s = end + 1;
			} else if (*s == '\\' && s[1]) {
				strbuf_addch(&word, s[1]);
				s += 2;
			} else {
				strbuf_addch(&word, *s++);
			}
		}
		if (any)
			strvec_push(out, word.buf);
	}
out:
	strbuf_release(&word);
	return ret;
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

static int stressor_known(const char *stressor, struct strbuf *list)
{
	char *argv[] = { STRESSNG, "--stressors", NULL };
	struct strvec names = STRVEC_INIT;
	int found = 0;

	if (subprocess_run(argv, NULL, list, 30) != 0)
		return -1;
	strvec_split(&names, strbuf_str(list));
	for (size_t i = 0; i < names.nr; i++)
		found |= !strcmp(names.v[i], stressor);
	strvec_release(&names);
	return found;
}

static int parse_stressng(struct user_workload *w, const char *spec)
{
	struct strbuf list = STRBUF_INIT, name = STRBUF_INIT;
	const char *stressor;
	int has_timeout = 0, known, ret = -1;

	if (!w->args.nr)
		return error("no stressor in workload '%s' (want stress-ng:STRESSOR, e.g. stress-ng:mmap)",
			     spec);
	strbuf_addstr(&name, w->args.v[0]);
	stressor = name.buf;
	if (access(STRESSNG, X_OK))
		return error("workload '%s' needs %s (Debian's stress-ng package: make deps)", spec,
			     STRESSNG);
	if (!name_ok(stressor)) {
		error("unknown stressor '%s' in workload '%s' (see 'stress-ng --stressors')",
		      stressor, spec);
		goto out;
	}
	known = stressor_known(stressor, &list);
	if (known < 0) {
		error("cannot list the stressors of %s for workload '%s'", STRESSNG, spec);
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
	strbuf_addstr(&w->program, STRESSNG);
	strbuf_addf(&w->format, "stress-ng %s", stressor);
	for (size_t i = 1; i < w->args.nr; i++)
		has_timeout |= !strcmp(w->args.v[i], "--timeout") || !strcmp(w->args.v[i], "-t");
	/* one instance, the stressor's options from the spec after the lab's */
	{
		struct strvec user = STRVEC_INIT;
		for (size_t i = 1; i < w->args.nr; i++)
			strvec_push(&user, w->args.v[i]);
		strvec_release(&w->args);
		strvec_pushf(&w->args, "--%s", stressor);
		strvec_push(&w->args, "1");
		if (!has_timeout)
			strvec_pushl(&w->args, "--timeout", "10s", NULL);
		strvec_push(&w->args, "--metrics-brief");
		for (size_t i = 0; i < user.nr; i++)
			strvec_push(&w->args, user.v[i]);
		strvec_release(&user);
	}
	ret = 0;
out:
	strbuf_release(&list);
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
	{
		struct strvec rest = STRVEC_INIT;
		for (size_t i = 1; i < w->args.nr; i++)
			strvec_push(&rest, w->args.v[i]);
		strvec_release(&w->args);
		for (size_t i = 0; i < rest.nr; i++)
			strvec_push(&w->args, rest.v[i]);
		strvec_release(&rest);
	}
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

int user_workload_parse(struct user_workload *w, const char *spec)
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
	if (split_words(&w->args, body + (stressng ? 10 : 5))) {
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
	strbuf_release(&name);
	strbuf_release(&head);
	return ret;
}

int workload_section_spec(struct strbuf *out, const struct lab_workload *s)
{
	int stressng = !strncmp(s->program, "stress-ng:", 10);

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

/* A spec in canonical spelling, or -1 after the parser's message. */
static int canonical(struct strbuf *out, const char *spec)
{
	struct user_workload w;
	int ret;

	user_workload_init(&w);
	ret = user_workload_parse(&w, spec);
	if (!ret)
		strbuf_addstr(out, w.spec.buf);
	user_workload_release(&w);
	return ret;
}

static void replace(struct strvec *v, size_t i, const char *s)
{
	char *copy = xstrdup(s);

	free(v->v[i]);
	v->v[i] = copy;
}

int workloads_parse_list(struct strvec *out, const char *arg)
{
	struct strbuf one = STRBUF_INIT, spec = STRBUF_INIT;
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
			strbuf_reset(&spec);
			ret = canonical(&spec, one.buf);
			if (!ret)
				strvec_push(out, spec.buf);
			continue;
		}
		/* a [workload "NAME"] section's name: workloads_resolve() tells */
		if (!workload_known(one.buf) && !name_ok(one.buf)) {
			ret = error("unknown workload '%s' (known: %s, exec:PATH, stress-ng:STRESSOR)",
				    one.buf, WORKLOAD_NAMES);
			break;
		}
		strvec_push(out, one.buf);
	}
	strbuf_release(&one);
	strbuf_release(&spec);
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

/* --arg onto the one exec: or stress-ng: workload of specs. */
static int add_args(struct strvec *specs, const struct strvec *args)
{
	struct strbuf spec = STRBUF_INIT;
	size_t n = 0, at = 0;
	int ret = -1;

	for (size_t i = 0; i < specs->nr; i++)
		if (workload_is_user(specs->v[i]) && specs->v[i][0] != '[') {
			at = i;
			n++;
		}
	if (!n) {
		const char *w = specs->nr ? specs->v[0] : "none";
		if (specs->nr && w[0] == '[')
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
	strbuf_addstr(&spec, specs->v[at]);
	quote_all(&spec, args, 0);
	{
		struct strbuf canon = STRBUF_INIT;
		ret = canonical(&canon, spec.buf);
		if (!ret)
			replace(specs, at, canon.buf);
		strbuf_release(&canon);
	}
out:
	strbuf_release(&spec);
	return ret;
}

int workloads_resolve(struct strvec *specs, const struct strvec *args,
		      const struct lab_workload *extra, size_t nextra,
		      const struct lab_workload *cfg, size_t ncfg)
{
	struct strbuf spec = STRBUF_INIT, canon = STRBUF_INIT, known = STRBUF_INIT;
	int ret = -1;

	for (size_t i = 0; i < specs->nr; i++) {
		const struct lab_workload *s;

		if (workload_is_user(specs->v[i]) || workload_known(specs->v[i]))
			continue;
		s = config_workload_find(extra, nextra, specs->v[i]);
		if (!s)
			s = config_workload_find(cfg, ncfg, specs->v[i]);
		if (!s) {
			sections_known(&known, extra, nextra, cfg, ncfg);
			error("unknown workload '%s' (known: %s, exec:PATH, stress-ng:STRESSOR%s)",
			      specs->v[i], WORKLOAD_NAMES, strbuf_str(&known));
			goto out;
		}
		strbuf_reset(&spec);
		strbuf_reset(&canon);
		if (workload_section_spec(&spec, s) || canonical(&canon, spec.buf))
			goto out;
		replace(specs, i, canon.buf);
	}
	/* after the sections, so that a message names one as such */
	if (args && args->nr && add_args(specs, args))
		goto out;
	ret = 0;
out:
	strbuf_release(&spec);
	strbuf_release(&canon);
	strbuf_release(&known);
	return ret;
}

/* The shared objects ldd names for an ELF program; none for a static one. */
static int list_libs(struct user_workload *w)
{
	char *argv[] = { "ldd", w->program.buf, NULL };
	struct strbuf out = STRBUF_INIT;
	char *line, *save = NULL;
	int ret = 0, st;

	st = subprocess_run(argv, NULL, &out, 60);
	if (st < 0) {
		ret = error("cannot run ldd on '%s' for workload '%s'", w->program.buf, w->spec.buf);
		goto out;
	}
	/* "not a dynamic executable": nothing to add */
	if (st)
		goto out;
	for (line = strtok_r(out.buf, "\n", &save); line && !ret;
	     line = strtok_r(NULL, "\n", &save)) {
		char *arrow = strstr(line, "=> "), *path = arrow ? arrow + 3 : line;
		path += strspn(path, " \t");
		if (strstr(path, "not found"))
			ret = error("library '%s' of program '%s' (workload '%s') not found",
				    strtok(line + strspn(line, " \t"), " "), w->program.buf,
				    w->spec.buf);
		else if (*path == '/')
			strvec_push(&w->libs, strtok(path, " "));
	}
out:
	strbuf_release(&out);
	return ret;
}

int user_workload_stage(struct user_workload *w)
{
	char head[4] = { 0 };
	int fd;

	if (sha256_file(w->program.buf, w->sha256))
		return error("cannot read program '%s' of workload '%s': %s", w->program.buf,
			     w->spec.buf, strerror(errno));
	fd = open(w->program.buf, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, head, sizeof(head)) < 2) {
		if (fd >= 0)
			close(fd);
		return error("cannot read program '%s' of workload '%s'", w->program.buf,
			     w->spec.buf);
	}
	close(fd);
	w->script = head[0] == '#' && head[1] == '!';
	if (!strncmp(w->format.buf, "stress-ng ", 10)) {
		char *argv[] = { STRESSNG, "--version", NULL };
		if (subprocess_run(argv, NULL, &w->version, 30))
			return error("cannot ask %s its version for workload '%s'", STRESSNG,
				     w->spec.buf);
		/* "stress-ng, version 0.15.06 (gcc ..., x86_64 Linux <host's kernel>)": the number */
		{
			const char *v = strstr(strbuf_str(&w->version), "version ");
			struct strbuf num = STRBUF_INIT;
			if (v)
				strbuf_add(&num, v + 8, strcspn(v + 8, " \n"));
			strbuf_reset(&w->version);
			strbuf_addstr(&w->version, num.len ? num.buf : "unknown");
			strbuf_release(&num);
		}
	}
	if (!memcmp(head, "\x7f" "ELF", 4))
		return list_libs(w);
	if (w->script && access(BUSYBOX, X_OK))
		return error("script '%s' of workload '%s' needs %s as its shell in the guest "
			     "(Debian's busybox-static package: make deps)", w->program.buf,
			     w->spec.buf, BUSYBOX);
	return 0;
}

/* Each directory above path, once, parents first. */
static int add_parents(struct cpio *c, struct strvec *made, const char *path)
{
	struct strbuf dir = STRBUF_INIT;
	const char *p = path;
	int ret = 0;

	while (*p == '/')
		p++;
	for (const char *slash = strchr(p, '/'); slash && !ret; slash = strchr(slash + 1, '/')) {
		int seen = 0;
		strbuf_reset(&dir);
		strbuf_add(&dir, p, (size_t)(slash - p));
		for (size_t i = 0; i < made->nr && !seen; i++)
			seen = !strcmp(made->v[i], dir.buf);
		if (seen)
			continue;
		strvec_push(made, dir.buf);
		ret = cpio_add_dir(c, dir.buf, 0755);
	}
	strbuf_release(&dir);
	return ret;
}

/* The interpreter of a script: "/bin/sh" of "#!/bin/sh -e". */
static int script_interpreter(struct strbuf *out, const char *program)
{
	struct strbuf head = STRBUF_INIT;
	int ret = -1;

	if (strbuf_read_file(&head, program, 256) >= 0 && head.len > 2) {
		const char *s = head.buf + 2;
		s += strspn(s, " \t");
		strbuf_add(out, s, strcspn(s, " \t\r\n"));
		ret = out->len ? 0 : -1;
	}
	strbuf_release(&head);
	return ret;
}

static int add_busybox(struct cpio *c, struct strvec *made, const struct user_workload *w,
		       size_t n)
{
	char *argv[] = { BUSYBOX, "--list", NULL };
	struct strbuf list = STRBUF_INIT, interp = STRBUF_INIT, link = STRBUF_INIT;
	struct strvec applets = STRVEC_INIT, linked = STRVEC_INIT;
	int ret = -1;

	if (subprocess_run(argv, NULL, &list, 30)) {
		error("cannot list the applets of %s", BUSYBOX);
		goto out;
	}
	strvec_split(&applets, strbuf_str(&list));
	if (add_parents(c, made, "bin/busybox") ||
	    cpio_add_file_from_path(c, "bin/busybox", 0755, BUSYBOX))
		goto fail;
	for (size_t i = 0; i < applets.nr; i++) {
		if (!strcmp(applets.v[i], "busybox"))
			continue;
		strbuf_reset(&link);
		strbuf_addf(&link, "bin/%s", applets.v[i]);
		strvec_push(&linked, link.buf);
		if (cpio_add_symlink(c, link.buf, "busybox"))
			goto fail;
	}
	/* "#!/usr/bin/env sh" and the like: the interpreter's own path too */
	for (size_t k = 0; k < n; k++) {
		const char *base;
		int applet = 0, seen = 0;

		if (!w[k].script)
			continue;
		strbuf_reset(&interp);
		if (script_interpreter(&interp, w[k].program.buf)) {
			error("cannot read the interpreter of script '%s' (workload '%s')",
			      w[k].program.buf, w[k].spec.buf);
			goto out;
		}
		base = strrchr(interp.buf, '/') ? strrchr(interp.buf, '/') + 1 : interp.buf;
		for (size_t i = 0; i < applets.nr; i++)
			applet |= !strcmp(applets.v[i], base);
		if (!applet || interp.buf[0] != '/') {
			error("script '%s' of workload '%s' wants '%s', which busybox cannot stand in "
			      "for in the guest (use #!/bin/sh)", w[k].program.buf, w[k].spec.buf,
			      interp.buf);
			goto out;
		}
		for (size_t i = 0; i < linked.nr; i++)
			seen |= !strcmp(linked.v[i], interp.buf + 1);
		if (seen)
			continue;
		strvec_push(&linked, interp.buf + 1);
		if (add_parents(c, made, interp.buf) ||
		    cpio_add_symlink(c, interp.buf + 1, BUSYBOX))
			goto fail;
	}
	ret = 0;
	goto out;
fail:
	error("cannot add busybox to the initramfs: %s", strerror(errno));
out:
	strbuf_release(&list);
	strbuf_release(&interp);
	strbuf_release(&link);
	strvec_release(&applets);
	strvec_release(&linked);
	return ret;
}

static void args_text(struct strbuf *out, const struct user_workload *w)
{
	for (size_t i = 0; i < w->args.nr; i++)
		strbuf_addf(out, "%s\n", w->args.v[i]);
}

/*
 * A section's settings as the guest reads them beside the program
 * (runners/guest/exec.h): iters, deadline, directions. out[i] empty: no file.
 */
#define SETTINGS 3
static const char *const settings_files[SETTINGS] = { "iters", "deadline", "directions" };

static void settings_text(struct strbuf out[SETTINGS], const struct user_workload *w)
{
	for (int i = 0; i < SETTINGS; i++)
		strbuf_reset(&out[i]);
	if (w->iters)
		strbuf_addf(&out[0], "%ld", w->iters);
	if (w->deadline_s)
		strbuf_addf(&out[1], "%ld", w->deadline_s);
	for (size_t i = 0; i < w->higher.nr; i++)
		strbuf_addf(&out[2], "%s higher\n", w->higher.v[i]);
	for (size_t i = 0; i < w->lower.nr; i++)
		strbuf_addf(&out[2], "%s lower\n", w->lower.v[i]);
}

int user_workloads_cpio(struct cpio *c, const struct user_workload *w, size_t n)
{
	struct strvec made = STRVEC_INIT, libs = STRVEC_INIT;
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT, link = STRBUF_INIT;
	struct strbuf set[SETTINGS] = { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT };
	int ret = -1, scripts = 0;
	size_t same;

	/* the archive's own directories (cpio.c) */
	strvec_pushl(&made, "dev", "proc", "sys", "tmp", NULL);
	for (size_t k = 0; k < n; k++) {
		strbuf_reset(&path);
		strbuf_addf(&path, WORKDIR "/%s/run", w[k].name.buf);
		strbuf_reset(&text);
		args_text(&text, &w[k]);
		if (add_parents(c, &made, path.buf))
			goto fail;
		/* one copy of a program several workloads run (stress-ng's stressors) */
		for (same = 0; same < k; same++)
			if (!strcmp(w[same].sha256, w[k].sha256))
				break;
		strbuf_reset(&link);
		strbuf_addf(&link, "/" WORKDIR "/%s/run", w[same].name.buf);
		if (same < k ? cpio_add_symlink(c, path.buf, link.buf) :
			       cpio_add_file_from_path(c, path.buf, 0755, w[k].program.buf))
			goto fail;
		strbuf_reset(&path);
		strbuf_addf(&path, WORKDIR "/%s/args", w[k].name.buf);
		if (cpio_add_file(c, path.buf, 0644, text.buf, text.len))
			goto fail;
		strbuf_reset(&path);
		strbuf_addf(&path, WORKDIR "/%s/format", w[k].name.buf);
		if (cpio_add_file(c, path.buf, 0644, w[k].format.buf, w[k].format.len))
			goto fail;
		settings_text(set, &w[k]);
		for (int i = 0; i < SETTINGS; i++) {
			if (!set[i].len)
				continue;
			strbuf_reset(&path);
			strbuf_addf(&path, WORKDIR "/%s/%s", w[k].name.buf, settings_files[i]);
			if (cpio_add_file(c, path.buf, 0644, set[i].buf, set[i].len))
				goto fail;
		}
		scripts += w[k].script;
		for (size_t i = 0; i < w[k].libs.nr; i++) {
			int seen = 0;
			for (size_t j = 0; j < libs.nr && !seen; j++)
				seen = !strcmp(libs.v[j], w[k].libs.v[i]);
			if (seen)
				continue;
			strvec_push(&libs, w[k].libs.v[i]);
			if (add_parents(c, &made, w[k].libs.v[i]) ||
			    cpio_add_file_from_path(c, w[k].libs.v[i], 0755, w[k].libs.v[i]))
				goto fail;
		}
	}
	if (scripts && add_busybox(c, &made, w, n))
		goto out;
	ret = 0;
	goto out;
fail:
	error("cannot add '%s' to the initramfs: %s", path.buf, strerror(errno));
out:
	strvec_release(&made);
	strvec_release(&libs);
	strbuf_release(&path);
	strbuf_release(&text);
	strbuf_release(&link);
	for (int i = 0; i < SETTINGS; i++)
		strbuf_release(&set[i]);
	return ret;
}

static int write_small(const char *path, const char *text, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int ok = fd >= 0 && write(fd, text, len) == (ssize_t)len;

	if (fd >= 0 && close(fd))
		ok = 0;
	return ok ? 0 : -1;
}

int user_workloads_stage_dir(const char *dir, const struct user_workload *w, size_t n)
{
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT;
	struct strbuf set[SETTINGS] = { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT };
	int ret = -1;

	if (mkdir(dir, 0755) && errno != EEXIST) {
		error("cannot make directory '%s': %s", dir, strerror(errno));
		goto out;
	}
	for (size_t k = 0; k < n; k++) {
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", dir, w[k].name.buf);
		if (mkdir(path.buf, 0755) && errno != EEXIST)
			goto fail;
		strbuf_addstr(&path, "/run");
		if (tempfile_register(path.buf))
			goto out;
		unlink(path.buf);
		if (symlink(w[k].program.buf, path.buf))
			goto fail;
		strbuf_setlen(&path, path.len - 4);
		strbuf_addstr(&path, "/args");
		strbuf_reset(&text);
		args_text(&text, &w[k]);
		if (tempfile_register(path.buf))
			goto out;
		if (write_small(path.buf, text.buf, text.len))
			goto fail;
		strbuf_setlen(&path, path.len - 5);
		strbuf_addstr(&path, "/format");
		if (tempfile_register(path.buf))
			goto out;
		if (write_small(path.buf, w[k].format.buf, w[k].format.len))
			goto fail;
		settings_text(set, &w[k]);
		for (int i = 0; i < SETTINGS; i++) {
			strbuf_reset(&path);
			strbuf_addf(&path, "%s/%s/%s", dir, w[k].name.buf, settings_files[i]);
			/* a file from an earlier staging must not speak for this one */
			unlink(path.buf);
			if (!set[i].len)
				continue;
			if (tempfile_register(path.buf))
				goto out;
			if (write_small(path.buf, set[i].buf, set[i].len))
				goto fail;
		}
	}
	ret = 0;
	goto out;
fail:
	error("cannot write '%s': %s", path.buf, strerror(errno));
out:
	strbuf_release(&path);
	strbuf_release(&text);
	for (int i = 0; i < SETTINGS; i++)
		strbuf_release(&set[i]);
	return ret;
}

void user_workloads_unstage_dir(const char *dir, const struct user_workload *w, size_t n)
{
	static const char *const files[] = { "run", "args", "format", "iters", "deadline",
					     "directions" };
	struct strbuf path = STRBUF_INIT;

	for (size_t k = 0; k < n; k++) {
		for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			strbuf_reset(&path);
			strbuf_addf(&path, "%s/%s/%s", dir, w[k].name.buf, files[i]);
			tempfile_delete(path.buf);
		}
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", dir, w[k].name.buf);
		rmdir(path.buf);
	}
	rmdir(dir);
	strbuf_release(&path);
}

int user_workloads_load(struct user_workload **out, size_t *n, const struct strvec *specs)
{
	for (size_t i = 0; i < specs->nr; i++) {
		struct user_workload *w;

		if (!workload_is_user(specs->v[i])) {
			/* a section's name reaches here only when nothing resolved it */
			if (!workload_known(specs->v[i]))
				return error("unknown workload '%s' (known: %s, exec:PATH, "
					     "stress-ng:STRESSOR)", specs->v[i], WORKLOAD_NAMES);
			continue;
		}
		*out = xrealloc(*out, (*n + 1) * sizeof(**out));
		w = &(*out)[(*n)++];
		user_workload_init(w);
		if (user_workload_parse(w, specs->v[i]) || user_workload_stage(w))
			return -1;
		for (size_t k = 0; k + 1 < *n; k++)
			if (!strcmp((*out)[k].name.buf, w->name.buf))
				return error("workloads '%s' and '%s' would both be stored as '%s': "
					     "rename one program", (*out)[k].spec.buf,
					     w->spec.buf, w->name.buf);
	}
	return 0;
}

void user_workloads_free(struct user_workload **w, size_t *n)
{
	for (size_t k = 0; k < *n; k++)
		user_workload_release(&(*w)[k]);
	free(*w);
	*w = NULL;
	*n = 0;
}

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
	strbuf_release(&key);
	strbuf_release(&text);
}

struct staged {
	struct user_workload *w;
	size_t n;
};

static int add_staged(struct cpio *c, void *data)
{
	struct staged *s = data;

	return user_workloads_cpio(c, s->w, s->n);
}

int user_workloads_initramfs(const char *out_path, const char *init_binary,
			     struct user_workload *w, size_t n)
{
	struct staged s = { w, n };

	return initramfs_write_with(out_path, init_binary, n ? add_staged : NULL, &s);
}
