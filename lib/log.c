#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "say.h"
#include "strbuf.h"

int log_quiet;

/*
 * Messages quote what came from outside (refs, file names, a guest's or
 * ssh's last words): say_to() makes the whole line safe for a terminal, so
 * no caller has to remember to, and wraps it within the columns as it
 * wraps every line the lab says.
 */
static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	struct strbuf line = STRBUF_INIT;

	strbuf_addf(&line, "lab: %s", prefix);
	strbuf_vaddf(&line, fmt, ap);
	say_to(stderr, "%s", line.buf);
	strbuf_release(&line);
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
