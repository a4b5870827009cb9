/* lab nightly's rows (store-nightly.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "log.h"
#include "store-nightly.h"
#include "store-private.h"
#include "strvec.h"

#define NOW "((julianday('now') - 2440587.5) * 86400.0)"

/* The reader's callback and its data, for the row functions below. */
struct reader {
	union {
		store_nightly_sample_fn *sample;
		store_nightly_series_fn *series;
	} fn;
	void *data;
};



int store_nightly_night_begin(struct store *st, long long *night_id, int *interrupted,
			      const char *nightly)
{
	static const char what[] = "cannot record the night";

	if (store_begin(st))
		return -1;
	if (store_rows(st, what, "UPDATE nightly_nights SET status = 'INTERRUPTED', ended = " NOW
		       " WHERE nightly = ?1 AND status = 'RUNNING'",
		       STORE_ARGS(STORE_TEXT(nightly)), NULL, NULL))
		goto fail;
	*interrupted = store_changes(st);
	if (store_rows(st, what, "INSERT INTO nightly_nights(nightly, started) VALUES (?1, " NOW ")",
		       STORE_ARGS(STORE_TEXT(nightly)), NULL, NULL))
		goto fail;
	*night_id = store_last_id(st);
	return store_commit(st);
fail:
	store_rollback(st);
	return -1;
}

int store_nightly_night_end(struct store *st, long long night_id, const char *status,
			    const char *head, const char *summary)
{
	return store_rows(st, "cannot record the night's end", "UPDATE nightly_nights SET "
			  "status = ?2, head = ?3, summary = ?4, ended = " NOW " WHERE id = ?1",
			  STORE_ARGS(STORE_INT(night_id), STORE_TEXT(status), STORE_TEXT(head),
				     STORE_TEXT(summary)), NULL, NULL);
}

int store_nightly_commit_add(struct store *st, const char *nightly, const char *commit,
			     long long night_id)
{
	return store_rows(st, "cannot queue commit", "INSERT OR IGNORE INTO nightly_commits("
			  "nightly, git_commit, seq, night_id) VALUES (?1, ?2, (SELECT "
			  "COALESCE(max(seq), 0) + 1 FROM nightly_commits WHERE nightly = ?1), ?3)",
			  STORE_ARGS(STORE_TEXT(nightly), STORE_TEXT(commit), STORE_INT(night_id)),
			  NULL, NULL);
}

int store_nightly_commit_status(struct store *st, const char *nightly, const char *commit,
				const char *status, const char *kernel)
{
	return store_rows(st, "cannot record commit", "UPDATE nightly_commits SET status = ?3, "
			  "kernel = COALESCE(?4, kernel) WHERE nightly = ?1 AND git_commit = ?2",
			  STORE_ARGS(STORE_TEXT(nightly), STORE_TEXT(commit), STORE_TEXT(status),
				     STORE_TEXT(kernel)), NULL, NULL);
}

int store_nightly_commit_last(struct store *st, struct strbuf *out, const char *nightly)
{
	return store_rows(st, "cannot read nightly commits", "SELECT git_commit FROM "
			  "nightly_commits WHERE nightly = ?1 ORDER BY seq DESC LIMIT 1",
			  STORE_ARGS(STORE_TEXT(nightly)), store_row_text, out);
}

int store_nightly_commits_pending(struct store *st, struct strvec *out, const char *nightly)
{
	return store_rows(st, "cannot read nightly commits", "SELECT git_commit FROM "
			  "nightly_commits WHERE nightly = ?1 AND status = 'PENDING' ORDER BY seq",
			  STORE_ARGS(STORE_TEXT(nightly)), store_row_strvec, out);
}

struct commit_info {
	struct strbuf *subject, *author;
};

static int commit_info_row(sqlite3_stmt *q, void *data)
{
	struct commit_info *c = data;

	strbuf_addstr(c->subject, store_text(q, 0));
	strbuf_addstr(c->author, store_text(q, 1));
	return 0;
}

