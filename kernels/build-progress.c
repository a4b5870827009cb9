#include <stdlib.h>
#include <string.h>

#include "atomicfile.h"
#include "build-progress.h"
#include "meter.h"
#include "regfile.h"
#include "strbuf.h"

static void make_output(struct subprocess_watch *w, const char *buf, size_t len)
{
	struct make_watch *mw = (struct make_watch *)w;
	long before = mw->lines;

	for (size_t i = 0; i < len; i++) {
		if (buf[i] == '\n') {
			mw->col = 0;
			continue;
		}
		if (mw->col < 3)
			mw->head[mw->col] = buf[i];
		if (++mw->col == 3 && mw->head[0] == ' ' && mw->head[1] == ' ' &&
		    mw->head[2] >= 'A' && mw->head[2] <= 'Z')
			mw->lines++;
	}
	if (mw->lines != before)
		meter_set(mw->meter, mw->lines, "%ld object%s", mw->lines, mw->lines == 1 ? "" : "s");
}

static void make_tick(struct subprocess_watch *w)
{
	meter_tick(((struct make_watch *)w)->meter);
}

void make_watch_init(struct make_watch *mw, struct meter *meter)
{
	memset(mw, 0, sizeof(*mw));
	mw->w.output = make_output;
	mw->w.tick = make_tick;
	mw->meter = meter;
}

/* How many kbuild lines the last build from scratch of obj made: 0 when unknown. */
long build_objects_expected(const char *obj)
{
	struct strbuf path = STRBUF_INIT, have = STRBUF_INIT;
	long n = 0;

	strbuf_addf(&path, "%s.objects", obj);
	if (!strbuf_read_file(&have, path.buf, 64))
		n = strtol(strbuf_str(&have), NULL, 10);
	strbuf_release(&path);
	strbuf_release(&have);
	return n > 0 ? n : 0;
}

void build_objects_keep(const char *obj, long n)
{
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT;

	strbuf_addf(&path, "%s.objects", obj);
	strbuf_addf(&text, "%ld\n", n);
	atomic_write_buf(path.buf, 0644, 0, "object count", text.buf, text.len);
	strbuf_release(&path);
	strbuf_release(&text);
}
