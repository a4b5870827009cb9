/* Finished runs the database could not take: written, and imported later (store-spool.h). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomicfile.h"
#include "log.h"
#include "regfile.h"
#include "run.h"
#include "store-private.h"
#include "store-spool.h"
#include "strbuf.h"
#include "strvec.h"
#include "subprocess.h"

/* 2: the run's identity after the magic line; a file of version 1 has none, and is left */
#define SPOOL_MAGIC "lab-spool 2"

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

/*
 * Which run a spool file is for: the row's id alone is not enough, since the
 * logs folder outlives a database removed and made again, and is shared by
 * two databases of one name. The time it started (to the bit), its
 * experiment, variant, kernel, runner, workloads and host tell one run of
 * one database from the run that took its id in another.
 */
#define IDENTITY_FIELDS 8
#define IDENTITY_SQL "SELECT ?1, quote(started), experiment_id, variant_id, kernel_id, runner, " \
		     "workloads, host FROM runs WHERE id = ?1"

static int identity_row(sqlite3_stmt *q, void *data)
{
	struct strbuf *sb = data;

	strbuf_addstr(sb, "identity");
	for (int i = 0; i < IDENTITY_FIELDS; i++)
		add_field(sb, store_text(q, i));
	strbuf_addch(sb, '\n');
	return 0;
}

/*
 * res written whole to the spool file path, with the identity of run_id
 * as st has it; -1 after the message.
 */
