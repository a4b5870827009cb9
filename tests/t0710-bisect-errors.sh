#!/bin/bash
# lab bisect refusing what it cannot do, before it boots or stores anything,
# and stopping (exit 2, resumable) on the lab's own failures.
. "$(dirname "$0")/lib.sh"

export FAKE=$TOP/tests/fixtures/fake-guest.sh
export FAKE_SEED_FILE=$TRASH/seed

# a commit with the file broken does not build; with nospace, its build runs
# out of disk space; with slow, it takes 30 s
BUILD='test -e broken && { echo "error: broken" >&2; exit 1; }
test -e nospace && { echo "cc1: error: out/x.o: No space left on device" >&2; exit 1; }
test -e slow && sleep 30'

# fake_history's step: change 2 not building, 30 % slower from change 4
# on, each commit tagged cI
history_step() {
	case $i in
	2) touch repo/broken ;; 3) rm repo/broken ;;
	4) echo 1.30 >repo/scale ;;
	esac
	tag=c$i
}

test_expect_success 'setup: 8 commits, a shift at 4, a broken build at 2, the lab failing at 6' '
	fake_project repo "$FAKE_IMAGE" "$BUILD" && fake_history repo 8 history_step &&
	local_conf "$PWD/repo" >lab.conf &&
	printf "[core]\n\trepo = %s/repo\n" "$PWD" >qemu.conf
'

test_expect_success 'a missing end or workload is named, before a database exists' '
	mkdir noends && (cd noends &&
		rc=0 && "$LAB" bisect --good base --workload zeroing 2>err || rc=$? &&
		test "$rc" = 2 &&
		expect_one_line_naming err "^lab: .lab bisect. needs --good REF, --bad REF and --workload W; missing: --bad REF$" &&
		rc=0 && "$LAB" bisect-step 2>err || rc=$? &&
		test "$rc" = 128 &&
		expect_one_line_naming err "missing: --good REF, --bad REF, --workload W$" &&
		test ! -e state)
'

test_expect_success 'an unknown metric of the lab guest is refused before anything is built or stored' '
	rc=0 && "$LAB" bisect --config qemu.conf --db q.db --good base --bad main --workload demote \
		--metric nosuch >out 2>err || rc=$? &&
	test "$rc" = 2 &&
	test "$(unwrapped err)" = "lab: unknown metric '\''nosuch'\'' for workload '\''demote'\'' (known: demote_page_wall, demote_page_sys, demote_total_wall, demote_total_sys)" &&
	test "$(sql q.db "SELECT count(*) FROM experiments")" = 0
'

test_expect_success 'a build.command project booted by QEMU: an unknown metric is refused before its build' '
	printf "#!/bin/sh\ntouch \"%s/built\"\nexec ./build.sh\n" "$PWD" >mark-build.sh &&
	chmod +x mark-build.sh &&
	printf "[core]\n\trepo = %s/repo\n[build]\n\tcommand = %s/mark-build.sh\n\tartifact = out/image\n[run]\n\trunner = qemu\n" \
		"$PWD" "$PWD" >built.conf &&
	rc=0 && "$LAB" bisect --config built.conf --db b.db --good base --bad main --workload zeroing \
		--metric nosuch >out 2>err || rc=$? &&
	test "$rc" = 2 &&
	test "$(cat err)" = "lab: unknown metric '\''nosuch'\'' for workload '\''zeroing'\'': did you mean '\''touch'\''?" &&
	test ! -e built &&
	test "$(sql b.db "SELECT count(*) FROM experiments")" = 0 &&
	test "$(sql b.db "SELECT count(*) FROM runs")" = 0
'

test_lazy_prereq STRESS_NG 'stress-ng --version'

