#ifndef STORE_H
#define STORE_H
/*
 * The sqlite store. schema.sql (compiled in) is the one definition of the
 * tables; store_open() applies it to a new database, checks the version of
 * an existing one, and turns on WAL and foreign keys.
 *
 * A run is stored in two steps: store_run_begin() records that a boot
 * started (status RUNNING), store_run_finish() writes its status, metadata
 * and every sample in one transaction, so a crash never leaves half a boot.
 * Errors are reported once, here, naming the database file.
 *
 * Only results/ speaks SQL: what the commands read and write beyond runs
 * is in store-experiment.h, store-verdict.h, store-bisect.h and store-nightly.h, as typed
 * rows.
 */
#include <sqlite3.h>

#include "run.h"
#include "strbuf.h"
#include "strvec.h"

#define STORE_SCHEMA_VERSION 6

struct store_cache;

struct store {
	sqlite3 *db;
	char *path;
	struct store_cache *cache;	/* statements of store_rows(), kept until store_close() */
};

struct run_row {
	long long kernel_id;		/* 0: none (local runner) */
	long long experiment_id;	/* 0: none */
	long long variant_id;		/* 0: none */
	const char *runner;
	const char *workloads;
	const char *params;
	const char *cmdline;
	long mem_mib;
	int cpus;
	const char *accel;
	const char *clock;		/* "wall", "icount shift=N"; NULL: wall */
	const char *host;
	const char *host_cpu;
	const char *qemu_version;
	const char *target;		/* lab.conf's [target "NAME"]; NULL: none */
	const char *target_class;	/* its class (run_targets) */
};

/*
 * Open to write, creating the database when missing. A damaged database
 * (quick_check) is refused. Runs left RUNNING by a lab of this host that
 * has died are closed as INFRA, naming its pid.
 */
int store_open(struct store *st, const char *path);
/*
 * Open an existing database to read: nothing is ever created ("no
 * database at 'X'"). An older schema is upgraded once first.
 */
int store_open_read(struct store *st, const char *path);
/*
 * A second read-only connection to st's file, for another thread: -1,
 * quietly, when st has no file of its own (in memory) or it cannot be
 * opened; the caller then does without.
 */
int store_open_again(struct store *out, const struct store *st);
/* 1 between store_open() (or store_open_read()) and store_close(). */
int store_is_open(const struct store *st);
void store_close(struct store *st);

/*
 * A read transaction: what is read until store_read_end() is one state
 * of the database, whatever another lab writes meanwhile.
 */
int store_read_begin(struct store *st);
void store_read_end(struct store *st);

/* Report sqlite's last error on this store; returns -1. */
int store_error(struct store *st, const char *what);

/* Find or add the kernel image at path (hashed by content). */
int store_kernel(struct store *st, long long *id, const char *path, const char *arch);

/* Record the commit an image was built from. */
int store_kernel_commit(struct store *st, long long kernel_id, const char *commit_hex);

/*
 * The run is recorded with its owner, this process (run_owners), until it
 * finishes, and with its target and class (run_targets) when it has one.
 */
int store_run_begin(struct store *st, long long *run_id, const struct run_row *row);
/* The run's outcome, metadata, samples and dropped lines, in one transaction. */
int store_run_finish(struct store *st, long long run_id, const struct run_result *res,
		     const char *console_log);

/*
 * For the files of results/, which alone speak SQL (store-experiment.h,
 * store-verdict.h, store-bisect.h hold the rest of the store).
 * store_exec runs one statement that changes rows: ?1 is id, ?2 text (when
 * not NULL); what names the action in the error message, as it does for
 * store_rows().
 */
int store_exec(struct store *st, const char *what, const char *sql, long long id,
	       const char *text);
/* A finished run has no owner any more; nothing said: the caller names what failed. */
int store_clear_owner(struct store *st, long long run_id);

