# The fast-import stream of a release's worth of commits, for bisecting
# it (tests/t0760-bisect-large.sh, tests/bench/bench-bisect-step.sh):
#   awk -v n=N -v at=AT -v base=COMMIT -f bisect-history.awk
# N commits after base (mark 10): every third a merge of a topic branch
# of 1 to 4 commits forked up to 20 main-line commits back; the first
# topic-branch commit from AT on (which one depends on awk's random
# numbers, gawk's or mawk's), tagged culprit, and every commit after it
# (merges too) have scale 1.10. A commit's tree is its first parent's, so
# the file is written where that parent is not slower. main ends it.
function head(ref, mark, msg, when) {
	printf "commit %s\nmark :%d\n", ref, mark
	printf "committer A U Thor <author@example.com> %d +0000\n", 1700000000 + when
	printf "data %d\n%s\n", length(msg), msg
}
function from(mark) {
	if (mark == 10) printf "from %s\n", base; else printf "from :%d\n", mark
}
function slow(mark, first) {
	if (bad[mark] && !bad[first]) printf "M 644 :2 scale\n"
	printf "\n"
}
BEGIN {
	srand(7)
	printf "blob\nmark :2\ndata 5\n1.10\n"
	m = 10; main[0] = 10; nmain = 1; i = 0
	while (i < n) {
		if (i + 6 < n && rand() < 0.34) {
			len = 1 + int(rand() * 4); back = int(rand() * 20)
			tip = main[nmain - 1 - (back < nmain ? back : nmain - 1)]
			for (k = 0; k < len; k++) {
				i++; m++
				head("refs/heads/topic", m, "change " i, i); from(tip)
				bad[m] = bad[tip] || (!culprit && i >= at)
				if (!culprit && i >= at) culprit = m
				slow(m, tip); tip = m
			}
			i++; m++
			head("refs/heads/main", m, "merge " i, i); from(main[nmain - 1])
			printf "merge :%d\n", tip
			bad[m] = bad[main[nmain - 1]] || bad[tip]
			slow(m, main[nmain - 1]); main[nmain++] = m
		} else {
			i++; m++
			head("refs/heads/main", m, "change " i, i); from(main[nmain - 1])
			bad[m] = bad[main[nmain - 1]]
			slow(m, main[nmain - 1]); main[nmain++] = m
		}
	}
	printf "reset refs/tags/culprit\nfrom :%d\n\n", culprit
	printf "reset refs/heads/main\nfrom :%d\n\n", main[nmain - 1]
}