int store_nightly_commit_info(struct store *st, struct strbuf *subject, struct strbuf *author,
			      const char *commit)
{
	struct commit_info c = { subject, author };

	return store_rows(st, "cannot read commits", "SELECT subject, author FROM commits "
			  "WHERE id = ?1", STORE_ARGS(STORE_TEXT(commit)), commit_info_row, &c);
}

int store_nightly_run_add(struct store *st, long long run_id, const char *nightly,
			  const char *commit, long mem_mib, const char *cmdline)
{
	return store_rows(st, "cannot record nightly boot", "INSERT INTO nightly_runs(run_id, "
			  "nightly, git_commit, mem_mib, cmdline) VALUES (?1, ?2, ?3, ?4, ?5)",
			  STORE_ARGS(STORE_INT(run_id), STORE_TEXT(nightly), STORE_TEXT(commit),
				     STORE_INT(mem_mib), STORE_TEXT(cmdline)), NULL, NULL);
}

struct run_count {
	long *boots, *ok;
};

static int run_count_row(sqlite3_stmt *q, void *data)
{
	struct run_count *c = data;

	*c->boots = sqlite3_column_int(q, 0);
	*c->ok = sqlite3_column_int(q, 1);
	return 0;
}

int store_nightly_run_count(struct store *st, long *boots, long *ok, const char *nightly,
			    const char *commit, long mem_mib, const char *cmdline)
{
	struct run_count c = { boots, ok };

	return store_rows(st, "cannot read nightly boots", "SELECT count(*), "
			  "COALESCE(sum(r.status = 'OK'), 0) FROM nightly_runs n JOIN runs r ON "
			  "r.id = n.run_id WHERE n.nightly = ?1 AND n.git_commit = ?2 AND "
			  "n.mem_mib = ?3 AND n.cmdline = ?4 AND r.status NOT IN ('INFRA', 'RUNNING')",
			  STORE_ARGS(STORE_TEXT(nightly), STORE_TEXT(commit), STORE_INT(mem_mib),
				     STORE_TEXT(cmdline)), run_count_row, &c);
}

static int sample_row(sqlite3_stmt *q, void *data)
{
	struct reader *r = data;
	struct nightly_sample s = { store_text(q, 0), store_text(q, 1), store_text(q, 2),
				    store_text(q, 3), store_text(q, 4),
				    sqlite3_column_int64(q, 5), sqlite3_column_double(q, 6) };

	return r->fn.sample(&s, r->data);
}

int store_nightly_samples(struct store *st, const char *nightly, const char *commit,
			  long mem_mib, const char *cmdline, store_nightly_sample_fn *fn,
			  void *data)
{
	struct reader r = { .fn.sample = fn, .data = data };

	return store_rows(st, "cannot read nightly samples", "SELECT s.workload, s.metric, s.unit, "
			  "r.runner, r.clock, s.run_id, s.value FROM counted_samples s JOIN "
			  "nightly_runs n ON n.run_id = s.run_id JOIN runs r ON r.id = s.run_id WHERE "
			  "n.nightly = ?1 AND n.git_commit = ?2 AND n.mem_mib = ?3 AND n.cmdline = ?4 "
			  "ORDER BY s.workload, s.metric, s.unit, s.run_id, s.id",
			  STORE_ARGS(STORE_TEXT(nightly), STORE_TEXT(commit), STORE_INT(mem_mib),
				     STORE_TEXT(cmdline)), sample_row, &r);
}

