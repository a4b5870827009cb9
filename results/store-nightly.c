/* lab nightly's rows (store-nightly.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "store-nightly.h"
#include "strvec.h"
#include "xalloc.h"

#define NOW "((julianday('now') - 2440587.5) * 86400.0)"

/*
 * Prepare sql and bind its parameters ?1, ?2, ... from the arguments, one
 * per letter of types: 't' text (NULL binds NULL), 'i' long long, 'd' double.
 */
static int prepare(struct store *st, sqlite3_stmt **q, const char *what, const char *sql,
		   const char *types, ...)
{
	va_list ap;
	int i;

	if (store_prepare(st, q, sql, what))
		return -1;
	va_start(ap, types);
	for (i = 0; types[i]; i++) {
		switch (types[i]) {
		case 't': store_bind_text(*q, i + 1, va_arg(ap, const char *)); break;
		case 'i': sqlite3_bind_int64(*q, i + 1, va_arg(ap, long long)); break;
		case 'd': store_bind_num(*q, i + 1, va_arg(ap, double)); break;
		}
	}
	va_end(ap);
	return 0;
}

/* Step a statement that changes rows to its end, and finalize it. */
static int done(struct store *st, sqlite3_stmt *q, const char *what)
{
	int ret = sqlite3_step(q) == SQLITE_DONE ? 0 : store_error(st, what);

	sqlite3_finalize(q);
	return ret;
}

int store_nightly_night_begin(struct store *st, long long *night_id, int *interrupted,
			      const char *nightly)
{
	static const char what[] = "cannot record the night";
	sqlite3_stmt *q;

	if (store_begin(st))
		return -1;
	if (prepare(st, &q, what, "UPDATE nightly_nights SET status = 'INTERRUPTED', ended = " NOW
		    " WHERE nightly = ?1 AND status = 'RUNNING'", "t", nightly) ||
	    done(st, q, what))
		goto fail;
	*interrupted = sqlite3_changes(st->db);
	if (prepare(st, &q, what, "INSERT INTO nightly_nights(nightly, started) VALUES (?1, " NOW ")",
		    "t", nightly) || done(st, q, what))
		goto fail;
	*night_id = sqlite3_last_insert_rowid(st->db);
	return store_commit(st);
fail:
	store_rollback(st);
	return -1;
}

int store_nightly_night_end(struct store *st, long long night_id, const char *status,
			    const char *head, const char *summary)
{
	static const char what[] = "cannot record the night's end";
	sqlite3_stmt *q;

	if (prepare(st, &q, what, "UPDATE nightly_nights SET status = ?2, head = ?3, summary = ?4, "
		    "ended = " NOW " WHERE id = ?1", "itt" "t", night_id, status, head, summary))
		return -1;
	return done(st, q, what);
}

int store_nightly_commit_add(struct store *st, const char *nightly, const char *commit,
			     long long night_id)
{
	static const char what[] = "cannot queue commit";
	sqlite3_stmt *q;

	if (prepare(st, &q, what, "INSERT OR IGNORE INTO nightly_commits(nightly, git_commit, seq, "
		    "night_id) VALUES (?1, ?2, (SELECT COALESCE(max(seq), 0) + 1 FROM nightly_commits "
		    "WHERE nightly = ?1), ?3)", "tti", nightly, commit, night_id))
		return -1;
	return done(st, q, what);
}

int store_nightly_commit_status(struct store *st, const char *nightly, const char *commit,
				const char *status, const char *kernel)
{
	static const char what[] = "cannot record commit";
	sqlite3_stmt *q;

	if (prepare(st, &q, what, "UPDATE nightly_commits SET status = ?3, kernel = COALESCE(?4, kernel) "
		    "WHERE nightly = ?1 AND git_commit = ?2", "tttt", nightly, commit, status, kernel))
		return -1;
	return done(st, q, what);
}

int store_nightly_commit_last(struct store *st, struct strbuf *out, const char *nightly)
{
	static const char what[] = "cannot read nightly commits";
	sqlite3_stmt *q;
	int rc;

	if (prepare(st, &q, what, "SELECT git_commit FROM nightly_commits WHERE nightly = ?1 "
		    "ORDER BY seq DESC LIMIT 1", "t", nightly))
		return -1;
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW)
		strbuf_addstr(out, store_text(q, 0));
	sqlite3_finalize(q);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : store_error(st, what);
}

int store_nightly_commits_pending(struct store *st, struct strvec *out, const char *nightly)
{
	static const char what[] = "cannot read nightly commits";
	sqlite3_stmt *q;
	int rc;

	if (prepare(st, &q, what, "SELECT git_commit FROM nightly_commits WHERE nightly = ?1 "
		    "AND status = 'PENDING' ORDER BY seq", "t", nightly))
		return -1;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW)
		strvec_push(out, store_text(q, 0));
	sqlite3_finalize(q);
	return rc == SQLITE_DONE ? 0 : store_error(st, what);
}

