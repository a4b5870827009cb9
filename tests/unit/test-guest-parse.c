/*
 * The guest's pure parsers: function_graph trace lines (in the layouts
 * the tracer's options produce), entry/exit pairing, kernel log records
 * and the kernel messages and sysfs formats the workloads read, and the
 * lab.* parameters.
 *
 * liblab.a does not hold the guest's sources, so the file is included.
 */
#include "tap.h"

#include "../../runners/guest/parse.c"
#include "../../runners/guest/params.c"

static void test_graph_lines(void)
{
	struct graph_line l;

	is_int(parse_graph_line(&l, " 0) ! 312.345 us  |  clear_huge_page();"), GRAPH_CALL,
	       "leaf call with a marker");
	is_int(l.cpu, 0, "leaf call: cpu");
	is_double(l.usecs, 312.345, 1e-9, "leaf call: duration");
	is_str(l.func, "clear_huge_page", "leaf call: name");

	is_int(parse_graph_line(&l, " 1)   0.123 us    |  foo();"), GRAPH_CALL,
	       "leaf call without a marker");
	is_int(l.cpu, 1, "second cpu");
	is_double(l.usecs, 0.123, 1e-9, "short duration");

	is_int(parse_graph_line(&l, "12) + 12.345 us   |  bar.isra.0();"), GRAPH_CALL,
	       "two-digit cpu");
	is_int(l.cpu, 12, "two-digit cpu: number");
	is_str(l.func, "bar.isra.0", "compiler-suffixed name kept whole");

	is_int(parse_graph_line(&l, " 0)               |  deferred_init_memmap() {"),
	       GRAPH_ENTRY, "entry");
	is_double(l.usecs, -1, 0, "entry: no duration");
	is_str(l.func, "deferred_init_memmap", "entry: name");

	is_int(parse_graph_line(&l, " 0) $ 1234567 us  |  }"), GRAPH_EXIT, "exit");
	is_double(l.usecs, 1234567, 1e-9, "exit: duration without decimals");
	is_str(l.func, "", "exit: unnamed");

	is_int(parse_graph_line(&l, " 0) @ 123456.7 us |  } /* do_populate_rootfs */"),
	       GRAPH_EXIT, "exit with funcgraph-tail");
	is_double(l.usecs, 123456.7, 1e-9, "tail exit: duration");
	is_str(l.func, "do_populate_rootfs", "tail exit: name");

	is_int(parse_graph_line(&l, " 0)               |  /* lab iter 1 */"),
	       GRAPH_COMMENT, "trace_marker comment");
	is_str(l.comment, "lab iter 1", "comment text");
	is_int(parse_graph_line(&l, " 0)               |  /* a | b */"), GRAPH_COMMENT,
	       "comment holding a bar");
	is_str(l.comment, "a | b", "comment holding a bar: text");

	is_int(parse_graph_line(&l, "  57.123456 |   3)  lab-gue-73   |  # 1234.567 us |"
				    "  clear_huge_page();"),
	       GRAPH_CALL, "abstime and proc columns");
	is_int(l.cpu, 3, "abstime and proc: cpu");
	is_double(l.usecs, 1234.567, 1e-9, "abstime and proc: duration");

	is_int(parse_graph_line(&l, " + 12.345 us   |  foo();"), GRAPH_CALL,
	       "no cpu column");
	is_int(l.cpu, -1, "no cpu column: -1");
	is_double(l.usecs, 12.345, 1e-9, "no cpu column: duration");

	is_int(parse_graph_line(&l, " 0)  * 2.5 ms  |  foo();"), GRAPH_CALL, "ms unit");
	is_double(l.usecs, 2500, 1e-9, "ms converted to us");

	is_int(parse_graph_line(&l, " 0)   1.000 us    |  foo(a=1, b=(2)) {"), GRAPH_ENTRY,
	       "arguments with parentheses");
	is_str(l.func, "foo", "arguments: name");

	is_int(parse_graph_line(&l, "CPU:2 [LOST 42 EVENTS]"), GRAPH_LOST, "lost events");
	is_int(l.cpu, 2, "lost: cpu");
	is_int(l.lost, 42, "lost: count");

	is_int(parse_graph_line(&l, "# tracer: function_graph"), GRAPH_OTHER, "header");
	is_int(parse_graph_line(&l, "# |     |   |                     |   |   |   |"),
	       GRAPH_OTHER, "header bars");
	is_int(parse_graph_line(&l, ""), GRAPH_OTHER, "empty line");
	is_int(parse_graph_line(&l, " ------------------------------------------"),
	       GRAPH_OTHER, "banner");
	is_int(parse_graph_line(&l, " 0)    <idle>-0    =>   bash-1234  "), GRAPH_OTHER,
	       "context switch");
	is_int(parse_graph_line(&l, " 0)   ==========> |"), GRAPH_OTHER, "irq entry");
	is_int(parse_graph_line(&l, " 0)   <========== |"), GRAPH_OTHER, "irq exit");
}

