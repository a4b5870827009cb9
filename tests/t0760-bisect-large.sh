#!/bin/bash
# lab bisect over a release's worth of commits: 100,000 after base,
# about one in five a merge of a short topic branch, made by git
# fast-import; the metric 10 % slower from a commit on a topic branch. The fake
# guest on the local runner boots in a blink, so what is measured is the
# lab's own walk: the graph of 100,000 commits built and bisected in
# memory and time linear in them.
. "$(dirname "$0")/lib.sh"

export FAKE=$TOP/tests/fixtures/fake-guest.sh
export FAKE_SEED_FILE=$TRASH/seed

IMAGE='#!/bin/sh\nexec "$FAKE" "$@" scale=%s cv=0.01\n'
N=100000
AT=61203
# glibc gives memory back after each commit otherwise, and on this kind
# of virtual machine each brk() costs nearly 0.1 ms: 40 s instead of 2
TUNE=glibc.malloc.top_pad=67108864:glibc.malloc.trim_threshold=268435456

# A sanitized build (make SANITIZE=...) is several times slower, and its
# shadow memory cannot live under a data limit of 100 MB.
test_lazy_prereq SANITIZED 'nm "$LAB" | grep -q "__asan_init\|__ubsan_handle"'

# history N AT: the fast-import stream of N commits after base, the first
# topic-branch commit from AT on the culprit (tests/bisect-history.awk).
history() {
	awk -v n="$1" -v at="$2" -v base="$(git -C repo rev-parse base)" \
		-f "$TOP/tests/bisect-history.awk"
}

test_expect_success 'setup: 100,000 commits after base, 18,000 merges, 10 % slower from one on a branch' '
	fake_project repo "$IMAGE" &&
	history $N $AT >stream &&
	GLIBC_TUNABLES=$TUNE git -C repo fast-import --quiet <stream &&
	test "$(git -C repo rev-list --count base..main)" = $N &&
	merges=$(git -C repo rev-list --count --merges base..main) &&
	test "$merges" -gt 15000 &&
	test "$(git -C repo show culprit:scale)" = 1.10 &&
	test "$(git -C repo show culprit^:scale)" = 1.00 &&
	test "$(git -C repo show main:scale)" = 1.10 &&
	culprit=$(git -C repo rev-parse culprit) &&
	! git -C repo rev-list --first-parent main | grep -q "$culprit" &&
	local_conf "$PWD/repo" >lab.conf
'

test_expect_success 'the culprit among 100,000 commits, in the steps log2 allows plus the skips' '
	start=$(date +%s) &&
	rc=0 && "$LAB" bisect --db lab.db --good base --bad main --workload zeroing --iters 10 >out 2>err || rc=$? &&
	took=$(( $(date +%s) - start )) &&
	cat out && tail -n 5 err && echo "took $took s" &&
	test "$rc" = 0 &&
	grep -q "^culprit: $(git -C repo rev-parse culprit)" out &&
	test "$(sql lab.db "SELECT culprit FROM bisections WHERE experiment_id = 1")" = \
	     "$(git -C repo rev-parse culprit)" &&
	steps=$(sql lab.db "SELECT count(*) FROM bisect_steps WHERE experiment_id = 1") &&
	skips=$(sql lab.db "SELECT count(*) FROM bisect_steps WHERE experiment_id = 1 AND mark = '\''SKIP'\''") &&
	echo "$steps steps, $skips skipped" &&
	# ceil(log2(100,001)) = 17; a merge can leave the best split a little off half
	test "$steps" -le $(( 17 + 2 + skips )) &&
	{ test_have_prereq SANITIZED || test "$took" -lt 90; }
'

test_expect_success !SANITIZED 'a range larger than the memory allowed is refused in one line, nothing stored' '
	rc=0 && (ulimit -d 100000 && "$LAB" bisect --db big.db --good base --bad main \
		--workload zeroing --iters 10 >out 2>err) || rc=$? &&
	test "$rc" = 2 &&
	expect_one_line_naming err "base..main: 100000 commits, about [0-9]* MiB to bisect, more than the 97 MiB allowed here" &&
	test "$(sql big.db "SELECT count(*) FROM experiments" 2>/dev/null || echo 0)" = 0
'

test_done
