#!/bin/bash
# lab explain on the local runner with a stand-in guest that sends a
# profile when asked (lab.profile=1): the profiled boots stored apart from
# every statistic, the explanation row, the table's order and numbers,
# explaining an A/B by its id, and the refusals.
. "$(dirname "$0")/lib.sh"

FAKE=$TOP/tests/fixtures/fake-guest.sh
export FAKE_SEED_FILE=$TRASH/seed
# B's work_fn is 10 % slower; B calls wait_fn (which only waits) and a new
# helper; A's old_fn is gone in B; tick changes by little.
A_PROF=prof=entry:10:2000000,work_fn:1000:1000000,old_fn:5:50000,tick:100:1000,schedule:10:10
B_PROF=prof=entry:10:2300000,work_fn:1000:1100000,helper:1000:200000,tick:101:1010,schedule:20:900000000
run_ab() {
	"$LAB" ab --db lab.db --runner local --guest "$FAKE" --workload zeroing --iters 5 \
		--a-cmdline "scale=1.0 metrics=touch $A_PROF" --b-cmdline "scale=1.3 metrics=touch $B_PROF" "$@"
}

test_expect_success 'an A/B of the stand-in guest: a REGRESSION' '
	test_expect_code 1 run_ab --boots 3 >out 2>err &&
	grep -q "^zeroing.touch .* REGRESSION$" out
'

test_expect_success 'lab explain E1: one profiled boot a side, stored, the explanation printed' '
	"$LAB" explain --db lab.db --boots 1 E1 >out 2>err && cat out &&
	grep -q "^explanation X1: zeroing.touch of E1$" out &&
	test "$(sql lab.db "SELECT count(*) FROM runs WHERE params LIKE '\''%lab.profile=1%'\''")" = 2 &&
	test "$(sql lab.db "SELECT experiment_id || \" \" || workload || \" \" || metric FROM explanations")" = "1 zeroing touch" &&
	a=$(sql lab.db "SELECT a_run_id FROM explanations WHERE id = 1") &&
	b=$(sql lab.db "SELECT b_run_id FROM explanations WHERE id = 1") &&
	test "$(sql lab.db "SELECT calls || \" \" || ns FROM profiles WHERE run_id = $b AND function = '\''helper'\''")" = "1000 200000.0" &&
	test "$(sql lab.db "SELECT count(*) FROM profiles WHERE run_id = $a")" = 5 &&
	test "$(sql lab.db "SELECT experiment_id IS NULL AND variant_id IS NULL FROM runs WHERE id = $a")" = 1
'

test_expect_success 'the profiled boots reach no statistic: counted_samples leaves them out' '
	test "$(sql lab.db "SELECT count(*) FROM samples s JOIN runs r ON r.id = s.run_id WHERE r.params LIKE '\''%lab.profile=1%'\''")" -gt 0 &&
	test "$(sql lab.db "SELECT count(*) FROM counted_samples c JOIN runs r ON r.id = c.run_id WHERE r.params LIKE '\''%lab.profile=1%'\''")" = 0
'

# The table: the carriers of the change, those that moved by at least half
# the most (entry +300 us, helper +200 us), the least time first
# (helper is new, entry 2 ms); then the rest by how much they moved
# (work_fn, old_fn, tick); schedule, which only waits, last.
test_expect_success 'the order: new carriers, then by least time, the rest by size, waits last' '
	sed -n "/^function /,/^\$/p" out | grep . | awk "NR > 1 { print \$1 }" >order &&
	printf "%s\n" helper entry work_fn old_fn tick schedule >want &&
	cmp want order
'

test_expect_success 'calls and times of both sides, new and gone marked, the change in time' '
	grep -E "^helper +- +1000 +- +200 us +\+200 us .* new$" out &&
	grep -E "^old_fn +5 +- +50 us +- +-50 us .* gone$" out &&
	grep -E "^work_fn +1000 +1000 +1 ms +1.1 ms +\+100 us " out &&
	grep -E "^tick +100 +101 " out
'

test_expect_success 'the share is of the metric as the profiled boots measured it' '
	a=$(sql lab.db "SELECT a_run_id FROM explanations WHERE id = 1") &&
	b=$(sql lab.db "SELECT b_run_id FROM explanations WHERE id = 1") &&
	d=$(sql lab.db "SELECT (SELECT sum(value) FROM samples WHERE run_id = $b AND metric = '\''touch'\'') - (SELECT sum(value) FROM samples WHERE run_id = $a AND metric = '\''touch'\'')") &&
	want=$(awk -v d="$d" "BEGIN { printf \"%.1f %%\", 100 * 0.2 / d }") &&
	grep -E "^helper .* $want +new$" out