static void test_durations(void)
{
	double us = -1;

	ok(!parse_duration_us(&us, "1 s") && us == 1e6, "seconds");
	ok(!parse_duration_us(&us, "500 ns") && fabs(us - 0.5) < 1e-12, "nanoseconds");
	ok(!parse_duration_us(&us, " !  7us") && us == 7, "no space before the unit");
	ok(parse_duration_us(&us, "abc"), "not a number");
	ok(parse_duration_us(&us, "12 xs"), "unknown unit");
	ok(parse_duration_us(&us, "12 usx"), "unit glued to more letters");
	ok(parse_duration_us(&us, ""), "empty");
}

static void feed(struct graph_pairing *p, const char *line, int *got, char *func,
		 double *us)
{
	struct graph_line l;

	parse_graph_line(&l, line);
	*got = graph_pairing_feed(p, &l, func, PARSE_FUNC_MAX, us);
}

static void test_pairing(void)
{
	static struct graph_pairing p;
	char func[PARSE_FUNC_MAX];
	double us = 0;
	int got;

	feed(&p, " 0)   3.000 us    |  a();", &got, func, &us);
	ok(got && !strcmp(func, "a") && us == 3, "a leaf call completes at once");

	feed(&p, " 0)               |  a() {", &got, func, &us);
	is_int(got, 0, "an entry alone completes nothing");
	feed(&p, " 1)               |  b() {", &got, func, &us);
	feed(&p, " 0) + 10.000 us   |  }", &got, func, &us);
	ok(got && !strcmp(func, "a") && us == 10, "cpu 0's exit closes a");
	feed(&p, " 1) + 20.000 us   |  }", &got, func, &us);
	ok(got && !strcmp(func, "b") && us == 20, "cpu 1's exit closes b");

	feed(&p, " 2) + 5.000 us    |  } /* c */", &got, func, &us);
	ok(got && !strcmp(func, "c") && us == 5, "a named exit needs no entry");
	feed(&p, " 3) + 5.000 us    |  }", &got, func, &us);
	is_int(got, 0, "an unnamed exit without entry is dropped");
	is_int(p.unmatched, 1, "and counted");

	feed(&p, " 0)               |  outer() {", &got, func, &us);
	feed(&p, " 0)   1.000 us    |    inner();", &got, func, &us);
	ok(got && !strcmp(func, "inner"), "nested leaf");
	feed(&p, " 0)   4.000 us    |  }", &got, func, &us);
	ok(got && !strcmp(func, "outer") && us == 4, "nesting unwinds to outer");

	ok(graph_name_matches("foo", "foo"), "exact name matches");
	ok(graph_name_matches("foo.isra.0", "foo"), "suffixed name matches");
	ok(!graph_name_matches("foobar", "foo"), "longer name does not");
	ok(!graph_name_matches("fo", "foo"), "shorter name does not");
}

