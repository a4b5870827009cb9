#!/bin/bash
# A bisection on the arm64 test host of r0100, as a class of targets. The
# fixture's own regression is in the vmemmap optimization of HugeTLB
# pages, which arm64 does not have in 6.1, so the test makes a history of
# its own on fixture-base: a documentation change, a commit that waits
# 100 us after clearing each 4 KiB subpage of a huge page (about fifty times
# the clear_huge_page of TCG: a boot's median there varies up to threefold
# with the machine's load), and another documentation change. The clone
# is named linux, so that the lab's work tree and build directory are the
# fixture's and each commit rebuilds in seconds. Every commit is built with
# the host's config fragment, which the bisection stores with its spec.
# Measured: 22 kexec boots (4 a side for good -> bad, 2 a step, the rest
# the check of culprit^ against the culprit), 41 min on the loaded 2-core
# machine; each commit built in seconds once fixture-base was.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/remote/lib-remote.sh"

# fork: fixture-base and three commits, with fixed dates for the same ids on every run
fork=$TRASH/fork/linux
commit() { # PARENT PATH SED-SCRIPT SUBJECT DATE: the new commit's id
	local idx=$TRASH/fork/index blob
	GIT_INDEX_FILE=$idx git -C "$fork" read-tree "$1" &&
	blob=$(git -C "$fork" show "$1:$2" | sed "$3" | git -C "$fork" hash-object -w --stdin) &&
	GIT_INDEX_FILE=$idx git -C "$fork" update-index --cacheinfo "100644,$blob,$2" &&
	GIT_AUTHOR_DATE="$5" GIT_COMMITTER_DATE="$5" GIT_AUTHOR_NAME="Lab Test" \
		GIT_AUTHOR_EMAIL=test@lab.invalid GIT_COMMITTER_NAME="Lab Test" \
		GIT_COMMITTER_EMAIL=test@lab.invalid \
		git -C "$fork" commit-tree "$(GIT_INDEX_FILE=$idx git -C "$fork" write-tree)" -p "$1" -m "$4"
}

test_expect_success 'a history on fixture-base with a clear_huge_page regression in its middle' '
	git clone -q --shared --no-checkout "$FIXTURE" "$fork" &&
	doc=Documentation/mm/hugetlbfs_reserv.rst &&
	c1=$(commit fixture-base $doc "1s/^/.. lab test\n/" \
		"Documentation/mm: a note on hugetlbfs_reserv.rst" 2024-07-01T10:00:00Z) &&
	c2=$(commit $c1 mm/memory.c "s/^\tclear_user_highpage(page + idx, addr);\$/&\n\tudelay(100);/; s/^#include <linux\/vmalloc.h>\$/&\n#include <linux\/delay.h>/" \
		"mm: wait 100 us after clearing each subpage of a huge page" 2024-07-02T10:00:00Z) &&
	c3=$(commit $c2 $doc "1s/^/.. lab test again\n/" \
		"Documentation/mm: another note on hugetlbfs_reserv.rst" 2024-07-03T10:00:00Z) &&
	git -C "$fork" diff $c1 $c2 | grep -q "^+	udelay(100);" &&
	git -C "$fork" tag remote-regression $c2 &&
	git -C "$fork" tag remote-bad $c3
'

test_expect_success 'lab bisect --targets arm --fragment: kexec'\''d on the host, the culprit named' '
	start=$(date +%s) &&
	rc=0 && "$LAB" bisect --config "$TRASH/lab.conf" --db "$DB" --targets arm --arch aarch64 \
		--repo "$fork" --good fixture-base --bad remote-bad --fragment "$FRAG" \
		--fragment "$MODULAR" --workload zeroing --iters 3 --param zeroing_mb=16 --metric clear_huge_page \
		>out 2>err || rc=$? &&
	cat out err &&
	echo "# the bisection: $(( $(date +%s) - start )) s" &&
	test $rc = 0 &&
	grep -q "^culprit: $(git -C "$fork" rev-parse remote-regression)" out &&
	e=$(sql "$DB" "SELECT max(experiment_id) FROM bisections") &&
	test "$(sql "$DB" "SELECT outcome FROM bisections WHERE experiment_id = $e")" = FOUND &&
	test "$(sql "$DB" "SELECT config_fragments FROM bisect_specs WHERE experiment_id = $e")" = \
		"$(printf "%s %s\n%s %s" "$(git hash-object "$FRAG")" "$FRAG" \
			"$(git hash-object "$MODULAR")" "$MODULAR")" &&
	sql "$DB" "SELECT DISTINCT r.status, r.runner, t.target FROM runs r JOIN run_targets t ON t.run_id = r.id WHERE r.experiment_id = $e" >runs &&
	test "$(cat runs)" = "OK|ssh|arm1" &&
	test "$(hssh uname -r)" = "$DEFAULT"
'

test_done
