#ifndef CONTEXT_H
#define CONTEXT_H
/*
 * What most commands start with: the configuration (lab.conf, then the
 * command line's --config/--db) and the open database. Paths under the
 * state root (work trees, builds, console logs, cached initramfs images)
 * are derived here so that every command finds them in the same place.
 */
#include "config.h"
#include "parse-options.h"
#include "store.h"

struct lab_context {
	struct lab_config cfg;
	struct store st;
	char *dir;		/* core.state, absolute once the store is open */
	int lock_fd;		/* the experiment this lab owns; 0: none */
	long long lock_exp;
};

/* --db and --config, which every command that reads lab.conf takes. */
#define CONTEXT_OPTIONS(db, config) \
	{ .type = OPTION_STRING, .long_name = "db", .value = (db), .argh = "PATH", \
	  .help = "database (default core.db, state/lab.db)", .flags = PARSE_OPT_NORECORD }, \
	{ .type = OPTION_STRING, .long_name = "config", .value = (config), .argh = "FILE", \
	  .help = "configuration file (default ./lab.conf)", .flags = PARSE_OPT_NORECORD }, \
	{ .type = OPTION_CALLBACK, .short_name = 'q', .long_name = "quiet", \
	  .help = "no progress lines on stderr", .cb = context_opt_progress, \
	  .flags = PARSE_OPT_NOARG | PARSE_OPT_NORECORD }, \
	{ .type = OPTION_CALLBACK, .long_name = "progress", \
	  .help = "progress in place even when stderr is not a terminal", \
	  .cb = context_opt_progress, .flags = PARSE_OPT_NOARG | PARSE_OPT_NORECORD }

/* --quiet and --progress: how every progress meter of the process shows (lib/meter.h). */
int context_opt_progress(const struct parse_option *opt, const char *arg);

/*
 * Load config_path (NULL: default search), override the db when db_path,
 * and settle cfg.state and cfg.db (lab/config/config.h says how). The database
 * must be a regular file or absent, and one named by db_path (--db) in a
 * directory that exists; anything else is refused here, for every command.
 */
int context_load_config(struct lab_context *ctx, const char *config_path,
			const char *db_path);
/* How far context_start() goes after the configuration. */
enum context_store {
	CONTEXT_NO_STORE,	/* the command opens it when it needs it */
	CONTEXT_STORE_READ,	/* context_open_store_read() */
};

/*
 * The start of a command that takes options only: p's table holds
 * CONTEXT_OPTIONS(db, config); its options parsed by
 * parse_command_options() with no argument allowed, then
 * context_load_config() with what --db and --config said, then the store
 * as store says. ctx is emptied first: context_release() is right after
 * any failure.
 */
int context_start(struct lab_context *ctx, const struct option_parser *p, int argc,
		  char **argv, const char *const *db, const char *const *config,
		  enum context_store store);

/*
 * Open the database named by the config to write, creating it and its
 * directory when missing; cached initramfs images of labs that died are
 * removed.
 */
int context_open_store(struct lab_context *ctx);
/* The store open to write: opened now unless it already is. */
int context_need_store(struct lab_context *ctx);
/* Open an existing database to read: nothing is created. */
int context_open_store_read(struct lab_context *ctx);

/*
 * Own an experiment (an A/B or a bisection) for as long as this lab runs
 * it: an exclusive flock on <db>.locks/E<id>, dropped by
 * experiment_unlock(), context_release() or the lab's death, kill -9
 * included. Take it before changing the experiment's runs. Fails with
 * "experiment E1 is being run by another lab (pid N)" while another lab
 * owns it. One experiment per context.
 */
int experiment_lock(struct lab_context *ctx, long long exp_id);
void experiment_unlock(struct lab_context *ctx);

void context_release(struct lab_context *ctx);

/*
 * <dir>/logs/<database name without .db>, created: console logs are named
 * by run id, which is per database. Caller frees.
 */
char *context_logdir(struct lab_context *ctx);
/* <state>/<sub>, created if missing; the caller frees the result. */
char *context_subdir(struct lab_context *ctx, const char *sub);

/* Local time as YYYY-MM-DD HH:MM:SS. */
void format_time(char *out, size_t size, double epoch);

#endif
