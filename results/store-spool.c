/* Finished runs the database could not take: written, and imported later (store-spool.h). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomicfile.h"
#include "log.h"
#include "run.h"
#include "store-private.h"
#include "store-spool.h"
#include "strbuf.h"
#include "strvec.h"

#define SPOOL_MAGIC "lab-spool 1"

/* A field of a line: tabs, newlines and backslashes escaped, so that one record is one line. */
static void add_field(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '\t');
	for (; s && *s; s++) {
		switch (*s) {
		case '\\': strbuf_addstr(sb, "\\\\"); break;
		case '\t': strbuf_addstr(sb, "\\t"); break;
		case '\n': strbuf_addstr(sb, "\\n"); break;
		case '\r': strbuf_addstr(sb, "\\r"); break;
		default: strbuf_addch(sb, *s);
		}
	}
}

static void add_num(struct strbuf *sb, double v)
{
	strbuf_addf(sb, "\t%.17g", v);
}

int store_spool_write(const char *path, long long run_id, const struct run_result *res,
		      const char *console_log)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	strbuf_addf(&sb, "%s\nrun\t%lld\t%d\t%d", SPOOL_MAGIC, run_id, (int)res->status,
		    res->bad_lines);
	add_num(&sb, res->wall_s);
	add_num(&sb, res->to_hello_s);
	add_field(&sb, res->error.buf);
	add_field(&sb, console_log);
	add_field(&sb, res->accel);
	add_field(&sb, res->full_cmdline);
	add_field(&sb, res->tail.buf);
	strbuf_addch(&sb, '\n');
	for (size_t i = 0; i < res->set.meta_nr; i++) {
		strbuf_addstr(&sb, "meta");
		add_field(&sb, res->set.meta[i].key);
		add_field(&sb, res->set.meta[i].value);
		strbuf_addch(&sb, '\n');
	}
	for (size_t i = 0; i < res->set.nr; i++) {
		struct sample s;

		sample_set_get(&res->set, i, &s);
		strbuf_addstr(&sb, "sample");
		add_field(&sb, s.workload);
		add_field(&sb, s.metric);
		add_field(&sb, s.unit);
		strbuf_addf(&sb, "\t%ld\t%u", s.iteration, s.flags);
		add_num(&sb, s.value);
		strbuf_addch(&sb, '\n');
	}
	for (size_t i = 0; i < res->dropped_nr; i++) {
		strbuf_addstr(&sb, "dropped");
		add_field(&sb, res->dropped[i].reason);
		add_field(&sb, res->dropped[i].line);
		strbuf_addch(&sb, '\n');
	}
	for (size_t i = 0; i < res->profile_nr; i++) {
		strbuf_addstr(&sb, "profile");
		add_field(&sb, res->profile[i].workload);
		add_field(&sb, res->profile[i].function);
		strbuf_addf(&sb, "\t%lld", res->profile[i].calls);
		add_num(&sb, res->profile[i].ns);
		strbuf_addch(&sb, '\n');
	}
	/* a file cut short has no end line: never imported as a whole run */
	strbuf_addstr(&sb, "end\n");
	ret = atomic_write_buf(path, 0644, ATOMIC_DURABLE, "spool file", sb.buf, sb.len);
	strbuf_release(&sb);
	return ret;
}

/* The fields of one line, unescaped, into f (the record's name first). */
static void split_line(struct strvec *f, const char *line, size_t len)
{
	struct strbuf field = STRBUF_INIT;

	for (size_t i = 0; i <= len; i++) {
		char c = i < len ? line[i] : '\t';

		if (c == '\t') {
			strvec_push(f, field.buf ? field.buf : "");
			strbuf_reset(&field);
		} else if (c == '\\' && i + 1 < len) {
			c = line[++i];
			strbuf_addch(&field, c == 't' ? '\t' : c == 'n' ? '\n' : c == 'r' ? '\r' : c);
		} else {
			strbuf_addch(&field, c);
		}
	}
	strbuf_release(&field);
}

static int parse_ll(const char *s, long long *out)
{
	char *end;

	errno = 0;
	*out = strtoll(s, &end, 10);
	return *s && !*end && !errno ? 0 : -1;
}

static int parse_num(const char *s, double *out)
{
	char *end;

	*out = strtod(s, &end);
	return *s && !*end ? 0 : -1;
}

