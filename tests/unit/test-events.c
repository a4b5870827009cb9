/*
 * Event counts beside times: the guest's reading of /proc/vmstat, the
 * prefix that tells an event count from a measurement (the same on both
 * sides of the protocol, refused in a user's output), and, on a real
 * database, that events are stored apart from samples, that nothing a
 * verdict reads sees them, that the report's medians and what its runs
 * measured come back as stored, and when an emulated verdict gets the
 * warning.
 *
 * liblab.a does not hold the guest's sources, so parse.c is included.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "protocol.h"
#include "store-experiment.h"
#include "store-fixture.h"
#include "store-private.h"
#include "units.h"
#include "userwork.h"
#include "tap.h"

#include "../../runners/guest/parse.c"

static const char vmstat[] =
	"nr_free_pages 224081\n"
	"pgfault 1234567\n"
	"pgmajfault 12\n"
	"pgfault_extra 5\n"
	"thp_fault_alloc 50\n"
	"thp_fault_fallback\n"
	"pgalloc_normal 99";

static void test_vmstat(void)
{
	const char *const names[] = { "pgfault", "pgmajfault", "thp_fault_alloc",
				      "thp_fault_fallback", "nr_tlb_remote_flush", "pgalloc_normal" };
	long long v[6] = { -1, -1, -1, -1, -1, -1 };
	unsigned have = parse_vmstat(v, names, 6, vmstat);

	is_int(have, 0x27, "the counters there are found, a name without a value and a missing one not");
	is_int(v[0], 1234567, "pgfault, not pgfault_extra");
	is_int(v[1], 12, "pgmajfault");
	is_int(v[2], 50, "thp_fault_alloc");
	is_int(v[3], -1, "a line without a value leaves its counter alone");
	is_int(v[4], -1, "nr_tlb_remote_flush: a kernel without CONFIG_DEBUG_TLBFLUSH has none");
	is_int(v[5], 99, "the last line without its newline");
	is_int(parse_vmstat(v, names, 6, ""), 0, "an empty file: nothing");
}

static void test_prefix(void)
{
	struct userwork_sample x;
	char why[160];

	is_str(EVENT_METRIC_PREFIX, PROTOCOL_EVENT_PREFIX, "one prefix on both sides of the protocol");
	ok(metric_is_event("ev.pgfault"), "ev.pgfault is an event count");
	ok(metric_is_event("ev.ctxsw"), "ev.ctxsw too");
	ok(!metric_is_event("touch"), "touch is a measurement");
	ok(!metric_is_event("event_loop"), "a name that starts with ev but not ev. is one too");
	ok(!metric_is_event("ev"), "ev alone is one too");
	ok(!metric_is_event(NULL), "no name: not an event");
	is_int(userwork_parse_line(&x, "ev.pgfault 3 events", why, sizeof(why)), USERWORK_BAD,
	       "a user's program cannot print an event count");
	ok(strstr(why, "starts with 'ev.'") != NULL, "and is told why");
	is_int(userwork_parse_line(&x, "evening 3 us", why, sizeof(why)), USERWORK_SAMPLE,
	       "a name that merely starts with ev is its own");
}

static void test_measured(void)
{
	struct strbuf sb = STRBUF_INIT;

	is_int(measured_of("tcg", "icount shift=0", "qemu"), MEASURED_EMULATED_VIRTUAL,
	       "TCG, icount");
	is_int(measured_of("tcg", "wall", "qemu"), MEASURED_EMULATED_WALL, "TCG, wall time");
	is_int(measured_of("kvm", "wall", "qemu"), MEASURED_HARDWARE, "KVM");
	is_int(measured_of("none", "wall", "ssh"), MEASURED_HARDWARE, "a remote host");
	is_int(measured_of("none", "wall", "local"), MEASURED_THIS_HOST, "this host, as it runs");
	is_int(measured_of("", "wall", "qemu"), MEASURED_UNKNOWN, "nothing recorded");
	measured_words(&sb, MEASURED_EMULATED_VIRTUAL);
	is_str(sb.buf, "emulated, virtual time", "in words");
	strbuf_reset(&sb);
	measured_words(&sb, MEASURED_EMULATED_WALL | MEASURED_HARDWARE);
	is_str(sb.buf, "emulated, wall time and hardware (KVM, a remote host or a board)",
	       "runs that differ: both");
	strbuf_reset(&sb);
	measured_words(&sb, MEASURED_THIS_HOST);
	is_str(sb.buf, "this host, as it runs now", "the local runner in words");
	strbuf_release(&sb);
}

/*
 * A boot of variant vid: n iterations of zeroing.touch (base us) with
 * ev.pgfault (faults) and ev.ctxsw (3), the first iteration a warm-up
 * whose counts are far off; with cycles, a PMU's ev.cycles and 2000
 * ev.instructions too.
 */