/*
 * The readers' loop: sql with args bound as ?1, ?2, ..., fn called with
 * each row (its columns live until fn returns; fn NULL: rows are stepped
 * through, for a statement that changes them). fn returns non-zero to
 * stop, and store_rows then returns -1 without a message of its own; a
 * failure of sqlite is reported naming what, or not at all when what is
 * NULL (the caller names the action, with store_error()). sql must be a
 * literal, or live as long as the store: its statement is prepared once
 * per store, since a report reads the same few statements for thousands
 * of pages.
 */
struct store_arg {
	enum { STORE_ARG_INT, STORE_ARG_ID, STORE_ARG_TEXT, STORE_ARG_NUM } type;
	long long i;
	double d;
	const char *s;			/* NULL: bound as NULL */
};
#define STORE_INT(v)	((struct store_arg){ .type = STORE_ARG_INT, .i = (v) })
/* An id: <= 0 is bound as NULL (no kernel, no variant). */
#define STORE_ID(v)	((struct store_arg){ .type = STORE_ARG_ID, .i = (v) })
#define STORE_TEXT(v)	((struct store_arg){ .type = STORE_ARG_TEXT, .s = (v) })
/* A number: NaN and infinities are bound as NULL. */
#define STORE_NUM(v)	((struct store_arg){ .type = STORE_ARG_NUM, .d = (v) })
/* The args and nargs of store_rows(): STORE_ARGS(STORE_INT(id), STORE_TEXT(name)). */
#define STORE_ARGS(...) (const struct store_arg[]){ __VA_ARGS__ }, \
	sizeof((const struct store_arg[]){ __VA_ARGS__ }) / sizeof(struct store_arg)
typedef int store_row_fn(sqlite3_stmt *q, void *data);
int store_rows(struct store *st, const char *what, const char *sql,
	       const struct store_arg *args, size_t nargs, store_row_fn *fn, void *data);
/* Row functions for the commonest shapes: the first column into data. */
store_row_fn store_row_int;	/* long long *: the last row's */
store_row_fn store_row_text;	/* struct strbuf *: added to it */
store_row_fn store_row_strvec;	/* struct strvec *: pushed onto it */

/*
 * Clocks; defined in store-experiment.c, beside the runs they read.
 * The clocks an experiment's runs were measured with (runs.clock), the
 * distinct values in the order first used, pushed onto out: one for any
 * experiment the lab compared.
 */
int store_experiment_clocks(struct store *st, struct strvec *out, long long exp_id);
/* A run's clock into out ("wall" for a run older than the column). */
int store_run_clock(struct store *st, struct strbuf *out, long long run_id);

/*
 * What a stored clock means, for tables, pages and mail: "wall time", or
 * "virtual time: instructions at 1 GHz" for "icount shift=0" (2^N ns per
 * instruction at shift N). NULL or "" (runs older than the column) is wall.
 */
void clock_words(struct strbuf *out, const char *clock);

/*
 * A commit the lab built and measured, as it reads now: subject, author
 * ("Name <email>") and author date. The first record of a commit is kept,
 * so that reports need no repository.
 */
int store_commit_measured(struct store *st, const char *commit_hex, const char *subject,
			  const char *author, double date);
/* Its stored subject into out: *found 0 (out untouched) when the commit was never recorded. */
int store_commit_subject(struct store *st, struct strbuf *out, int *found,
			 const char *commit_hex);

/* A column of a row being read: "" for NULL text, NaN for a NULL number. */
const char *store_text(sqlite3_stmt *q, int col);
double store_num(sqlite3_stmt *q, int col);

/*
 * Transactions for callers that write several rows as one. A failed
 * commit rolls back: no transaction is left open.
 */
int store_begin(struct store *st);
/*
 * Inside a transaction: the experiments row of a new experiment of kind
 * ("ab", "bisect"), its id in *id. -1 leaves sqlite's error for the
 * caller's store_error().
 */
int store_insert_experiment(struct store *st, long long *id, const char *kind,
			    const char *command, const char *workloads);
int store_commit(struct store *st);
void store_rollback(struct store *st);

#endif
