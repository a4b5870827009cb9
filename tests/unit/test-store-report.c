/*
 * What the HTML report reads, on a real database filled through the
 * store's own writers: the pages to write, the index's experiments, runs
 * and series, an experiment's runs, variants and counted A/B samples, a
 * run's page and a bisection's with full commit ids. And the readers'
 * loop itself: a reader called again from its own callback, a callback
 * that stops, a second connection for another thread.
 */
#include <git2.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sample.h"
#include "store-bisect.h"
#include "store-experiment.h"
#include "store-fixture.h"
#include "store-nightly.h"
#include "store-private.h"
#include "store-report.h"
#include "store-verdict.h"
#include "tap.h"

#define CULPRIT "0123456789abcdef0123456789abcdef01234567"

static void verdict(struct verdict_row *v, const char *metric, const char *word)
{
	memset(v, 0, sizeof(*v));
	snprintf(v->workload, sizeof(v->workload), "zeroing");
	snprintf(v->metric, sizeof(v->metric), "%s", metric);
	snprintf(v->unit, sizeof(v->unit), "us");
	v->mem_mib = 1024;
	v->cpus = 1;
	snprintf(v->verdict, sizeof(v->verdict), "%s", word);
}

/* Each reader's rows, written as text into a buffer. */
struct out {
	char buf[1024];
	struct store *st;
};

static void say(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct out *o, const char *fmt, ...)
{
	size_t len = strlen(o->buf);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(o->buf + len, sizeof(o->buf) - len, fmt, ap);
	va_end(ap);
}

static int page(char kind, long long id, void *data)
{
	say(data, "%c%lld ", kind, id);
	return 0;
}

static int index_experiment(const struct store_report_experiment_summary *e, void *data)
{
	say(data, "E%lld %s %s %s %s.%s %g %lld/%lld %s..%s [%s];", e->id, e->kind, e->status,
	    e->verdict, e->workload, e->metric, e->ratio, e->metrics, e->points, e->good_ref,
	    e->bad_ref, e->culprit);
	return 0;
}

static int index_run(const struct store_report_run_summary *r, void *data)
{
	say(data, "%lld %s %s E%lld %s %s;", r->id, r->status, r->variant, r->experiment_id,
	    r->experiment_kind ? r->experiment_kind : "-", r->kernel);
	return 0;
}

static int series_kernel(const struct store_series_kernel *k, void *data)
{
	struct out *o = data;

	say(o, "k%lld '%s' %lld %lld %d %s:", k->kernel_id, k->cmdline, k->mem_mib, k->cpus,
	    k->runs, k->release);
	return 0;
}

static int series_run(long long run_id, double started, void *data)
{
	say(data, " %lld%s", run_id, started > 0 ? "" : "?");
	return 0;
}

static int experiment_run(const struct store_report_experiment_run *r, void *data)
{
	say(data, "%lld %s %s %lld %lld;", r->id, r->variant, r->status, r->mem_mib, r->cpus);
	return 0;
}

static int variant(const struct store_report_variant *v, void *data)
{
	say(data, "%s '%s' %s:", v->name, v->cmdline, v->path ? v->path : "(this host)");
	for (size_t i = 0; i < v->nruns; i++)
		say(data, " %lld", v->runs[i]);
	say(data, ";");
	return 0;
}

static int ab_sample(const struct store_ab_sample *s, void *data)
{
	say(data, "%c%lld:%g@r%lld.%lld ", "AB"[s->side], s->mem_mib, s->value, s->run_id,
	    s->iteration);
	return 0;
}

static int run_page(const struct store_report_run *r, void *data)
{
	say(data, "%lld %s %s %s %s E%lld %s %s %s", r->id, r->text[RR_STATUS], r->text[RR_MEM_MIB],
	    r->text[RR_CMDLINE], r->text[RR_KERNEL_PATH] ? r->text[RR_KERNEL_PATH] : "(none)",
	    r->experiment_id, r->experiment_kind ? r->experiment_kind : "-",
	    r->variant ? r->variant : "-", r->text[RR_ERROR] ? r->text[RR_ERROR] : "(no error)");
	return 0;
}

static int experiment(const struct store_report_experiment *e, void *data)
{
	say(data, "%s %s %s %s", e->status, e->command, e->workloads,
	    isfinite(e->created) && isnan(e->finished) ? "created" : "?");
	return 0;
}

