#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "gitutil.h"
#include "log.h"
#include "strbuf.h"

int lab_git_init(void)
{
	if (git_libgit2_init() < 0)
		return lab_git_error("cannot initialise libgit2");
	return 0;
}

void lab_git_shutdown(void)
{
	git_libgit2_shutdown();
}

const char *lab_git_message(const char *fallback)
{
	static _Thread_local char buf[1024];
	const git_error *e = git_error_last();
	size_t len;

	if (!e || !e->message || !*e->message)
		return fallback;
	len = strlen(e->message);
	/* House style has no full stop; a few libgit2 messages end in one. */
	while (len && (e->message[len - 1] == '.' || isspace((unsigned char)e->message[len - 1])))
		len--;
	snprintf(buf, sizeof(buf), "%.*s", (int)len, e->message);
	return buf;
}

int lab_git_error(const char *what)
{
	return error("%s: %s", what, lab_git_message("unknown error"));
}

int lab_git_errorf(const char *fmt, ...)
{
	char *what;
	va_list ap;
	int ret;

	va_start(ap, fmt);
	what = xstrvfmt(fmt, ap);
	va_end(ap);
	ret = lab_git_error(what);
	free(what);
	return ret;
}
