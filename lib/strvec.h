#ifndef STRVEC_H
#define STRVEC_H
/*
 * A NULL-terminated vector of owned strings, as argv for subprocesses.
 * strvec_release() frees every string and the array.
 */
#include <stddef.h>

struct strvec {
	char **v;
	size_t nr;
	size_t alloc;
};

#define STRVEC_INIT { NULL, 0, 0 }

void strvec_init(struct strvec *sv);
void strvec_release(struct strvec *sv);
/* strvec_release() of each vector named: strvec_release_all(&argv, &env). */
#define strvec_release_all(...) strvec_release_list((struct strvec *[]){ __VA_ARGS__ }, \
	sizeof((struct strvec *[]){ __VA_ARGS__ }) / sizeof(struct strvec *))
void strvec_release_list(struct strvec *const *sv, size_t n);
void strvec_push(struct strvec *sv, const char *s);
__attribute__((format(printf, 2, 3)))
void strvec_pushf(struct strvec *sv, const char *fmt, ...);
/* Push each argument up to a NULL: strvec_pushl(sv, "--mem", "4G", NULL). */
__attribute__((sentinel))
void strvec_pushl(struct strvec *sv, ...);
/* Push a copy of each string of from, in order. */
void strvec_push_all(struct strvec *sv, const struct strvec *from);
/* Split on runs of spaces and push each word (no quoting rules). */
void strvec_split(struct strvec *sv, const char *s);
/* argv view; never NULL, always NULL-terminated. */
char *const *strvec_argv(struct strvec *sv);

#endif