int store_nightly_commit_seq(struct store *st, long long *seq, const char *nightly,
			     const char *commit)
{
	static const char what[] = "cannot read nightly commits";
	sqlite3_stmt *q;
	int rc;

	*seq = 0;
	if (prepare(st, &q, what, "SELECT seq FROM nightly_commits WHERE nightly = ?1 AND "
		    "git_commit = ?2", "tt", nightly, commit))
		return -1;
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW)
		*seq = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : store_error(st, what);
}

int store_nightly_commit_info(struct store *st, struct strbuf *subject, struct strbuf *author,
			      const char *commit)
{
	static const char what[] = "cannot read commits";
	sqlite3_stmt *q;
	int rc;

	if (prepare(st, &q, what, "SELECT subject, author FROM commits WHERE id = ?1", "t", commit))
		return -1;
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		strbuf_addstr(subject, store_text(q, 0));
		strbuf_addstr(author, store_text(q, 1));
	}
	sqlite3_finalize(q);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : store_error(st, what);
}

int store_nightly_run_add(struct store *st, long long run_id, const char *nightly,
			  const char *commit, long mem_mib, const char *cmdline)
{
	static const char what[] = "cannot record nightly boot";
	sqlite3_stmt *q;

	if (prepare(st, &q, what, "INSERT INTO nightly_runs(run_id, nightly, git_commit, mem_mib, "
		    "cmdline) VALUES (?1, ?2, ?3, ?4, ?5)", "ittit", run_id, nightly, commit,
		    (long long)mem_mib, cmdline))
		return -1;
	return done(st, q, what);
}

int store_nightly_run_count(struct store *st, long *boots, long *ok, const char *nightly,
			    const char *commit, long mem_mib, const char *cmdline)
{
	static const char what[] = "cannot read nightly boots";
	sqlite3_stmt *q;
	int rc;

	if (prepare(st, &q, what, "SELECT count(*), COALESCE(sum(r.status = 'OK'), 0) FROM "
		    "nightly_runs n JOIN runs r ON r.id = n.run_id WHERE n.nightly = ?1 AND "
		    "n.git_commit = ?2 AND n.mem_mib = ?3 AND n.cmdline = ?4 AND r.status NOT IN "
		    "('INFRA', 'RUNNING')", "ttit", nightly, commit, (long long)mem_mib, cmdline))
		return -1;
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		*boots = sqlite3_column_int(q, 0);
		*ok = sqlite3_column_int(q, 1);
	}
	sqlite3_finalize(q);
	return rc == SQLITE_ROW ? 0 : store_error(st, what);
}

int store_nightly_samples(struct store *st, const char *nightly, const char *commit,
			  long mem_mib, const char *cmdline, store_nightly_sample_fn *fn,
			  void *data)
{
	static const char what[] = "cannot read nightly samples";
	sqlite3_stmt *q;
	int rc, ret = 0;

	if (prepare(st, &q, what, "SELECT s.workload, s.metric, s.unit, r.runner, r.clock, "
		    "s.run_id, s.value FROM counted_samples s JOIN nightly_runs n ON n.run_id = "
		    "s.run_id JOIN runs r ON r.id = s.run_id WHERE "
		    "n.nightly = ?1 AND n.git_commit = ?2 AND n.mem_mib = ?3 AND n.cmdline = ?4 "
		    "ORDER BY s.workload, s.metric, s.unit, s.run_id, s.id", "ttit", nightly, commit,
		    (long long)mem_mib, cmdline))
		return -1;
	while (!ret && (rc = sqlite3_step(q)) == SQLITE_ROW) {
		struct nightly_sample s = { store_text(q, 0), store_text(q, 1), store_text(q, 2),
					    store_text(q, 3), store_text(q, 4),
					    sqlite3_column_int64(q, 5), sqlite3_column_double(q, 6) };

		ret = fn(&s, data);
	}
	if (!ret && rc != SQLITE_DONE)
		ret = store_error(st, what);
	sqlite3_finalize(q);
	return ret;
}

