#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "log.h"
#include "meter.h"

int log_quiet;

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	struct { char buf[4096]; } line;
	struct strbuf safe = STRBUF_INIT;
	int n = snprintf(line.buf, sizeof(line.buf), "lab: %s", prefix);
	if (n < 0 || (size_t)n >= sizeof(line.buf))
		n = 0;
	vsnprintf(line.buf + n, sizeof(line.buf) - (size_t)n, fmt, ap);
	/*
	 * Messages quote what came from outside (refs, file names, a guest's
	 * or ssh's last words): the whole line is made safe for a terminal
	 * here, so no caller has to remember to. Our own formats hold no
	 * control characters but newline and tab, which are kept.
	 */
	meter_clear_showing();
	escape_term(&safe, line.buf, ESCAPE_TERM_LINES);
	fprintf(stderr, "%s\n", safe.buf);
	strbuf_release(&safe);
}

int error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

void info(const char *fmt, ...)
{
	va_list ap;
	if (log_quiet)
		return;
	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
}

void debug(const char *fmt, ...)
{
	static int on = -1;
	va_list ap;

	if (on < 0) {
		const char *v = getenv("LAB_DEBUG");
		on = v && *v && strcmp(v, "0");
	}
	if (!on)
		return;
	va_start(ap, fmt);
	vreport("debug: ", fmt, ap);
	va_end(ap);
}
