#ifndef STORE_NIGHTLY_H
#define STORE_NIGHTLY_H
/*
 * lab nightly's rows (schema.sql, "Nightly"): nights, the commits a
 * followed branch brought and their state, the boots measuring each commit,
 * one point per commit and series, and the changes found in a series with
 * their confirming A/B, bisection and notification. Failures are reported
 * here, naming the database. Commit ids are full hex.
 */
#include <stddef.h>

#include "store.h"
#include "strbuf.h"

/*
 * A new night of nightly, RUNNING. Nights of it still RUNNING (a lab that
 * was killed) become INTERRUPTED first; *interrupted counts them.
 */
int store_nightly_night_begin(struct store *st, long long *night_id, int *interrupted,
			      const char *nightly);
/* The night's end: status OK | REGRESSION | INFRA, the head fetched, the summary. */
int store_nightly_night_end(struct store *st, long long night_id, const char *status,
			    const char *head, const char *summary);

/* Queue a commit of nightly after every other one; a commit already queued is left. */
int store_nightly_commit_add(struct store *st, const char *nightly, const char *commit,
			     long long night_id);
/* Set a queued commit's status (MEASURED, BUILD_FAILED, BOOT_FAILED) and image. */
int store_nightly_commit_status(struct store *st, const char *nightly, const char *commit,
				const char *status, const char *kernel);
/* The newest commit queued (any status) into out; "" when none. */
int store_nightly_commit_last(struct store *st, struct strbuf *out, const char *nightly);
/* The commits still PENDING, oldest first, pushed onto out. */
struct strvec;
int store_nightly_commits_pending(struct store *st, struct strvec *out, const char *nightly);

/* A measured commit's subject and author as the commits table has them; "" when unknown. */
int store_nightly_commit_info(struct store *st, struct strbuf *subject, struct strbuf *author,
			      const char *commit);

/* A boot measuring commit at (mem, cmdline) belongs to nightly. */
int store_nightly_run_add(struct store *st, long long run_id, const char *nightly,
			  const char *commit, long mem_mib, const char *cmdline);
/* Boots stored for commit at (mem, cmdline): all but INFRA, and those OK. */
int store_nightly_run_count(struct store *st, long *boots, long *ok, const char *nightly,
			    const char *commit, long mem_mib, const char *cmdline);

/* The samples of those boots that count (OK runs, no warm-ups), by metric and run. */
struct nightly_sample {
	const char *workload, *metric, *unit;
	const char *target, *clock;	/* the run's runner and clock */
	long long run_id;
	double value;
};
typedef int store_nightly_sample_fn(const struct nightly_sample *s, void *data);
int store_nightly_samples(struct store *st, const char *nightly, const char *commit,
			  long mem_mib, const char *cmdline, store_nightly_sample_fn *fn,
			  void *data);

struct nightly_series {
	const char *series;		/* the key, as nightly_series_key() */
	const char *workload, *metric, *unit, *target, *cmdline, *clock;
	long mem_mib;
};

/* A point of a series: commit's value, from boots boots. */
int store_nightly_point_add(struct store *st, const char *nightly,
			    const struct nightly_series *s, const char *commit, double value,
			    long boots);
/* Each series of nightly, by key. */
typedef int store_nightly_series_fn(const struct nightly_series *s, void *data);
int store_nightly_series_each(struct store *st, const char *nightly, store_nightly_series_fn *fn,
			      void *data);
/* A series' points in commit order: values into *values, ids pushed onto commits. */
int store_nightly_points(struct store *st, double **values, size_t *n, struct strvec *commits,
			 const char *nightly, const char *series);

struct nightly_change {
	long long id;
	char before[48], after[48];	/* commit ids */
	char kind[16];			/* CHANGEPOINT | SUSPECT */
	double ratio;
	long long ab_experiment;	/* 0: not yet */
	char verdict[16];		/* "" until confirmed */
	long long bisection;		/* 0: none */
	char culprit[48], outcome[16];
	int notified;
};

/* Record a change (kept when already there); *c is the stored row. */
int store_nightly_change_add(struct store *st, struct nightly_change *c, const char *nightly,
			     const char *series, long long night_id);
/* The stored change of series with this after commit: *found 0 when none. */
int store_nightly_change_get(struct store *st, struct nightly_change *c, int *found,
			     const char *nightly, const char *series, const char *after);
/*
 * A change of nightly confirmed by A/B experiment ab_experiment whose
 * bisection found its culprit: *found 0 when none.
 */
int store_nightly_change_found_by_ab(struct store *st, struct nightly_change *c, int *found,
				     const char *nightly, long long ab_experiment);
/*
 * The after commit of the series' newest confirmed change (REGRESSION,
 * IMPROVEMENT), or with confirmed 0 of its newest refuted one, into out;
 * "" when none.
 */
int store_nightly_change_last(struct store *st, struct strbuf *out, const char *nightly,
			      const char *series, int confirmed);
int store_nightly_change_confirmed(struct store *st, long long id, long long ab_experiment,
				   const char *verdict);
int store_nightly_change_bisected(struct store *st, long long id, long long bisection,
				  const char *culprit, const char *outcome);
/* Every channel configured has delivered change id and its follow-up, if owed. */
int store_nightly_change_notified(struct store *st, long long id);
/*
 * Each channel's delivery of a change (mail, webhook), so that one that
 * failed is tried again alone: *sent whether channel delivered change id.
 */
int store_nightly_notice_sent(struct store *st, int *sent, long long change_id,
			      const char *channel);
/* Channel delivered change id now; delivered already is left as it was. */
int store_nightly_notice_add(struct store *st, long long change_id, const char *channel);
/*
 * A regression a channel told before its bisection ended owes that channel
 * a follow-up with the bisection's outcome: *owed whether change id owes
 * channel one, *sent whether it was delivered.
 */
int store_nightly_followup_state(struct store *st, int *owed, int *sent, long long change_id,
				 const char *channel);
/* Channel told change id before its bisection ended: a follow-up owed (one owed is left). */
int store_nightly_followup_owe(struct store *st, long long change_id, const char *channel);
/* Channel delivered change id's follow-up now. */
int store_nightly_followup_sent(struct store *st, long long change_id, const char *channel);
/*
 * Each confirmed change (REGRESSION, IMPROVEMENT) not notified yet (a
 * channel has not told it, or a follow-up is owed), oldest first.
 */
typedef int store_nightly_change_fn(const struct nightly_change *c, const char *series,
				    void *data);
int store_nightly_changes_unnotified(struct store *st, const char *nightly,
				     store_nightly_change_fn *fn, void *data);
/*
 * Each confirmed change (REGRESSION, IMPROVEMENT) found by a night of
 * nightly that was INTERRUPTED after the last night before night_id that
 * ended: what night_id resumes, whose count no night has given yet.
 */
int store_nightly_changes_resumed(struct store *st, const char *nightly, long long night_id,
				  store_nightly_change_fn *fn, void *data);

#endif
