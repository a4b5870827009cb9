#!/bin/bash
# Event counts beside times. Real boots of Debian's prebuilt kernel under
# TCG in virtual time: THP never (A) against always (B) on the zeroing
# touch test (100 MB, one word a 4 KiB page). Instructions make always the
# slower, though hardware finds it many times faster; the page faults say
# why: about one a 4 KiB page touched against one a 2 MiB page. They are
# stored but never judged, shown under the table with what the verdict
# measured, and the verdict carries the warning. A user's program on the
# local runner gets the same counts.
. "$(dirname "$0")/lib.sh"

KERNEL=$(debian_kernel)
PAGES=$((100 * 1024 * 1024 / 4096))
widest() {
	LC_ALL=C.UTF-8 wc -L <"$1"
}
within() { # X LO HI: LO <= X <= HI
	awk -v x="$1" -v lo="$2" -v hi="$3" "BEGIN { exit !(x >= lo && x <= hi) }"
}
median() { # VARIANT METRIC: the stored median an iteration, as lab ab shows it
	"$LAB" show --db lab.db E1 --format json | python3 -c "
import json, sys
e = [x for x in json.load(sys.stdin)[\"events\"] if x[\"metric\"] == \"$2\"]
print(\"%.15g\" % e[0][\"median_$1\"] if e else \"none\")"
}

test_expect_success TCG 'THP never vs always in virtual time: both sides'\''s page faults stored' '
	rc=0 && "$LAB" ab --db lab.db --accel tcg --clock icount --kernel "$KERNEL" --workload zeroing \
		--mem 1G --iters 5 --boots 2 --timeout 600 \
		--a-cmdline transparent_hugepage=never --b-cmdline transparent_hugepage=always \
		>out 2>err || rc=$? &&
	cat out && echo "$rc" >rc &&
	test "$(sql lab.db "SELECT count(*) FROM runs WHERE status = '\''OK'\'' AND accel = '\''tcg'\'' AND clock = '\''icount shift=0'\''")" = 4 &&
	for v in A B; do
		test "$(sql lab.db "SELECT count(*) FROM events e JOIN runs r ON r.id = e.run_id JOIN variants v ON v.id = r.variant_id WHERE v.name = '\''$v'\'' AND e.metric = '\''ev.pgfault'\'' AND e.unit = '\''events'\''")" = 10 ||
		return 1
	done &&
	test "$(sql lab.db "SELECT count(*) FROM events WHERE metric = '\''ev.pgfault'\'' AND flags & 1")" = 4
'

test_expect_success TCG 'THP never: about a fault a 4 KiB page touched; always: about one a 2 MiB page' '
	a=$(median a ev.pgfault) && b=$(median b ev.pgfault) &&
	echo "pgfault: never $a, always $b" &&
	within "$a" "$PAGES" $((PAGES + PAGES / 20)) &&
	within "$b" $((PAGES / 512)) $((PAGES / 512 * 2)) &&
	test "$(median a ev.thp_fault_alloc)" = 0 &&
	within "$(median b ev.thp_fault_alloc)" $((PAGES / 512)) $((PAGES / 512))
'

test_expect_success TCG 'the events are never judged: no verdict, no sample, the exit the time'\''s' '
	test "$(sql lab.db "SELECT group_concat(metric) FROM verdicts")" = touch &&
	test "$(sql lab.db "SELECT count(*) FROM samples WHERE metric LIKE '\''ev.%'\''")" = 0 &&
	test "$(sql lab.db "SELECT verdict FROM verdicts WHERE metric = '\''touch'\''")" = REGRESSION &&
	test "$(cat rc)" = 1
'

test_expect_success TCG 'under the table: what was measured, the warning, the events, within 100 columns' '
	a=$(median a ev.pgfault) && b=$(median b ev.pgfault) &&
	test "$(widest out)" -le 100 &&
	test "$(grep -c "^measured: " out)" = 1 &&
	grep -qx "measured: emulated, virtual time" out &&
	grep -qx "no hardware counters (emulated)" out &&
	grep -E "^warning: zeroing\.touch: emulated time \+[0-9.]+ %, pgfault $a -> $b: real hardware may disagree$" out &&
	grep -qx "events, median an iteration (counted, never judged)" out &&
	grep -E "^zeroing\.ev\.pgfault +$a +$b +1\/[0-9.]+×$" out &&
	grep -E "^zeroing\.ev\.thp_fault_alloc +0 +[0-9]+ +-$" out &&
	! grep -E "^zeroing\.ev\.[a-z_]+ .* (REGRESSION|IMPROVEMENT|SAME|SMALL|INCONCLUSIVE)$" out
'

test_expect_success TCG 'lab show E1 says the same; its json per verdict and the events list' '
	a=$(median a ev.pgfault) && b=$(median b ev.pgfault) &&
	"$LAB" show --db lab.db E1 >show &&
	grep -qx "measured: emulated, virtual time" show &&
	grep -qx "no hardware counters (emulated)" show &&
	grep -q "^warning: zeroing\.touch: emulated time " show &&
	grep -qE "^zeroing\.ev\.pgfault +$a +$b " show &&
	"$LAB" show --db lab.db E1 --format json >e.json &&
	python3 -c "
import json
e = json.load(open(\"e.json\"))
v = e[\"verdicts\"][0]
assert v[\"measured\"] == \"emulated, virtual time\", v
assert v[\"warning\"].startswith(\"zeroing.touch: emulated time +\"), v
assert \"real hardware may disagree\" in v[\"warning\"], v
m = {x[\"metric\"]: x for x in e[\"events\"]}
assert m[\"ev.pgfault\"][\"n_a\"] == 8 and m[\"ev.pgfault\"][\"n_b\"] == 8, m
assert m[\"ev.pgfault\"][\"ratio\"] < 0.01, m
"
'

test_expect_success TCG 'the experiment page: what was measured, the warning, the events' '
	a=$(median a ev.pgfault) && b=$(median b ev.pgfault) &&
	"$LAB" report --db lab.db --out site >report.out 2>report.err &&
	grep -q "<dt>measured</dt><dd class=\"measured\">emulated, virtual time</dd>" site/e1.html &&
	grep -q "<dt>counters</dt><dd class=\"measured\">no hardware counters (emulated)</dd>" site/e1.html &&
	grep -q "<p class=\"warning\">warning: zeroing.touch: emulated time +" site/e1.html &&
	grep -q "<h2>Events</h2>" site/e1.html &&
	grep -q "<td>zeroing.ev.pgfault</td><td>1024M, 1 cpu</td><td class=\"num\">$a</td><td class=\"num\">$b</td>" site/e1.html
'

test_expect_success 'a user'\''s program on the local runner: its counts stored as events, not samples' '
	printf "#!/bin/sh\necho \"t 1 us\"\necho \"ev.mine 3 events\"\n" >prog.sh && chmod +x prog.sh &&
	"$LAB" run --db local.db --runner local --workload "exec:$TRASH/prog.sh" --iters 2 >run.out 2>run.err &&
	test "$(sql local.db "SELECT group_concat(DISTINCT workload || '\''.'\'' || metric) FROM samples")" = prog.t &&
	test "$(sql local.db "SELECT count(*) FROM events WHERE workload = '\''prog'\'' AND metric = '\''ev.pgfault'\''")" = 2 &&
	test "$(sql local.db "SELECT count(*) FROM events WHERE metric = '\''ev.ctxsw'\''")" = 2 &&
	test "$(sql local.db "SELECT count(*) FROM events WHERE metric = '\''ev.mine'\''")" = 0 &&
	sql local.db "SELECT value FROM run_meta WHERE key = '\''prog.dropped_line.1'\''" |
		grep -q "starts with .ev.., which the guest.s event counts have"
'

test_expect_success 'an A/B on the local runner: its page says the host its events were counted on' '
	FAKE=$TOP/tests/fixtures/fake-guest.sh &&
	"$LAB" ab --db host.db --runner local --guest "$FAKE" --workload zeroing --boots 2 --iters 5 \
		--a-cmdline "metrics=t,ev.pgfault" --b-cmdline "metrics=t,ev.pgfault scale=3" \
		>ab.out 2>ab.err || test $? = 1 &&
	mem=$(sql host.db "SELECT DISTINCT value FROM run_meta WHERE key = '\''host.mem_mib'\''") &&
	cpus=$(nproc) && if test $cpus = 1; then s=; else s=s; fi &&
	"$LAB" report --db host.db --out host-site >/dev/null &&
	host=$(sed -n "s|.*<td>zeroing.ev.pgfault</td><td>this host, \([0-9.]*\)G and $cpus CPU$s</td>.*|\1|p" \
		host-site/e1.html) &&
	awk -v g="$host" -v m=$mem "BEGIN { exit !(g > 0 && (g - m / 1024) ^ 2 < 0.0001) }" &&
	! grep -q "cpu(s)" host-site/e1.html
'

test_done
