#!/bin/bash
# The lab's compiler cache across trees: the fixture's base built with a
# cold cache, in a state root of this test's own, then the same source from
# a second clone at another path, which gets a tree, a work tree and build
# directories of its own. Its image is taken out of the artifact cache
# first, so that it is built, not found. The second build must find at
# least 90 % of its compilations in the cache and take at most a third of
# the first's time; both figures are printed.
. "$(dirname "$0")/../lib.sh"

: "${FIXTURE:?make check-kernel sets FIXTURE}"
# nothing shared with the other k-tests: the first build's cache is empty
STATE=$TRASH/state

test_lazy_prereq CCACHE 'test -x /usr/bin/ccache'

# "<hits> <misses>" of a build's stderr, "<seconds>" of its BUILT line.
cache_counts() {
	sed -n 's/^  compiler cache: \([0-9]*\) hits, \([0-9]*\) misses, .*/\1 \2/p' "$1"
}
built_seconds() {
	sed -n 's/.*: BUILT in \([0-9.]*\) s.*/\1/p' "$1"
}

test_expect_success CCACHE 'setup: a second clone of the fixture, at another path' '
	mkdir "$STATE" elsewhere &&
	git clone -q --shared --no-checkout "$FIXTURE" elsewhere/linux-again
'

test_expect_success CCACHE 'the first build, with the cache empty, misses' '
	"$LAB" build --db "$STATE/lab.db" --repo "$FIXTURE" fixture-base >path1 2>err1 &&
	cat err1 && grep -q BUILT err1 &&
	set -- $(cache_counts err1) && test $# = 2 && test "$2" -gt 1000 &&
	test -d "$STATE/trees/linux/kbuild" && test -s "$(cat path1)"
'

test_expect_success CCACHE 'the same source at another path: at least 90 % hits, at most a third of the time' '
	rm -rf "$STATE/artifacts" &&
	"$LAB" build --db "$STATE/lab.db" --repo elsewhere/linux-again fixture-base >path2 2>err2 &&
	cat err2 && grep -q BUILT err2 &&
	test -d "$STATE/trees/linux-again/kbuild" &&
	set -- $(cache_counts err1) $(cache_counts err2) && test $# = 4 &&
	hits=$3 misses=$4 first=$(built_seconds err1) second=$(built_seconds err2) &&
	awk -v h1="$1" -v m1="$2" -v h="$hits" -v m="$misses" -v a="$first" -v b="$second" "BEGIN {
		printf \"first tree %.1f s, %d hits, %d misses; second tree %.1f s (%.3f of the first), %d hits, %d misses: %.1f %% hits\n\",
			a, h1, m1, b, b / a, h, m, 100 * h / (h + m) }" >result.line &&
	cat result.line &&
	test $((hits * 100)) -ge $((90 * (hits + misses))) &&
	awk -v a="$first" -v b="$second" "BEGIN { exit !(3 * b <= a) }"
'
test -s result.line && echo "# $(cat result.line)"

test_done
