#include <ctype.h>
#include <string.h>

#include <git2.h>

#include "gitutil.h"
#include "log.h"

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

int lab_git_error(const char *what)
{
	const git_error *e = git_error_last();
	const char *msg = e && e->message && *e->message ? e->message : "unknown error";
	size_t len = strlen(msg);

	/* House style has no full stop; a few libgit2 messages end in one. */
	while (len && (msg[len - 1] == '.' || isspace((unsigned char)msg[len - 1])))
		len--;
	return error("%s: %.*s", what, (int)len, msg);
}