test_expect_success STRESS_NG 'stress-ng'\''s metrics are known: lab bisect-step refuses another before its build' '
	rc=0 && "$LAB" bisect-step --config built.conf --db b.db --repo repo --good base --bad main \
		--workload stress-ng:cpu --metric bogo_ops >out 2>err || rc=$? &&
	test "$rc" = 128 && test ! -e built &&
	expect_one_line_naming err "unknown metric '\''bogo_ops'\'' for workload '\''stress-ng:cpu'\'': did you mean '\''bogo_ops_s'\''?"
'

test_expect_success 'a [workload] section'\''s declared metric passes; the local runner'\''s artifact tells after a boot' '
	printf "#!/bin/sh\necho \"t 1 ms\"\n" >prog.sh && chmod +x prog.sh &&
	printf "[workload \"prog\"]\n\tprogram = %s/prog.sh\n\tlower = nosuch\n" "$PWD" >>built.conf &&
	rc=0 && "$LAB" bisect --config built.conf --db b.db --good base --bad main --workload prog \
		--metric nosuch >out 2>err || rc=$? &&
	test "$rc" = 2 && ! grep -q "unknown metric" err && test -e built &&
	test "$(sql b.db "SELECT count(*) FROM experiments")" = 1 &&
	rc=0 && "$LAB" bisect --config built.conf --db b.db --good base --bad main --workload zeroing \
		--runner local --iters 3 --metric nosuch >out 2>err || rc=$? &&
	test "$rc" = 2 &&
	test "$(sql b.db "SELECT count(*) FROM runs WHERE experiment_id = 2")" = 1 &&
	grep -qx "lab: unknown metric '\''nosuch'\'' for workload '\''zeroing'\'' (the good end reported: t)" err
'

test_expect_success 'a metric family of the boot workload is known' '
	rc=0 && "$LAB" bisect --config qemu.conf --db q.db --good base --bad main --workload boot \
		--metric deferred_init_node1 >out 2>err || rc=$? &&
	test "$rc" = 2 && ! grep -q "unknown metric" err &&
	grep -q "the good end .* does not build" err
'

test_expect_success 'a metric the good end does not report stops after its first boot' '
	rc=0 && timeout 120 "$LAB" bisect --db lab.db --good base --bad main --workload zeroing \
		--iters 10 --metric nosuch >out 2>err || rc=$? &&
	test "$rc" = 2 &&
	grep -qx "lab: unknown metric '\''nosuch'\'' for workload '\''zeroing'\'' (the good end reported: t)" err &&
	test "$(sql lab.db "SELECT count(*) FROM runs")" = 1
'

test_expect_success 'such a bisection ends FAILED, not RUNNING; its resume says it is over and boots nothing' '
	grep -qx "bisection E1 ended FAILED: no resume can finish it ('\''lab bisect --status 1'\'')" err &&
	! grep -q "continue it with" err &&
	test "$(sql lab.db "SELECT outcome || \" \" || metric FROM bisections WHERE experiment_id = 1")" = "FAILED nosuch" &&
	test "$(sql lab.db "SELECT status FROM experiments WHERE id = 1")" = DONE &&
	rc=0 && timeout 120 "$LAB" bisect --db lab.db --resume 1 >out 2>err || rc=$? &&
	test "$rc" = 2 &&
	test "$(unwrapped err)" = "lab: bisection E1 is over: it ended FAILED, a boot of an end reported no '\''nosuch'\'' ('\''lab bisect --status 1'\''); start a new one" &&
	test "$(sql lab.db "SELECT count(*) FROM runs")" = 1 &&
	"$LAB" bisect --db lab.db --status 1 >out &&
	grep -qx "bisection E1: FAILED" out
'

test_expect_success 'every boot counts against a budget: the bisection stops, resumable' '
	last=$(sql lab.db "SELECT COALESCE(max(id), 0) FROM experiments") && id=$((last + 1)) &&
	rc=0 && timeout 120 "$LAB" bisect --db lab.db --good base --bad main --workload zeroing \
		--iters 10 --max-boots 5 >out 2>err || rc=$? &&
	test "$rc" = 2 &&
	grep -q "^lab: boot budget of 5 boots used up" err &&
	grep -qx "bisection E$id stopped; continue it with: lab bisect --db lab.db --resume E$id" err &&
	test "$(sql lab.db "SELECT count(*) FROM runs WHERE experiment_id = $id")" = 5 &&
	test "$(sql lab.db "SELECT COALESCE(outcome, '\''RUNNING'\'') FROM bisections WHERE experiment_id = $id")" = RUNNING