static int spool_write(struct store *st, const char *path, long long run_id,
		       const struct run_result *res, const char *console_log)
{
	struct strbuf sb = STRBUF_INIT;
	size_t at;
	int ret;

	strbuf_addf(&sb, "%s\n", SPOOL_MAGIC);
	at = sb.len;
	/* without it the file is still written: its samples kept, for a person to judge */
	if (store_rows(st, NULL, IDENTITY_SQL, STORE_ARGS(STORE_INT(run_id)), identity_row, &sb) ||
	    sb.len == at)
		strbuf_addstr(&sb, "identity\tunknown\n");
	strbuf_addf(&sb, "run\t%lld\t%d\t%d", run_id, (int)res->status, res->bad_lines);
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
/* run-N.log's spool file: run-N.spool beside it. */
static void spool_path(struct strbuf *sb, const char *console_log)
{
	size_t n = strlen(console_log);

	if (n > 4 && !strcmp(console_log + n - 4, ".log"))
		n -= 4;
	strbuf_add(sb, console_log, n);
	strbuf_addstr(sb, ".spool");
}

/*
 * The database did not take the run: its result into the spool file, and
 * the row marked INFRA with the reason when the database takes that
 * much. One line says what happened to the samples. Returns -1.
 */
static int spool_run(struct store *st, long long run_id, const struct run_result *res,
		     const char *console_log, const char *why)
{
	struct strbuf path = STRBUF_INIT, reason = STRBUF_INIT;
	int kept = 0;

	if (console_log) {
		spool_path(&path, console_log);
		kept = !spool_write(st, path.buf, run_id, res, console_log);
	}
	if (kept)
		strbuf_addf(&reason, "results not stored (%s): kept in '%s' for the next lab to "
			    "import", why, path.buf);
	else
		strbuf_addf(&reason, "results not stored (%s): lost", why);
	/*
	 * Only a run still RUNNING: another lab may have imported the spool
	 * file since it was written, and its result is the run's real one.
	 */
	if (!sqlite3_exec(st->conn->db, "BEGIN IMMEDIATE", NULL, NULL, NULL)) {
		if (store_rows(st, NULL, "UPDATE runs SET status = 'INFRA', error = ?2, ended = ?3, "
			       "console_log = ?4 WHERE id = ?1 AND status = 'RUNNING'",
			       STORE_ARGS(STORE_INT(run_id), STORE_TEXT(reason.buf),
					  STORE_NUM(now_wall()), STORE_TEXT(console_log)), NULL, NULL) ||
		    store_clear_owner(st, run_id) ||
		    sqlite3_exec(st->conn->db, "COMMIT", NULL, NULL, NULL))
			store_rollback(st);
	}
	if (kept)
		error("cannot store run %lld in database '%s': %s; its results are kept in '%s' "
		      "for the next lab to import", run_id, st->path, why, path.buf);
	else
		error("cannot store run %lld in database '%s': %s; its results are lost", run_id,
		      st->path, why);
	strbuf_release(&path);
	strbuf_release(&reason);
	return -1;
}

/*
 * A run's end, samples and all. Another process holding the database's
 * lock is waited for (each try waits sqlite's busy timeout), up to
 * STORE_FINISH_PATIENCE_S; past that, or on any other failure (a full
 * disk), the result goes to the run's spool file (store-spool.h).
 */
int store_run_finish(struct store *st, long long run_id, const struct run_result *res,
		     const char *console_log)
{
	double start = now_monotonic();
	int rc, waited = 0;

	for (;;) {
		rc = store_run_finish_tx(st, run_id, res, console_log, 0);
		if (rc == SQLITE_OK) {
			if (waited)
				info("run %lld stored in database '%s'", run_id, st->path);
			return 0;
		}
		if ((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED)
			break;
		if (now_monotonic() - start > STORE_FINISH_PATIENCE_S)
			break;
		if (!waited++)
			warning("database '%s' is locked by another process: waiting up to %d s to "
				"store run %lld", st->path, STORE_FINISH_PATIENCE_S, run_id);
		sleep(1);
	}
	return spool_run(st, run_id, res, console_log, sqlite3_errstr(rc));
}

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
static int spool_parse(struct run_result *res, long long *run_id, struct strvec *identity,
		       struct strbuf *console_log, const struct strbuf *text)
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
		if (!strcmp(f.v[0], "identity") && !identity->nr) {
			for (size_t i = 1; i < f.nr; i++)
				strvec_push(identity, f.v[i]);
		} else if (!strcmp(f.v[0], "run") && f.nr == 11) {
			double wall, hello;

			if (parse_ll(f.v[1], run_id) || parse_ll(f.v[2], &a) || parse_ll(f.v[3], &b) ||
			    parse_num(f.v[4], &wall) || parse_num(f.v[5], &hello) ||
			    a <= RUN_RUNNING || a > RUN_INFRA)
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

/* The row a spool file names, as it is now. */
struct spool_target {
	int found, same;
	char status[16];
	struct strbuf error;
	long long owners;
};

static int target_row(sqlite3_stmt *q, void *data)
{
	struct spool_target *t = data;

	t->found = 1;
	t->same = sqlite3_column_int(q, 0);
	snprintf(t->status, sizeof(t->status), "%s", store_text(q, 1));
	strbuf_addstr(&t->error, store_text(q, 2));
	t->owners = sqlite3_column_int64(q, 3);
	return 0;
}

static int starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/*
 * Whether the row may take the spool's result: a run nobody is running
 * any more that was left waiting for it (RUNNING without an owner,
 * INFRA with the reason spool_run() or a lab that died gave it).
 * Anything else ended otherwise, or is another lab's to finish.
 */
static int target_waits(const struct spool_target *t)
{
	if (!strcmp(t->status, "RUNNING"))
		return !t->owners;
	return !strcmp(t->status, "INFRA") &&
	       ((starts_with(t->error.buf, "results not stored (") &&
		 strstr(t->error.buf, "): kept in '")) ||
		starts_with(t->error.buf, "the lab running it died (pid "));
}

/* One spool file into the store, then gone; a warning and the file kept when it cannot be. */
static void import_one(struct store *st, const char *path)
{
	struct strbuf text = STRBUF_INIT, log = STRBUF_INIT;
	struct strvec identity = STRVEC_INIT;
	struct spool_target t = { .error = STRBUF_INIT };
	struct run_result res;
	long long run_id = 0, id;
	int rc;

	run_result_init(&res);
	if (strbuf_read_file(&text, path, 0)) {
		warning("cannot import spool file '%s': %s", path, strerror(errno));
		goto out;
	}
	if (spool_parse(&res, &run_id, &identity, &log, &text)) {
		warning("cannot import spool file '%s': not a whole spool file of this lab", path);
		goto out;
	}
	if (identity.nr != IDENTITY_FIELDS || parse_ll(identity.v[0], &id) || id != run_id) {
		warning("cannot import spool file '%s': it does not say which run of which "
			"database it is for", path);
		goto out;
	}
	if (store_rows(st, NULL, "SELECT quote(started) = ?2 AND "
		       "COALESCE(CAST(experiment_id AS TEXT), '') = ?3 AND "
		       "COALESCE(CAST(variant_id AS TEXT), '') = ?4 AND "
		       "COALESCE(CAST(kernel_id AS TEXT), '') = ?5 AND runner = ?6 AND "
		       "workloads = ?7 AND COALESCE(host, '') = ?8, status, error, "
		       "(SELECT count(*) FROM run_owners WHERE run_id = ?1) FROM runs WHERE id = ?1",
		       STORE_ARGS(STORE_INT(run_id), STORE_TEXT(identity.v[1]),
				  STORE_TEXT(identity.v[2]), STORE_TEXT(identity.v[3]),
				  STORE_TEXT(identity.v[4]), STORE_TEXT(identity.v[5]),
				  STORE_TEXT(identity.v[6]), STORE_TEXT(identity.v[7])),
		       target_row, &t)) {
		warning("cannot import spool file '%s': cannot read run %lld of database '%s': %s",
			path, run_id, st->path, sqlite3_errmsg(st->conn->db));
		goto out;
	}
	if (!t.found || !t.same) {
		warning("cannot import spool file '%s': database '%s' has no run %lld%s", path,
			st->path, run_id, t.found ? " that started when this one did (it was "
			"written for another database of that name)" : "");
		goto out;
	}
	if (!target_waits(&t)) {
		warning("cannot import spool file '%s': run %lld of database '%s' is %s%s", path,
			run_id, st->path, t.status, strcmp(t.status, "RUNNING") ?
			", not waiting for it" : " in another lab");
		goto out;
	}
	rc = store_run_finish_tx(st, run_id, &res, log.len ? log.buf : NULL, 1);
	if (rc != SQLITE_OK) {
		/* after the rollback, sqlite's last message is the rollback's */
		warning("cannot import spool file '%s' into database '%s': %s", path, st->path,
			sqlite3_errstr(rc));
		goto out;
	}
	if (unlink(path) && errno != ENOENT)
		warning("imported spool file '%s', but cannot remove it: %s", path, strerror(errno));
	info("run %lld stored from '%s', where it was kept when database '%s' could not take it",
	     run_id, path, st->path);
out:
	run_result_release(&res);
	strvec_release(&identity);
	strbuf_release_all(&t.error, &text, &log);
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
