#ifndef SITE_H
#define SITE_H
/*
 * The report site of the open database (web/report.h), where `lab report`
 * and the end of a night write it: out, or site/ under core.state. dir
 * gets the folder written; -1 after saying why.
 */
#include "context.h"
#include "report.h"
#include "strbuf.h"

int site_write(struct lab_context *ctx, const char *out, struct report_stats *stats,
	       struct strbuf *dir);

#endif