'

test_expect_success '--numa is a bisection option, kept for --resume; a bad value is refused' '
	last=$(sql lab.db "SELECT COALESCE(max(id), 0) FROM experiments") && id=$((last + 1)) &&
	rc=0 && timeout 120 "$LAB" bisect --db lab.db --good base --bad main --workload zeroing \
		--iters 10 --numa 2 --max-boots 1 >out 2>err || rc=$? &&
	test "$rc" = 2 &&
	test "$(sql lab.db "SELECT numa FROM bisect_specs WHERE experiment_id = $id")" = 2 &&
	rc=0 && "$LAB" bisect --db lab.db --good base --bad main --workload zeroing --numa 0 \
		2>err || rc=$? &&
	test "$rc" = 2 && expect_one_line_naming err "bad value '\''0'\'' for --numa"
'

test_expect_success 'a resume reads the stored spec back as data, not options text' '
	last=$(sql lab.db "SELECT COALESCE(max(id), 0) FROM experiments") && id=$((last + 1)) &&
	test_expect_code 2 timeout 120 "$LAB" bisect --db lab.db --good base --bad main \
		--workload zeroing --iters 7 --param tag=x --cmdline sleep=0 --max-boots 2 \
		>out 2>err &&
	test "$(sql lab.db "SELECT good_ref || '\'' '\'' || bad_ref || '\'' '\'' || workload_list || '\'' '\'' || iters || '\'' '\'' || guest_params || '\'' '\'' || kernel_cmdline || '\'' '\'' || max_boots FROM bisect_specs WHERE experiment_id = $id")" = \
	     "base main zeroing 7 tag=x sleep=0 2" &&
	test_expect_code 2 timeout 120 "$LAB" bisect --db lab.db --resume $id --max-boots 4 \
		>out 2>err &&
	grep -q "^lab: boot budget of 4 boots used up" err &&
	test "$(sql lab.db "SELECT count(DISTINCT params || '\''|'\'' || cmdline) || '\'' '\'' || count(*) FROM runs WHERE experiment_id = $id")" = "1 4" &&
	sql lab.db "SELECT params FROM runs WHERE experiment_id = $id" | grep -q "lab.iters=7 lab.tag=x"
'

test_expect_success '--fragment: stored with its blob id and whole path; a resume refuses it changed' '
	mkdir -p frag && echo CONFIG_HUGETLBFS=y >frag/host.config &&
	last=$(sql lab.db "SELECT COALESCE(max(id), 0) FROM experiments") && id=$((last + 1)) &&
	test_expect_code 2 timeout 120 "$LAB" bisect --db lab.db --good base --bad main \
		--workload zeroing --iters 10 --fragment frag/host.config --max-boots 2 >out 2>err &&
	test "$(sql lab.db "SELECT config_fragments FROM bisect_specs WHERE experiment_id = $id")" = \
		"$(git hash-object frag/host.config) $PWD/frag/host.config" &&
	echo CONFIG_NUMA=y >>frag/host.config &&
	test_expect_code 2 "$LAB" bisect --db lab.db --resume $id --max-boots 4 >out 2>err &&
	expect_one_line_naming err "config fragment '\''$PWD/frag/host.config'\'' changed since bisection E$id started" &&
	test "$(sql lab.db "SELECT count(*) FROM runs WHERE experiment_id = $id")" = 2
'

