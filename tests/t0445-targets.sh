#!/bin/bash
# Targets of lab.conf on the local runner with the stand-in guest: names
# checked, each run's target and class stored, an A/B spread over a class
# with each target in its own ABBA order and boots at the same time, no
# sample lost or doubled (a kill -9 included), classes never mixed
# without --force.
. "$(dirname "$0")/lib.sh"

export FAKE=$TOP/tests/fixtures/fake-guest.sh
export FAKE_SEED_FILE=$TRASH/seed

cat >lab.conf <<EOF
[target "l1"]
	runner = local
	class = fake
[target "l2"]
	runner = local
	class = fake
	mem = 1G
[target "l3"]
	runner = local
	class = other
EOF
export LAB_CONFIG=$PWD/lab.conf

run() { "$LAB" run --db lab.db --guest "$FAKE" --workload zeroing --iters 3 "$@"; }
ab=("$LAB" ab --db lab.db --guest "$FAKE" --workload zeroing --iters 5 --mem 1G
	--a-cmdline "scale=1.0 sleep=0.3" --b-cmdline "scale=1.1 sleep=0.3")

test_expect_success 'an unknown target or class: one line naming it and the known ones' '
	test_expect_code 2 run --target vm9 2>err &&
	expect_one_line_naming err "unknown target .vm9. (known: l1, l2, l3)" &&
	test_expect_code 2 "${ab[@]}" --boots 2 --targets big 2>err &&
	expect_one_line_naming err "no target of class .big. (known classes: fake, other)" &&
	test_expect_code 2 run --target l1 --targets fake 2>err &&
	expect_one_line_naming err "--target and --targets both say where to boot: give one" &&
	test ! -e lab.db
'

test_expect_success 'a bad target key or value names its line' '
	printf "[target \"x\"]\n\trunner = qemu\n\tram = 4G\n" >bad.conf &&
	test_expect_code 2 run --config bad.conf --target x 2>err &&
	expect_one_line_naming err "unknown key .target.x.ram. in config bad.conf line 3 (known: runner, uri, arch, cpus, mem, accel, clock, class, host, port, identity, knownhosts, reset, console, restore, deadline, url, token, devicetype, tags, priority, visibility, jobprefix, template, dtb, modules, rootfs, serve, serveurl, imagedir, imageurl, queue, outage)" &&
	printf "[target \"x\"]\n\tmem = lots\n" >bad.conf &&
	test_expect_code 2 run --config bad.conf --target x 2>err &&
	expect_one_line_naming err "bad value .lots. for .target.x.mem. in config bad.conf line 2"
'

test_expect_success 'lab run --target: the run records its target and class' '
	run --target l3 >out &&
	test "$(sql lab.db "SELECT r.runner || '\'' '\'' || t.target || '\'' '\'' || t.class FROM runs r JOIN run_targets t ON t.run_id = r.id")" = "local l3 other"
'

test_expect_success 'lab show RUN names its target and class' '
	"$LAB" show 1 --db lab.db >show &&
	grep -q "^  target         l3$" show &&
	grep -q "^  class          other$" show &&
	"$LAB" show 1 --db lab.db --format json >show.json &&
	python3 -c "import json, sys; r = json.load(open(\"show.json\")); sys.exit(not (r[\"target\"] == \"l3\" and r[\"class\"] == \"other\"))"
'

test_expect_success 'a guest larger than a target is refused on it, and left out of its class' '
	test_expect_code 2 run --target l2 --mem 2G 2>err &&
	expect_one_line_naming err "target .l2. takes guests of up to 1024M, not 2048M (its mem in lab.conf)" &&
	run --targets fake --mem 2G --boots 2 >out 2>err &&
	grep -q "target .l2. left out of class .fake." err &&
	test "$(sql lab.db "SELECT group_concat(target) FROM run_targets WHERE run_id > 1")" = l1,l1
'

