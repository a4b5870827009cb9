#!/bin/bash
# A bisection that finds its culprit shows the event counts that differ
# between the culprit's parent and the culprit (page faults here, as the
# program reports them), read from the database: in its output and in
# --status.
. "$(dirname "$0")/lib.sh"

export FAKE=$TOP/tests/fixtures/fake-guest.sh
export FAKE_SEED_FILE=$TRASH/seed

IMAGE='#!/bin/sh\nexec "$FAKE" "$@" scale=%s metrics=t,ev.pgfault\n'

# median SIDE: the stored median an iteration of ev.pgfault on the culprit
# (B) or on its parent (A), warm-ups left out
median() {
	python3 - "$1" "$(git -C repo rev-parse culprit)" "$(git -C repo rev-parse culprit^)" <<-\EOP
	import sqlite3, statistics, sys
	side, culprit, parent = sys.argv[1:]
	db = sqlite3.connect("lab.db")
	v = [r[0] for r in db.execute(
	    "SELECT e.value FROM events e JOIN runs r ON r.id = e.run_id JOIN kernels k "
	    "ON k.id = r.kernel_id WHERE r.status = 'OK' AND (e.flags & 1) = 0 AND "
	    "k.git_commit = ?", (culprit if side == "B" else parent,))]
	print("%d %.4g" % (len(v), statistics.median(v)))
	EOP
}

test_expect_success 'setup: 8 commits, 30 % more time and page faults from change 5 on' '
	scaled_history repo "$IMAGE" 8 5 1.30
'

test_expect_success 'the culprit found, its event counts against its parent are shown' '
	rc=0 && "$LAB" bisect --db lab.db --good base --bad main --workload zeroing --iters 10 \
		--metric t >out 2>err || rc=$? &&
	cat out && test "$rc" = 0 &&
	grep -q "^culprit: $(git -C repo rev-parse culprit)" out &&
	test "$(sql lab.db "SELECT count(*) FROM samples WHERE metric = '\''ev.pgfault'\''")" = 0 &&
	grep -q "^events, median an iteration" out &&
	grep -qE "^event +culprit\^ +culprit +culprit/culprit\^$" out &&
	set -- $(median A) && test "$1" -gt 0 && a=$2 &&
	set -- $(median B) && test "$1" -gt 0 && b=$2 &&
	set -- $(grep "^zeroing\.ev\.pgfault " out) &&
	awk -v x="$2" -v y="$a" "BEGIN { exit !(x / y > 0.995 && x / y < 1.005) }" &&
	awk -v x="$3" -v y="$b" "BEGIN { exit !(x / y > 0.995 && x / y < 1.005) }" &&
	awk -v x="$b" -v y="$a" "BEGIN { exit !(x / y > 1.2 && x / y < 1.4) }"
'

test_expect_success '--status shows the same counts' '
	"$LAB" bisect --db lab.db --status E1 >status &&
	grep "^zeroing\.ev\.pgfault " out >want &&
	grep "^zeroing\.ev\.pgfault " status >got &&
	cmp want got
'

test_expect_success 'a bisection with no culprit shows no events' '
	rc=0 && "$LAB" bisect --db lab.db --good culprit --bad main --workload zeroing --iters 10 \
		--metric t >out2 2>err || rc=$? &&
	test "$rc" = 1 && ! grep -q "^events" out2
'

test_expect_success 'the report'\''s bisection page has the same counts in its Events section' '
	"$LAB" report --db lab.db --out site >/dev/null 2>err &&
	grep -q "<h2>Events</h2>" site/b1.html &&
	grep -q "<th>culprit^</th><th>culprit</th><th>culprit/culprit^</th>" site/b1.html &&
	set -- $(grep "^zeroing\.ev\.pgfault " out) &&
	grep -q "<td>zeroing\.ev\.pgfault</td><td>[^<]*</td><td class=\"num\">$2</td><td class=\"num\">$3</td>" site/b1.html &&
	test -s site/b2.html && ! grep -q "<h2>Events</h2>" site/b2.html
'

test_done