test_expect_success '--fragment: put back, the bisection resumes from another directory' '
	id=$(sql lab.db "SELECT max(experiment_id) FROM bisect_specs") &&
	echo CONFIG_HUGETLBFS=y >frag/host.config &&
	(cd frag && test_expect_code 2 timeout 120 "$LAB" bisect --config ../lab.conf --db ../lab.db \
		--resume $id --max-boots 4 >out 2>err) &&
	grep -q "^lab: boot budget of 4 boots used up" frag/err &&
	test "$(sql lab.db "SELECT count(*) FROM runs WHERE experiment_id = $id")" = 4
'

test_expect_success '--fragment: a file that cannot be read is refused, nothing stored' '
	last=$(sql lab.db "SELECT COALESCE(max(id), 0) FROM experiments") &&
	test_expect_code 2 "$LAB" bisect --db lab.db --good base --bad main --workload zeroing \
		--fragment frag/nosuch.config >out 2>err &&
	expect_one_line_naming err "cannot read config fragment '\''frag/nosuch.config'\'': No such file or directory" &&
	test "$(sql lab.db "SELECT COALESCE(max(id), 0) FROM experiments")" = "$last"
'

test_expect_success '--fragment: a fifo is refused at once, saying what it is, nothing stored' '
	last=$(sql lab.db "SELECT COALESCE(max(id), 0) FROM experiments") &&
	mkfifo frag/fifo.config &&
	rc=0 && timeout 20 "$LAB" bisect --db lab.db --good base --bad main --workload zeroing \
		--fragment frag/fifo.config >out 2>err || rc=$? &&
	test $rc = 2 &&
	expect_one_line_naming err "config fragment '\''.*/frag/fifo.config'\'' is a fifo, not a regular file" &&
	test "$(sql lab.db "SELECT COALESCE(max(id), 0) FROM experiments")" = "$last"
'

test_expect_success 'a resume measures the commits it started with, wherever the refs point now' '
	git -C repo branch -f moving c8 &&
	last=$(sql lab.db "SELECT COALESCE(max(id), 0) FROM experiments") && id=$((last + 1)) &&
	test_expect_code 2 timeout 120 "$LAB" bisect --db lab.db --good base --bad moving \
		--workload zeroing --iters 10 --metric t --max-boots 2 >out 2>err &&
	git -C repo branch -f moving c5 &&
	test_expect_code 2 timeout 120 "$LAB" bisect --db lab.db --resume $id --max-boots 4 >out 2>err &&
	grep -q "^lab: boot budget of 4 boots used up" err &&
	test "$(sql lab.db "SELECT git_ref FROM variants WHERE experiment_id = $id AND name = '\''B'\''")" = \
		"$(git -C repo rev-parse c8)" &&
	test "$(sql lab.db "SELECT count(*) FROM runs r JOIN variants v ON v.id = r.variant_id WHERE r.experiment_id = $id AND v.name = '\''B'\''")" = 2
'

test_expect_success 'lab bisect-step: a ref that moved since is another bisection, never the stored ends' '
	git -C repo branch -f moving c8 &&
	for to in c8 c5; do
		git -C repo branch -f moving $to &&
		(cd repo && "$LAB" bisect-step --config ../lab.conf --db ../moved.db --good base \
			--bad moving --workload zeroing --iters 10 --metric t --max-boots 2 >/dev/null 2>&1)
		test $? = 128 || return 1
	done &&
	test "$(sql moved.db "SELECT group_concat(bad) FROM (SELECT bad FROM bisections ORDER BY experiment_id)")" = \
		"$(git -C repo rev-parse c8),$(git -C repo rev-parse c5)"
'

test_expect_success 'an option that would change a resumed bisection is refused, not ignored' '
	id=$(sql lab.db "SELECT max(experiment_id) FROM bisect_specs") &&
	runs=$(sql lab.db "SELECT count(*) FROM runs WHERE experiment_id = $id") &&
	test_expect_code 2 "$LAB" bisect --db lab.db --resume $id --max-boots 9 --iters 5 >out 2>err &&
	expect_one_line_naming err "--iters cannot be given with --resume: bisection E$id goes on with the options it started with" &&
	test_expect_code 2 "$LAB" bisect --db lab.db --resume $id --fragment frag/host.config >out 2>err &&
	expect_one_line_naming err "--fragment cannot be given with --resume" &&
	test "$(sql lab.db "SELECT count(*) FROM runs WHERE experiment_id = $id")" = "$runs"
