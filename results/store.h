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
 * is in store-experiment.h, store-verdict.h, store-bisect.h, store-nightly.h
 * and store-report.h, as typed rows. Neither sqlite nor its handle shows
 * here: results/store-private.h is for the files of results/ alone.
 */
#include "kernel-image.h"
#include "run.h"
#include "strbuf.h"
#include "strvec.h"

#define STORE_SCHEMA_VERSION 14

/* The connection and its statements: results/ alone sees them (store-private.h). */
struct store_conn;

struct store {
	struct store_conn *conn;	/* NULL: not open */
	char *path;			/* the database file, for messages */
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

/*
 * Find or add a resolved kernel image (by its hash and path), with the
 * commit it was built from when it was: its row id into *id.
 */
int store_kernel(struct store *st, long long *id, const struct kernel_image *k);
/*
 * k recorded where it is first stored, its row id into k->id: by its
 * build, or by the plan that first opens the store for an image the user
 * named. An image that has its id is not written again, and the boots
 * read k->id. k NULL (a runner that boots no kernel): nothing.
 */
int store_kernel_once(struct store *st, struct kernel_image *k);

/*
 * The run is recorded with its owner, this process (run_owners), until it
 * finishes, and with its target and class (run_targets) when it has one.
 */
int store_run_begin(struct store *st, long long *run_id, const struct run_row *row);
/* The run's outcome, metadata, samples and dropped lines, in one transaction. */
int store_run_finish(struct store *st, long long run_id, const struct run_result *res,
		     const char *console_log);

/*
 * Clocks, beside what they read: an experiment's in store-experiment.c, a
 * run's in store-runs.c.
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

/*
 * Transactions for callers that write several rows as one. A failed
 * commit rolls back: no transaction is left open.
 */
int store_begin(struct store *st);
int store_commit(struct store *st);
void store_rollback(struct store *st);

#endif
