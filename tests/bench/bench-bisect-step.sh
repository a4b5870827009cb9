#!/bin/bash
# lab bisect-step over a release's worth of commits (not a test): git
# bisect run calls it once a step, a process of its own, so whatever it
# reads of the range it reads again every step. 100,000 commits after
# base, about one in five a merge (tests/bisect-history.awk), the fake
# guest on the local runner (a boot in a blink); git bisect good/bad
# after each step as git bisect run would. Per step: its wall and CPU
# time, the lab's and its children's (the first also measures both ends).
# BISECT_N=N: another size, BISECT_STEPS=N: more steps.
set -eu
. "$(dirname "$0")/lib-bench.bash"
N=${BISECT_N:-100000}
STEPS=${BISECT_STEPS:-6}
export FAKE=$TOP/tests/fixtures/fake-guest.sh
export FAKE_SEED_FILE=$DIR/seed
# see tests/t0760-bisect-large.sh: brk() is slow on these machines
export GLIBC_TUNABLES=glibc.malloc.top_pad=67108864:glibc.malloc.trim_threshold=268435456

cd "$DIR"
mkdir repo && git -C repo init -q -b main
git -C repo config user.name "A U Thor" && git -C repo config user.email author@example.com
printf '#!/bin/sh\nmkdir -p out && printf %s "$(cat scale)" >out/image && chmod +x out/image\n' \
	"'#!/bin/sh\nexec \"\$FAKE\" \"\$@\" scale=%s cv=0.01\n'" >repo/build.sh
chmod +x repo/build.sh && echo 1.00 >repo/scale
git -C repo add -A && git -C repo commit -q -m base && git -C repo tag base
awk -v n="$N" -v at=$((N * 3 / 5)) -v base="$(git -C repo rev-parse base)" \
	-f "$TOP/tests/bisect-history.awk" | git -C repo fast-import --quiet
printf '[core]\n\trepo = %s\n[build]\n\tcommand = ./build.sh\n\tartifact = out/image\n' \
	"$DIR/repo" >lab.conf
printf '[run]\n\trunner = local\n' >>lab.conf

echo "lab bisect-step, $N commits ($(git -C repo rev-list --count --merges base..main) merges):"
git -C repo bisect start main base >/dev/null
for step in $(seq "$STEPS"); do
	head=$(git -C repo rev-parse --short=12 HEAD)
	rc=0
	# bash's times: the CPU of children waited for, before and after
	before=$(awk '{ print $14 + $15 + $16 + $17 }' /proc/$$/stat)
	start=$(date +%s%N)
	(cd repo && "$LAB" bisect-step --config "$DIR/lab.conf" --db "$DIR/lab.db" --good base --bad main \
		--workload zeroing --iters 10 >/dev/null 2>"$DIR/err") || rc=$?
	wall=$(( ($(date +%s%N) - start) / 1000000 ))
	cpu=$(( ($(awk '{ print $14 + $15 + $16 + $17 }' /proc/$$/stat) - before) * 1000 /
		$(getconf CLK_TCK) ))
	case $rc in
	0) mark=good ;;
	1) mark=bad ;;
	125) mark=skip ;;
	*) echo "step $step: lab bisect-step failed ($rc):"; cat "$DIR/err"; exit 1 ;;
	esac
	printf '  step %d: %s %-4s %6d ms wall, %6d ms CPU\n' "$step" "$head" "$mark" "$wall" "$cpu"
	git -C repo bisect "$mark" >/dev/null 2>&1 || break
done
