/*
 * lib/array.h and xreallocarray(): the room ALLOC_GROW makes, worked by
 * hand, the elements kept across a move, and a size that overflows dying
 * with its message rather than wrapping round; xstrset() of a string, of
 * itself and of NULL; a dvec's values kept in order through its moves,
 * and empty again after release; strbuf_release_all() and
 * strvec_release_all() leaving each one named empty, free_all() freeing
 * each pointer (make SANITIZE=address counts a leak).
 */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "array.h"
#include "dvec.h"
#include "strbuf.h"
#include "strvec.h"
#include "tap.h"

/* xreallocarray(NULL, nmemb, size) in a child: its stderr into msg, its wait status */
static int child_alloc(char *msg, size_t len, size_t nmemb, size_t size)
{
	int fd[2], status = 0;
	ssize_t got, n = 0;
	pid_t pid;

	if (pipe(fd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		dup2(fd[1], 2);
		close(fd[0]);
		free(xreallocarray(NULL, nmemb, size));
		_exit(0);
	}
	close(fd[1]);
	while (n + 1 < (ssize_t)len && (got = read(fd[0], msg + n, len - 1 - n)) > 0)
		n += got;
	msg[n] = '\0';
	close(fd[0]);
	waitpid(pid, &status, 0);
	return status;
}

int main(void)
{
	static const int fixed[7];
	int *v = NULL, *was;
	size_t nr = 0, alloc = 0, i;
	char msg[256], *field = NULL;
	int status;

	is_int(ARRAY_SIZE(fixed), 7, "ARRAY_SIZE counts elements, not bytes");

	ALLOC_GROW(v, nr + 1, alloc);
	is_int(alloc, ALLOC_GROW_MIN, "the first element: room for the minimum");
	for (i = 0; i < 40; i++) {
		ALLOC_GROW(v, nr + 1, alloc);
		v[nr++] = (int)i * 3;
	}
	is_int(alloc, 4 * ALLOC_GROW_MIN, "40 elements one at a time: 16, 32, 64");
	was = v;
	ALLOC_GROW(v, 64, alloc);
	ok(v == was && alloc == 64, "room enough: nothing moves");
	ALLOC_GROW(v, 1000, alloc);
	is_int(alloc, 1000, "more than double: exactly n");
	ALLOC_GROW(v, 1001, alloc);
	is_int(alloc, 2000, "one more: doubled");
	for (i = 0; i < nr && v[i] == (int)i * 3; i++)
		;
	is_int(i, 40, "the elements kept through every move");
	free(v);

	is_int(alloc_grow_nr(SIZE_MAX / 2 + 1, 1), SIZE_MAX, "doubling does not wrap");
	is_int(alloc_grow_nr(8, 3), 16, "an alloc below the minimum still doubles");

	status = child_alloc(msg, sizeof(msg), 3, 5);
	ok(WIFEXITED(status) && !WEXITSTATUS(status) && !*msg, "3 * 5 bytes: allocated, no word");
	status = child_alloc(msg, sizeof(msg), SIZE_MAX / 4 + 1, 4);
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT, "a size past SIZE_MAX aborts");
	ok(!strncmp(msg, "lab: size overflow: ", 20) && strstr(msg, " * 4 bytes\n"),
	   "and says so");

	{
		struct dvec d = DVEC_INIT;

		for (i = 0; i < 100; i++)
			dvec_push(&d, (double)i / 4);
		for (i = 0; i < d.nr && d.v[i] == (double)i / 4; i++)
			;
		ok(i == 100 && d.nr == 100 && d.alloc == 128, "dvec: 100 values in order, room for 128");
		dvec_release(&d);
		ok(!d.v && !d.nr && !d.alloc, "dvec_release: empty again");
	}

	xstrset(&field, "modules");
	is_str(field, "modules", "xstrset: a copy");
	xstrset(&field, field);
	is_str(field, "modules", "... of itself");
	xstrset(&field, NULL);
	ok(!field, "... and NULL sets none");
	{
		struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, c = STRBUF_INIT;
		struct strvec sv = STRVEC_INIT, w = STRVEC_INIT;

		strbuf_addstr(&a, "one");
		strbuf_addstr(&c, "three");
		strbuf_release_all(&a, &b, &c);
		ok(!a.buf && !a.len && !b.buf && !c.buf && !c.len, "strbuf_release_all: each empty");
		strvec_pushl(&sv, "x", "y", NULL);
		strvec_push(&w, "z");
		strvec_release_all(&sv, &w);
		ok(!sv.v && !sv.nr && !w.v && !w.nr, "strvec_release_all: each empty");
		/* both freed past the NULL: LeakSanitizer (make SANITIZE=...) says it */
		free_all(xstrdup("p"), NULL, xstrdup("q"));
	}
	return done_testing();
}