int store_nightly_point_add(struct store *st, const char *nightly,
			    const struct nightly_series *s, const char *commit, double value,
			    long boots)
{
	return store_rows(st, "cannot record nightly point", "INSERT OR REPLACE INTO "
			  "nightly_points(nightly, series, workload, metric, unit, target, mem_mib, "
			  "cmdline, clock, git_commit, seq, value, boots) VALUES (?1, ?2, ?3, ?4, ?5, "
			  "?6, ?7, ?8, ?9, ?10, (SELECT seq FROM nightly_commits WHERE nightly = ?1 AND "
			  "git_commit = ?10), ?11, ?12)",
			  STORE_ARGS(STORE_TEXT(nightly), STORE_TEXT(s->series),
				     STORE_TEXT(s->workload), STORE_TEXT(s->metric),
				     STORE_TEXT(s->unit), STORE_TEXT(s->target), STORE_INT(s->mem_mib),
				     STORE_TEXT(s->cmdline), STORE_TEXT(s->clock), STORE_TEXT(commit),
				     STORE_NUM(value), STORE_INT(boots)), NULL, NULL);
}

static int series_row(sqlite3_stmt *q, void *data)
{
	struct reader *r = data;
	struct nightly_series s = { store_text(q, 0), store_text(q, 1), store_text(q, 2),
				    store_text(q, 3), store_text(q, 4), store_text(q, 5),
				    store_text(q, 6), (long)sqlite3_column_int64(q, 7) };

	return r->fn.series(&s, r->data);
}

int store_nightly_series_each(struct store *st, const char *nightly, store_nightly_series_fn *fn,
			      void *data)
{
	struct reader r = { .fn.series = fn, .data = data };

	return store_rows(st, "cannot read nightly series", "SELECT series, workload, metric, "
			  "unit, target, cmdline, clock, mem_mib FROM nightly_points WHERE "
			  "nightly = ?1 GROUP BY series ORDER BY series",
			  STORE_ARGS(STORE_TEXT(nightly)), series_row, &r);
}

struct points {
	double **values;
	size_t *n, alloc;
	struct strvec *commits;
};

static int point_row(sqlite3_stmt *q, void *data)
{
	struct points *p = data;

	ALLOC_GROW(*p->values, *p->n + 1, p->alloc);
	(*p->values)[(*p->n)++] = sqlite3_column_double(q, 1);
	strvec_push(p->commits, store_text(q, 0));
	return 0;
}

int store_nightly_points(struct store *st, double **values, size_t *n, struct strvec *commits,
			 const char *nightly, const char *series)
{
	struct points p = { values, n, 0, commits };

	*values = NULL;
	*n = 0;
	return store_rows(st, "cannot read nightly points", "SELECT git_commit, value FROM "
			  "nightly_points WHERE nightly = ?1 AND series = ?2 ORDER BY seq",
			  STORE_ARGS(STORE_TEXT(nightly), STORE_TEXT(series)), point_row, &p);
}

#define CHANGE_COLUMNS "id, before_commit, after_commit, kind, COALESCE(ratio, 0), " \
	"COALESCE(ab_experiment, 0), COALESCE(verdict, ''), COALESCE(bisection, 0), " \
	"COALESCE(culprit, ''), COALESCE(outcome, ''), notified"

static int read_change(sqlite3_stmt *q, void *data)
{
	struct nightly_change *c = data;

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
	return 0;
}

int store_nightly_change_get(struct store *st, struct nightly_change *c, int *found,
			     const char *nightly, const char *series, const char *after)
{
	return store_rows_found(st, found, "cannot read nightly changes", "SELECT "
				CHANGE_COLUMNS " FROM nightly_changes WHERE nightly = ?1 AND "
				"series = ?2 AND after_commit = ?3", STORE_ARGS(STORE_TEXT(nightly),
				STORE_TEXT(series), STORE_TEXT(after)), read_change, c);
}

int store_nightly_change_found_by_ab(struct store *st, struct nightly_change *c, int *found,
				     const char *nightly, long long ab_experiment)
{
	return store_rows_found(st, found, "cannot read nightly changes", "SELECT "
				CHANGE_COLUMNS " FROM nightly_changes WHERE nightly = ?1 AND "
				"ab_experiment = ?2 AND outcome = 'FOUND' ORDER BY id LIMIT 1",
				STORE_ARGS(STORE_TEXT(nightly), STORE_INT(ab_experiment)),
				read_change, c);
}