'

test_expect_success 'every line fits 100 columns' '
	! awk "length(\$0) > 100" out | grep .
'

test_expect_success 'lab explain E1 again prints the stored explanation without a boot' '
	runs=$(sql lab.db "SELECT count(*) FROM runs") &&
	"$LAB" explain --db lab.db E1 >again 2>err &&
	cmp out again &&
	test "$(sql lab.db "SELECT count(*) FROM runs")" = "$runs" &&
	"$LAB" explain --db lab.db X1 >x1 && cmp out x1
'

test_expect_success 'json and csv: every function with its calls, times, change, share and mark' '
	"$LAB" explain --db lab.db X1 --top 0 --format json >x.json &&
	python3 -c "
import json, sys
d = json.load(open(\"x.json\"))
assert d[\"explanation\"] == 1 and d[\"experiment\"] == 1 and d[\"metric\"] == \"touch\", d
f = {x[\"function\"]: x for x in d[\"functions\"]}
assert [x[\"function\"] for x in d[\"functions\"]][0] == \"helper\", d
assert f[\"helper\"][\"calls_a\"] is None and f[\"helper\"][\"calls_b\"] == 1000 and f[\"helper\"][\"mark\"] == \"new\"
assert f[\"old_fn\"][\"ns_b\"] is None and f[\"old_fn\"][\"mark\"] == \"gone\"
assert f[\"work_fn\"][\"change_ns\"] == 100000 and f[\"work_fn\"][\"mark\"] == \"\"
assert len(f) == 6, f
" &&
	"$LAB" explain --db lab.db X1 --top 0 --format csv >x.csv &&
	head -n 1 x.csv | grep -q "^explanation,workload,metric,function,calls_a,calls_b,ns_a,ns_b,change_ns,change_lo_ns,change_hi_ns,share,mark$" &&
	test "$(wc -l <x.csv)" = 7 &&
	grep -q "^X1,zeroing,touch,helper,,1000,,200000,200000,,,[0-9.e-]*,new$" x.csv
'

test_expect_success 'lab show E1 ends with its explanation' '
	"$LAB" show --db lab.db E1 >show &&
	sed -n "/^explanation X1: zeroing.touch of E1$/,\$p" show >tail &&
	grep -qE "^helper +- +1000 " tail && grep -q "^zeroing.touch " show
'

test_expect_success '--again boots again, a new explanation; --top bounds the rows' '
	"$LAB" explain --db lab.db E1 --again --boots 1 --top 2 >out2 2>err &&
	grep -q "^explanation X2: " out2 &&
	test "$(sed -n "/^function /,/^\$/p" out2 | grep -c .)" = 3
'

# The local runner's clock is the wall's: five boots a side unless told,
# A and B in turn, each change with its interval, the table marked noisy.
test_expect_success 'explain by the options of lab ab, no experiment: in wall time five boots a side' '
	"$LAB" explain --db lab.db --runner local --guest "$FAKE" --workload zeroing --iters 5 \
		--a-cmdline "metrics=touch $A_PROF" --b-cmdline "metrics=touch $B_PROF" >out3 2>err &&
	cat out3 && grep -q "^explanation X3: zeroing.touch$" out3 &&
	test "$(sql lab.db "SELECT experiment_id IS NULL FROM explanations WHERE id = 3")" = 1 &&
	test "$(sql lab.db "SELECT group_concat(side) FROM (SELECT side FROM explanation_runs WHERE explanation_id = 3 ORDER BY run_id)")" = 0,1,0,1,0,1,0,1,0,1 &&
	grep -q "^  NOISY: 5 and 5 boots with the function profiler on, in wall time" out3 &&
	grep -q "^function .*change \[95% CI\] " out3 &&
	grep -E "^work_fn +1000 +1000 +1 ms +1.1 ms +\+100 us \[\+100, \+100\] " out3 &&
	awk "length > 100 { exit 1 }" out3 &&
	grep -q "boot 10 of 10" err
'

test_expect_success 'a guest that sends no profile: an error naming the side, nothing stored' '
	test_expect_code 2 "$LAB" explain --db lab.db --runner local --guest "$FAKE" \
		--workload zeroing --iters 5 --a-cmdline metrics=touch --b-cmdline metrics=touch \
		>out4 2>err &&
	grep -q "A.s profiled boot sent no profile of zeroing" err &&
	test "$(sql lab.db "SELECT count(*) FROM explanations")" = 3
'

test_expect_success 'Ctrl-C between profiled boots: the boot under way INFRA, nothing explained, the command said' '
	with_sigint "$LAB" explain --db int.db --runner local --guest "$FAKE" --workload zeroing \
		--iters 5 --a-cmdline "sleep=1 metrics=touch $A_PROF" \
		--b-cmdline "sleep=1 metrics=touch $B_PROF" >out5 2>err &
	lab=$! &&
	test_when_finished "kill $lab 2>/dev/null || :" &&
	test_wait_until 60 "test \"\$(sql int.db \"SELECT count(*) FROM runs WHERE status = '\''OK'\''\" 2>/dev/null)\" -ge 2" &&
	kill -INT $lab && { wait $lab; echo $? >rc; } &&
	cat err &&
	test "$(cat rc)" = 130 &&
	test "$(sql int.db "SELECT count(*) FROM explanations")" = 0 &&
	test "$(sql int.db "SELECT count(*) FROM runs WHERE status NOT IN ('\''OK'\'', '\''INFRA'\'')")" = 0 &&
	test "$(sql int.db "SELECT count(*) FROM runs WHERE status = '\''INFRA'\'' AND error != '\''interrupted'\''")" = 0 &&
	! grep -q "profiled boot ended" err &&
	sed -n "/^lab explain: interrupted, no explanation stored; run it again with:\$/,\$p" err >said &&
	test -z "$(awk "length > 100" said)" &&
	said_command said >again &&
	test "$(cat again)" = "lab explain --db int.db --runner local --guest $FAKE --workload zeroing --iters 5 --a-cmdline '\''sleep=1 metrics=touch $A_PROF'\'' --b-cmdline '\''sleep=1 metrics=touch $B_PROF'\''"
'

test_expect_success 'what profiled, in one line: the function profiler and why not the PMU' '
	"$LAB" explain --db by.db --runner local --guest "$FAKE" --workload zeroing --iters 5 \
		--boots 1 --a-cmdline "metrics=touch by=ftrace $A_PROF" \
		--b-cmdline "metrics=touch by=ftrace $B_PROF" >out6 2>err &&
	cat out6 &&
	test "$(sed -n 3p out6)" = "  by the function profiler (ftrace): no PMU sampling: perf_event_open: no PMU the kernel drives" &&
	grep -q "^  one boot a side with the function profiler on" out6 &&
	grep -qE "^function +calls A +calls B " out6
'

test_expect_success 'PMU samples: said with what was sampled, samples where calls were, 100 columns' '
	"$LAB" explain --db by.db --runner local --guest "$FAKE" --workload zeroing --iters 5 \
		--boots 3 --a-cmdline "metrics=touch by=pmu $A_PROF" \
		--b-cmdline "metrics=touch by=pmu $B_PROF" >out7 2>err &&
	cat out7 &&
	test "$(sed -n 3,4p out7)" = "$(printf "%s\n%s" "  by sampled cycles (PMU), a sample every 500000 cycles on 1 CPU: 1125 samples of 1125 periods" "  counted, 0 lost")" &&
	grep -q "^  NOISY: 3 and 3 boots sampled, in wall time: medians,$" out7 &&
	grep -qE "^function +samples A samples B +time A +time B +change \[95% CI\] +share$" out7 &&
	grep -E "^work_fn +1000 +1000 +1 ms +1.1 ms +\+100 us \[\+100, \+100\] " out7 &&
	! grep -q "profiler" out7 &&
	awk "length > 100 { exit 1 }" out7 &&
	"$LAB" explain --db by.db X2 --format json >x2.json &&
	python3 -c "
import json
assert json.load(open(\"x2.json\"))[\"profiled_by\"] == \"pmu\"
"
'

test_expect_success 'bad ids and unknown explanations are one-line errors, exit 2' '
	test_expect_code 2 "$LAB" explain --db lab.db E99 2>err && grep -q "no experiment E99" err &&
	test_expect_code 2 "$LAB" explain --db lab.db X99 2>err && grep -q "no explanation X99" err &&
	test_expect_code 2 "$LAB" explain --db lab.db Q1 2>err && grep -q "bad experiment id" err &&
	test_expect_code 2 "$LAB" explain --db lab.db E1 --workload demote 2>err &&
	grep -q "E1 names its kernels and workload" err
'

test_done
