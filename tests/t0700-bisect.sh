#!/bin/bash
# lab bisect on a history made here: a project whose build makes a program
# that prints noisy samples, 10 % slower from one commit on.
. "$(dirname "$0")/lib.sh"

export FAKE=$TOP/tests/fixtures/fake-guest.sh
export FAKE_SEED_FILE=$TRASH/seed

IMAGE='#!/bin/sh\nexec "$FAKE" "$@" scale=%s %s\n'
# a commit with the file broken does not build; one with runfail, its run fails
BUILD='test -e broken && { echo "error: broken" >&2; exit 1; }
test -e runfail && extra=fail=1'

# fake_history's step: 10 % slower from change 12 on (tagged culprit), the
# run of change 14 failing, change 15 not building
history_step() {
	case $i in
	12) echo 1.10 >repo/scale && tag=culprit ;;
	14) touch repo/runfail ;;
	15) rm repo/runfail && touch repo/broken ;;
	16) rm repo/broken ;;
	esac
}

# The first step of 30 is the midpoint, change 15; with it skipped, the
# next is change 14: both are visited before anything is measured.
test_expect_success 'setup: 30 commits, a shift at 12, a broken build at 15, a failing run at 14' '
	fake_project repo "$IMAGE" "$BUILD" && fake_history repo 30 history_step &&
	local_conf "$PWD/repo" >lab.conf
'

test_expect_success 'bisect finds the commit that shifted the metric' '
	rc=0 && "$LAB" bisect --db lab.db --good base --bad main --workload zeroing --iters 10 >out 2>err || rc=$? &&
	cat out && test "$rc" = 0 &&
	grep -qx "bisection E1 started; continue it, if it stops, with: lab bisect --db lab.db --resume E1" err &&
	grep -q "^culprit: $(git -C repo rev-parse culprit)" out &&
	grep -q "subject: change 12" out &&
	test "$(sql lab.db "SELECT culprit FROM bisections WHERE experiment_id = 1")" = "$(git -C repo rev-parse culprit)" &&
	test "$(sql lab.db "SELECT metric FROM bisections WHERE experiment_id = 1")" = t &&
	grep -q "explains the whole" out
'

test_expect_success 'lab list shows the bisection with its culprit'\''s short id, within 100 columns' '
	"$LAB" list --db lab.db >list &&
	cat list &&
	test "$(LC_ALL=C.UTF-8 wc -L <list)" -le 100 &&
	grep -E "^ +E1 .* bisect .* $(git -C repo rev-parse --short=12 culprit)$" list
'

test_expect_success 'the culprit line counts every boot, the confirmation'\''s too' '
	boots=$(sed -n "s/^  good -> bad .*, \([0-9]*\) boots\$/\1/p" out) &&
	test -n "$boots" &&
	test "$boots" = "$(sql lab.db "SELECT count(*) FROM runs WHERE experiment_id = 1")" &&
	test "$(sql lab.db "SELECT count(*) FROM runs r JOIN variants v ON v.id = r.variant_id WHERE r.experiment_id = 1 AND v.name = '\''P'\''")" -ge 2
'

test_expect_success 'every interval says its level; the effect'\''s is stored with it' '
	alpha=$(sql lab.db "SELECT effect_alpha FROM bisections WHERE experiment_id = 1") &&
	level=$(awk -v a="$alpha" "BEGIN { printf \"%.3g\", 100 * (1 - a) }") &&
	grep -q "^  good -> bad t: +[0-9.]* % \[+[0-9.]*, +[0-9.]*\] ($level% CI), " out &&
	grep -q "^confirmation, culprit^ vs culprit .*: [-+][0-9.]* % \[[-+0-9., ]*\] (99% CI),\$" out &&
	grep -q "^step [0-9]*: .* is BAD (n [0-9]*, M/G +[0-9.]* % \[+[0-9.]*, +[0-9.]*\], 99% CI; " err &&
	grep "^  t  *+[0-9.]* % \[+[0-9.]*, +[0-9.]*\] ([0-9.]*% CI) REGRESSION\$" err &&
	grep "^step \|^  t  " err >said &&
	test -z "$(awk "length > 100" said)" &&
	"$LAB" bisect --db lab.db --status 1 >status &&
	grep -q "^  effect good -> bad: +[0-9.]* % \[+[0-9.]*, +[0-9.]*\] ($level% CI)$" status