static long long boot_pmu(struct store *st, long long exp, long long vid, const char *accel,
			  double base, double faults, int n, double cycles)
{
	struct run_row row = { .experiment_id = exp, .variant_id = vid, .runner = "qemu",
			       .workloads = "zeroing", .cmdline = "", .mem_mib = 1024, .cpus = 1,
			       .accel = accel, .clock = "icount shift=0" };
	struct run_result res;
	long long id = 0;

	run_result_init(&res);
	res.status = RUN_OK;
	snprintf(res.accel, sizeof(res.accel), "%s", accel);
	for (int i = 0; i < n; i++) {
		unsigned flags = i ? 0 : SAMPLE_WARMUP;
		struct sample t = { "zeroing", "touch", "us", i, base + i, flags };
		struct sample f = { "zeroing", "ev.pgfault", "events", i, i ? faults : 1e6, flags };
		struct sample c = { "zeroing", "ev.ctxsw", "events", i, 3, flags };

		sample_set_add(&res.set, &t);
		sample_set_add(&res.set, &f);
		sample_set_add(&res.set, &c);
		if (cycles) {
			struct sample cy = { "zeroing", "ev.cycles", "events", i, cycles, flags };
			struct sample in = { "zeroing", "ev.instructions", "events", i, 2000, flags };

			sample_set_add(&res.set, &cy);
			sample_set_add(&res.set, &in);
		}
	}
	if (store_run_begin(st, &id, &row) || store_run_finish(st, id, &res, NULL))
		id = 0;
	run_result_release(&res);
	return id;
}

static long long boot(struct store *st, long long exp, long long vid, const char *accel,
		      double base, double faults, int n)
{
	return boot_pmu(st, exp, vid, accel, base, faults, n, 0);
}

static void verdict(struct verdict_row *v, const char *verdict, double ratio)
{
	memset(v, 0, sizeof(*v));
	snprintf(v->workload, sizeof(v->workload), "zeroing");
	snprintf(v->metric, sizeof(v->metric), "touch");
	snprintf(v->direction, sizeof(v->direction), "lower");
	snprintf(v->verdict, sizeof(v->verdict), "%s", verdict);
	v->mem_mib = 1024;
	v->cpus = 1;
	v->ratio = ratio;
}