/* A spool file's text into *res; its run id and console log too. -1 when it is not whole. */
static int spool_parse(struct run_result *res, long long *run_id, struct strbuf *console_log,
		       const struct strbuf *text)
{
	struct strvec f = STRVEC_INIT;
	const char *p = text->buf, *end = text->buf + text->len;
	long long a, b;
	int ret = -1, seen_end = 0, lineno = 0;

	while (p < end && !seen_end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		size_t len;

		if (!eol)
			goto out;
		len = (size_t)(eol - p);
		strvec_release(&f);
		split_line(&f, p, len);
		p = eol + 1;
		if (!lineno++) {
			if (len != strlen(SPOOL_MAGIC) || memcmp(f.v[0], SPOOL_MAGIC, len))
				goto out;
			continue;
		}
		if (!strcmp(f.v[0], "run") && f.nr == 11) {
			double wall, hello;

			if (parse_ll(f.v[1], run_id) || parse_ll(f.v[2], &a) || parse_ll(f.v[3], &b) ||
			    parse_num(f.v[4], &wall) || parse_num(f.v[5], &hello) ||
			    a < RUN_RUNNING || a > RUN_INFRA)
				goto out;
			res->status = (enum run_status)a;
			res->bad_lines = (int)b;
			res->wall_s = wall;
			res->to_hello_s = hello;
			strbuf_addstr(&res->error, f.v[6]);
			strbuf_addstr(console_log, f.v[7]);
			snprintf(res->accel, sizeof(res->accel), "%s", f.v[8]);
			snprintf(res->full_cmdline, sizeof(res->full_cmdline), "%s", f.v[9]);
			strbuf_addstr(&res->tail, f.v[10]);
		} else if (!strcmp(f.v[0], "meta") && f.nr == 3) {
			sample_set_meta(&res->set, f.v[1], f.v[2]);
		} else if (!strcmp(f.v[0], "sample") && f.nr == 7) {
			struct sample s = { f.v[1], f.v[2], f.v[3], 0, 0, 0 };

			if (parse_ll(f.v[4], &a) || parse_ll(f.v[5], &b) || parse_num(f.v[6], &s.value))
				goto out;
			s.iteration = (long)a;
			s.flags = (unsigned)b;
			sample_set_add(&res->set, &s);
		} else if (!strcmp(f.v[0], "dropped") && f.nr == 3) {
			int bad = res->bad_lines;

			run_result_drop(res, f.v[1], f.v[2], strlen(f.v[2]));
			res->bad_lines = bad;	/* the run line counted them all */
		} else if (!strcmp(f.v[0], "profile") && f.nr == 5) {
			double ns;

			if (parse_ll(f.v[3], &a) || parse_num(f.v[4], &ns))
				goto out;
			run_result_add_profile(res, f.v[1], f.v[2], a, ns);
		} else if (!strcmp(f.v[0], "end") && f.nr == 1) {
			seen_end = 1;
		} else {
			goto out;
		}
	}
	if (seen_end && *run_id > 0)
		ret = 0;
out:
	strvec_release(&f);
	return ret;
}

/* One spool file into the store, then gone; a warning and the file kept when it cannot be. */
static void import_one(struct store *st, const char *path)
{
	struct strbuf text = STRBUF_INIT, log = STRBUF_INIT;
	struct run_result res;
	long long run_id = 0, have = 0;

	run_result_init(&res);
	if (strbuf_read_file(&text, path, 0)) {
		warning("cannot import spool file '%s': %s", path, strerror(errno));
		goto out;
	}
	if (spool_parse(&res, &run_id, &log, &text)) {
		warning("cannot import spool file '%s': not a whole spool file", path);
		goto out;
	}
	if (store_rows(st, NULL, "SELECT count(*) FROM runs WHERE id = ?1",
		       STORE_ARGS(STORE_INT(run_id)), store_row_int, &have) || !have) {
		warning("cannot import spool file '%s': database '%s' has no run %lld", path,
			st->path, run_id);
		goto out;
	}
	if (store_run_finish_tx(st, run_id, &res, log.len ? log.buf : NULL, 1)) {
		warning("cannot import spool file '%s' into database '%s': %s", path, st->path,
			sqlite3_errmsg(st->conn->db));
		goto out;
	}
	if (unlink(path) && errno != ENOENT)
		warning("imported spool file '%s', but cannot remove it: %s", path, strerror(errno));
	info("run %lld stored from '%s', where it was kept when database '%s' could not take it",
	     run_id, path, st->path);
out:
	run_result_release(&res);
	strbuf_release(&text);
	strbuf_release(&log);
}

static int is_spool_name(const char *name)
{
	size_t n = strlen(name);

	return n > 10 && !strncmp(name, "run-", 4) && !strcmp(name + n - 6, ".spool") &&
	       strspn(name + 4, "0123456789") == n - 10;
}

int store_spool_import(struct store *st, const char *dir)
{
	struct strvec names = STRVEC_INIT;
	struct strbuf path = STRBUF_INIT;
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return errno == ENOENT ? 0 : error("cannot read directory '%s': %s", dir,
						   strerror(errno));
	while ((e = readdir(d)))
		if (is_spool_name(e->d_name))
			strvec_push(&names, e->d_name);
	closedir(d);
	for (size_t i = 0; i < names.nr; i++) {
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", dir, names.v[i]);
		import_one(st, path.buf);
	}
	strvec_release(&names);
	strbuf_release(&path);
	return 0;
}