'

test_expect_success 'the broken build and the failing run were visited and skipped, never good or bad' '
	for c in "change 15" "change 14"; do
		id=$(git -C repo log --format=%H --grep="^$c\$") &&
		marks=$(sql lab.db "SELECT group_concat(mark) FROM bisect_steps WHERE experiment_id = 1 AND git_commit = '\''$id'\''") &&
		test "$marks" = SKIP || { echo "$c: marks '\''$marks'\''"; exit 1; }
	done &&
	test "$(sql lab.db "SELECT count(*) FROM runs r JOIN variants v ON v.id = r.variant_id
		WHERE r.experiment_id = 1 AND r.status = '\''FAILED'\''")" -ge 1 &&
	grep -q "BUILD_FAILED" err
'

# Known breakage: a skip has no ratio, yet the step line prints
# "M/G nan, 99% CI [nan, nan]" and --status "0.0000 [0.0000, 0.0000]".
test_expect_success 'a skipped step shows no ratio, neither nan nor 0' '
	grep "^step [12]: .* is SKIP " err >skips &&
	test "$(wc -l <skips)" = 2 &&
	! grep nan skips &&
	"$LAB" bisect --db lab.db --status 1 >status &&
	grep "^ *[12]  [0-9a-f]*  SKIP " status >skips &&
	test "$(wc -l <skips)" = 2 &&
	! grep "0\.0000" skips
'

test_expect_success 'lab bisect --status shows the steps, each as stored' '
	"$LAB" bisect --db lab.db --status >status &&
	grep -q "^bisection E1: FOUND" status &&
	grep -qx "  culprit $(sql lab.db "SELECT culprit FROM bisections WHERE experiment_id = 1")" status &&
	sql lab.db "SELECT seq, substr(git_commit, 1, 12), mark FROM bisect_steps
		WHERE experiment_id = 1 ORDER BY seq" | tr "|" " " >want &&
	grep -q " GOOD$" want && grep -q " BAD$" want &&
	sed -n "s/^  *\([0-9][0-9]*\)  \([0-9a-f][0-9a-f]*\) *  \([A-Z][A-Z]*\)  .*/\1 \2 \3/p" status |
		awk "{ print \$1, substr(\$2, 1, 12), \$3 }" >got &&
	diff -u want got &&
	# each measured step as its own line said it: a change and its CI, no raw ratio
	grep -E "^ +[0-9]+  [0-9a-f]{12}  (GOOD|BAD) " status >rows &&
	test -s rows && ! grep -v -E "[0-9] (%|×) \[[^]]*\]$" rows
'

test_expect_success 'good and bad without a real difference: stop and say so' '
	rc=0 && "$LAB" bisect --db lab.db --good base --bad "main~29" --workload zeroing --iters 10 >out 2>err || rc=$? &&
	cat out && test "$rc" = 1 && grep -q "nothing to bisect" out
'