static void test_kmsg(void)
{
	static const char rec[] = "6,123,1234567,-;node 0 deferred pages initialised in 28ms\n"
				  " SUBSYSTEM=x\n";
	struct kmsg_record r;

	is_int(parse_kmsg_record(&r, rec, sizeof(rec) - 1), 0, "kmsg record parses");
	is_int(r.level, 6, "kmsg: level");
	is_int(r.facility, 0, "kmsg: facility");
	is_int(r.seq, 123, "kmsg: sequence");
	is_int(r.usec, 1234567, "kmsg: timestamp");
	is_str(r.text, "node 0 deferred pages initialised in 28ms", "kmsg: first line only");

	is_int(parse_kmsg_record(&r, "14,5,6,c,more;user text", 23), 0, "extra fields");
	is_int(r.facility, 1, "extra fields: facility");
	is_str(r.text, "user text", "extra fields: text, no newline");
	ok(parse_kmsg_record(&r, "garbage", 7), "not a record");
	ok(parse_kmsg_record(&r, "6,1;x", 5), "too few fields");
	ok(parse_kmsg_record(&r, "6,1,2x;x", 8), "junk in the timestamp");

	is_int(parse_syslog_line(&r, "<6>[    1.234567] Freeing unused kernel image", 45), 0,
	       "syslog line parses");
	ok(r.has_time && r.usec == 1234567, "syslog: timestamp");
	is_str(r.text, "Freeing unused kernel image", "syslog: text");
	is_int(parse_syslog_line(&r, "<4>no time", 10), 0, "syslog without time");
	ok(!r.has_time && r.level == 4, "syslog without time: level, no time");
	is_str(r.text, "no time", "syslog without time: text");
	parse_syslog_line(&r, "<6>[ 1.123456789] x", 19);
	is_int(r.usec, 1123456, "nanosecond fraction scaled to microseconds");
	ok(parse_syslog_line(&r, "no priority", 11), "syslog: not a line");
}

static void test_messages(void)
{
	char page[32], buf[64];
	double ms = 0;
	long kib = -1;
	int node = -1;

	ok(parse_deferred_init(&node, &ms, "node 1 deferred pages initialised in 292ms") &&
	   node == 1 && ms == 292, "deferred init message");
	ok(parse_deferred_init(&node, &ms, "node 3 deferred pages initialized in 5 ms") &&
	   node == 3 && ms == 5, "deferred init, other spelling");
	ok(!parse_deferred_init(&node, &ms, "Freeing unused kernel image"), "other message");

	ok(parse_probe(buf, sizeof(buf), &ms, "lab-probe: map_mem 123456789 ns"), "probe line");
	is_str(buf, "map_mem", "probe: name");
	is_double(ms, 123.456789, 1e-9, "probe: nanoseconds as ms");
	ok(parse_probe(buf, sizeof(buf), &ms, "lab-probe: init_mem_mapping 5 ns") &&
	   !strcmp(buf, "init_mem_mapping"), "probe: x86 name");
	ok(!parse_probe(buf, sizeof(buf), &ms, "lab-probe: init_mem_mapping 5000 cycles"),
	   "probe: cycles are not a duration");
	ok(!parse_probe(buf, sizeof(buf), &ms, "lab-probe: map_mem ns"), "probe: no number");
	ok(!parse_probe(buf, sizeof(buf), &ms, "lab-probe: 9lives 5 ns"), "probe: bad name");
	ok(!parse_probe(buf, 4, &ms, "lab-probe: map_mem 5 ns"), "probe: name too long");
	ok(!parse_probe(buf, sizeof(buf), &ms, "Freeing unused kernel image"), "probe: other line");

	ok(parse_hvo_message(&kib, page, sizeof(page),
			     "HugeTLB: 16380 KiB vmemmap can be freed for a 1.00 GiB page") &&
	   kib == 16380, "hvo message: size");
	is_str(page, "1.00 GiB", "hvo message: page size");
	ok(parse_hvo_message(&kib, page, sizeof(page),
			     "HugeTLB: 0 KiB vmemmap can be freed for a 2.00 MiB page") &&
	   kib == 0, "hvo message: nothing to free");
	ok(!parse_hvo_message(&kib, page, sizeof(page), "HugeTLB: registered 1.00 GiB page"),
	   "other hugetlb message");

	ok(!parse_bracketed(buf, sizeof(buf), "always [madvise] never") &&
	   !strcmp(buf, "madvise"), "bracketed mode");
	ok(parse_bracketed(buf, sizeof(buf), "always madvise never"), "no bracket");
}

