#!/bin/bash
# lab ab's plan on the local runner with a stand-in workload program whose
# noise and shift the test sets: verdicts, formats, resume, provenance.
. "$(dirname "$0")/lib.sh"

FAKE=$TOP/tests/fixtures/fake-guest.sh
export FAKE_SEED_FILE=$TRASH/seed
ab() {
	"$LAB" ab --db lab.db --runner local --guest "$FAKE" --workload zeroing "$@"
}
ok_runs() { # EXPERIMENT: how many of its boots ended OK
	sql lab.db "SELECT count(*) FROM runs WHERE experiment_id = $1 AND status = 'OK'"
}

test_expect_success 'a 10 % shift is a REGRESSION, exit 1, with its size' '
	test_expect_code 1 ab --a-cmdline scale=1.0 --b-cmdline scale=1.10 --boots 3 --iters 20 >out 2>err &&
	cat out && grep -q " REGRESSION$" out &&
	grep -qx "measured: this host, as it runs now" out &&
	# the host it ran on, not the --mem and --cpus a VM would have had
	cpus=$(nproc) &&
	grep -qx "this host, [0-9.]*G and $cpus CPUs*: samples compared, n 60 A, 60 B; lower is better" out &&
	! grep -q "2048M" out &&
	test "$(sql lab.db "SELECT DISTINCT value FROM run_meta WHERE key = '\''host.mem_mib'\''")" = \
		$(($(sed -n "s/^MemTotal: *\([0-9]*\) kB$/\1/p" /proc/meminfo) / 1024)) &&
	test "$(sql lab.db "SELECT DISTINCT value FROM run_meta WHERE key = '\''host.cpus'\''")" = $cpus &&
	test "$(sql lab.db "SELECT verdict FROM verdicts WHERE experiment_id = 1")" = REGRESSION &&
	test "$(sql lab.db "SELECT ci_low < 1.10 AND ci_high > 1.10 AND ratio > 1.07 AND ratio < 1.13 FROM verdicts WHERE experiment_id = 1")" = 1 &&
	test "$(sql lab.db "SELECT n_a || \" \" || n_b FROM verdicts WHERE experiment_id = 1")" = "60 60"
'

test_expect_success 'a run, its blocks, lab list and the report say the host it measured, not --mem' '
	mem=$(sql lab.db "SELECT value FROM run_meta WHERE run_id = 1 AND key = '\''host.mem_mib'\''") &&
	cpus=$(nproc) && if test $cpus = 1; then s=; else s=s; fi &&
	"$LAB" show --db lab.db 1 >show &&
	host=$(sed -n "s/^  ran on         this host, \([0-9.]*\)G and $cpus CPU$s$/\1/p" show) &&
	awk -v g="$host" -v m=$mem "BEGIN { exit !(g > 0 && (g * 1024 - m) ^ 2 < (m * 5e-4) ^ 2) }" &&
	words="this host, ${host}G and $cpus CPU$s" &&
	"$LAB" show --db lab.db E1 >show-e &&
	grep -qx "zeroing.t (ms, lower is better; $words; compared: samples; wall time)" show-e &&
	! grep -q "2048M\|1 cpu" show show-e &&
	"$LAB" list --db lab.db >list &&
	grep -E "^ +1 .* local +zeroing +${host}G +$cpus +20 " list &&
	"$LAB" report --db lab.db --out site >/dev/null &&
	grep -q "<h3>zeroing.t, $words " site/e1.html &&
	"$LAB" run --db qemu-like.db --runner local --guest "$FAKE" --workload zeroing --iters 2 \
		>/dev/null 2>err &&
	sql qemu-like.db "DELETE FROM run_meta WHERE key LIKE '\''host.%'\''" &&
	"$LAB" show --db qemu-like.db 1 >show-q &&
	grep -qx "  ran on         2048M, 1 cpu" show-q
'

test_expect_success 'boots interleave ABBA' '
	test "$(sql lab.db "SELECT group_concat(v.name, \"\") FROM runs r JOIN variants v ON v.id = r.variant_id WHERE r.experiment_id = 1 ORDER BY r.id")" = ABBAAB
'

test_expect_success 'a 10 % drop is an IMPROVEMENT, exit 0' '
	test_expect_code 0 ab --a-cmdline scale=1.0 --b-cmdline scale=0.90 --boots 3 --iters 20 >out 2>err &&
	grep -q " IMPROVEMENT$" out
'

test_expect_success 'A/A with the adaptive schedule is never a verdict of change' '
	test_expect_code 0 ab --aa --iters 10 >out 2>err &&
	cat out && ! grep -E " (REGRESSION|IMPROVEMENT)$" out &&
	grep -q " SAME$" out
'