int store_nightly_change_add(struct store *st, struct nightly_change *c, const char *nightly,
			     const char *series, long long night_id)
{
	int found;

	if (store_rows(st, "cannot record nightly change", "INSERT OR IGNORE INTO nightly_changes("
		       "nightly, series, before_commit, after_commit, kind, ratio, night_id) VALUES "
		       "(?1, ?2, ?3, ?4, ?5, ?6, ?7)",
		       STORE_ARGS(STORE_TEXT(nightly), STORE_TEXT(series), STORE_TEXT(c->before),
				  STORE_TEXT(c->after), STORE_TEXT(c->kind), STORE_NUM(c->ratio),
				  STORE_INT(night_id)), NULL, NULL) ||
	    store_nightly_change_get(st, c, &found, nightly, series, c->after))
		return -1;
	return found ? 0 : error("nightly change of '%s' at %s vanished from database '%s'",
				 series, c->after, st->path);
}

int store_nightly_change_last(struct store *st, struct strbuf *out, const char *nightly,
			      const char *series, int confirmed)
{
	return store_rows(st, "cannot read nightly changes", "SELECT c.after_commit FROM "
			  "nightly_changes c JOIN nightly_commits k ON k.nightly = c.nightly AND "
			  "k.git_commit = c.after_commit WHERE c.nightly = ?1 AND c.series = ?2 AND "
			  "c.verdict != '' AND (c.verdict IN ('REGRESSION', 'IMPROVEMENT')) = ?3 "
			  "ORDER BY k.seq DESC LIMIT 1",
			  STORE_ARGS(STORE_TEXT(nightly), STORE_TEXT(series), STORE_INT(!!confirmed)),
			  store_row_text, out);
}

int store_nightly_change_confirmed(struct store *st, long long id, long long ab_experiment,
				   const char *verdict)
{
	return store_rows(st, "cannot record confirmation", "UPDATE nightly_changes SET "
			  "ab_experiment = ?2, verdict = ?3 WHERE id = ?1",
			  STORE_ARGS(STORE_INT(id), STORE_INT(ab_experiment), STORE_TEXT(verdict)),
			  NULL, NULL);
}

int store_nightly_change_bisected(struct store *st, long long id, long long bisection,
				  const char *culprit, const char *outcome)
{
	return store_rows(st, "cannot record bisection", "UPDATE nightly_changes SET "
			  "bisection = ?2, culprit = ?3, outcome = ?4 WHERE id = ?1",
			  STORE_ARGS(STORE_INT(id), STORE_INT(bisection), STORE_TEXT(culprit),
				     STORE_TEXT(outcome)), NULL, NULL);
}

int store_nightly_change_notified(struct store *st, long long id)
{
	return store_exec(st, "cannot record notification",
			  "UPDATE nightly_changes SET notified = 1 WHERE id = ?1", id, NULL);
}

struct unnotified_reader {
	struct nightly_change c;
	struct strbuf series;
	store_nightly_change_fn *fn;
	void *data;
};

static int unnotified_row(sqlite3_stmt *q, void *data)
{
	struct unnotified_reader *r = data;

	read_change(q, &r->c);
	strbuf_reset(&r->series);
	strbuf_addstr(&r->series, store_text(q, 11));
	return r->fn(&r->c, strbuf_str(&r->series), r->data);
}

int store_nightly_notice_sent(struct store *st, int *sent, long long change_id,
			      const char *channel)
{
	long long got = 0;
	int ret;

	ret = store_rows(st, "cannot read nightly notifications",
			 "SELECT 1 FROM nightly_notices WHERE change_id = ?1 AND channel = ?2",
			 STORE_ARGS(STORE_INT(change_id), STORE_TEXT(channel)), store_row_int, &got);
	*sent = got != 0;
	return ret;
}