static int bisection(const struct store_report_bisection *b, void *data)
{
	say(data, "%s %s..%s %s.%s %d %.2f [%.2f, %.2f] %s %s", b->status, b->good, b->bad,
	    b->workload, b->metric, b->per_boot, b->effect, b->effect_lo, b->effect_hi, b->culprit,
	    b->outcome);
	return 0;
}

static int step(const struct bisect_step_row *s, void *data)
{
	say(data, "%lld %s %s %lld;", s->seq, s->commit, s->mark, s->n);
	return 0;
}

/* Reads another run's metadata from inside the reader of this run's: one statement, twice. */
static int meta_nested(const char *key, const char *value, void *data);
static int meta_inner(const char *key, const char *value, void *data)
{
	say(data, "(%s=%s)", key, value);
	return 0;
}

static int meta_nested(const char *key, const char *value, void *data)
{
	struct out *o = data;

	say(o, "%s=%s", key, value);
	return store_run_meta(o->st, 2, meta_inner, o);
}

static int nightly(const struct store_report_nightly *n, void *data)
{
	say(data, "n%lld %s %lld %s %s %s %lld %lld [%s %g %s %s];", n->id, n->name, n->nights,
	    n->last_status, n->last_head, n->last_summary, n->series, n->changes, n->worst_metric,
	    n->worst_ratio, n->worst_verdict, n->worst_kind);
	return 0;
}

static int nightly_point(const struct store_report_nightly_point *p, void *data)
{
	say(data, "%s %s.%s %s %s %lld '%s' %s %.4s@%lld=%g/%lld;", p->series, p->workload,
	    p->metric, p->unit, p->target, p->mem_mib, p->cmdline, p->clock, p->commit, p->seq,
	    p->value, p->boots);
	return 0;
}

static int nightly_change(const struct store_report_nightly_change *c, void *data)
{
	say(data, "%s %s %.4s..%.4s %g %s E%lld E%lld %.4s %s;", c->series, c->kind, c->before,
	    c->after, c->ratio, c->verdict, c->ab_experiment, c->bisection, c->culprit, c->outcome);
	return 0;
}

/* Nights of nightly "mm" over commits c0..c4 and one of "aa"; the fourth point a step. */
static int nightly_rows(struct store *st, long long exp, long long bis)
{
	static const char *commits[] = { "c000", "c111", "c222", "c333", "c444" };
	struct nightly_series s = { "zeroing.t local", "zeroing", "t", "ms", "local", "", "wall",
				    2048 };
	struct nightly_change c = { .kind = "SUSPECT", .ratio = 1.1 };
	struct nightly_change up = { .kind = "CHANGEPOINT", .ratio = 0.9 };
	long long night = 0, other = 0;
	int interrupted;

	if (store_nightly_night_begin(st, &night, &interrupted, "mm") ||
	    store_nightly_night_begin(st, &other, &interrupted, "aa") ||
	    store_nightly_night_end(st, other, "OK", "cafe", "aa: nothing"))
		return -1;
	for (int i = 4; i >= 0; i--)
		if (store_nightly_commit_add(st, "mm", commits[4 - i], night))
			return -1;
	for (int i = 4; i >= 0; i--)
		if (store_nightly_point_add(st, "mm", &s, commits[i], i >= 3 ? 11 : 10, 3))
			return -1;
	snprintf(c.before, sizeof(c.before), "c222");
	snprintf(c.after, sizeof(c.after), "c333");
	snprintf(up.before, sizeof(up.before), "c333");
	snprintf(up.after, sizeof(up.after), "c444");
	if (store_nightly_night_end(st, night, "OK", "c222", "first") ||
	    store_nightly_night_begin(st, &night, &interrupted, "mm") ||
	    store_nightly_change_add(st, &c, "mm", s.series, night) ||
	    store_nightly_change_add(st, &up, "mm", s.series, night) ||
	    store_nightly_change_confirmed(st, c.id, exp, "REGRESSION") ||
	    store_nightly_change_bisected(st, c.id, bis, CULPRIT, "FOUND") ||
	    store_nightly_night_end(st, night, "REGRESSION", "c444", "1 regression"))
		return -1;
	return 0;
}

static int stop(char kind, long long id, void *data)
{
	(void)kind;
	(void)id;
	(void)data;
	return 1;
}

