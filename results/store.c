#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "host.h"
#include "log.h"
#include "strbuf.h"
#include "store-private.h"
#include "subprocess.h"
#include "xalloc.h"

extern const char lab_schema_sql[];

/*
 * sqlite's words for the connection's last failure: the one place they are
 * read. A connection sqlite could not allocate has no handle to ask.
 */
static const char *store_errmsg(const struct store *st)
{
	if (!st->conn)
		return "not open";
	return st->conn->db ? sqlite3_errmsg(st->conn->db) : "out of memory";
}

int store_error(struct store *st, const char *what)
{
	return error("%s in database '%s': %s", what, st->path, store_errmsg(st));
}

static int exec(struct store *st, const char *sql, const char *what)
{
	if (sqlite3_exec(st->conn->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return store_error(st, what);
	return 0;
}

static int schema_version(struct store *st, int *out)
{
	long long v = -1;

	/* sqlite says "file is not a database" here for a corrupt file */
	if (store_rows(st, NULL, "PRAGMA user_version", NULL, 0, store_row_int, &v) || v < 0)
		return error("cannot open database '%s': %s", st->path, store_errmsg(st));
	*out = (int)v;
	return 0;
}

/*
 * Whether the schema must be applied: an older version, or one of this
 * version that lacks its view or its events, profiles, explanations or
 * explanation_runs table (none changes a table there was, so a file can
 * be missing one without being of another version). 1 yes, 0 no, -1 error.
 */
static int schema_stale(struct store *st, int version)
{
	long long have = 0;

	if (version < STORE_SCHEMA_VERSION)
		return 1;
	if (store_rows(st, "cannot read schema", "SELECT count(*) FROM sqlite_master WHERE "
		       "(type = 'view' AND name = 'counted_samples') OR "
		       "(type = 'table' AND name IN ('events', 'profiles', 'explanations', "
		       "'explanation_runs'))", NULL, 0, store_row_int, &have))
		return -1;
	return have < 5;
}

/*
 * A damaged file must not grow: rows appended to it would be lost with it,
 * or read back wrong. quick_check reads every page, without the index
 * cross-checks of integrity_check.
 */
static int find_damage(struct store *st, struct strbuf *msg)
{
	struct strbuf result = STRBUF_INIT;
	const char *why = NULL;
	int ret = -1;

	/* a damaged schema or page fails the statement itself */
	if (store_rows(st, NULL, "PRAGMA quick_check(1)", NULL, 0, store_row_text, &result))
		why = store_errmsg(st);
	else if (strcmp(result.buf, "ok"))
		why = result.buf;
	if (why) {
		strbuf_addf(msg, "database '%s' is damaged (", st->path);
		/* sqlite's report can span lines ("*** in database main ***\nPage 25: ..."): one line */
		for (; *why; why++)
			strbuf_addch(msg, *why == '\n' ? ' ' : *why);
		strbuf_addf(msg, "): refusing to write to it; 'sqlite3 %s .recover' saves what is "
			    "left", st->path);
	} else {
		ret = 0;
	}
	strbuf_release(&result);
	return ret;
}

static int check_intact(struct store *st)
{
	struct strbuf msg = STRBUF_INIT;
	int ret = find_damage(st, &msg);

	if (ret)
		error("%s", msg.buf);
	strbuf_release(&msg);
	return ret;
}

/*
 * Columns added to tables older databases already have: CREATE TABLE IF
 * NOT EXISTS leaves those alone, and ADD COLUMN fails when run twice, so
 * each is added only when the table lacks it. Runs from before version 4
 * were all measured in wall time; bisections from before version 5 did not
 * record the level of their effect's interval, those from before
 * version 8 were built without config fragments, and those from before
 * version 10 decided with the default band of 2 %; those from before
 * version 13 booted their own ends. A column dropped (definition NULL) is
 * dropped only where the table still has it: bisections.args, before
 * version 14 always '', the spec being in bisect_specs.
 */
static const struct column_change {
	const char *table, *column, *definition;
} column_changes[] = {
	{ "runs", "clock", "clock TEXT NOT NULL DEFAULT 'wall'" },
	{ "bisections", "effect_alpha", "effect_alpha REAL" },
	{ "bisect_specs", "config_fragments", "config_fragments TEXT" },
	{ "bisect_specs", "delta", "delta REAL" },
	{ "bisect_specs", "seed_experiment", "seed_experiment INTEGER" },
	{ "bisections", "args", NULL },
};

static int change_column(struct store *st, const struct column_change *c)
{
	struct strbuf sql = STRBUF_INIT;
	struct strvec have = STRVEC_INIT;
	int ret = -1, found = 0;

	if (store_rows(st, "cannot upgrade schema", "SELECT name FROM pragma_table_info(?1)",
		       STORE_ARGS(STORE_TEXT(c->table)), store_row_strvec, &have))
		goto out;
	ret = 0;
	for (size_t i = 0; i < have.nr && !found; i++)
		found = !strcmp(have.v[i], c->column);
	if (found == !!c->definition)
		goto out;
	if (c->definition)
		strbuf_addf(&sql, "ALTER TABLE %s ADD COLUMN %s", c->table, c->definition);
	else
		strbuf_addf(&sql, "ALTER TABLE %s DROP COLUMN %s", c->table, c->column);
	ret = exec(st, sql.buf, "cannot upgrade schema");
out:
	strvec_release(&have);
	strbuf_release(&sql);
	return ret;
}

static int change_columns(struct store *st)
{
	for (size_t i = 0; i < ARRAY_SIZE(column_changes); i++)
		if (change_column(st, &column_changes[i]))
			return -1;
	return 0;
}

int store_clear_owner(struct store *st, long long run_id)
{
	return store_rows(st, NULL, "DELETE FROM run_owners WHERE run_id = ?1",
			  STORE_ARGS(STORE_INT(run_id)), NULL, NULL);
}

struct orphans {
	char host[256];
	long long *ids;
	long *pids;
	size_t n, ids_alloc, pids_alloc;
};

/* An owner whose lab is gone: its pid no longer runs, or runs another program. */
static int orphan_row(sqlite3_stmt *q, void *data)
{
	struct orphans *o = data;
	char now[128];
	pid_t pid = (pid_t)sqlite3_column_int64(q, 1);
	int running = sqlite3_column_int(q, 3);

	if (running && !host_process_start(now, sizeof(now), pid) &&
	    !strcmp(now, store_text(q, 2)))
		return 0;
	ALLOC_GROW(o->ids, o->n + 1, o->ids_alloc);
	ALLOC_GROW(o->pids, o->n + 1, o->pids_alloc);
	o->ids[o->n] = sqlite3_column_int64(q, 0);
	o->pids[o->n++] = pid;
	return 0;
}

/*
 * Runs left RUNNING by a lab of this host that is gone become INFRA, with
 * the pid named; owners of runs that ended are forgotten. A lab still
 * running keeps its runs.
 */
static int close_orphaned_runs(struct store *st)
{
	struct orphans o = { .n = 0 };
	int ret = -1;

	host_name(o.host, sizeof(o.host));
	if (store_rows(st, "cannot read run owners", "SELECT o.run_id, o.pid, o.pid_start, "
		       "r.status = 'RUNNING' FROM run_owners o JOIN runs r ON r.id = o.run_id "
		       "WHERE o.host = ?1", STORE_ARGS(STORE_TEXT(o.host)), orphan_row, &o))
		goto out;
	if (!o.n) {
		ret = 0;
		goto out;
	}
	if (store_begin(st))
		goto out;
	for (size_t i = 0; i < o.n; i++)
		if (store_rows(st, NULL, "UPDATE runs SET status = 'INFRA', ended = ?3, "
			       "error = 'the lab running it died (pid ' || ?2 || ')' "
			       "WHERE id = ?1 AND status = 'RUNNING'",
			       STORE_ARGS(STORE_INT(o.ids[i]), STORE_INT(o.pids[i]),
					  STORE_NUM(now_wall())), NULL, NULL) ||
		    store_clear_owner(st, o.ids[i])) {
			store_error(st, "cannot close runs of a lab that died");
			store_rollback(st);
			goto out;
		}
	ret = store_commit(st);
out:
	free(o.ids);
	free(o.pids);
	return ret;
}

/*
 * Whether sqlite has the file open, or left it unclosed: a -wal or -shm
 * beside it, or the -journal of a database from before WAL mode.
 */
static int has_sidecars(const char *path)
{
	static const char *const sides[] = { "-wal", "-shm", "-journal" };
	struct strbuf side = STRBUF_INIT;
	int ret = 0;

	for (size_t i = 0; i < ARRAY_SIZE(sides) && !ret; i++) {
		strbuf_reset(&side);
		strbuf_addf(&side, "%s%s", path, sides[i]);
		ret = !access(side.buf, F_OK);
	}
	strbuf_release(&side);
	return ret;
}

/*
 * path as sqlite's URI, immutable: "file:" and the path with the bytes a URI
 * gives a meaning ('%', '?', '#') escaped; an absolute path after an empty
 * authority, so that one starting with "//" is not taken for a host.
 */
static void immutable_uri(struct strbuf *uri, const char *path)
{
	strbuf_addstr(uri, path[0] == '/' ? "file://" : "file:");
	for (const char *p = path; *p; p++)
		if (*p == '%' || *p == '?' || *p == '#')
			strbuf_addf(uri, "%%%02X", (unsigned char)*p);
		else
			strbuf_addch(uri, *p);
	strbuf_addstr(uri, "?immutable=1");
}

/*
 * A database file with nothing beside it, looked at before sqlite opens it
 * for real: opening a database in WAL mode creates its -wal and -shm, even
 * to read, and a refused file would keep them. Opened immutable, sqlite
 * reads the file and creates nothing; what would refuse it (not a
 * database, truncated, damaged, newer than this lab) is found there.
 * writing: the checks of a file the lab will write to, damage included.
 * Returns 0 (the file may be opened), -1 with the refusal in msg.
 */
static int look_first(const struct store *st, int writing, struct strbuf *msg)
{
	struct store pre = { .conn = NULL };
	struct strbuf uri = STRBUF_INIT;
	long long v = -1;
	int ret = -1, rc;

	pre.path = xstrdup(st->path);
	pre.conn = xcalloc(1, sizeof(*pre.conn));
	immutable_uri(&uri, st->path);
	rc = sqlite3_open_v2(uri.buf, &pre.conn->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI |
			     SQLITE_OPEN_NOMUTEX, NULL);
	strbuf_release(&uri);
	if (rc != SQLITE_OK ||
	    store_rows(&pre, NULL, "PRAGMA user_version", NULL, 0, store_row_int, &v) || v < 0) {
		/* the words of the opens that follow, for a file sqlite cannot read */
		strbuf_addf(msg, "cannot %s database '%s': %s", writing ? "open" : "read",
			    st->path, store_errmsg(&pre));
		goto out;
	}
	if (writing && v > STORE_SCHEMA_VERSION) {
		strbuf_addf(msg, "database '%s' has schema version %lld, newer than this lab's %d",
			    st->path, v, STORE_SCHEMA_VERSION);
		goto out;
	}
	if (writing && v > 0 && find_damage(&pre, msg))
		goto out;
	ret = 0;
out:
	store_close(&pre);
	return ret;
}

/*
 * look_first(), said when it refuses; 1 when it could not judge: another
 * lab opened the file meanwhile (its -wal or -shm are there now), so that
 * what was read without locks may have been that lab's checkpoint half
 * done. The usual open then checks the file under sqlite's locks.
 */
static int look_first_said(const struct store *st, int writing)
{
	struct strbuf msg = STRBUF_INIT;
	int ret = look_first(st, writing, &msg);

	if (ret && has_sidecars(st->path))
		ret = 1;
	else if (ret)
		error("%s", msg.buf);
	strbuf_release(&msg);
	return ret;
}

/*
 * A database the lab is to write: refused before sqlite sees it when the
 * file cannot be written (sqlite would open it read-only without a word,
 * and the first write would fail after a boot), or when its -wal and -shm
 * would have to be made in a directory that cannot be written.
 */
static int check_writable(const char *path)
{
	struct stat sb;
	char *copy;
	int ret = 0;

	if (stat(path, &sb))
		return 0;	/* not there: sqlite creates it, or says why not */
	if (access(path, W_OK))
		return error("database '%s' is not writable: %s", path, strerror(errno));
	/* sqlite makes -wal and -shm beside the file a symlink points to, not the link */
	copy = realpath(path, NULL);
	if (!copy)
		copy = xstrdup(path);
	if (has_sidecars(copy))
		goto out;
	if (access(dirname(copy), W_OK | X_OK))
		ret = error("database '%s' cannot be written: its directory is not writable (%s)",
			    path, strerror(errno));
out:
	free(copy);
	return ret;
}

/* A file of some bytes with nothing beside it: look_first() before sqlite opens it. */
static int pristine(const char *path)
{
	struct stat sb;

	return !stat(path, &sb) && sb.st_size > 0 && !has_sidecars(path);
}

int store_open(struct store *st, const char *path)
{
	int version, stale, unchecked;

	memset(st, 0, sizeof(*st));
	st->path = strdup(path);
	if (!st->path)
		return error("out of memory");
	if (check_writable(path))
		goto fail;
	/* 0: look_first_said() checked the file; 1: the usual open checks it */
	unchecked = pristine(path) ? look_first_said(st, 1) : 1;
	if (unchecked < 0)
		goto fail;
	st->conn = xcalloc(1, sizeof(*st->conn));
	if (sqlite3_open_v2(path, &st->conn->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
			    NULL) != SQLITE_OK) {
		error("cannot open database '%s': %s", path, store_errmsg(st));
		goto fail;
	}
	sqlite3_busy_timeout(st->conn->db, 10000);
	if (schema_version(st, &version))
		goto fail;
	if (version > STORE_SCHEMA_VERSION) {
		error("database '%s' has schema version %d, newer than this lab's %d",
		      path, version, STORE_SCHEMA_VERSION);
		goto fail;
	}
	/* before anything reads the schema or writes, unless look_first_said() did */
	if (version > 0 && unchecked && check_intact(st))
		goto fail;
	if (exec(st, "PRAGMA journal_mode = WAL", "cannot enable WAL") ||
	    exec(st, "PRAGMA foreign_keys = ON", "cannot enable foreign keys"))
		goto fail;
	stale = schema_stale(st, version);
	if (stale < 0)
		goto fail;
	if (stale) {
		if (exec(st, "BEGIN IMMEDIATE", "cannot create schema"))
			goto fail;
		if (schema_version(st, &version))
			goto fail;
		stale = schema_stale(st, version);
		if (stale && (stale < 0 || exec(st, lab_schema_sql, "cannot create schema") ||
			      change_columns(st))) {
			store_rollback(st);
			goto fail;
		}
		if (store_commit(st))
			goto fail;
	}
	if (close_orphaned_runs(st))
		goto fail;
	return 0;
fail:
	store_close(st);
	return -1;
}

/* Why a read-only open failed, when sqlite's own words do not say. */
static void explain_unreadable(struct strbuf *why, struct store *st)
{
	struct strbuf shm = STRBUF_INIT;
	char *copy = strdup(st->path);
	int err = st->conn->db ? sqlite3_system_errno(st->conn->db) : 0;

	strbuf_addstr(why, store_errmsg(st));
	if (err)
		strbuf_addf(why, ": %s", strerror(err));
	strbuf_addf(&shm, "%s-shm", st->path);
	/* WAL mode: even a reader needs the -shm file, and creates it if missing */
	if (copy && access(shm.buf, F_OK) && access(dirname(copy), W_OK))
		strbuf_addf(why, " (a reader must create '%s', and its directory is not writable)",
			    shm.buf);
	free(copy);
	strbuf_release(&shm);
}

static int open_read(struct store *st, int *version)
{
	struct strbuf why = STRBUF_INIT;
	long long v = -1;
	int ret = -1;

	if (pristine(st->path) && look_first_said(st, 0) < 0)
		return -1;
	st->conn = xcalloc(1, sizeof(*st->conn));
	/* one thread uses the connection: sqlite's mutex on every call buys nothing */
	if (sqlite3_open_v2(st->path, &st->conn->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK)
		goto unreadable;
	sqlite3_busy_timeout(st->conn->db, 10000);
	if (store_rows(st, NULL, "PRAGMA user_version", NULL, 0, store_row_int, &v) || v < 0)
		goto unreadable;
	*version = (int)v;
	ret = 0;
	goto out;
unreadable:
	explain_unreadable(&why, st);
	error("cannot read database '%s': %s", st->path, why.buf);
out:
	strbuf_release(&why);
	return ret;
}

int store_open_read(struct store *st, const char *path)
{
	struct stat sb;
	int version = 0;

	memset(st, 0, sizeof(*st));
	if (stat(path, &sb))
		return errno == ENOENT ? error("no database at '%s'", path) :
			error("cannot read database '%s': %s", path, strerror(errno));
	st->path = strdup(path);
	if (!st->path)
		return error("out of memory");
	if (open_read(st, &version))
		goto fail;
	if (version > 0 && version < STORE_SCHEMA_VERSION) {
		/* an older database is brought up to date once, then read as it is now */
		store_close(st);
		if (store_open(st, path))
			return -1;
		store_close(st);
		st->path = strdup(path);
		if (!st->path)
			return error("out of memory");
		if (open_read(st, &version))
			goto fail;
	}
	if (version == 0) {
		error("'%s' is not a lab database (schema version 0)", path);
		goto fail;
	}
	if (version != STORE_SCHEMA_VERSION) {
		error("database '%s' has schema version %d, expected %d", path, version,
		      STORE_SCHEMA_VERSION);
		goto fail;
	}
	return 0;
fail:
	store_close(st);
	return -1;
}

/* At most this many statements are kept; more are prepared per use. */
#define STORE_CACHE 96

struct store_cache {
	struct {
		const char *sql;	/* its address is the key */
		sqlite3_stmt *q;
	} stmt[STORE_CACHE];
	size_t n;
};

static void cache_release(struct store *st)
{
	if (!st->conn->cache)
		return;
	for (size_t i = 0; i < st->conn->cache->n; i++)
		sqlite3_finalize(st->conn->cache->stmt[i].q);
	free(st->conn->cache);
	st->conn->cache = NULL;
}

int store_open_again(struct store *out, const struct store *st)
{
	const char *file = store_is_open(st) ? sqlite3_db_filename(st->conn->db, "main") : NULL;

	memset(out, 0, sizeof(*out));
	if (!file || !*file)
		return -1;
	out->path = strdup(st->path);
	if (!out->path)
		return -1;
	out->conn = xcalloc(1, sizeof(*out->conn));
	if (sqlite3_open_v2(file, &out->conn->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) !=
	    SQLITE_OK) {
		store_close(out);
		return -1;
	}
	sqlite3_busy_timeout(out->conn->db, 10000);
	return 0;
}

int store_read_begin(struct store *st)
{
	return exec(st, "BEGIN", "cannot start a read transaction");
}

void store_read_end(struct store *st)
{
	sqlite3_exec(st->conn->db, "COMMIT", NULL, NULL, NULL);
}

/* Ids <= 0 and numbers that are not finite are bound as NULL. */
static void bind_id(sqlite3_stmt *q, int i, long long id)
{
	if (id > 0)
		sqlite3_bind_int64(q, i, id);
	else
		sqlite3_bind_null(q, i);
}

static void bind_num(sqlite3_stmt *q, int i, double v)
{
	if (isfinite(v))
		sqlite3_bind_double(q, i, v);
	else
		sqlite3_bind_null(q, i);
}

/*
 * The statement of sql, cached (*own 0) or, when the cache is full or its
 * copy is in use by a caller further up (a reader called from a row
 * callback), one of the caller's own to finalize (*own 1).
 */
static int cached(struct store *st, sqlite3_stmt **q, int *own, const char *sql,
		  const char *what)
{
	struct store_cache *c;
	int known = 0;

	*own = 0;
	if (!st->conn->cache)
		st->conn->cache = xcalloc(1, sizeof(*st->conn->cache));
	c = st->conn->cache;
	/* the text too: a key freed and reused for other SQL must not match */
	for (size_t i = 0; i < c->n && !known; i++)
		if (c->stmt[i].sql == sql && !strcmp(sqlite3_sql(c->stmt[i].q), sql)) {
			if (!sqlite3_stmt_busy(c->stmt[i].q)) {
				*q = c->stmt[i].q;
				return 0;
			}
			known = 1;
		}
	if (sqlite3_prepare_v2(st->conn->db, sql, -1, q, NULL) != SQLITE_OK) {
		*q = NULL;
		return what ? store_error(st, what) : -1;
	}
	if (known || c->n == STORE_CACHE) {
		*own = 1;
		return 0;
	}
	c->stmt[c->n].sql = sql;
	c->stmt[c->n++].q = *q;
	return 0;
}

int store_rows(struct store *st, const char *what, const char *sql,
	       const struct store_arg *args, size_t nargs, store_row_fn *fn, void *data)
{
	sqlite3_stmt *q = NULL;
	int own, ret = -1, rc;

	if (cached(st, &q, &own, sql, what))
		return -1;
	for (size_t i = 0; i < nargs; i++) {
		int at = (int)i + 1;

		if (args[i].type == STORE_ARG_INT)
			sqlite3_bind_int64(q, at, args[i].i);
		else if (args[i].type == STORE_ARG_ID)
			bind_id(q, at, args[i].i);
		else if (args[i].type == STORE_ARG_NUM)
			bind_num(q, at, args[i].d);
		else if (args[i].s)
			sqlite3_bind_text(q, at, args[i].s, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(q, at);
	}
	while ((rc = sqlite3_step(q)) == SQLITE_ROW)
		if (fn && fn(q, data))
			goto out;
	if (rc != SQLITE_DONE) {
		if (what)
			store_error(st, what);
		goto out;
	}
	ret = 0;
out:
	if (own) {
		sqlite3_finalize(q);
	} else {
		/* no read lock and no bindings are left behind until its next use */
		sqlite3_reset(q);
		sqlite3_clear_bindings(q);
	}
	return ret;
}

struct found_rows {
	store_row_fn *fn;
	void *data;
	int *found;
};

static int found_row(sqlite3_stmt *q, void *data)
{
	struct found_rows *f = data;

	*f->found = 1;
	return f->fn(q, f->data);
}

int store_rows_found(struct store *st, int *found, const char *what, const char *sql,
		     const struct store_arg *args, size_t nargs, store_row_fn *fn, void *data)
{
	struct found_rows f = { fn, data, found };

	*found = 0;
	return store_rows(st, what, sql, args, nargs, found_row, &f);
}

int store_read_one(struct store *st, const char *thing, long long id, const char *sql,
		   store_row_fn *fn, void *data)
{
	char what[64];
	int found;

	snprintf(what, sizeof(what), "cannot read %s", thing);
	if (store_rows_found(st, &found, what, sql, STORE_ARGS(STORE_INT(id)), fn, data))
		return -1;
	return found ? 0 : error("no %s %lld in database '%s'", thing, id, st->path);
}

long long store_last_id(struct store *st)
{
	return sqlite3_last_insert_rowid(st->conn->db);
}

int store_rows_if_table(struct store *st, const char *table, const char *what, const char *sql,
			const struct store_arg *args, size_t nargs, store_row_fn *fn, void *data)
{
	long long n = 0;

	if (store_rows(st, "cannot read schema", "SELECT count(*) FROM sqlite_master WHERE "
		       "type = 'table' AND name = ?1", STORE_ARGS(STORE_TEXT(table)),
		       store_row_int, &n))
		return -1;
	return n ? store_rows(st, what, sql, args, nargs, fn, data) : 0;
}

int store_changes(struct store *st)
{
	return sqlite3_changes(st->conn->db);
}

int store_row_int(sqlite3_stmt *q, void *data)
{
	*(long long *)data = sqlite3_column_int64(q, 0);
	return 0;
}

int store_row_text(sqlite3_stmt *q, void *data)
{
	strbuf_addstr(data, store_text(q, 0));
	return 0;
}

int store_row_strvec(sqlite3_stmt *q, void *data)
{
	strvec_push(data, store_text(q, 0));
	return 0;
}

int store_is_open(const struct store *st)
{
	return st->conn && st->conn->db;
}

void store_close(struct store *st)
{
	if (st->conn) {
		cache_release(st);
		if (st->conn->db)
			sqlite3_close(st->conn->db);
		free(st->conn);
	}
	free(st->path);
	memset(st, 0, sizeof(*st));
}

int store_exec(struct store *st, const char *what, const char *sql, long long id,
	       const char *text)
{
	/* ?2 unbound when text is NULL: bound as NULL */
	if (text)
		return store_rows(st, what, sql, STORE_ARGS(STORE_INT(id), STORE_TEXT(text)),
				  NULL, NULL);
	return store_rows(st, what, sql, STORE_ARGS(STORE_INT(id)), NULL, NULL);
}

int store_begin(struct store *st)
{
	return exec(st, "BEGIN IMMEDIATE", "cannot start transaction");
}

int store_commit(struct store *st)
{
	if (!exec(st, "COMMIT", "cannot commit"))
		return 0;
	/* a COMMIT that failed may leave the transaction open: nothing of it is kept */
	store_rollback(st);
	return -1;
}

void store_rollback(struct store *st)
{
	if (!sqlite3_get_autocommit(st->conn->db))
		sqlite3_exec(st->conn->db, "ROLLBACK", NULL, NULL, NULL);
}

const char *store_text(sqlite3_stmt *q, int col)
{
	const unsigned char *t = sqlite3_column_text(q, col);
	return t ? (const char *)t : "";
}

double store_num(sqlite3_stmt *q, int col)
{
	return sqlite3_column_type(q, col) == SQLITE_NULL ? NAN : sqlite3_column_double(q, col);
}
