/*
 * A bisection's spec, stored as data and read back on a real database:
 * every field comes back as written, what was not given comes back empty
 * or 0 (stored as NULL), a bisection is found again by its spec whatever
 * its budget, and one stored without a spec (an older lab) is refused
 * with one line naming it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "store-bisect.h"
#include "store-fixture.h"
#include "store-private.h"
#include "tap.h"

static void fill(struct bisect_spec_row *r)
{
	bisect_spec_row_init(r);
	strbuf_addstr(&r->good_ref, "v6.1");
	strbuf_addstr(&r->bad_ref, "HEAD~2");
	strbuf_addstr(&r->repo, "/src/linux");
	strbuf_addstr(&r->workloads, "demote,zeroing");
	strbuf_addstr(&r->params, "thp=always trace=x");
	strbuf_addstr(&r->cmdline, "hugetlb_free_vmemmap=on nokaslr");
	strbuf_addstr(&r->clock, "icount");
	strbuf_addstr(&r->targets, "x86-tcg");
	r->iters = 3;
	r->mem_mib = 4096;
	r->numa = 2;
	r->timeout_s = 600;
	r->alpha = 0.01;
	r->max_boots = 40;
	r->seed = 12;
}

int main(void)
{
	char want[512];
	struct bisect_spec_row w, r;
	struct strbuf err = STRBUF_INIT;
	struct capture cap;
	struct store_fixture fx;
	struct store st;
	long long id = 0, found = -1;
	int rc;

	if (store_fixture_open(&fx, &st))
		return 1;

	fill(&w);
	ok(store_bisection_create(&st, &id, "lab bisect --good v6.1", "aaaa", "bbbb", &w) == 0 &&
	   id > 0, "a bisection created with its spec");
	is_int(store_fixture_int(&st, "SELECT count(*) FROM bisect_specs WHERE arch IS NULL AND metric IS "
		       "NULL AND cpus IS NULL AND runner IS NULL AND accel IS NULL AND guest IS NULL"),
	       1, "what was not given is stored as NULL");
	is_int(store_fixture_int(&st, "SELECT count(*) FROM bisections WHERE workload = 'demote' AND "
		       "good = 'aaaa' AND metric IS NULL"), 1,
	       "the bisection's row names its first workload and the commit ids");

	ok(store_bisect_spec_read(&st, id, &r) == 0, "the spec read back");
	is_str(r.good_ref.buf, "v6.1", "good as given");
	is_str(r.bad_ref.buf, "HEAD~2", "bad as given");
	is_str(r.repo.buf, "/src/linux", "the repository");
	is_str(r.workloads.buf, "demote,zeroing", "the workloads, in order");
	is_str(r.params.buf, "thp=always trace=x", "the guest's parameters");
	is_str(r.cmdline.buf, "hugetlb_free_vmemmap=on nokaslr", "the command line");
	is_str(r.clock.buf, "icount", "the clock");
	is_str(r.targets.buf, "x86-tcg", "the class of targets the boots share");
	ok(!r.target.len, "no single target");
	ok(!r.arch.len && !r.metric.len && !r.runner.len && !r.guest.len, "NULL reads back empty");
	ok(r.iters == 3 && r.mem_mib == 4096 && r.cpus == 0 && r.numa == 2 && r.timeout_s == 600,
	   "the numbers, 0 for NULL");
	ok(r.alpha == 0.01 && r.max_boots == 40, "alpha and the budget");
	is_int(r.seed, 12, "the A/B its ends start from");
	is_str(r.good.buf, "aaaa", "the good commit it started with");
	is_str(r.bad.buf, "bbbb", "the bad commit it started with");
	bisect_spec_row_release(&r);

	w.max_boots = 7;
	w.seed = 0;
	ok(store_bisection_by_spec(&st, &found, &w, "aaaa", "bbbb") == 0 && found == id,
	   "found again by its spec, whatever the budget and the seed");
	ok(store_bisection_by_spec(&st, &found, &w, "aaaa", "cccc") == 0 && found == 0,
	   "not when bad is another commit now");
	strbuf_addstr(&w.metric, "demote_page_wall");
	ok(store_bisection_by_spec(&st, &found, &w, "aaaa", "bbbb") == 0 && found == 0,
	   "not with a metric it was not given");
	strbuf_reset(&w.metric);
	strbuf_addstr(&w.fragments, "0123 /frag.config\n");
	ok(store_bisection_by_spec(&st, &found, &w, "aaaa", "bbbb") == 0 && found == 0,
	   "nor with a config fragment");
	strbuf_reset(&w.fragments);
	strbuf_reset(&w.targets);
	ok(store_bisection_by_spec(&st, &found, &w, "aaaa", "bbbb") == 0 && found == 0,
	   "nor without its targets");
	w.cpus = 2;
	ok(store_bisection_by_spec(&st, &found, &w, "aaaa", "bbbb") == 0 && found == 0,
	   "nor with another boot option");
	bisect_spec_row_release(&w);

	ok(sqlite3_exec(st.conn->db, "DELETE FROM bisect_specs", NULL, NULL, NULL) == SQLITE_OK,
	   "its spec removed, as an older lab stored it");
	capture_start(&cap);
	rc = store_bisect_spec_read(&st, id, &r);
	capture_end(&cap, &err);
	ok(rc == -1, "an older bisection is refused");
	snprintf(want, sizeof(want), "lab: bisection E%lld in database '%s' was stored by an older "
		 "lab without its spec and cannot be resumed: start it again\n", id, fx.path);
	is_str(err.buf, want, "in one line naming it and its database");
	bisect_spec_row_release(&r);
	capture_start(&cap);
	rc = store_bisect_spec_read(&st, id + 1, &r);
	capture_end(&cap, &err);
	ok(rc == -1, "so is one that does not exist");
	snprintf(want, sizeof(want), "lab: no bisection %lld in database '%s'\n", id + 1, fx.path);
	is_str(err.buf, want, "named");
	bisect_spec_row_release(&r);
	strbuf_release(&err);

	store_close(&st);
	if (store_fixture_remove(&fx))
		return 1;
	return done_testing();
}
