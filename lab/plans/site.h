#ifndef SITE_H
#define SITE_H
/*
 * The report site of the open database (web/report.h), where `lab report`
 * and the end of a night write it: out, or under core.state site/ for a
 * database named lab.db and site-<name>/ for any other <name>.db. dir
 * gets the folder written; -1 after saying why, a folder of another
 * database's or of someone else's among the reasons.
 */
#include "context.h"
#include "report.h"
#include "strbuf.h"

int site_write(struct lab_context *ctx, const char *out, struct report_stats *stats,
	       struct strbuf *dir);
/* The same, taking out over when force, though another's (`lab report --force`). */
int site_write_forced(struct lab_context *ctx, const char *out, int force,
		      struct report_stats *stats, struct strbuf *dir);

#endif
