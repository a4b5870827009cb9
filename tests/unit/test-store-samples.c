/*
 * Which samples count, on a real database: the view counted_samples and
 * store_counted_samples() leave out a warm-up and every sample of a run
 * that did not end OK, and keep an experiment's variants and sweep points
 * apart. A database of this schema version made before the view gains it
 * when opened to write. Bisections: a step's missing ratio is NULL, and
 * the status reads back what finish wrote.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sample.h"
#include "store-bisect.h"
#include "store-experiment.h"
#include "store-fixture.h"
#include "store-private.h"
#include "tap.h"

struct seen {
	double v[64];
	long long run[64];
	size_t n;
};

static int collect(const struct store_counted_sample *s, void *data)
{
	struct seen *x = data;

	if (x->n < 64) {
		x->v[x->n] = s->value;
		x->run[x->n++] = s->run_id;
	}
	return 0;
}

static int stop(const struct store_counted_sample *s, void *data)
{
	(void)s;
	(void)data;
	return 1;
}

static int status_of(const struct bisection_status *b, void *data)
{
	char *out = data;

	snprintf(out, 256, "%s %s %s %.2f [%.2f, %.2f] %s", b->outcome, b->metric, b->culprit,
		 b->effect, b->effect_lo, b->effect_hi, isnan(b->effect_alpha) ? "-" : "alpha");
	return 0;
}

static int step_of(const struct bisect_step_row *s, void *data)
{
	char *out = data;
	size_t len = strlen(out);

	snprintf(out + len, 256 - len, "%lld %s %s %lld %s;", s->seq, s->commit, s->mark, s->n,
		 isnan(s->ratio) && isnan(s->ci_low) ? "-" : "ratio");
	return 0;
}

int main(void)
{
	char buf[256];
	const struct store_variant_spec spec[2] = { { 0, NULL, NULL }, { 0, NULL, NULL } };
	struct seen seen;
	struct store_fixture fx;
	struct store st;
	long long exp = 0, vid[2], ok1, failed, ok2, other, id = 0;
	long nok = -1, nfailed = -1;
	struct bisection_outcome o = { "zeroing.touch", 1, 1.5, 1.25, 1.75, 0.01,
				       "0123456789abcdef0123456789abcdef01234567", "FOUND" };
	struct bisect_step_row step = { 1, "0123456789abcdef0123456789abcdef01234567", "SKIP", 0,
					NAN, NAN, NAN };
	struct bisect_spec_row bspec;

	if (!freopen("/dev/null", "w", stderr))
		return 1;
	if (store_fixture_open(&fx, &st) ||
	    store_experiment_create_ab(&st, &exp, vid, "lab ab", "zeroing", spec))
		return 1;
	ok1 = store_fixture_boot(&st, exp, vid[0], 0, "", 1024, RUN_OK, 100, 4);
	failed = store_fixture_boot(&st, exp, vid[0], 0, "", 1024, RUN_FAILED, 500, 4);
	ok2 = store_fixture_boot(&st, exp, vid[0], 0, "", 1024, RUN_OK, 200, 3);
	other = store_fixture_boot(&st, exp, vid[1], 0, "", 1024, RUN_OK, 300, 3);
	store_fixture_boot(&st, exp, vid[0], 0, "", 2048, RUN_OK, 400, 3);
	ok(ok1 && failed && ok2 && other, "five boots stored");

	is_int(store_fixture_int(&st, "SELECT count(*) FROM samples"), 17, "every sample is stored");
	is_int(store_fixture_int(&st, "SELECT count(*) FROM counted_samples"), 9,
	       "the view counts 9: no warm-up, nothing of the FAILED run");
	is_int(store_fixture_int(&st, "SELECT count(*) FROM counted_samples WHERE flags & 1"), 0,
	       "no warm-up in the view");
	snprintf(buf, sizeof(buf), "SELECT count(*) FROM counted_samples WHERE run_id = %lld",
		 failed);
	is_int(store_fixture_int(&st, buf), 0, "nothing of the FAILED run in the view");

	memset(&seen, 0, sizeof(seen));
	ok(store_counted_samples(&st, exp, vid[0], 1024, 1, NULL, collect, &seen) == 0,
	   "variant A's counted samples at 1024M read");
	is_int(seen.n, 5, "five: the OK runs' samples after their warm-ups");
	ok(seen.n == 5 && seen.run[0] == ok1 && seen.v[0] == 101 && seen.v[2] == 103 &&
	   seen.run[3] == ok2 && seen.v[3] == 201 && seen.v[4] == 202,
	   "by run, in the order stored");
	memset(&seen, 0, sizeof(seen));
	ok(store_counted_samples(&st, exp, vid[0], -1, -1, "touch", collect, &seen) == 0 &&
	   seen.n == 7, "any memory size: the 2048M boot's too");
	memset(&seen, 0, sizeof(seen));
	ok(store_counted_samples(&st, exp, vid[0], 1024, 1, "nosuch", collect, &seen) == 0 &&
	   seen.n == 0, "a metric never reported: none");
	ok(store_counted_samples(&st, exp, vid[1], 1024, 1, NULL, stop, NULL) == -1,
	   "a callback that stops stops the reader");
	ok(store_variant_boots(&st, vid[0], 1024, 1, &nok, &nfailed) == 0 && nok == 2 &&
	   nfailed == 1, "variant A's boots at 1024M: 2 OK, 1 failed");

	/* a version 5 database made before the view */
	ok(sqlite3_exec(st.conn->db, "DROP VIEW counted_samples", NULL, NULL, NULL) == SQLITE_OK,
	   "the view dropped");
	store_close(&st);
	ok(store_open(&st, fx.path) == 0, "the database opens to write");
	is_int(store_fixture_int(&st, "SELECT count(*) FROM counted_samples"), 9, "and has the view again");
	is_int(store_fixture_int(&st, "PRAGMA user_version"), STORE_SCHEMA_VERSION, "at the same version");

	bisect_spec_row_init(&bspec);
	strbuf_addstr(&bspec.good_ref, "a");
	strbuf_addstr(&bspec.bad_ref, "b");
	strbuf_addstr(&bspec.workloads, "zeroing");
	strbuf_addstr(&bspec.clock, "wall");
	ok(store_bisection_create(&st, &id, "lab bisect --good a --bad b", "a", "b", &bspec) == 0 &&
	   id > exp, "a bisection created");
	bisect_spec_row_release(&bspec);
	ok(store_bisect_step(&st, id, &step) == 0, "a skipped step written");
	is_int(store_fixture_int(&st, "SELECT count(*) FROM bisect_steps WHERE ratio IS NULL AND "
		       "ci_low IS NULL AND ci_high IS NULL"), 1, "without a ratio");
	buf[0] = '\0';
	ok(store_bisect_steps(&st, id, step_of, buf) == 0, "steps read");
	is_str(buf, "1 0123456789ab SKIP 0 -;", "the step, its commit cut to 12");
	ok(store_bisection_read(&st, id, status_of, buf) == 0, "a running bisection read");
	is_str(buf, "RUNNING - - nan [nan, nan] -", "nothing known yet");
	ok(store_bisection_finish(&st, id, &o) == 0, "finished");
	ok(store_bisection_read(&st, id, status_of, buf) == 0, "read again");
	is_str(buf, "FOUND zeroing.touch 0123456789abcdef0123456789abcdef01234567 1.50 [1.25, 1.75] alpha",
	       "what finish wrote");
	ok(store_bisection_read(&st, id + 1, status_of, buf) == -1, "no such bisection");

	store_close(&st);
	if (store_fixture_remove(&fx))
		return 1;
	return done_testing();
}