int store_nightly_point_add(struct store *st, const char *nightly,
			    const struct nightly_series *s, const char *commit, double value,
			    long boots)
{
	static const char what[] = "cannot record nightly point";
	sqlite3_stmt *q;

	if (prepare(st, &q, what, "INSERT OR REPLACE INTO nightly_points(nightly, series, workload, "
		    "metric, unit, target, mem_mib, cmdline, clock, git_commit, seq, value, boots) "
		    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, (SELECT seq FROM nightly_commits "
		    "WHERE nightly = ?1 AND git_commit = ?10), ?11, ?12)", "tttttti" "tttdi", nightly,
		    s->series, s->workload, s->metric, s->unit, s->target, (long long)s->mem_mib,
		    s->cmdline, s->clock, commit, value, (long long)boots))
		return -1;
	return done(st, q, what);
}

int store_nightly_series_each(struct store *st, const char *nightly, store_nightly_series_fn *fn,
			      void *data)
{
	static const char what[] = "cannot read nightly series";
	sqlite3_stmt *q;
	int rc, ret = 0;

	if (prepare(st, &q, what, "SELECT series, workload, metric, unit, target, cmdline, clock, "
		    "mem_mib FROM nightly_points WHERE nightly = ?1 GROUP BY series ORDER BY series",
		    "t", nightly))
		return -1;
	while (!ret && (rc = sqlite3_step(q)) == SQLITE_ROW) {
		struct nightly_series s = { store_text(q, 0), store_text(q, 1), store_text(q, 2),
					    store_text(q, 3), store_text(q, 4), store_text(q, 5),
					    store_text(q, 6), (long)sqlite3_column_int64(q, 7) };

		ret = fn(&s, data);
	}
	if (!ret && rc != SQLITE_DONE)
		ret = store_error(st, what);
	sqlite3_finalize(q);
	return ret;
}

int store_nightly_points(struct store *st, double **values, size_t *n, struct strvec *commits,
			 const char *nightly, const char *series)
{
	static const char what[] = "cannot read nightly points";
	sqlite3_stmt *q;
	size_t alloc = 0;
	int rc;

	*values = NULL;
	*n = 0;
	if (prepare(st, &q, what, "SELECT git_commit, value FROM nightly_points WHERE nightly = ?1 "
		    "AND series = ?2 ORDER BY seq", "tt", nightly, series))
		return -1;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		if (*n == alloc) {
			alloc = alloc ? 2 * alloc : 64;
			*values = xrealloc(*values, alloc * sizeof(**values));
		}
		(*values)[(*n)++] = sqlite3_column_double(q, 1);
		strvec_push(commits, store_text(q, 0));
	}
	sqlite3_finalize(q);
	return rc == SQLITE_DONE ? 0 : store_error(st, what);
}

#define CHANGE_COLUMNS "id, before_commit, after_commit, kind, COALESCE(ratio, 0), " \
	"COALESCE(ab_experiment, 0), COALESCE(verdict, ''), COALESCE(bisection, 0), " \
	"COALESCE(culprit, ''), COALESCE(outcome, ''), notified"

static void read_change(struct nightly_change *c, sqlite3_stmt *q)
{
	memset(c, 0, sizeof(*c));
	c->id = sqlite3_column_int64(q, 0);
	snprintf(c->before, sizeof(c->before), "%s", store_text(q, 1));
	snprintf(c->after, sizeof(c->after), "%s", store_text(q, 2));
	snprintf(c->kind, sizeof(c->kind), "%s", store_text(q, 3));
	c->ratio = sqlite3_column_double(q, 4);
	c->ab_experiment = sqlite3_column_int64(q, 5);
	snprintf(c->verdict, sizeof(c->verdict), "%s", store_text(q, 6));
	c->bisection = sqlite3_column_int64(q, 7);
	snprintf(c->culprit, sizeof(c->culprit), "%s", store_text(q, 8));
	snprintf(c->outcome, sizeof(c->outcome), "%s", store_text(q, 9));
	c->notified = sqlite3_column_int(q, 10);
}

int store_nightly_change_get(struct store *st, struct nightly_change *c, int *found,
			     const char *nightly, const char *series, const char *after)
{
	static const char what[] = "cannot read nightly changes";
	sqlite3_stmt *q;
	int rc;

	*found = 0;
	if (prepare(st, &q, what, "SELECT " CHANGE_COLUMNS " FROM nightly_changes WHERE "
		    "nightly = ?1 AND series = ?2 AND after_commit = ?3", "ttt", nightly, series,
		    after))
		return -1;
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		read_change(c, q);
		*found = 1;
	}
	sqlite3_finalize(q);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : store_error(st, what);
}

int store_nightly_change_found_by_ab(struct store *st, struct nightly_change *c, int *found,
				     const char *nightly, long long ab_experiment)
{
	static const char what[] = "cannot read nightly changes";
	sqlite3_stmt *q;
	int rc;

	*found = 0;
	if (prepare(st, &q, what, "SELECT " CHANGE_COLUMNS " FROM nightly_changes WHERE "
		    "nightly = ?1 AND ab_experiment = ?2 AND outcome = 'FOUND' ORDER BY id LIMIT 1",
		    "ti", nightly, ab_experiment))
		return -1;
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		read_change(c, q);
		*found = 1;
	}
	sqlite3_finalize(q);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : store_error(st, what);
}

