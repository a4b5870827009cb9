#ifndef BUILD_PROGRESS_H
#define BUILD_PROGRESS_H
/*
 * The compile of a build as a progress line: kbuild's lines ("  CC
 * mm/page_alloc.o", "  LD ...") counted as make prints them, against the
 * count the last build from scratch of the same build directory made,
 * kept beside it as <obj>.objects.
 */
#include "subprocess.h"

struct meter;

struct make_watch {
	struct subprocess_watch w;	/* for subprocess_run_watched() */
	struct meter *meter;
	long lines;			/* kbuild lines so far */
	int col;			/* of the current line, up to 3 */
	char head[3];			/* its first characters */
};

void make_watch_init(struct make_watch *mw, struct meter *meter);
/* The kbuild lines of the last build from scratch of obj: 0 when unknown. */
long build_objects_expected(const char *obj);
/* Keep n as that count. */
void build_objects_keep(const char *obj, long n);

#endif