test_expect_success 'a shift inside a merged side branch is found' '
	git -C repo checkout -q -b side main~24 &&
	echo 1.00 >repo/scale && echo side1 >repo/side.txt && commit repo "side 1" &&
	echo 1.12 >repo/scale && commit repo "side 2 slows" && git -C repo tag side-culprit &&
	echo side3 >repo/side.txt && commit repo "side 3" &&
	git -C repo checkout -q main && git -C repo reset -q --hard base &&
	for i in 1 2 3 4; do echo "m $i" >repo/notes.txt; commit repo "main $i" || exit 1; done &&
	git -C repo merge -q --no-edit -X theirs side -m "merge side" &&
	for i in 5 6 7; do echo "m $i" >repo/notes.txt; commit repo "main $i" || exit 1; done &&
	test "$(cat repo/scale)" = 1.12 &&
	rc=0 && "$LAB" bisect --db lab.db --good base --bad main --workload zeroing --iters 10 >out 2>err || rc=$? &&
	cat out && test "$rc" = 0 &&
	grep -q "^culprit: $(git -C repo rev-parse side-culprit)" out
'

test_expect_success 'SIGTERM in the middle: INTERRUPTED, the boot under way INFRA, how to resume it' '
	last=$(sql lab.db "SELECT max(id) FROM experiments") &&
	{ "$LAB" bisect --db lab.db --good base --bad main --workload zeroing --iters 10 --cmdline sleep=0.2 >out 2>err & } &&
	pid=$! && id=$((last + 1)) && echo $id >interrupted-id &&
	test_when_finished "kill $pid 2>/dev/null || :" &&
	test_wait_until 60 "test \$(sql lab.db \"SELECT count(*) FROM bisect_steps WHERE experiment_id = $id\") -ge 1" &&
	kill -TERM $pid && { wait $pid; echo $? >rc; } &&
	cat err &&
	test "$(cat rc)" = 143 &&
	test "$(sql lab.db "SELECT status FROM experiments WHERE id = $id")" = INTERRUPTED &&
	test "$(sql lab.db "SELECT count(*) FROM runs WHERE experiment_id = $id AND status = '\''RUNNING'\''")" = 0 &&
	test "$(sql lab.db "SELECT count(*) FROM runs WHERE experiment_id = $id AND status = '\''INFRA'\'' AND error != '\''interrupted'\''")" = 0 &&
	sed -n "/^bisection E$id: interrupted, its finished boots kept; resume it with:\$/,\$p" err >said &&
	test "$(sed 1d said)" = "  lab bisect --db lab.db --resume E$id"
'

test_expect_success 'the command it said finds the same culprit with no sample lost or repeated' '
	id=$(cat interrupted-id) &&
	runs_before=$(sql lab.db "SELECT count(*) FROM runs WHERE experiment_id = $id AND status = '\''OK'\''") &&
	resume=$(sed -e 1d -e "2s/^ *lab //" said) &&
	rc=0 && eval "\"\$LAB\" $resume" >out 2>err || rc=$? &&
	cat out && test "$rc" = 0 &&
	grep -q "^culprit: $(git -C repo rev-parse side-culprit)" out &&
	test "$(sql lab.db "SELECT count(*) FROM runs WHERE experiment_id = $id AND status = '\''RUNNING'\''")" = 0 &&
	test "$(sql lab.db "SELECT count(*) FROM samples s JOIN runs r ON r.id = s.run_id WHERE r.experiment_id = $id AND r.status = '\''OK'\''")" = \
	     "$(sql lab.db "SELECT 10 * count(*) FROM runs WHERE experiment_id = $id AND status = '\''OK'\''")" &&
	test "$(sql lab.db "SELECT count(*) FROM runs WHERE experiment_id = $id AND status = '\''OK'\''")" -gt "$runs_before" &&
	# a build ahead dies with the lab that started it
	! pgrep -f "lab build --db lab.db" >/dev/null
'