static void test_store(void)
{
	const struct store_variant_spec spec[2] = { { 0, NULL, NULL }, { 0, NULL, NULL } };
	struct events_report r;
	struct unit_side side;
	struct verdict_row v;
	struct strbuf sb = STRBUF_INIT;
	const struct event_row *e;
	struct store_fixture fx;
	struct store st;
	long long exp = 0, vid[2];

	if (!freopen("/dev/null", "w", stderr) || store_fixture_open(&fx, &st) ||
	    store_experiment_create_ab(&st, &exp, vid, "lab ab", "zeroing", spec))
		return;
	ok(boot(&st, exp, vid[0], "tcg", 100, 25600, 4) && boot(&st, exp, vid[1], "tcg", 120, 50, 4) &&
	   boot(&st, exp, vid[0], "tcg", 100, 25601, 4) && boot(&st, exp, vid[1], "tcg", 120, 51, 4),
	   "four boots stored");
	is_int(store_fixture_int(&st, "SELECT count(*) FROM samples"), 16, "the samples table: the times alone");
	is_int(store_fixture_int(&st, "SELECT count(*) FROM samples WHERE metric LIKE 'ev.%'"), 0,
	       "no event among them");
	is_int(store_fixture_int(&st, "SELECT count(*) FROM events"), 32, "every event count in events");
	is_int(store_fixture_int(&st, "SELECT count(*) FROM events WHERE flags & 1"), 8,
	       "the warm-ups' flagged as the times' are");
	ok(units_side_load(&side, &st, exp, vid[0], -1, -1, NULL) == 0, "a side loaded for a verdict");
	ok(side.n == 1 && !strcmp(side.m[0].metric, "touch"), "it has the time, and no event");
	units_side_release(&side);

	ok(events_report_load(&r, &st, exp) == 0, "the events report loaded");
	is_int(r.nr, 1, "one event moved: ev.ctxsw is the same on both sides");
	ok(r.nr == 1 && !strcmp(r.v[0].metric, "ev.pgfault") && r.v[0].n_a == 6 && r.v[0].n_b == 6,
	   "ev.pgfault, six iterations a side, the warm-ups left out");
	is_double(r.nr ? r.v[0].median_a : 0, 25600.5, 0, "A's median an iteration");
	is_double(r.nr ? r.v[0].median_b : 0, 50.5, 0, "B's median an iteration");
	is_int(events_measured_at(&r, 1024, 1), MEASURED_EMULATED_VIRTUAL, "measured: emulated, virtual time");
	is_int(events_measured_at(&r, 2048, 1), 0, "nothing at a point without runs");
	is_str(events_no_counters(&r, 1024, 1), "no hardware counters (emulated)",
	       "no cycles nor instructions under TCG: said in one line");
	ok(!events_no_counters(&r, 2048, 1), "nothing said where nothing ran");

	verdict(&v, "REGRESSION", 1.2);
	e = events_disagree(&r, &v);
	ok(e == r.v, "more time with 500x fewer faults: the warning");
	if (e)
		events_disagree_words(&sb, &v, e);
	is_str(sb.buf, "zeroing.touch: emulated time +20.0 %, pgfault 25600.5 -> 50.5: real hardware "
	       "may disagree", "in words, naming the counts");
	verdict(&v, "IMPROVEMENT", 0.8);
	ok(!events_disagree(&r, &v), "less time with fewer faults agrees: none");
	verdict(&v, "SAME", 1.001);
	ok(!events_disagree(&r, &v), "no move of time: none");
	verdict(&v, "REGRESSION", 1.2);
	snprintf(v.direction, sizeof(v.direction), "higher");
	ok(!events_disagree(&r, &v), "a rate that rose (less time) with fewer faults: none");
	r.points[0].kinds = MEASURED_HARDWARE;
	verdict(&v, "REGRESSION", 1.2);
	ok(!events_disagree(&r, &v), "on hardware the time is believed: none");
	r.points[0].kinds = MEASURED_EMULATED_WALL;
	ok(events_disagree(&r, &v) != NULL, "emulated in wall time: the warning too");
	r.v[0].median_b = r.v[0].median_a / 1.9;
	ok(!events_disagree(&r, &v), "faults down by less than 2x: none");
	events_report_release(&r);

	/* a database of this version made before the table */
	ok(sqlite3_exec(st.conn->db, "DROP TABLE events", NULL, NULL, NULL) == SQLITE_OK,
	   "the table dropped");
	ok(events_report_load(&r, &st, exp) == 0 && r.nr == 0, "read as one without events");
	events_report_release(&r);
	store_close(&st);
	ok(store_open(&st, fx.path) == 0, "the database opens to write");
	is_int(store_fixture_int(&st, "SELECT count(*) FROM events"), 0, "and has the table again");
	is_int(store_fixture_int(&st, "PRAGMA user_version"), STORE_SCHEMA_VERSION, "at the same version");
	store_close(&st);
	strbuf_release(&sb);
	if (store_fixture_remove(&fx))
		fprintf(stdout, "# cannot remove %s\n", fx.dir);
}

/* A PMU's cycles and instructions: the IPC of each side's medians beside them. */
static void test_counters(void)
{
	const struct store_variant_spec spec[2] = { { 0, NULL, NULL }, { 0, NULL, NULL } };
	struct events_report r;
	struct store_fixture fx;
	struct store st;
	long long exp = 0, vid[2];
	const struct event_row *ipc = NULL;

	if (store_fixture_open(&fx, &st) ||
	    store_experiment_create_ab(&st, &exp, vid, "lab ab", "zeroing", spec))
		return;
	ok(boot_pmu(&st, exp, vid[0], "kvm", 100, 50, 4, 1000) &&
	   boot_pmu(&st, exp, vid[1], "kvm", 120, 50, 4, 1600), "two boots with counters stored");
	ok(events_report_load(&r, &st, exp) == 0, "the events report loaded");
	for (size_t i = 0; i < r.nr; i++)
		if (!strcmp(r.v[i].metric, "ev.ipc"))
			ipc = &r.v[i];
	ok(ipc != NULL, "an ev.ipc row derived");
	is_double(ipc ? ipc->median_a : 0, 2.0, 1e-12, "A: 2000 instructions in 1000 cycles");
	is_double(ipc ? ipc->median_b : 0, 1.25, 1e-12, "B: in 1600 cycles");
	ok(ipc && ipc->n_a == 3 && ipc->n_b == 3, "over the iterations counted, warm-ups left out");
	ok(!events_no_counters(&r, 1024, 1), "counters there: no line about their absence");
	events_report_release(&r);
	store_close(&st);
	if (store_fixture_remove(&fx))
		fprintf(stdout, "# cannot remove %s\n", fx.dir);
}

int main(void)
{
	test_counters();
	test_vmstat();
	test_prefix();
	test_measured();
	test_store();
	return done_testing();
}
