#ifndef REPORT_H
#define REPORT_H
/*
 * The static HTML report: a site written from the database, with no
 * JavaScript and no network fetches. index.html lists recent experiments,
 * the nightlies and recent runs; e<N>.html is an A/B experiment, b<N>.html
 * a bisection, n<N>.html a nightly (N its first night's id, so that the
 * page keeps its name as nights are added), r<N>.html a run, logs/r<N>.txt
 * a copy of a run's console log, style.css a copy of web/style.css.
 *
 * A console log is copied only from under log_dir: its stored path is a
 * row anyone who can write the database can change, so the path is
 * resolved (symlinks followed) and one leading elsewhere, or to anything
 * but a regular file with one link that is the lab user's or readable by
 * all, is refused with a warning naming the run; its page says the log is
 * missing and a copy an earlier report made is removed. A copy holds at
 * most REPORT_LOG_MAX bytes, the log's end (read from there: a log of any
 * size costs no more), with control bytes shown as \xHH.
 *
 * The folder is the database's (web/sitedir.h): a marker names the
 * database and lists the files written; a folder of another database or
 * of someone else is refused unless opt->force. Every page is built in
 * memory and replaces the file on disk only when its bytes differ, so
 * pages that did not change keep their mtime. Files of the manifest that
 * no page wrote this time (experiments and runs deleted from the
 * database) are removed; no other file in the site is touched, and no
 * symlink in it is followed. Each page's rows are read inside one read
 * transaction, so a lab writing the database at the same time never gives
 * a page half of a change.
 *
 * Commit subjects come from the commits table, as stored when the lab
 * measured them: the site needs no repository.
 *
 * Everything that came from git, a console or a config goes through
 * escape_html() (lib/escape.h); nothing else in the site writes such text.
 */
#include "store.h"
#include "strbuf.h"

/* The most of a console log a site publishes, after escaping: its end. */
#define REPORT_LOG_MAX (1 << 20)

struct report_options {
	const char *out_dir;		/* created if missing */
	int force;			/* take out_dir over though another's */
	const char *css_path;		/* copied to out_dir/style.css */
	const char *log_dir;		/* where the lab writes console logs; NULL: none */
	int recent;			/* experiments and runs on the index */
	/*
	 * report.commitUrl: a commit's page on a cgit or gitweb, "%H" the
	 * full id (http or https); NULL: commits are not links.
	 */
	const char *commit_url;
};

struct report_stats {
	int written;			/* files replaced or created */
	int unchanged;			/* files left alone */
	int removed;			/* files of the manifest no page wrote */
};

/*
 * Write the whole site from st (opened read-only by the caller, and used
 * by this thread only), for the database at st->path. When st is a file,
 * helper threads read it through connections of their own
 * (store_open_again()).
 */
int report_write_site(struct report_stats *out, struct store *st, const struct report_options *opt);

#endif