test_expect_success 'csv and json carry the stored numbers, exactly' '
	"$LAB" show --db lab.db E1 --format csv >v.csv &&
	test "$(wc -l <v.csv)" = 2 &&
	head -1 v.csv | grep -q "^experiment,workload,metric,unit" &&
	"$LAB" show --db lab.db E1 --format json >v.json &&
	python3 -c "
import csv, json, sqlite3, sys
v = json.load(open(\"v.json\"))[\"verdicts\"][0]
c = list(csv.DictReader(open(\"v.csv\")))[0]
db = sqlite3.connect(\"lab.db\").execute(\"SELECT ratio, p, verdict FROM verdicts WHERE experiment_id = 1\").fetchone()
assert v[\"ratio\"] == db[0] and v[\"p\"] == db[1] and v[\"verdict\"] == db[2], (v, db)
assert float(c[\"ratio\"]) == db[0] and float(c[\"p\"]) == db[1], (c, db)
"
'

test_expect_success 'a run'\''s samples as csv and json read back as the stored doubles' '
	cp lab.db exact.db &&
	sql exact.db "UPDATE samples SET value = 1.0000000000000002 WHERE run_id = 1 AND iteration = 1;
		UPDATE samples SET value = 123456.78901234567 WHERE run_id = 1 AND iteration = 2;
		UPDATE samples SET value = 0.1 WHERE run_id = 1 AND iteration = 3" &&
	"$LAB" show --db exact.db 1 --format csv >s.csv &&
	grep -q "^1,zeroing,t,1,1.0000000000000002,ms," s.csv &&
	grep -q "^1,zeroing,t,2,123456.78901234567,ms," s.csv &&
	grep -q "^1,zeroing,t,3,0.1,ms," s.csv &&
	"$LAB" show --db exact.db 1 --format json >s.json &&
	grep -q "\"value\": 1.0000000000000002," s.json &&
	python3 -c "
import csv, json, sqlite3
db = dict(sqlite3.connect(\"exact.db\").execute(\"SELECT iteration, value FROM samples WHERE run_id = 1 AND metric = \x27t\x27\"))
j = {s[\"iteration\"]: s[\"value\"] for s in json.load(open(\"s.json\"))[\"samples\"] if s[\"metric\"] == \"t\"}
c = {int(r[\"iteration\"]): float(r[\"value\"]) for r in csv.DictReader(open(\"s.csv\")) if r[\"metric\"] == \"t\"}
assert j == db == c, (j, c, db)
"
'

test_expect_success 'text show gives meta of a known unit in a scaled unit, the rest as stored' '
	cp lab.db meta.db &&
	sql meta.db "UPDATE run_meta SET value = '\''0.146743'\'' WHERE run_id = 1 AND key = '\''lab.cpu_s'\'';
		INSERT INTO run_meta(run_id, key, value) VALUES (1, '\''guest.copy_bytes'\'', '\''12345678'\''),
			(1, '\''guest.wait_ns'\'', '\''397'\''), (1, '\''guest.note_s'\'', '\''soon'\''),
			(1, '\''guest.pages'\'', '\''0.146743'\'')" &&
	"$LAB" show --db meta.db 1 >show-m &&
	grep -qx "  lab.cpu_s  *146.7 ms" show-m &&
	grep -qx "  guest.copy_bytes  *12.35M B" show-m &&
	grep -qx "  guest.wait_ns  *397.0 ns" show-m &&
	grep -qx "  guest.note_s  *soon" show-m &&
	grep -qx "  guest.pages  *0.146743" show-m &&
	grep -qx "  host.mem_mib  *[0-9]* MiB" show-m &&
	"$LAB" show --db meta.db 1 --format json >show-m.json &&
	grep -q "\"lab.cpu_s\": \"0.146743\"" show-m.json
'

test_expect_success 'the json of an experiment says what it was: status, command, variants' '
	"$LAB" show --db lab.db E1 --format json >e.json &&
	python3 -c "
import json, sqlite3
e = json.load(open(\"e.json\"))
db = sqlite3.connect(\"lab.db\")
status, command = db.execute(\"SELECT status, command FROM experiments WHERE id = 1\").fetchone()
assert e[\"status\"] == status == \"DONE\" and e[\"command\"] == command, e
assert [(v[\"name\"], v[\"cmdline\"]) for v in e[\"variants\"]] == [(\"A\", \"scale=1.0\"), (\"B\", \"scale=1.10\")], e
assert e[\"boots_ok\"] == 6 and e[\"boots_failed\"] == 0, e
"
'

test_expect_success 'lab list shows experiments with their verdicts' '
	"$LAB" list --db lab.db >list &&
	grep -E "^ +E1 .*REGRESSION" list && grep -E "^ +E2 .*IMPROVEMENT" list
'

test_expect_success 'killed mid-way, --resume continues with no boot lost or repeated' '
	"$LAB" ab --db lab.db --runner local --guest "$FAKE" --workload zeroing \
		--a-cmdline "scale=1.0 sleep=0.4" --b-cmdline "scale=1.1 sleep=0.4" --boots 6 --iters 5 >out 2>err &
	pid=$! &&
	test_when_finished "kill $pid 2>/dev/null || :" &&
	test_wait_until 60 "test \$(ok_runs 4) -ge 3" &&
	kill -TERM $pid && { wait $pid || true; } &&
	done_before=$(ok_runs 4) &&
	test "$done_before" -ge 3 && test "$done_before" -lt 12 &&
	test_expect_code 1 ab --a-cmdline "scale=1.0 sleep=0.4" --b-cmdline "scale=1.1 sleep=0.4" --boots 6 --iters 5 --resume E4 >out 2>err &&
	cat err &&
	test "$(ok_runs 4)" = 12 &&
	test "$(sql lab.db "SELECT count(*) FROM samples s JOIN runs r ON r.id = s.run_id WHERE r.experiment_id = 4")" = 60 &&
	test "$(sql lab.db "SELECT count(*) FROM runs WHERE experiment_id = 4 AND status = '\''RUNNING'\''")" = 0 &&
	grep -q " REGRESSION$" out
'

test_expect_success 'resume refuses a different variant' '
	test_expect_code 2 ab --a-cmdline "scale=1.0 sleep=0.4" --b-cmdline "scale=1.2" --boots 6 --iters 5 --resume E4 2>err &&
	expect_one_line_naming err "command line"
'

test_expect_success 'runs that differ in more than the variants are refused, unless --force' '
	test_expect_code 2 ab --a-cmdline "scale=1.0 sleep=0.4" --b-cmdline "scale=1.1 sleep=0.4" --boots 7 --iters 6 --resume E4 >out 2>err &&
	grep -q "refusing to compare: .* differ in params" err &&
	test "$(sql lab.db "SELECT status FROM experiments WHERE id = 4")" = REFUSED &&
	test_expect_code 1 ab --a-cmdline "scale=1.0 sleep=0.4" --b-cmdline "scale=1.1 sleep=0.4" --boots 7 --iters 6 --resume E4 --force >out 2>err &&
	grep -q "differ in params" err
'

test_expect_success 'bad input is one line and exit 2' '
	test_expect_code 2 ab --boots 3 --delta 2 2>err && expect_one_line_naming err "--delta" &&
	test_expect_code 2 ab --boots 3 --format xml 2>err && expect_one_line_naming err "--format" &&
	test_expect_code 2 ab --boots 3 --resume E99 2>err && grep -q "no A/B experiment 99" err
'

test_expect_success 'two databases side by side keep their console logs apart' '
	"$LAB" run --db one.db --runner local --guest "$FAKE" --workload zeroing --iters 2 >/dev/null 2>err &&
	"$LAB" run --db two.db --runner local --guest "$FAKE" --workload zeroing --iters 3 >/dev/null 2>err &&
	one=$(sql one.db "SELECT console_log FROM runs WHERE id = 1") &&
	two=$(sql two.db "SELECT console_log FROM runs WHERE id = 1") &&
	test "$one" != "$two" &&
	grep -q " done ok 2$" "$one" && grep -q " done ok 3$" "$two"
'

test_expect_success 'lab show RUN lists the run'\''s event counts apart from its samples' '
	"$LAB" run --db ev.db --runner local --guest "$FAKE" --workload zeroing --iters 5 \
		--cmdline "metrics=t,ev.pgfault" >/dev/null 2>err &&
	test "$(sql ev.db "SELECT count(*) FROM events WHERE run_id = 1")" = 5 &&
	test "$(sql ev.db "SELECT count(*) FROM samples WHERE metric = '\''ev.pgfault'\''")" = 0 &&
	"$LAB" show --db ev.db 1 >show &&
	grep -q "^events, counted an iteration" show &&
	med=$(sql ev.db "SELECT value FROM events WHERE run_id = 1 ORDER BY value LIMIT 1 OFFSET 2") &&
	row=$(grep "^zeroing\.ev\.pgfault " show) &&
	set -- $row && test "$3" = 5 &&
	awk -v a="$4" -v b="$med" "BEGIN { exit !(a / b > 0.999 && a / b < 1.001) }" &&
	"$LAB" show --db ev.db 1 --format json >show.json &&
	python3 -c "
import json, sys
d = json.load(open(\"show.json\"))
assert len(d[\"events\"]) == 5 and all(e[\"metric\"] == \"ev.pgfault\" for e in d[\"events\"])
assert all(s[\"metric\"] == \"t\" for s in d[\"samples\"])
"
'

test_done