test_expect_success 'lab ab --targets: every boot on a target of the class, ABBA on each, none lost or doubled' '
	rm -rf lab.db* &&
	test_expect_code 1 "${ab[@]}" --boots 5 --targets fake >out 2>err &&
	cat err &&
	grep -q " REGRESSION$" out &&
	test "$(sql lab.db "SELECT count(*) FROM runs WHERE experiment_id = 1")" = 10 &&
	test "$(sql lab.db "SELECT count(*) FROM runs r LEFT JOIN run_targets t ON t.run_id = r.id WHERE t.class IS NOT '\''fake'\''")" = 0 &&
	sql lab.db "SELECT v.name, count(*) FROM runs r JOIN variants v ON v.id = r.variant_id WHERE r.status = '\''OK'\'' GROUP BY v.name" >sides &&
	test "$(cat sides)" = "$(printf "A|5\nB|5")" &&
	sql lab.db "SELECT t.target, count(*) FROM runs r JOIN run_targets t ON t.run_id = r.id GROUP BY t.target" >per-target &&
	cat per-target &&
	test "$(sql lab.db "SELECT count(DISTINCT target) FROM run_targets")" = 2 &&
	test "$(sql lab.db "SELECT count(*) FROM runs r WHERE (SELECT count(*) FROM samples s WHERE s.run_id = r.id) != 5")" = 0 &&
	test "$(sql lab.db "SELECT count(*) FROM (SELECT run_id, iteration FROM samples GROUP BY run_id, iteration HAVING count(*) > 1)")" = 0
'

test_expect_success 'each target runs its own ABBA order, its sides within one boot' '
	for t in l1 l2; do
		sql lab.db "SELECT v.name FROM runs r JOIN run_targets t ON t.run_id = r.id JOIN variants v ON v.id = r.variant_id WHERE t.target = '\''$t'\'' ORDER BY r.id" | tr -d "\n" >order.$t &&
		echo "$t: $(cat order.$t)" &&
		case $(cat order.$t) in ABBA*) ;; *) false ;; esac || return 1
		a=$(tr -cd A <order.$t | wc -c) && b=$(tr -cd B <order.$t | wc -c) &&
		test $((a - b)) -le 1 && test $((b - a)) -le 1 || return 1
	done
'

test_expect_success 'boots on different targets run at the same time' '
	test "$(sql lab.db "SELECT count(*) FROM runs a JOIN run_targets ta ON ta.run_id = a.id, runs b JOIN run_targets tb ON tb.run_id = b.id WHERE ta.target = '\''l1'\'' AND tb.target = '\''l2'\'' AND a.started < b.ended AND b.started < a.ended")" -gt 2
'

test_expect_success 'a sweep over --targets: each point on both targets, its sides balanced' '
	test_expect_code 1 "${ab[@]}" --boots 2 --mem 512M,1G --targets fake >out 2>err &&
	e=$(sql lab.db "SELECT max(id) FROM experiments") &&
	sql lab.db "SELECT r.mem_mib, v.name, count(*), count(DISTINCT t.target) FROM runs r JOIN variants v ON v.id = r.variant_id JOIN run_targets t ON t.run_id = r.id WHERE r.experiment_id = $e AND r.status = '\''OK'\'' GROUP BY r.mem_mib, v.name" >points &&
	cat points &&
	test "$(cat points)" = "$(printf "512|A|2|2\n512|B|2|2\n1024|A|2|2\n1024|B|2|2")" &&
	test "$(sql lab.db "SELECT count(DISTINCT mem_mib) FROM verdicts WHERE experiment_id = $e")" = 2
'

test_expect_success 'runs of two classes in one experiment are refused, unless --force' '
	test_expect_code 2 "${ab[@]}" --boots 6 --targets other --resume E1 >out 2>err &&
	unwrapped err | grep "^lab:" >errline &&
	expect_one_line_naming errline "refusing to compare: runs of experiment 1 ran on targets of class .fake. and of class .other., which are not declared interchangeable; use --force to compare anyway" &&
	test_expect_code 1 "${ab[@]}" --boots 6 --targets other --resume E1 --force >out 2>err &&
	unwrapped err | grep -q "differ in class (.fake. vs .other.): compared anyway (--force)" &&
	grep -q " REGRESSION$" out
'

# the guest program runs as "sh fake-guest.sh ... marker=<this>", so pgrep finds each
marker=targets-$$
ok_runs() {
	sql lab.db "SELECT count(*) FROM runs WHERE experiment_id = 1 AND status = 'OK'"
}

