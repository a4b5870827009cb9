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
	sed -n "/^function /,\$p" out | sed 1d >top3 &&
	test "$(wc -l <top3)" = 3 &&
	grep -E "^(synchronize_rcu|__wait_rcu_gp) +- +[0-9]+ " top3 >rcu &&
	calls=$(awk "{ print \$3; exit }" rcu) && test "$calls" -gt 512
'

test_expect_success 'the call counts printed are the stored ones, B calls the wait and A does not' '
	x=$(sql "$DB" "SELECT max(id) FROM explanations") &&
	b=$(sql "$DB" "SELECT b_run_id FROM explanations WHERE id = $x") &&
	a=$(sql "$DB" "SELECT a_run_id FROM explanations WHERE id = $x") &&
	f=$(awk "{ print \$1; exit }" rcu) &&
	test "$(sql "$DB" "SELECT calls FROM profiles WHERE run_id = $b AND function = '\''$f'\''")" = "$calls" &&
	test "$(sql "$DB" "SELECT count(*) FROM profiles WHERE run_id = $a AND function = '\''$f'\''")" = 0
'

test_done