'

test_expect_success 'a bisection stored without its spec (an older lab) is refused in one line' '
	id=$(sql lab.db "SELECT max(experiment_id) FROM bisect_specs") &&
	sql lab.db "DELETE FROM bisect_specs WHERE experiment_id = $id" &&
	runs=$(sql lab.db "SELECT count(*) FROM runs WHERE experiment_id = $id") &&
	test_expect_code 2 "$LAB" bisect --db lab.db --resume $id >out 2>err &&
	expect_one_line_naming err "bisection E$id in database '\''lab.db'\'' was stored by an older lab" &&
	test "$(sql lab.db "SELECT count(*) FROM runs WHERE experiment_id = $id")" = "$runs"
'

test_expect_success 'lab bisect --status ID, as the usage says: the stored outcome, ends, culprit and boots' '
	b() { sql lab.db "SELECT $1 FROM bisections WHERE experiment_id = 1"; } &&
	"$LAB" bisect --db lab.db --status 1 >out &&
	test "$(head -n 1 out)" = "bisection E1: $(sql lab.db "SELECT COALESCE(b.outcome, e.status)
		FROM bisections b JOIN experiments e ON e.id = b.experiment_id WHERE e.id = 1")" &&
	grep -qx "  good $(b good)" out && grep -qx "  bad  $(b bad)" out &&
	culprit=$(b culprit) && grep -qx "  culprit ${culprit:--}" out &&
	grep -q "^  $(sql lab.db "SELECT count(*) FROM runs WHERE experiment_id = 1") boots, " out
'

test_expect_success 'good and bad the same commit: refused, nothing stored' '
	before=$(sql lab.db "SELECT count(*) FROM bisections") &&
	rc=0 && "$LAB" bisect --db lab.db --good c3 --bad c3 --workload zeroing >out 2>err || rc=$? &&
	test "$rc" = 2 &&
	expect_one_line_naming err "good and bad are the same commit" &&
	test "$(sql lab.db "SELECT count(*) FROM bisections")" = "$before"
'

test_expect_success 'bad not after good: refused, nothing stored' '
	before=$(sql lab.db "SELECT count(*) FROM bisections") &&
	rc=0 && "$LAB" bisect --db lab.db --good c3 --bad c1 --workload zeroing >out 2>err || rc=$? &&
	test "$rc" = 2 &&
	expect_one_line_naming err "is not a descendant of good" &&
	test "$(sql lab.db "SELECT count(*) FROM bisections")" = "$before"
'

test_expect_success 'bisect-step: bad not after good refused before the bisection is stored' '
	before=$(sql lab.db "SELECT count(*) FROM bisections") &&
	rc=0 && (cd repo && "$LAB" bisect-step --config "$TRASH/lab.conf" --db "$TRASH/lab.db" \
		--good c3 --bad c1 --workload zeroing >../out 2>../err) || rc=$? &&
	test "$rc" != 0 && test "$rc" != 1 &&
	expect_one_line_naming err "is not a descendant of good" &&
	test "$(sql lab.db "SELECT count(*) FROM bisections")" = "$before"
'

test_expect_success 'a database error while recording a step stops the bisection' '
	cp lab.db locked.db &&
	sql locked.db "CREATE TRIGGER no_steps BEFORE INSERT ON bisect_steps BEGIN SELECT RAISE(ABORT, '\''steps refused'\''); END" &&
	rc=0 && timeout 300 "$LAB" bisect --db locked.db --good base --bad main --workload zeroing \
		--iters 10 --metric t >out 2>err || rc=$? &&
	test "$rc" = 2 &&
	grep -q "^lab: cannot record bisect step.*steps refused" err &&
	! grep -q "^culprit" out
