#ifndef STORE_SPOOL_H
#define STORE_SPOOL_H
/*
 * A finished run the database could not take, kept on disk until it can.
 *
 * store_run_finish() stores a boot's end in one transaction. When the
 * database is locked by another process it waits for it, saying so, up to
 * STORE_FINISH_PATIENCE_S; when it still cannot (the lock outlasted that,
 * the disk is full, an I/O error), the run's result (status, samples,
 * events, meta entries, dropped lines, profile) goes whole into a spool
 * file beside its console log, run-N.log's run-N.spool, and the run's row
 * is marked INFRA with the reason, when the database takes that much. A
 * run is never left RUNNING with its samples lost for a lock or a full
 * disk; only a spool file that cannot be written either loses them, and
 * the message says so.
 *
 * The next lab that opens the database for writing imports the spool
 * files of its logs folder (store_spool_import()): each run gets the end
 * it really had, in one transaction, and the file goes. A file is
 * imported only into the run it was written for (its id, the time it
 * started, its experiment, variant, kernel, runner, workloads and host:
 * the logs folder outlives a database made again, and two databases of
 * one name share it), and only while that run waits for it (RUNNING with
 * no lab owning it, or INFRA for the spool or for a lab that died);
 * otherwise it is left, with a warning naming it.
 */
struct store;

#define STORE_FINISH_PATIENCE_S 300

/*
 * Import dir's run-N.spool files into st: 0 (each one imported, or left
 * with a warning when it cannot be yet), -1 when dir cannot be read.
 */
int store_spool_import(struct store *st, const char *dir);

#endif
