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
# With --bisect the same for `lab bisect` (build.command making the program
# the local runner runs, a history whose fifth commit is 10 % slower): the
# same culprit and steps as uninterrupted.
#
#   kill-trial.sh [--bisect] KILLS [DIR]     (KILL_SEED=N repeats a trial)
# Prints what happened; exits non-zero on the first broken promise.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
LAB=${LAB:-$TOP/lab/lab}
export FAKE=$TOP/tests/fixtures/fake-guest.sh
MODE=ab
if [ "${1:-}" = --bisect ]; then
	MODE=bisect
	shift
fi
KILLS=${1:?usage: kill-trial.sh [--bisect] KILLS [DIR]}
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
# Fixed seeds: every boot of a variant prints the same samples, so killing
# and resuming cannot change the outcome, only lose or double samples.
GUEST=$DIR/guest.sh
printf '#!/bin/sh\nsleep 3 </dev/null >/dev/null 2>&1 &\nexec "%s" "$@"\n' "$FAKE" >"$GUEST" &&
	chmod +x "$GUEST" || exit 1

if [ $MODE = ab ]; then
	start=("$LAB" ab --aa --db lab.db --runner local --guest "$GUEST" --workload zeroing
		--a-cmdline "scale=1.0 seed=1 sleep=0.1" --b-cmdline "scale=1.05 seed=2 sleep=0.1"
		--boots $BOOTS --iters $ITERS)
	resume=("${start[@]}" --resume)
	started='s/^experiment E([0-9]+): (started|resumed)$/\1/p'
else
	(
		set -e
		cd "$DIR"
		git init -q -b main repo
		cat >repo/build.sh <<-\EOS
		#!/bin/sh
		mkdir -p out && printf '#!/bin/sh\nexec "%s" "$@" scale=%s seed=1 sleep=0.1\n' \
			"$GUEST" "$(cat scale)" >out/image && chmod +x out/image
		EOS
		chmod +x repo/build.sh
		echo 1.00 >repo/scale
		for i in 0 1 2 3 4 5 6 7 8; do
			echo "$i" >repo/notes
			[ $i = 5 ] && echo 1.10 >repo/scale
			git -C repo add -A
			git -C repo -c user.name=A -c user.email=a@example.com commit -q -m "change $i"
		done
		git -C repo tag good main~8
		printf "[core]\n\trepo = %s/repo\n[build]\n\tcommand = ./build.sh\n\tartifact = out/image\n[run]\n\trunner = local\n" \
			"$DIR" >lab.conf
	) || fail "cannot make the history"
	export GUEST
	start=("$LAB" bisect --config "$DIR/lab.conf" --db lab.db --good good --bad main
		--workload zeroing --iters $ITERS)
	resume=("$LAB" bisect --config "$DIR/lab.conf" --db lab.db --resume)
	started='s/^bisection E([0-9]+) started.*/\1/p'
fi

# what must not change: the verdict table, without ids and counts of boots
# the kills interrupted; or the bisection's outcome, culprit and steps
outcome() {
	if [ $MODE = ab ]; then
		"$LAB" show --db lab.db "E$1" | sed -E 's/E[0-9]+/E/g; s/, [0-9]+ failed$//'
	else
		# a resume measures the ends afresh: their CIs move, the decisions must not
		"$LAB" bisect --config "$DIR/lab.conf" --db lab.db --status="$1" |
			awk '/^bisection E/ { print $3 } /^  culprit / { print } \
				/^ +[0-9]+  [0-9a-f]+  [A-Z]+ / { print $1, $2, $3 }'
	fi
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
"${start[@]}" >out 2>err || rc=$?
[ $rc = 0 ] || [ $rc = 1 ] || fail "uninterrupted $MODE: exit $rc: $(cat err)"
exp=$(sed -n -E "$started" err | tail -n 1)
outcome "${exp:-1}" >../reference || fail "uninterrupted $MODE: nothing to compare"

cd "$DIR/trial" || exit 1
kills=0 starts=0 rounds=0
# one A/B or bisection, killed until it finishes
one_round() {
	exp=
	while :; do
		if [ -n "$exp" ]; then
			"${resume[@]}" "$exp" >out 2>err &
		else
			"${start[@]}" >out 2>err &
		fi
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
		e=$(sed -n -E "$started" err | tail -n 1)
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
			[ -z "$left" ] || fail "kill $kills: processes of the killed lab alive:$left
$(ps -o pid,ppid,pgid,stat,etime,args -p "${left# }")"
			continue
		fi
		[ $rc = 0 ] || [ $rc = 1 ] || fail "start $starts: exit $rc: $(cat err)"
		break
	done
	rounds=$((rounds + 1))

	outcome "$exp" >outcome || fail "nothing to compare for E$exp"
	diff -u ../reference outcome || fail "E$exp: the outcome differs from the uninterrupted one"
	[ "$(sql "PRAGMA integrity_check")" = ok ] ||
		fail "integrity_check: $(sql "PRAGMA integrity_check")"
	if [ $MODE = ab ]; then
		for v in A B; do
			n=$(sql "SELECT count(*) FROM runs r JOIN variants v ON v.id = r.variant_id
				WHERE r.experiment_id = $exp AND v.name = '$v' AND r.status = 'OK'")
			[ "$n" = $BOOTS ] || fail "E$exp, variant $v: $n OK runs, want $BOOTS"
		done
	fi
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
# created, then killed before it was named: started again, as a user would
orphans=$(sql "SELECT count(*) FROM experiments WHERE status NOT IN ('DONE', 'REFUSED')")

echo "kill trial (seed $SEED): $kills kills of lab $MODE, $starts starts, $rounds finished, $orphans abandoned before they were named"
sql "SELECT printf('runs: %d OK, %d INFRA (%d closed by the next lab, %d by a resume), %d samples',
	sum(status = 'OK'), sum(status = 'INFRA'), sum(error LIKE 'the lab running it died%'),
	sum(error = 'interrupted'), (SELECT count(*) FROM samples)) FROM runs"
echo "outcome equal to the uninterrupted run's; integrity_check ok; no process left"
