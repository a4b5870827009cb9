#!/bin/bash
# lab explain on the real fixture history: the regression's RCU grace
# periods named among the first three functions, with their call counts,
# from one profiled boot of each side in virtual time.
. "$(dirname "$0")/../lib.sh"

: "${FIXTURE:?make check-kernel sets FIXTURE}"
DB=$TOP/state/check-kernel.db
DEMOTE="--workload demote --mem 4G --cmdline hugetlb_free_vmemmap=on"

test_expect_success 'explain fixture-base against fixture-regression: the RCU wait in the top three' '
	start=$(date +%s) &&
	"$LAB" explain --db "$DB" --repo "$FIXTURE" --a fixture-base --b fixture-regression \
		$DEMOTE --clock icount --top 3 >out 2>err &&
	cat out && echo "explained in $(( $(date +%s) - start )) s" &&
	sed -n "/^function /,/^\$/p" out | sed 1d | grep . >top3 &&
	test "$(wc -l <top3)" = 3 &&
	grep -E "^(synchronize_rcu|__wait_rcu_gp) +- +[0-9]+ " top3 >rcu &&
	calls=$(awk "{ print \$3; exit }" rcu) && test "$calls" -gt 512
'

test_expect_success 'the call counts printed are the stored ones, B calls the wait and A does not' '
	x=$(sql "$DB" "SELECT max(id) FROM explanations") &&
	b=$(sql "$DB" "SELECT b_run_id FROM explanations WHERE id = $x") &&
	a=$(sql "$DB" "SELECT a_run_id FROM explanations WHERE id = $x") &&
	f=$(awk "{ print \$1; exit }" rcu) && calls=$(awk "{ print \$3; exit }" rcu) &&
	test "$(sql "$DB" "SELECT calls FROM profiles WHERE run_id = $b AND function = '\''$f'\''")" = "$calls" &&
	test "$(sql "$DB" "SELECT count(*) FROM profiles WHERE run_id = $a AND function = '\''$f'\''")" = 0
'

# Good and bad one commit apart: the culprit is bad itself, its parent is
# good, and the explanation adds two boots to the bisection.
test_expect_success 'a FOUND bisection explains its culprit against its parent: two boots more' '
	good=$(git -C "$FIXTURE" rev-parse fixture-regression~1) &&
	start=$(date +%s) &&
	"$LAB" bisect --db "$DB" --repo "$FIXTURE" --good "$good" --bad fixture-regression \
		$DEMOTE --clock icount --metric demote_page_wall >bout 2>berr &&
	cat bout && echo "bisected and explained in $(( $(date +%s) - start )) s" &&
	grep -q "^culprit: $(git -C "$FIXTURE" rev-parse fixture-regression)" bout &&
	sed -n "/^explaining the culprit/,\$p" berr |
		sed -n "s/^boot [0-9]* of [0-9]*: OK (run [0-9]*, \([0-9.]*\) s)$/\1/p" >xboots &&
	test "$(wc -l <xboots)" = 2 &&
	secs=$(awk "{ s += \$1 } END { printf \"%d\", s + 0.5 }" xboots) &&
	echo "the explanation: 2 boots, $secs s" && test "$secs" -le 180 &&
	e=$(sql "$DB" "SELECT max(id) FROM experiments WHERE kind = '\''bisect'\''") &&
	test "$(sql "$DB" "SELECT count(*) FROM explanations WHERE experiment_id = $e")" = 1 &&
	x=$(sql "$DB" "SELECT id FROM explanations WHERE experiment_id = $e") &&
	a=$(sql "$DB" "SELECT a_run_id FROM explanations WHERE id = $x") &&
	test "$(sql "$DB" "SELECT experiment_id IS NULL FROM runs WHERE id = $a")" = 1 &&
	grep -q "^explanation X$x: demote.demote_page_wall of E$e$" bout &&
	sed -n "/^explanation X$x/,\$p" bout | sed -n "/^function /,\$p" | sed -n 2,4p >btop3 &&
	grep -qE "^(synchronize_rcu|__wait_rcu_gp) " btop3 &&
	"$LAB" bisect --db "$DB" --status >status && grep -q "^explanation X$x" status
'

test_expect_success 'lab show and the report carry the bisection'\''s explanation' '
	e=$(sql "$DB" "SELECT max(id) FROM experiments WHERE kind = '\''bisect'\''") &&
	x=$(sql "$DB" "SELECT id FROM explanations WHERE experiment_id = $e") &&
	"$LAB" show --db "$DB" "E$e" >show && grep -q "^explanation X$x: demote.demote_page_wall of E$e$" show &&
	"$LAB" report --db "$DB" --out site >/dev/null &&
	sed -n "/<h2>Where the time went<\/h2>/,/<\/section>/p" site/b$e.html >where &&
	grep -qE "<tr><td>(synchronize_rcu|__wait_rcu_gp)</td>" where &&
	grep -q "<g class=\"bar up\"><title>" where
'

test_done
