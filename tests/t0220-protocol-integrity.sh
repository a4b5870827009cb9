#!/bin/bash
# Only the lines of this boot's guest reach a statistic: each carries the
# boot's nonce, comes between hello and done, names a workload asked for
# and does not repeat an iteration. Anything else is dropped with its
# reason (dropped_lines, lab show) or fails the run.
. "$(dirname "$0")/lib.sh"

KERNEL=$(debian_kernel)

# guest NAME: a program for the local runner from stdin; $n is the nonce
# the lab passed, with a space after it, or nothing.
guest() {
	{
		echo '#!/bin/bash'
		echo 'n=; for a in "$@"; do case $a in lab.nonce=*) n="${a#*=} " ;; esac; done'
		cat
	} >"$1" && chmod +x "$1"
}

# run NAME [options]: one local run of ./NAME on zeroing into lab.db; its
# exit status in rc, its stderr in err
run() {
	g=$1 && shift &&
	rc=0 && { "$LAB" run --db lab.db --runner local --guest "./$g" --workload zeroing "$@" \
		>out 2>err || rc=$?; } && cat err
}

last() { # COLUMN: of the newest run
	sql lab.db "SELECT $1 FROM runs ORDER BY id DESC LIMIT 1"
}
samples() { # [WHERE]: of the newest run
	sql lab.db "SELECT count(*) FROM samples WHERE run_id = (SELECT max(id) FROM runs) ${1:+AND $1}"
}
dropped() { # the newest run's dropped lines: reason|line
	sql lab.db "SELECT reason || '|' || line FROM dropped_lines WHERE run_id = (SELECT max(id) FROM runs) ORDER BY seq"
}

test_expect_success 'a sample of a workload not asked for is dropped, with its reason' '
	guest forged <<-\EOF &&
	echo "@lab ${n}hello 2 t"
	for i in 0 1 2; do echo "@lab ${n}sample zeroing touch $i 10 us"; done
	echo "@lab ${n}sample demote demote_page_wall 0 99999 ms"
	echo "@lab ${n}done ok 4"
	EOF
	run forged && test "$rc" = 0 &&
	test "$(last status)" = OK &&
	test "$(samples)" = 3 && test "$(samples "workload = '\''demote'\''")" = 0 &&
	test "$(dropped)" = "workload '\''demote'\'' was not asked for (asked: zeroing)|@lab $(sql lab.db "SELECT value FROM run_meta WHERE key = '\''lab.nonce'\'' AND run_id = (SELECT max(id) FROM runs)") sample demote demote_page_wall 0 99999 ms" &&
	test "$(last bad_lines)" = 1 &&
	grep -q "1 protocol line(s) dropped, not used (first: workload '\''demote'\'' was not asked for" err &&
	"$LAB" show --db lab.db "$(last id)" >show &&
	grep -q "^dropped lines" show &&
	grep -q "^  1    workload '\''demote'\'' was not asked for (asked: zeroing): @lab .* sample demote" show
'