test_expect_success 'SIGTERM when INTERRUPTED cannot be stored: the failure said, exit 2, how to go on' '
	cp lab.db refuse.db &&
	sql refuse.db "CREATE TRIGGER refuse BEFORE UPDATE OF status ON experiments WHEN NEW.status = '\''INTERRUPTED'\'' BEGIN SELECT RAISE(ABORT, '\''refused here'\''); END" &&
	last=$(sql refuse.db "SELECT max(id) FROM experiments") && id=$((last + 1)) &&
	{ "$LAB" bisect --db refuse.db --good base --bad main --workload zeroing --iters 10 --cmdline sleep=0.2 >out 2>err & } &&
	pid=$! && test_when_finished "kill $pid 2>/dev/null || :" &&
	test_wait_until 60 "test \$(sql refuse.db \"SELECT count(*) FROM bisect_steps WHERE experiment_id = $id\") -ge 1" &&
	kill -TERM $pid && { wait $pid; echo $? >rc; } &&
	cat err &&
	test "$(cat rc)" = 2 &&
	grep -qx "lab: cannot mark experiment interrupted in database '\''refuse.db'\'': refused here" err &&
	test "$(sql refuse.db "SELECT status FROM experiments WHERE id = $id")" = RUNNING &&
	! grep -q "interrupted, its finished boots kept" err &&
	grep -qx "bisection E$id stopped; continue it with: lab bisect --db refuse.db --resume E$id" err &&
	sql refuse.db "DROP TRIGGER refuse" &&
	rc=0 && "$LAB" bisect --db refuse.db --resume E$id >out 2>err || rc=$? &&
	cat out && test "$rc" = 0 &&
	grep -q "^culprit: $(git -C repo rev-parse side-culprit)" out
'

# Wall time: while a commit boots, the commits that can come after it are
# built by a lab build of their own; each is built once, the bisection
# finding in the cache what was built ahead.
test_expect_success 'the candidates after a step are built while it boots, each once' '
	mkdir ahead &&
	printf "#!/bin/sh\necho built >>%s/ahead/builds\nexec ./build.sh\n" "$TRASH" >ahead/build &&
	chmod +x ahead/build &&
	printf "[core]\n\trepo = %s/repo\n[build]\n\tcommand = %s/ahead/build\n\tartifact = out/image\n[run]\n\trunner = local\n" \
		"$TRASH" "$TRASH" >ahead/lab.conf &&
	git -C repo checkout -q main &&
	rc=0 && "$LAB" bisect --config ahead/lab.conf --db ahead/lab.db --good base --bad main \
		--workload zeroing --iters 10 >out 2>err || rc=$? &&
	cat out && test "$rc" = 0 &&
	grep -q "^culprit: $(git -C repo rev-parse side-culprit)" out &&
	grep "^  building ahead: " err >told &&
	test -s told &&
	# one build a kernel: what was built ahead was found, not built again
	test "$(wc -l <ahead/builds)" = "$(sql ahead/lab.db "SELECT count(*) FROM kernels")" &&
	# what was named ahead was built: its kernel is in the database
	for c in $(sed -e "s/^  building ahead: //" -e "s/ and / /" told); do
		test "$(sql ahead/lab.db "SELECT count(*) FROM kernels WHERE git_commit LIKE '\''$c%'\''")" = 1 ||
			{ echo "$c was not built"; exit 1; }
	done &&
	# each step but the first and the last took a commit named before it, the step before
	sed -n "s/^step \([0-9]*\): \([0-9a-f]*\) .*/\1 \2/p" err >steps &&
	test "$(wc -l <steps)" -ge 3 &&
	while read -r k c; do
		test "$k" = 1 && continue
		grep -q "$c" told || { echo "step $k ($c) was not named ahead"; cat err; exit 1; }
	done <steps
'

test_expect_success 'lab bisect-step drives git bisect run to the same culprit' '
	git -C repo checkout -q main &&
	git -C repo bisect start main base >/dev/null &&
	git -C repo bisect run "$LAB" bisect-step --config "$TRASH/lab.conf" --db "$TRASH/lab.db" \
		--repo . --good base --bad main --workload zeroing --iters 10 >out 2>&1 &&
	git -C repo bisect reset >/dev/null 2>&1 &&
	grep -q "^$(git -C repo rev-parse side-culprit) is the first bad commit" out &&
	test "$(sql lab.db "SELECT count(*) FROM bisect_specs WHERE repo = '\''.'\''")" = 1