static void test_params(void)
{
	char key[16], value[16], buf[64];
	const char *list = "a,b,,c ";

	is_int(parse_lab_param(key, sizeof(key), value, sizeof(value), "lab.iters=5"), 1,
	       "lab parameter");
	ok(!strcmp(key, "iters") && !strcmp(value, "5"), "lab parameter: key and value");
	is_int(parse_lab_param(key, sizeof(key), value, sizeof(value), "lab.flag"), 1,
	       "lab parameter without value");
	is_str(value, "", "lab parameter without value: empty");
	is_int(parse_lab_param(key, sizeof(key), value, sizeof(value), "console=ttyS0"), 0,
	       "kernel parameter");
	is_int(parse_lab_param(key, sizeof(key), value, sizeof(value), "lab.=x"), -1,
	       "empty key");
	is_int(parse_lab_param(key, sizeof(key), value, sizeof(value),
			       "lab.x=0123456789abcdef"), -1, "value too long");

	ok(parse_field(buf, sizeof(buf), "model name\t: Intel Xeon ", "model name") &&
	   !strcmp(buf, "Intel Xeon"), "cpuinfo field");
	ok(!parse_field(buf, sizeof(buf), "model name\t: x", "model"), "key prefix only");
	ok(parse_field(buf, sizeof(buf), "MemTotal:        4021268 kB", "MemTotal") &&
	   !strcmp(buf, "4021268 kB"), "meminfo field");

	ok(parse_list_next(buf, sizeof(buf), &list) == 1 && !strcmp(buf, "a"), "list: a");
	ok(parse_list_next(buf, sizeof(buf), &list) == 1 && !strcmp(buf, "b"), "list: b");
	ok(parse_list_next(buf, sizeof(buf), &list) == 1 && !strcmp(buf, "c"),
	   "list: empty item skipped, trailing blank trimmed");
	is_int(parse_list_next(buf, sizeof(buf), &list), 0, "list: end");
	list = "abcdefghijklmnopqrstuvwxyz,ok";
	is_int(parse_list_next(key, 8, &list), -1, "list: item too long");
	ok(parse_list_next(key, 8, &list) == 1 && !strcmp(key, "ok"), "list: goes on after it");
}

static void test_nonce_param(void)
{
	struct params p;
	char why[128];

	params_init(&p);
	is_int(params_apply(&p, "lab.nonce=0123456789abcdef", why, sizeof(why)), 0,
	       "lab.nonce taken");
	is_str(p.nonce, "0123456789abcdef", "lab.nonce: the value");
	is_int(params_apply(&p, "lab.nonce=0123456789ABCDEF", why, sizeof(why)), -1,
	       "lab.nonce in upper case refused");
	is_str(why, "lab.nonce='0123456789ABCDEF': want 16 lower-case hex digits",
	       "lab.nonce refused: the reason");
	is_str(p.nonce, "0123456789abcdef", "a refused nonce leaves the last good one");
}

int main(void)
{
	test_graph_lines();
	test_durations();
	test_pairing();
	test_kmsg();
	test_messages();
	test_params();
	test_nonce_param();
	return done_testing();
}