ab2=("$LAB" ab --db lab.db --guest "$FAKE" --workload zeroing --iters 5 --boots 6 --mem 1G
     --targets fake --a-cmdline "sleep=1 marker=$marker" --b-cmdline "scale=1.1 sleep=1 marker=$marker")

test_expect_success 'kill -9 of the lab: every worker and guest dies; the resume loses and doubles nothing' '
	rm -rf lab.db*
	"${ab2[@]}" >out 2>err &
	lab=$! &&
	test_when_finished "kill $lab 2>/dev/null || :" &&
	test_wait_until 30 "test \"\$(ok_runs 2>/dev/null)\" -ge 2" &&
	kill -9 $lab && { wait $lab || true; } &&
	test_wait_until 10 "! pgrep -f $marker >/dev/null" &&
	rc=0 && "${ab2[@]}" --resume E1 >out 2>err || rc=$? &&
	cat err &&
	test $rc = 1 && grep -q " REGRESSION$" out &&
	test "$(sql lab.db "SELECT count(*) FROM runs WHERE experiment_id = 1 AND status = '\''INFRA'\''")" -ge 1 &&
	sql lab.db "SELECT v.name, count(*) FROM runs r JOIN variants v ON v.id = r.variant_id WHERE r.status = '\''OK'\'' GROUP BY v.name" >sides &&
	test "$(cat sides)" = "$(printf "A|6\nB|6")" &&
	test "$(sql lab.db "SELECT count(*) FROM samples s JOIN runs r ON r.id = s.run_id WHERE r.experiment_id = 1 AND r.status = '\''OK'\''")" = 60
'

# A project whose build makes the stand-in guest, 10 % slower from change 5.
test_expect_success 'bisect --targets: every commit'\''s boots go to the class'\''s targets in turn' '
	rm -rf lab.db* &&
	fake_project repo "$FAKE_IMAGE" && fake_history repo 8 scale_from repo 5 1.10 &&
	cat lab.conf >bisect.conf &&
	printf "[core]\n\trepo = %s/repo\n[build]\n\tcommand = ./build.sh\n\tartifact = out/image\n" "$PWD" >>bisect.conf &&
	rc=0 && "$LAB" bisect --config bisect.conf --db lab.db --good base --bad main --workload zeroing \
		--iters 10 --mem 1G --targets fake >out 2>err || rc=$? &&
	cat out && test $rc = 0 &&
	grep -q "^culprit: $(git -C repo rev-parse culprit)" out &&
	test "$(sql lab.db "SELECT count(*) FROM runs r LEFT JOIN run_targets t ON t.run_id = r.id WHERE r.experiment_id = 1 AND t.class IS NOT '\''fake'\''")" = 0 &&
	sql lab.db "SELECT r.variant_id, count(DISTINCT t.target), count(*) FROM runs r JOIN run_targets t ON t.run_id = r.id WHERE r.experiment_id = 1 GROUP BY r.variant_id" >per-commit &&
	cat per-commit &&
	test "$(awk -F"|" "\$3 >= 2 && \$2 != 2" per-commit | wc -l)" = 0
'

test_expect_success 'bisect --targets: a step boots as many commits as there are targets, at once' '
	rc=0 && "$LAB" bisect --config bisect.conf --db k.db --good base --bad main --workload zeroing \
		--iters 10 --mem 1G --targets fake --cmdline sleep=0.3 >out 2>err || rc=$? &&
	test $rc = 0 && grep -q "^culprit: $(git -C repo rev-parse culprit)" out &&
	grep -q "^  boot .* on l1)" err && grep -q "^  boot .* on l2)" err &&
	# two candidates (neither end) booting at the same time, one on each target
	test "$(sql k.db "SELECT count(*) FROM runs a JOIN run_targets ta ON ta.run_id = a.id
		JOIN variants va ON va.id = a.variant_id, runs b JOIN run_targets tb ON tb.run_id = b.id
		JOIN variants vb ON vb.id = b.variant_id WHERE ta.target = '\''l1'\'' AND tb.target = '\''l2'\''
		AND va.id != vb.id AND va.name NOT IN ('\''G'\'', '\''B'\'') AND vb.name NOT IN ('\''G'\'', '\''B'\'')
		AND a.started < b.ended AND b.started < a.ended")" -ge 1
'

test_done
