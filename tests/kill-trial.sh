#!/bin/bash
# The kill -9 trial: `lab ab` (local runner, a guest printing the same @lab
# lines every boot, --boots fixed) is killed with SIGKILL at random moments
# and resumed with the experiment it said it started, until it finishes;
# then another A/B in the same database, until KILLS kills are done. After
# each:
#   - its verdict table equals that of the same A/B never interrupted;
#   - pragma integrity_check is ok;
#   - each variant has exactly --boots OK runs, each with its samples once,
#     and no run stays RUNNING or owned;
#   - no process the killed lab had started outlived it.
#
#   kill-trial.sh KILLS [DIR]     (KILL_SEED=N repeats a trial)
# Prints what happened; exits non-zero on the first broken promise.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
LAB=${LAB:-$TOP/lab/lab}
FAKE=$TOP/tests/fixtures/fake-guest.sh
KILLS=${1:?usage: kill-trial.sh KILLS [DIR]}
DIR=${2:-}
BOOTS=6
ITERS=20
if [ -z "$DIR" ]; then
	DIR=$(mktemp -d "${TMPDIR:-/tmp}/lab-kill.XXXXXX")
	trap 'rm -rf "$DIR"' EXIT
fi
mkdir -p "$DIR/ref" "$DIR/trial" || exit 1
SEED=${KILL_SEED:-$$}
RANDOM=$SEED

fail() {
	echo "kill trial (seed $SEED): $*"
	exit 1
}

sql() {
	sqlite3 -batch -noheader lab.db "$1"
}

# The guest leaves a child of its own behind, as QEMU's helpers would: it
# outlives a boot by seconds unless the lab's end takes the boot's group.
GUEST=$DIR/guest.sh
printf '#!/bin/sh\nsleep 3 </dev/null >/dev/null 2>&1 &\nexec "%s" "$@"\n' "$FAKE" >"$GUEST" &&
	chmod +x "$GUEST" || exit 1

# fixed seeds: every boot of a variant prints the same samples, so killing
# and resuming cannot change the verdicts, only lose or double samples
ab=("$LAB" ab --db lab.db --runner local --guest "$GUEST" --workload zeroing
	--a-cmdline "scale=1.0 seed=1 sleep=0.1" --b-cmdline "scale=1.05 seed=2 sleep=0.1"
	--boots $BOOTS --iters $ITERS)

# the verdict table, without the experiment's id and the count of boots
# the kills interrupted
table() {
	"$LAB" show --db lab.db "E$1" | sed -E 's/E[0-9]+/E/g; s/, [0-9]+ failed$//'
}

descendants() {
	local kids
	kids=$(ps -o pid= --ppid "$1" 2>/dev/null) || return 0
	for k in $kids; do
		echo "$k"
		descendants "$k"
	done
}

# alive PID: exists and is not a zombie
alive() {
	local st
	st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d" " -f1) || return 1
	test -n "$st" && test "$st" != Z
}

cd "$DIR/ref" || exit 1
rc=0
"${ab[@]}" >out 2>err || rc=$?
[ $rc = 0 ] || [ $rc = 1 ] || fail "uninterrupted A/B: exit $rc: $(cat err)"
table 1 >../reference || fail "uninterrupted A/B: no table"

cd "$DIR/trial" || exit 1
kills=0 starts=0 orphans=0 rounds=0
# one A/B, killed until it finishes
one_round() {
	exp=
	while :; do
		args=()
		[ -n "$exp" ] && args=(--resume "E$exp")
		"${ab[@]}" "${args[@]}" >out 2>err &
		pid=$!
		starts=$((starts + 1))
		killed=
		if [ $kills -lt "$KILLS" ]; then
			# 0 to 1 s: before the experiment exists, in a boot, between boots, in a commit
			sleep "0.$(printf %03d $((RANDOM % 1000)))"
			kids=$(descendants $pid)
			kill -9 $pid 2>/dev/null && killed=1
		fi
		rc=0
		wait $pid 2>/dev/null || rc=$?
		e=$(sed -n -E 's/^experiment E([0-9]+): (started|resumed)$/\1/p' err | tail -n 1)
		[ -n "$e" ] && exp=$e
		if [ -n "$killed" ] && [ $rc = 137 ]; then
			kills=$((kills + 1))
			# the lab's children go at once; 2 s is slack for a loaded machine
			for _ in $(seq 20); do
				left=
				for k in $kids; do alive "$k" && left="$left $k"; done
				[ -z "$left" ] && break
				sleep 0.1
			done
			[ -z "$left" ] || fail "kill $kills: processes of the killed lab alive:$left"
			continue
		fi
		[ $rc = 0 ] || [ $rc = 1 ] || fail "start $starts: exit $rc: $(cat err)"
		break
	done
	rounds=$((rounds + 1))

	table "$exp" >table || fail "no table for E$exp"
	diff -u ../reference table || fail "E$exp: the verdict table differs from the uninterrupted one"
	[ "$(sql "PRAGMA integrity_check")" = ok ] ||
		fail "integrity_check: $(sql "PRAGMA integrity_check")"
	for v in A B; do
		n=$(sql "SELECT count(*) FROM runs r JOIN variants v ON v.id = r.variant_id
			WHERE r.experiment_id = $exp AND v.name = '$v' AND r.status = 'OK'")
		[ "$n" = $BOOTS ] || fail "E$exp, variant $v: $n OK runs, want $BOOTS"
	done
	bad=$(sql "SELECT count(*) FROM runs r WHERE r.status = 'OK' AND
		(SELECT count(*) FROM samples s WHERE s.run_id = r.id) != $ITERS")
	[ "$bad" = 0 ] || fail "$bad OK runs without exactly $ITERS samples"
	doubled=$(sql "SELECT count(*) FROM (SELECT 1 FROM samples GROUP BY run_id, workload,
		metric, iteration HAVING count(*) > 1)")
	[ "$doubled" = 0 ] || fail "$doubled samples stored twice"
	stray=$(sql "SELECT count(*) FROM samples s JOIN runs r ON r.id = s.run_id
		WHERE r.status != 'OK'")
	[ "$stray" = 0 ] || fail "$stray samples of runs that did not finish"
	running=$(sql "SELECT count(*) FROM runs WHERE status = 'RUNNING'")
	[ "$running" = 0 ] || fail "$running runs left RUNNING"
	owned=$(sql "SELECT count(*) FROM run_owners")
	[ "$owned" = 0 ] || fail "$owned runs still owned"
}

while [ $kills -lt "$KILLS" ]; do
	one_round
done
# experiments created but killed before they were named: started again, as a user would
orphans=$(sql "SELECT count(*) FROM experiments WHERE status != 'DONE'")

echo "kill trial (seed $SEED): $kills kills, $starts starts, $rounds A/Bs finished, $orphans abandoned before they were named"
sql "SELECT printf('runs: %d OK, %d INFRA (%d closed by the next lab, %d by a resume), %d samples',
	sum(status = 'OK'), sum(status = 'INFRA'), sum(error LIKE 'the lab running it died%'),
	sum(error = 'interrupted'), (SELECT count(*) FROM samples)) FROM runs"
echo "verdict table equal to the uninterrupted run's; integrity_check ok; no process left"
