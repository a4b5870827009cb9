#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "strbuf.h"
#include "strvec.h"

void strvec_init(struct strvec *sv)
{
	memset(sv, 0, sizeof(*sv));
}

void strvec_release(struct strvec *sv)
{
	for (size_t i = 0; i < sv->nr; i++)
		free(sv->v[i]);
	free(sv->v);
	memset(sv, 0, sizeof(*sv));
}

void strvec_release_list(struct strvec *const *sv, size_t n)
{
	for (size_t i = 0; i < n; i++)
		strvec_release(sv[i]);
}

static void strvec_push_owned(struct strvec *sv, char *s)
{
	ALLOC_GROW(sv->v, sv->nr + 2, sv->alloc);
	sv->v[sv->nr++] = s;
	sv->v[sv->nr] = NULL;
}

void strvec_push(struct strvec *sv, const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, s);
	strvec_push_owned(sv, strbuf_detach(&sb));
}

void strvec_pushf(struct strvec *sv, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strvec_push_owned(sv, xstrvfmt(fmt, ap));
	va_end(ap);
}

void strvec_split(struct strvec *sv, const char *s)
{
	while (*s) {
		size_t n;
		while (*s == ' ' || *s == '\t' || *s == '\n')
			s++;
		n = strcspn(s, " \t\n");
		if (n) {
			struct strbuf sb = STRBUF_INIT;
			strbuf_add(&sb, s, n);
			strvec_push_owned(sv, strbuf_detach(&sb));
		}
		s += n;
	}
}

char *const *strvec_argv(struct strvec *sv)
{
	static char *empty[1] = { NULL };
	return sv->nr ? sv->v : empty;
}

void strvec_push_all(struct strvec *sv, const struct strvec *from)
{
	for (size_t i = 0; i < from->nr; i++)
		strvec_push(sv, from->v[i]);
}

void strvec_pushl(struct strvec *sv, ...)
{
	const char *s;
	va_list ap;

	va_start(ap, sv);
	while ((s = va_arg(ap, const char *)))
		strvec_push(sv, s);
	va_end(ap);
}
