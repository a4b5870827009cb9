#ifndef STORE_PRIVATE_H
#define STORE_PRIVATE_H
/*
 * The store as the files of results/ see it, and no other folder: the
 * sqlite connection, the readers' loop and the columns of a row. A
 * command holds a struct store and asks for typed rows (store.h and the
 * store-*.h beside it); it never sees a statement.
 */
#include <sqlite3.h>

#include "array.h"
#include "store.h"

struct store_conn {
	sqlite3 *db;
	struct store_cache *cache;	/* statements of store_rows(), kept until store_close() */
};

/* Report sqlite's last error on this store; returns -1. */
int store_error(struct store *st, const char *what);

/*
 * store_exec runs one statement that changes rows: ?1 is id, ?2 text (when
 * not NULL); what names the action in the error message, as it does for
 * store_rows().
 */
int store_exec(struct store *st, const char *what, const char *sql, long long id,
	       const char *text);
struct run_result;
/*
 * The end of a run in one transaction, nothing said: SQLITE_OK, or sqlite's
 * code of the first failure (the transaction then rolled back). replace:
 * the run's samples, events, dropped lines and profile go first, for an
 * import that may have been made once already.
 */
int store_run_finish_tx(struct store *st, long long run_id, const struct run_result *res,
			const char *console_log, int replace);

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
	ARRAY_SIZE(((const struct store_arg[]){ __VA_ARGS__ }))
typedef int store_row_fn(sqlite3_stmt *q, void *data);
int store_rows(struct store *st, const char *what, const char *sql,
	       const struct store_arg *args, size_t nargs, store_row_fn *fn, void *data);
/*
 * store_rows(), *found set when any row came: for a reader whose caller
 * branches on a missing row.
 */
int store_rows_found(struct store *st, int *found, const char *what, const char *sql,
		     const struct store_arg *args, size_t nargs, store_row_fn *fn, void *data);
/*
 * store_rows() of sql that reads one thing by its id, bound as ?1: a
 * failure is "cannot read <thing>", no row "no <thing> <id> in database".
 */
int store_read_one(struct store *st, const char *thing, long long id, const char *sql,
		   store_row_fn *fn, void *data);
/* Row functions for the commonest shapes: the first column into data. */
store_row_fn store_row_int;	/* long long *: the last row's */
store_row_fn store_row_text;	/* struct strbuf *: added to it */
store_row_fn store_row_strvec;	/* struct strvec *: pushed onto it */

/* The rowid of the last row inserted, and how many rows the last statement changed. */
long long store_last_id(struct store *st);
/*
 * store_rows() of sql, which reads table: no rows when the database has no
 * such table (one made before the table was added).
 */
int store_rows_if_table(struct store *st, const char *table, const char *what, const char *sql,
			const struct store_arg *args, size_t nargs, store_row_fn *fn, void *data);
int store_changes(struct store *st);

/* A column of a row being read: "" for NULL text, NaN for a NULL number. */
const char *store_text(sqlite3_stmt *q, int col);
double store_num(sqlite3_stmt *q, int col);

/*
 * The two columns of the host a run of the local runner measured (struct
 * run_host), of the run aliased r, named host_mem_mib and host_cpus; and
 * their reader, from column col on. Every reader of the host reads it so.
 */
#define STORE_RUN_HOST_COLUMNS \
	"(SELECT value FROM run_meta m WHERE m.run_id = r.id AND m.key = 'host.mem_mib') " \
	"AS host_mem_mib, (SELECT value FROM run_meta m WHERE m.run_id = r.id AND " \
	"m.key = 'host.cpus') AS host_cpus"
void store_run_host(struct run_host *out, sqlite3_stmt *q, int col);

/*
 * Inside a transaction: the experiments row of a new experiment of kind
 * ("ab", "bisect"), its id in *id. -1 leaves sqlite's error for the
 * caller's store_error().
 */
int store_insert_experiment(struct store *st, long long *id, const char *kind,
			    const char *command, const char *workloads);
#endif