'

test_expect_success 'lab bisect-step --help gives its own usage with the exit codes' '
	"$LAB" bisect-step --help >out &&
	grep -q "^usage: lab bisect-step" out &&
	grep -q "125" out && grep -q "128" out
'

test_expect_success 'lab bisect-step on a commit that does not build: skip, with n 0' '
	git -C repo checkout -q c2 &&
	rc=0 && (cd repo && "$LAB" bisect-step --config "$TRASH/lab.conf" --db "$TRASH/step.db" \
		--repo . --good base --bad main --workload zeroing --iters 10 --metric t) >out 2>err || rc=$? &&
	git -C repo checkout -q main &&
	test "$rc" = 125 &&
	grep -q "^$(git -C repo rev-parse --short=12 c2): SKIP (n 0, " err
'

test_expect_success 'a build that runs out of disk space is the lab'\''s failure: stop, never skip' '
	git -C repo checkout -q -b infra base &&
	for i in 1 2 3; do
		echo "infra $i" >repo/notes.txt
		case $i in 1) touch repo/nospace ;; 3) rm repo/nospace; echo 1.30 >repo/scale ;; esac
		commit repo "infra $i" || exit 1
	done &&
	last=$(sql lab.db "SELECT COALESCE(max(id), 0) FROM experiments") && id=$((last + 1)) &&
	rc=0 && timeout 300 "$LAB" bisect --db lab.db --good base --bad infra --workload zeroing \
		--iters 10 --metric t >out 2>err || rc=$? &&
	test "$rc" = 2 &&
	grep -qi "no space left on device" err &&
	grep -qx "bisection E$id stopped; continue it with: lab bisect --db lab.db --resume E$id" err &&
	test "$(sql lab.db "SELECT count(*) FROM bisect_steps WHERE experiment_id = $id AND mark = '\''SKIP'\''")" = 0
'

test_expect_success 'a build past its deadline is the lab'\''s failure too' '
	git -C repo checkout -q -b deadline base &&
	for i in 1 2 3; do
		echo "slow $i" >repo/notes.txt
		case $i in 1) touch repo/slow ;; 3) rm repo/slow; echo 1.30 >repo/scale ;; esac
		commit repo "slow $i" || exit 1
	done &&
	git -C repo checkout -q main &&
	printf "[core]\n\trepo = %s/repo\n[build]\n\tcommand = ./build.sh\n\tartifact = out/image\n\ttimeout = 2\n[run]\n\trunner = local\n" "$PWD" >slow.conf &&
	rc=0 && timeout 300 "$LAB" bisect --config slow.conf --db lab.db --good base --bad deadline \
		--workload zeroing --iters 10 --metric t >out 2>err || rc=$? &&
	test "$rc" = 2 &&
	grep -q "ran past 2 s" err &&
	test "$(sql lab.db "SELECT count(*) FROM bisect_steps WHERE mark = '\''SKIP'\'' AND git_commit IN ('\''$(git -C repo rev-parse deadline~1)'\'', '\''$(git -C repo rev-parse deadline~2)'\'')")" = 0
'

test_expect_success 'a bisection is run by one lab at a time' '
	last=$(sql lab.db "SELECT COALESCE(max(id), 0) FROM experiments") && id=$((last + 1)) &&
	{ "$LAB" bisect --db lock.db --good base --bad c8 --workload zeroing \
		--iters 10 --metric t --cmdline sleep=0.2 >out1 2>err1 & } &&
	first=$! &&
	for _ in $(seq 300); do grep -q "bisection E1 started" err1 2>/dev/null && break; sleep 0.1; done &&
	rc=0 && "$LAB" bisect --db lock.db --resume 1 >out2 2>err2 || rc=$? &&
	kill $first && { wait $first || true; } &&
	test "$rc" = 2 &&
	expect_one_line_naming err2 "experiment E1 is being run by another lab (pid $first)"
'

test_done