int store_nightly_notice_add(struct store *st, long long change_id, const char *channel)
{
	return store_rows(st, "cannot record nightly notification",
			  "INSERT OR IGNORE INTO nightly_notices(change_id, channel, sent) "
			  "VALUES (?1, ?2, " NOW ")",
			  STORE_ARGS(STORE_INT(change_id), STORE_TEXT(channel)), NULL, NULL);
}

struct followup_state {
	int *owed, *sent;
};

static int followup_row(sqlite3_stmt *q, void *data)
{
	struct followup_state *f = data;

	*f->owed = 1;
	*f->sent = sqlite3_column_int(q, 0);
	return 0;
}

int store_nightly_followup_state(struct store *st, int *owed, int *sent, long long change_id,
				 const char *channel)
{
	struct followup_state f = { owed, sent };

	*owed = *sent = 0;
	return store_rows(st, "cannot read nightly follow-ups", "SELECT sent IS NOT NULL FROM "
			  "nightly_followups WHERE change_id = ?1 AND channel = ?2",
			  STORE_ARGS(STORE_INT(change_id), STORE_TEXT(channel)), followup_row, &f);
}

int store_nightly_followup_owe(struct store *st, long long change_id, const char *channel)
{
	return store_rows(st, "cannot record nightly follow-up", "INSERT OR IGNORE INTO "
			  "nightly_followups(change_id, channel) VALUES (?1, ?2)",
			  STORE_ARGS(STORE_INT(change_id), STORE_TEXT(channel)), NULL, NULL);
}

int store_nightly_followup_sent(struct store *st, long long change_id, const char *channel)
{
	return store_rows(st, "cannot record nightly follow-up", "UPDATE nightly_followups SET "
			  "sent = " NOW " WHERE change_id = ?1 AND channel = ?2 AND sent IS NULL",
			  STORE_ARGS(STORE_INT(change_id), STORE_TEXT(channel)), NULL, NULL);
}

int store_nightly_changes_resumed(struct store *st, const char *nightly, long long night_id,
				  store_nightly_change_fn *fn, void *data)
{
	struct unnotified_reader r = { .series = STRBUF_INIT, .fn = fn, .data = data };
	int ret;

	ret = store_rows(st, "cannot read nightly changes", "SELECT " CHANGE_COLUMNS ", series "
			 "FROM nightly_changes WHERE nightly = ?1 AND verdict IN ('REGRESSION', "
			 "'IMPROVEMENT') AND night_id IN (SELECT id FROM nightly_nights WHERE "
			 "nightly = ?1 AND status = 'INTERRUPTED' AND id < ?2 AND id > COALESCE(("
			 "SELECT max(id) FROM nightly_nights WHERE nightly = ?1 AND id < ?2 AND "
			 "status NOT IN ('RUNNING', 'INTERRUPTED')), 0)) ORDER BY id",
			 STORE_ARGS(STORE_TEXT(nightly), STORE_INT(night_id)), unnotified_row, &r);
	strbuf_release(&r.series);
	return ret;
}

int store_nightly_changes_unnotified(struct store *st, const char *nightly,
				     store_nightly_change_fn *fn, void *data)
{
	struct unnotified_reader r = { .series = STRBUF_INIT, .fn = fn, .data = data };
	int ret;

	ret = store_rows(st, "cannot read nightly changes", "SELECT " CHANGE_COLUMNS ", series "
			 "FROM nightly_changes WHERE nightly = ?1 AND verdict IN ('REGRESSION', "
			 "'IMPROVEMENT') AND notified = 0 ORDER BY id",
			 STORE_ARGS(STORE_TEXT(nightly)), unnotified_row, &r);
	strbuf_release(&r.series);
	return ret;
}