test_expect_success 'lab ab: a forged metric of another workload gives no verdict' '
	guest forger <<-\EOF &&
	d=1; for a in "$@"; do case $a in demote=*) d=${a#*=} ;; esac; done
	echo "@lab ${n}hello 2 t"
	for i in $(seq 0 9); do echo "@lab ${n}sample zeroing touch $i 10$((i % 5)) us"; done
	echo "@lab ${n}sample demote demote_page_wall 0 $d ms"
	echo "@lab ${n}done ok 11"
	EOF
	rc=0 && "$LAB" ab --db ab.db --runner local --guest ./forger --workload zeroing --boots 3 \
		--a-cmdline demote=1 --b-cmdline demote=1000 >out 2>err || rc=$? &&
	cat out && test "$rc" = 0 &&
	test "$(sql ab.db "SELECT count(*) FROM verdicts WHERE workload = '\''demote'\''")" = 0 &&
	test "$(sql ab.db "SELECT count(*) FROM samples WHERE workload = '\''demote'\''")" = 0 &&
	test "$(sql ab.db "SELECT count(*) FROM dropped_lines")" = 6
'

test_expect_success 'samples after done, and a second done, are dropped' '
	guest late <<-\EOF &&
	echo "@lab ${n}hello 2 t"
	echo "@lab ${n}sample zeroing touch 0 10 us"
	echo "@lab ${n}done error 1"
	echo "@lab ${n}sample zeroing touch 1 5 us"
	echo "@lab ${n}done ok 2"
	EOF
	run late && test "$rc" != 0 &&
	test "$(last status)" = FAILED &&
	test "$(samples)" = 1 &&
	test "$(dropped | cut -d"|" -f1 | sort | uniq -c | tr -s " ")" = " 1 a second done
 1 after done"
'

test_expect_success 'a second done ok fails a run that was OK: its samples stored, never counted' '
	guest again <<-\EOF &&
	echo "@lab ${n}hello 2 t"
	for i in 0 1 2; do echo "@lab ${n}sample zeroing touch $i 10 us"; done
	echo "@lab ${n}done ok 3"
	echo "@lab ${n}done ok 3"
	EOF
	run again && test "$rc" = 1 &&
	test "$(last status)" = FAILED &&
	test "$(last error)" = "guest said done twice (the second: done ok 3)" &&
	test "$(samples)" = 3 &&
	test "$(sql lab.db "SELECT count(*) FROM counted_samples WHERE run_id = $(last id)")" = 0 &&
	test "$(dropped)" = "a second done|@lab $(sql lab.db "SELECT value FROM run_meta WHERE key = '\''lab.nonce'\'' AND run_id = $(last id)") done ok 3"
'

test_expect_success 'a repeated iteration is stored once' '
	guest twice <<-\EOF &&
	echo "@lab ${n}hello 2 t"
	for i in 0 1 2 1; do echo "@lab ${n}sample zeroing touch $i 10 us"; done
	echo "@lab ${n}done ok 4"
	EOF
	run twice && test "$rc" = 0 &&
	test "$(samples)" = 3 && test "$(samples "iteration = 1")" = 1 &&
	dropped | grep -qx "iteration 1 of zeroing.touch repeated|.*sample zeroing touch 1 10 us"
'

test_expect_success 'done ok with fewer samples than it counts fails the run' '
	guest short <<-\EOF &&
	echo "@lab ${n}hello 2 t"
	for i in 0 1 2; do echo "@lab ${n}sample zeroing touch $i 10 us"; done
	echo "@lab ${n}done ok 10"
	EOF
	run short && test "$rc" != 0 &&
	test "$(last status)" = FAILED &&
	test "$(last error)" = "guest said it sent 10 sample(s), 3 arrived" &&
	grep -q "guest said it sent 10 sample(s), 3 arrived" err
'

test_expect_success 'a hello of an unknown protocol version fails the run' '
	guest future <<-\EOF &&
	echo "@lab ${n}hello 99 t"
	echo "@lab ${n}sample zeroing touch 0 10 us"
	echo "@lab ${n}done ok 1"
	EOF
	run future && test "$rc" != 0 &&
	test "$(last status)" = FAILED &&
	test "$(last error)" = "guest speaks protocol version 99; this lab reads 1 to 2" &&
	test "$(samples)" = 0
'

test_expect_success 'a line with another nonce, or none after a hello with one, is dropped' '
	guest nonces <<-\EOF &&
	echo "@lab ${n}hello 2 t"
	echo "@lab ${n}sample zeroing touch 0 10 us"
	echo "@lab 0123456789abcdef sample zeroing touch 1 10 us"
	echo "@lab sample zeroing touch 2 10 us"
	echo "@lab ${n}done ok 1"
	EOF
	run nonces && test "$rc" = 0 &&
	test "$(samples)" = 1 &&
	test "$(dropped)" = "wrong nonce 0123456789abcdef|@lab 0123456789abcdef sample zeroing touch 1 10 us
no nonce|@lab sample zeroing touch 2 10 us"
'

test_expect_success 'plain lines without nonce or checksum are still read on a pipe' '
	guest plain <<-\EOF &&
	echo "@lab hello 1 t"
	for i in 0 1 2; do echo "@lab sample zeroing touch $i 10 us"; done
	echo "@lab done ok 3"
	EOF
	run plain && test "$rc" = 0 &&
	test "$(last status)" = OK && test "$(samples)" = 3 && test -z "$(dropped)"
'

test_expect_success 'lines before hello are dropped' '
	guest early <<-\EOF &&
	echo "@lab ${n}sample zeroing touch 0 10 us"
	echo "@lab ${n}hello 2 t"
	echo "@lab ${n}done ok 0"
	EOF
	run early && test "$rc" = 0 && test "$(samples)" = 0 &&
	test "$(dropped | cut -d"|" -f1)" = "before hello"
'

test_expect_success 'a line that does not parse is named for what is wrong with it' '
	guest garbled <<-\EOF &&
	echo "@lab ${n}hello 2 t"
	echo "@lab ${n}sample zeroing touch 0 abc us"
	echo "@lab ${n}sample zeroing touch 1 1.0 us hot"
	echo "@lab ${n}frobnicate now"
	echo "@lab ${n}done ok 0"
	EOF
	run garbled && test "$rc" = 0 &&
	! grep -q checksum err &&
	grep -q "3 protocol line(s) dropped, not used (first: bad number '\''abc'\'' for value)" err &&
	test "$(dropped | cut -d"|" -f1)" = "bad number '\''abc'\'' for value
unknown flag '\''hot'\''
unknown kind '\''frobnicate'\''"
'

test_expect_success 'a time beyond a day and event counts that are not whole and small are dropped' '
	guest huge <<-\EOF &&
	echo "@lab ${n}hello 2 t"
	for i in 0 1 2; do echo "@lab ${n}sample zeroing touch $i 10 us"; done
	echo "@lab ${n}sample zeroing touch 3 1e308 us"
	echo "@lab ${n}sample zeroing ev.pgfault 0 -5 events"
	echo "@lab ${n}sample zeroing ev.pgfault 1 1.5 events"
	echo "@lab ${n}sample zeroing ev.pgfault 2 1e300 events"
	echo "@lab ${n}sample zeroing ev.pgfault 3 12 events"
	echo "@lab ${n}done ok 4"
	EOF
	run huge && test "$rc" = 0 &&
	test "$(last status)" = OK &&
	test "$(samples)" = 3 &&
	test "$(sql lab.db "SELECT group_concat(value) FROM samples WHERE run_id = (SELECT max(id) FROM runs)")" = "10.0,10.0,10.0" &&
	test "$(sql lab.db "SELECT group_concat(value) FROM events WHERE run_id = (SELECT max(id) FROM runs)")" = 12.0 &&
	test "$(dropped | cut -d"|" -f1)" = "time 1e+308 us is beyond a day
event count -5 is not a whole number from 0 to 2^53
event count 1.5 is not a whole number from 0 to 2^53
event count 1e+300 is not a whole number from 0 to 2^53" &&
	grep -q "4 protocol line(s) dropped, not used (first: time 1e+308 us is beyond a day)" err &&
	"$LAB" show --db lab.db "$(last id)" >show-huge &&
	grep -q "^zeroing.touch  *µs  *3  *10.00 " show-huge &&
	grep -q "^zeroing.ev.pgfault  *events  *1  *12.00 " show-huge
'

test_expect_success 'the real guest puts the nonce in every line' '
	"$LAB" run --db lab.db --runner local --guest "$GUEST" --workload zeroing --iters 3 \
		--param zeroing_mb=8 >out 2>err &&
	test "$(last status)" = OK && test "$(samples)" = 3 && test -z "$(dropped)" &&
	nonce=$(sql lab.db "SELECT value FROM run_meta WHERE key = '\''lab.nonce'\'' AND run_id = (SELECT max(id) FROM runs)") &&
	echo "$nonce" | grep -qx "[0-9a-f]\{16\}" &&
	log=$(last console_log) &&
	test "$(grep -c "^@lab $nonce " "$log")" = "$(grep -c "^@lab " "$log")" &&
	grep -q "^@lab $nonce hello 2 guest \*[0-9a-f]\{8\}$" "$log"
'

test_expect_success 'each boot draws another nonce' '
	test "$(sql lab.db "SELECT count(DISTINCT value) = count(*) FROM run_meta WHERE key = '\''lab.nonce'\''")" = 1 &&
	test "$(sql lab.db "SELECT count(*) FROM run_meta WHERE key = '\''lab.nonce'\''")" -gt 5
'

test_expect_success 'the local runner stores what the program was given as its command line' '
	guest args <<-\EOF &&
	echo "@lab ${n}hello 2 t"
	echo "@lab ${n}meta args $*"
	echo "@lab ${n}done ok 0"
	EOF
	run args --iters 2 --cmdline "scale=2 cv=0.1" && test "$rc" = 0 &&
	test "$(last cmdline)" = "lab.workload=zeroing lab.iters=2 scale=2 cv=0.1" &&
	test "$(sql lab.db "SELECT value FROM run_meta WHERE key = '\''host.cmdline'\'' AND run_id = (SELECT max(id) FROM runs)")" = "$(cat /proc/cmdline)" &&
	sql lab.db "SELECT value FROM run_meta WHERE key = '\''args'\'' AND run_id = (SELECT max(id) FROM runs)" |
		grep -qx "lab.workload=zeroing lab.iters=2 scale=2 cv=0.1 lab.nonce=[0-9a-f]\{16\}"
'

FORGED_RUN=1

test_expect_success 'lab show RUN --format json: fields, meta, samples, dropped lines' '
	id=$FORGED_RUN &&
	"$LAB" show --db lab.db "$id" --format json >show.json &&
	python3 -c "
import json, sys
r = json.load(open(\"show.json\"))
assert r[\"run\"] == $id and r[\"status\"] == \"OK\" and r[\"runner\"] == \"local\", r
assert r[\"meta\"][\"lab.nonce\"], r[\"meta\"]
assert [s[\"iteration\"] for s in r[\"samples\"]] == [0, 1, 2], r[\"samples\"]
assert r[\"samples\"][0] == {\"workload\": \"zeroing\", \"metric\": \"touch\", \"iteration\": 0, \"value\": 10, \"unit\": \"us\", \"warmup\": False}
assert len(r[\"dropped_lines\"]) == 1 and r[\"dropped_lines\"][0][\"reason\"].startswith(\"workload \")
"
'

test_expect_success 'lab show RUN --format csv: one row a sample' '
	id=$FORGED_RUN &&
	"$LAB" show --db lab.db "$id" --format csv >show.csv &&
	test "$(head -n 1 show.csv)" = "run,workload,metric,iteration,value,unit,warmup" &&
	test "$(sed -n 2p show.csv)" = "$id,zeroing,touch,0,10,us,0" &&
	test "$(wc -l <show.csv)" = 4
'

test_expect_success 'lab show escapes control characters of the console' '
	guest rude <<-\EOF &&
	echo "@lab ${n}hello 2 t"
	printf "\033]0;owned\007\033[2J\033c\n"
	echo "@lab ${n}error zeroing no"
	echo "@lab ${n}done error 0"
	EOF
	run rude && test "$(last status)" = FAILED &&
	"$LAB" show --db lab.db "$(last id)" >show &&
	! grep -q "$(printf "\033")" show && ! grep -q "$(printf "\007")" show &&
	grep -qF "\\x1b]0;owned\\x07\\x1b[2J\\x1bc" show
'

test_expect_success 'a console flood is cut at 16 MiB; lines after it are still read' '
	guest flood <<-\EOF &&
	echo "@lab ${n}hello 2 t"
	yes "noise noise noise noise noise noise noise noise noise noise noise" | head -c 20000000
	echo "@lab ${n}sample zeroing touch 0 10 us"
	echo "@lab ${n}done ok 1"
	EOF
	run flood && test "$rc" = 0 &&
	test "$(samples)" = 1 &&
	log=$(last console_log) &&
	size=$(stat -c %s "$log") &&
	test "$size" -gt 16000000 && test "$size" -lt 16777400 &&
	test "$(tail -n 1 "$log")" = "[lab: console log cut at 16 MiB; the rest was read, not kept]"
'

test_expect_success TCG 'qemu: a sample on the kernel command line is not a sample' '
	rc=0 && "$LAB" run --db qemu.db --accel tcg --kernel "$KERNEL" --workload zeroing --iters 3 \
		--param zeroing_mb=8 --mem 512M --timeout 240 \
		--cmdline "@lab sample zeroing touch 77 1.5 us *84b84268" >out 2>err || rc=$? &&
	cat err && test "$rc" = 0 &&
	test "$(sql qemu.db "SELECT status FROM runs WHERE id = 1")" = OK &&
	test "$(sql qemu.db "SELECT count(*) FROM samples WHERE run_id = 1 AND metric = '\''touch'\''")" = 3 &&
	test "$(sql qemu.db "SELECT count(*) FROM samples WHERE iteration = 77")" = 0 &&
	sql qemu.db "SELECT reason FROM dropped_lines WHERE run_id = 1" | grep -qx "no nonce" &&
	sql qemu.db "SELECT cmdline FROM runs WHERE id = 1" | grep -q "@lab sample zeroing touch 77" &&
	! sql qemu.db "SELECT cmdline FROM runs WHERE id = 1" | grep -q "lab.nonce="
'

test_done