int main(void)
{
	char image[256], want[256];
	const struct store_variant_spec spec[2] = { { 0, "a=1", NULL }, { 0, "b=1", NULL } };
	struct store_fixture fx;
	struct store st, again, mem;
	struct store_conn mem_conn;
	struct verdict_row v[3];
	struct bisect_spec_row bspec;
	struct strbuf sb = STRBUF_INIT;
	struct out o = { .st = &st };
	long long exp = 0, vid[2], kernel = 0, bis = 0, r[6], exp3 = 0, vid3[2];
	int found = -1;
	struct bisection_outcome done = { "touch", 1, 1.5, 1.25, 1.75, 0.01, CULPRIT,
					  "FOUND" };
	struct bisect_step_row s1 = { 1, CULPRIT, "BAD", 4, 1.4, 1.3, 1.5 };
	struct kernel_image img = { 0 };
	FILE *f;

	git_libgit2_init();
	if (store_fixture_open(&fx, &st))
		return 1;
	snprintf(image, sizeof(image), "%s/bzImage", fx.dir);
	f = fopen(image, "w");
	if (!f || fputs("a kernel image\n", f) == EOF || fclose(f))
		return 1;
	img.path = image;
	img.arch = "x86_64";
	memcpy(img.hash, "0f5a2d4b2b1b8c3e2c1a4d5e6f708192a3b4c5d6", KERNEL_IMAGE_HASH_LEN + 1);
	if (store_experiment_create_ab(&st, &exp, vid, "lab ab --boots 2", "zeroing", spec) ||
	    store_kernel(&st, &kernel, &img))
		return 1;
	r[0] = store_fixture_boot(&st, exp, vid[0], 0, "a=1", 1024, RUN_OK, 100, 3);
	r[1] = store_fixture_boot(&st, exp, vid[0], 0, "a=1", 1024, RUN_FAILED, 500, 3);
	r[2] = store_fixture_boot(&st, exp, vid[1], 0, "b=1", 1024, RUN_OK, 200, 3);
	r[3] = store_fixture_boot(&st, exp, vid[1], 0, "b=1", 2048, RUN_OK, 300, 2);
	/* a kernel run twice on its own, and once on another command line */
	r[4] = store_fixture_boot(&st, 0, 0, kernel, "x", 512, RUN_OK, 10, 2);
	r[5] = store_fixture_boot(&st, 0, 0, kernel, "x", 512, RUN_OK, 20, 2);
	ok(r[0] == 1 && r[5] == 6 &&
	   store_fixture_boot(&st, 0, 0, kernel, "y", 512, RUN_OK, 30, 2) == 7,
	   "seven boots stored");
	verdict(&v[0], "touch", "SAME");
	v[0].ratio = 8;
	verdict(&v[1], "fault", "REGRESSION");
	v[1].ratio = 1.5;
	/* a fall of a metric where higher is better: the larger change of the two */
	verdict(&v[2], "ops", "REGRESSION");
	v[2].ratio = 0.25;
	ok(store_verdicts_write(&st, exp, v, 3) == 0 && store_experiment_done(&st, exp) == 0,
	   "three verdicts stored");
	bisect_spec_row_init(&bspec);
	strbuf_addstr(&bspec.good_ref, "a");
	strbuf_addstr(&bspec.bad_ref, "b");
	strbuf_addstr(&bspec.workloads, "zeroing");
	strbuf_addstr(&bspec.metric, "touch");
	strbuf_addstr(&bspec.clock, "wall");
	ok(store_bisection_create(&st, &bis, "lab bisect --good a", "a", "b", &bspec) == 0 &&
	   store_bisect_step(&st, bis, &s1) == 0 && store_bisection_finish(&st, bis, &done) == 0 &&
	   store_commit_measured(&st, CULPRIT, "<b>the culprit</b>", "A U Thor <a@b>", 1e9) == 0,
	   "a bisection stored, with its culprit's subject");

	ok(store_report_pages(&st, page, &o) == 0, "pages listed");
	is_str(o.buf, "b2 e1 r1 r2 r3 r4 r5 r6 r7 ", "by kind, then id");

	o.buf[0] = '\0';
	ok(store_report_experiments(&st, 10, 0, index_experiment, &o) == 0, "index experiments read");
	is_str(o.buf, "E2 bisect RUNNING FOUND zeroing.touch 1.5 0/0 a..b [" CULPRIT "];"
	       "E1 ab DONE REGRESSION zeroing.ops 0.25 3/1 .. [];",
	       "newest first, led by the largest regression, a bisection by its effect and culprit");
	verdict(&v[0], "touch", "SAME");
	ok(store_experiment_create_ab(&st, &exp3, vid3, "lab ab --boots 3", "zeroing", spec) == 0 &&
	   store_verdicts_write(&st, exp3, v, 1) == 0 && store_experiment_done(&st, exp3) == 0,
	   "a third A/B, all SAME");
	o.buf[0] = '\0';
	ok(store_report_experiments(&st, 10, 1, index_experiment, &o) == 0, "regressions read");
	is_str(o.buf, "E2 bisect RUNNING FOUND zeroing.touch 1.5 0/0 a..b [" CULPRIT "];"
	       "E1 ab DONE REGRESSION zeroing.ops 0.25 3/1 .. [];",
	       "regressions: a culprit and a REGRESSION, never an A/B of SAME");

	o.buf[0] = '\0';
	ok(store_report_runs(&st, 3, index_run, &o) == 0, "index runs read");
	ok(strstr(o.buf, "7 OK  E0 - ") == o.buf && strstr(o.buf, "bzImage;6 OK  E0 - ") &&
	   strstr(o.buf, "bzImage;5 OK  E0 - "), "the newest three, newest first, their image");
	o.buf[0] = '\0';
	ok(store_report_runs(&st, 7, index_run, &o) == 0 &&
	   strstr(o.buf, "2 FAILED A E1 ab ;1 OK A E1 ab ;"), "runs of an experiment name it");

	o.buf[0] = '\0';
	ok(store_report_series_kernels(&st, 12, series_kernel, &o) == 0, "series read");
	snprintf(want, sizeof(want), "k%lld 'x' 512 1 2 6.1.0-test:", kernel);
	is_str(o.buf, want, "the one kernel and command line with more than one OK run, "
	       "its release as its first boot said");
	o.buf[0] = '\0';
	{
		struct store_series_kernel k = { .kernel_id = kernel, .cmdline = "x", .mem_mib = 512,
						 .cpus = 1 };

		ok(store_report_series_runs(&st, &k, 40, series_run, &o) == 0, "its runs read");
		is_str(o.buf, " 6 5", "newest first, each with its start");
	}

	o.buf[0] = '\0';
	ok(store_report_experiment(&st, exp, experiment, &o) == 0, "experiment read");
	is_str(o.buf, "DONE lab ab --boots 2 zeroing ?", "its header (finished set by done)");
	o.buf[0] = '\0';
	ok(store_report_experiment(&st, 99, experiment, &o) == 0 && !o.buf[0],
	   "an experiment that is gone: no row, no error");

	o.buf[0] = '\0';
	ok(store_report_experiment_runs(&st, exp, experiment_run, &o) == 0, "experiment runs read");
	is_str(o.buf, "1 A OK 1024 1;2 A FAILED 1024 1;3 B OK 1024 1;4 B OK 2048 1;", "by id");

	o.buf[0] = '\0';
	ok(store_report_variants(&st, exp, variant, &o) == 0, "variants read");
	is_str(o.buf, "A 'a=1' (this host): 1 2;B 'b=1' (this host): 3 4;",
	       "by name, with their runs");

	o.buf[0] = '\0';
	ok(store_experiment_ab_samples(&st, exp, ab_sample, &o) == 0, "A/B samples read");
	is_str(o.buf, "A1024:101@r1.1 A1024:102@r1.2 B1024:201@r3.1 B1024:202@r3.2 B2048:301@r4.1 ",
	       "the counted ones: no warm-up, nothing of the FAILED run, by run, each with its "
	       "run and iteration");

	o.buf[0] = '\0';
	ok(store_report_run(&st, 2, run_page, &o) == 0, "a run read");
	is_str(o.buf, "2 FAILED 1024 a=1 (none) E1 ab A (no error)", "its fields as stored");
	o.buf[0] = '\0';
	ok(store_report_run(&st, 5, run_page, &o) == 0 && strstr(o.buf, "5 OK 512 x /") &&
	   strstr(o.buf, "bzImage E0 - -"), "a run of no experiment, with its image");
	o.buf[0] = '\0';
	ok(store_report_run(&st, 99, run_page, &o) == 0 && !o.buf[0], "a run that is gone: no row");

	o.buf[0] = '\0';
	ok(store_report_bisection(&st, bis, bisection, &o) == 0, "bisection read");
	is_str(o.buf, "RUNNING a..b zeroing.touch 1 1.50 [1.25, 1.75] " CULPRIT " FOUND",
	       "what finish wrote");
	o.buf[0] = '\0';
	ok(store_report_bisect_steps(&st, bis, step, &o) == 0, "steps read");
	is_str(o.buf, "1 " CULPRIT " BAD 4;", "with the full commit id");
	ok(store_commit_subject(&st, &sb, &found, CULPRIT) == 0 && found == 1, "a subject found");
	is_str(strbuf_str(&sb), "<b>the culprit</b>", "as stored");
	ok(store_commit_subject(&st, &sb, &found, "feed") == 0 && found == 0,
	   "an unknown commit has none");
	strbuf_reset(&sb);
	ok(store_run_clock(&st, &sb, 1) == 0, "a run's clock read");
	is_str(strbuf_str(&sb), "wall", "wall time");

	o.buf[0] = '\0';
	ok(store_run_meta(&st, 1, meta_nested, &o) == 0, "a reader called from its own callback");
	is_str(o.buf, "kernel.release=6.1.0-test(kernel.release=6.1.0-test)", "reads both runs");
	ok(store_report_pages(&st, stop, NULL) == -1, "a callback that stops stops the reader");

	ok(store_open_again(&again, &st) == 0, "a second connection");
	o.buf[0] = '\0';
	o.st = &again;
	ok(store_read_begin(&again) == 0 && store_report_pages(&again, page, &o) == 0,
	   "reads in a transaction of its own");
	store_read_end(&again);
	is_str(o.buf, "b2 e1 e3 r1 r2 r3 r4 r5 r6 r7 ", "the same pages");
	store_close(&again);
	memset(&mem_conn, 0, sizeof(mem_conn));
	if (sqlite3_open(":memory:", &mem_conn.db) == SQLITE_OK) {
		mem.conn = &mem_conn;
		mem.path = (char *)":memory:";
		ok(store_open_again(&again, &mem) == -1, "a database in memory has no second connection");
		sqlite3_close(mem_conn.db);
	}

	ok(nightly_rows(&st, exp, bis) == 0, "three nights of two nightlies stored");
	o.buf[0] = '\0';
	ok(store_report_pages(&st, page, &o) == 0, "pages listed again");
	is_str(o.buf, "b2 e1 e3 n1 n2 r1 r2 r3 r4 r5 r6 r7 ",
	       "a nightly's page is named by its first night, between bisections and runs");
	o.buf[0] = '\0';
	ok(store_report_nightlies(&st, nightly, &o) == 0, "nightlies read");
	/* a confirmed regression leads, though an unconfirmed change is larger */
	is_str(o.buf, "n2 aa 1 OK cafe aa: nothing 0 0 [ nan  ];"
	       "n1 mm 2 REGRESSION c444 1 regression 1 2 [zeroing.t 1.1 REGRESSION SUSPECT];",
	       "by name, each with its newest night, series and changes");
	o.buf[0] = '\0';
	ok(store_report_nightly(&st, 1, nightly, &o) == 0, "a nightly read by its id");
	is_str(o.buf, "n1 mm 2 REGRESSION c444 1 regression 1 2 [zeroing.t 1.1 REGRESSION SUSPECT];",
	       "the one of that id");
	o.buf[0] = '\0';
	ok(store_report_nightly(&st, 3, nightly, &o) == 0 && !o.buf[0],
	   "a later night of it is not its id: no row");
	o.buf[0] = '\0';
	ok(store_report_nightly_points(&st, "mm", nightly_point, &o) == 0, "points read");
	is_str(o.buf, "zeroing.t local zeroing.t ms local 2048 '' wall c000@1=10/3;"
	       "zeroing.t local zeroing.t ms local 2048 '' wall c111@2=10/3;"
	       "zeroing.t local zeroing.t ms local 2048 '' wall c222@3=10/3;"
	       "zeroing.t local zeroing.t ms local 2048 '' wall c333@4=11/3;"
	       "zeroing.t local zeroing.t ms local 2048 '' wall c444@5=11/3;",
	       "in commit order, not in the order stored");
	o.buf[0] = '\0';
	ok(store_report_nightly_changes(&st, "mm", nightly_change, &o) == 0, "changes read");
	snprintf(want, sizeof(want), "zeroing.t local SUSPECT c222..c333 1.1 REGRESSION E%lld "
		 "E%lld 0123 FOUND;zeroing.t local CHANGEPOINT c333..c444 0.9  E0 E0  ;", exp, bis);
	is_str(o.buf, want, "as found: confirmed and bisected, and one not yet");
	o.buf[0] = '\0';
	ok(store_report_nightly_changes(&st, "aa", nightly_change, &o) == 0 && !o.buf[0],
	   "a nightly with no change has none");

	strbuf_release(&sb);
	bisect_spec_row_release(&bspec);
	store_close(&st);
	if (store_fixture_remove(&fx))
		return 1;
	git_libgit2_shutdown();
	return done_testing();
}