int store_nightly_change_add(struct store *st, struct nightly_change *c, const char *nightly,
			     const char *series, long long night_id)
{
	static const char what[] = "cannot record nightly change";
	sqlite3_stmt *q;
	int found;

	if (prepare(st, &q, what, "INSERT OR IGNORE INTO nightly_changes(nightly, series, "
		    "before_commit, after_commit, kind, ratio, night_id) VALUES (?1, ?2, ?3, ?4, ?5, "
		    "?6, ?7)", "ttttt" "di", nightly, series, c->before, c->after, c->kind, c->ratio,
		    night_id) || done(st, q, what) ||
	    store_nightly_change_get(st, c, &found, nightly, series, c->after))
		return -1;
	return found ? 0 : error("nightly change of '%s' at %s vanished from database '%s'",
				 series, c->after, st->path);
}

int store_nightly_change_last(struct store *st, struct strbuf *out, const char *nightly,
			      const char *series, int confirmed)
{
	static const char what[] = "cannot read nightly changes";
	sqlite3_stmt *q;
	int rc;

	if (prepare(st, &q, what, "SELECT c.after_commit FROM nightly_changes c JOIN nightly_commits "
		    "k ON k.nightly = c.nightly AND k.git_commit = c.after_commit WHERE c.nightly = ?1 "
		    "AND c.series = ?2 AND c.verdict != '' AND (c.verdict IN ('REGRESSION', "
		    "'IMPROVEMENT')) = ?3 ORDER BY k.seq DESC LIMIT 1", "tti", nightly, series,
		    (long long)!!confirmed))
		return -1;
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW)
		strbuf_addstr(out, store_text(q, 0));
	sqlite3_finalize(q);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : store_error(st, what);
}

int store_nightly_change_confirmed(struct store *st, long long id, long long ab_experiment,
				   const char *verdict)
{
	static const char what[] = "cannot record confirmation";
	sqlite3_stmt *q;

	if (prepare(st, &q, what, "UPDATE nightly_changes SET ab_experiment = ?2, verdict = ?3 "
		    "WHERE id = ?1", "iit", id, ab_experiment, verdict))
		return -1;
	return done(st, q, what);
}

int store_nightly_change_bisected(struct store *st, long long id, long long bisection,
				  const char *culprit, const char *outcome)
{
	static const char what[] = "cannot record bisection";
	sqlite3_stmt *q;

	if (prepare(st, &q, what, "UPDATE nightly_changes SET bisection = ?2, culprit = ?3, "
		    "outcome = ?4 WHERE id = ?1", "iitt", id, bisection, culprit, outcome))
		return -1;
	return done(st, q, what);
}

int store_nightly_change_notified(struct store *st, long long id)
{
	return store_exec(st, "cannot record notification",
			  "UPDATE nightly_changes SET notified = 1 WHERE id = ?1", id, NULL);
}

static int int_row(sqlite3_stmt *q, void *data)
{
	*(int *)data = sqlite3_column_int(q, 0);
	return 0;
}

int store_nightly_notice_sent(struct store *st, int *sent, long long change_id,
			      const char *channel)
{
	*sent = 0;
	return store_rows(st, "cannot read nightly notifications",
			  "SELECT 1 FROM nightly_notices WHERE change_id = ?1 AND channel = ?2",
			  STORE_ARGS(STORE_INT(change_id), STORE_TEXT(channel)), int_row, sent);
}

int store_nightly_notice_add(struct store *st, long long change_id, const char *channel)
{
	return store_rows(st, "cannot record nightly notification",
			  "INSERT OR IGNORE INTO nightly_notices(change_id, channel, sent) "
			  "VALUES (?1, ?2, " NOW ")",
			  STORE_ARGS(STORE_INT(change_id), STORE_TEXT(channel)), NULL, NULL);
}

int store_nightly_changes_unnotified(struct store *st, const char *nightly,
				     store_nightly_change_fn *fn, void *data)
{
	static const char what[] = "cannot read nightly changes";
	struct nightly_change c;
	struct strbuf series = STRBUF_INIT;
	sqlite3_stmt *q;
	int rc, ret = 0;

	if (prepare(st, &q, what, "SELECT " CHANGE_COLUMNS ", series FROM nightly_changes WHERE "
		    "nightly = ?1 AND verdict IN ('REGRESSION', 'IMPROVEMENT') AND notified = 0 "
		    "ORDER BY id", "t", nightly))
		return -1;
	while (!ret && (rc = sqlite3_step(q)) == SQLITE_ROW) {
		read_change(&c, q);
		strbuf_reset(&series);
		strbuf_addstr(&series, store_text(q, 11));
		ret = fn(&c, strbuf_str(&series), data);
	}
	if (!ret && rc != SQLITE_DONE)
		ret = store_error(st, what);
	sqlite3_finalize(q);
	strbuf_release(&series);
	return ret;
}