'

test_expect_success 'after git bisect run (and its reset), --status and the report show what git found, every step' '
	id=$(sql lab.db "SELECT experiment_id FROM bisect_specs WHERE repo = '\''.'\''") &&
	culprit=$(git -C repo rev-parse side-culprit) &&
	"$LAB" bisect --db lab.db --status "$id" >status &&
	cat status &&
	grep -q "^bisection E$id: FOUND\$" status &&
	grep -q "^  culprit $culprit\$" status &&
	steps=$(grep -c "^running" out) &&
	test "$steps" -ge 2 &&
	test "$(sql lab.db "SELECT count(*) FROM bisect_steps WHERE experiment_id = $id")" = "$steps" &&
	test "$(grep -c "^ *[0-9]*  [0-9a-f]\{12\}  \(GOOD\|BAD\|SKIP\) " status)" = "$steps" &&
	grep -q "^ *[0-9]*  $(git -C repo rev-parse --short=12 side-culprit)  BAD " status &&
	test "$(sql lab.db "SELECT status FROM experiments WHERE id = $id")" = DONE &&
	"$LAB" report --db lab.db --out site >/dev/null 2>&1 &&
	grep -q "class=\"badge v-found\">FOUND<" site/b$id.html &&
	grep -q "<code>$culprit</code>" site/b$id.html
'

# "main 4" is good and no ancestor of the side branch: the lab never steps
# on main 1..4, git's refs/bisect/good-* say they are good.
test_expect_success 'git bisect started from a later good commit: its own marks end the search too' '
	git -C repo bisect start main main~4 >/dev/null &&
	git -C repo bisect run "$LAB" bisect-step --config "$TRASH/lab.conf" --db "$TRASH/lab.db" \
		--repo . --good base --bad main --workload zeroing --iters 10 --param later=1 >out 2>&1 &&
	first=$(sed -n "s/^\([0-9a-f]*\) is the first bad commit\$/\1/p" out) &&
	git -C repo bisect reset >/dev/null 2>&1 &&
	test "$first" = "$(git -C repo rev-parse side-culprit)" &&
	id=$(sql lab.db "SELECT max(experiment_id) FROM bisect_specs WHERE repo = '\''.'\''") &&
	"$LAB" bisect --db lab.db --status "$id" >status &&
	grep -q "^bisection E$id: FOUND\$" status &&
	grep -q "^  culprit $first\$" status
'

# Boots without noise repeat to the last digit, as in virtual time: the
# culprit (+50 %) and good -> bad (+50.5 %, a later commit adds 0.3 %) have
# no spread, so no z (it would be 0, or infinite for the 0.3 %).
FLAT_IMAGE='#!/bin/sh\nexec "$FAKE" "$@" scale=%s cv=0\n'
flat_step() {
	case $i in
	3) echo 1.50 >flat/scale && tag=culprit ;;
	5) echo 1.505 >flat/scale ;;
	esac
}

test_expect_success 'a confirmation without spread says the culprit is the same as good -> bad' '
	mkdir flat-lab && (
		cd flat-lab &&
		fake_project flat "$FLAT_IMAGE" &&
		fake_history flat 6 flat_step && local_conf "$PWD/flat" >lab.conf &&
		"$LAB" bisect --db lab.db --good base --bad main --workload zeroing --iters 10 >out 2>err &&
		grep -q "^culprit: $(git -C flat rev-parse culprit)" out &&
		grep -A1 "^confirmation, culprit^ vs culprit (4/4 boots): +50.0 % \[+50.0, +50.0\] (99% CI),\$" out >conf &&
		test "$(tail -n 1 conf)" = "  the same as good -> bad (the boots repeat without spread)" &&
		grep -q "^  the culprit explains the whole good -> bad effect (+50.5 %)\$" out &&
		! grep -iw "inf\|nan" out
	)
'

test_done
