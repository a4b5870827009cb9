#!/bin/bash
# The terminal's tables fit 100 columns: lab ab's verdicts one row per
# metric (a huge ratio as 455×), lab run's table, lab list with each
# experiment's verdicts; the detailed blocks under lab ab --verbose.
. "$(dirname "$0")/lib.sh"

FAKE=$TOP/tests/fixtures/fake-guest.sh
export FAKE_SEED_FILE=$TRASH/seed
LONG=a_metric_name_longer_than_any_column_of_clear_huge_page_sys
ab() {
	"$LAB" ab --db lab.db --runner local --guest "$FAKE" --workload zeroing "$@"
}
# widest FILE: its widest line in characters (a UTF-8 "×" is one)
widest() {
	LC_ALL=C.UTF-8 wc -L <"$1"
}

test_expect_success 'lab ab: a 455-fold slowdown, every line within 100 columns' '
	test_expect_code 1 ab --a-cmdline "scale=1.0 metrics=t,$LONG" \
		--b-cmdline "scale=455 metrics=t,$LONG" --boots 3 --iters 20 >out 2>err &&
	cat out &&
	test "$(widest out)" -le 100
'

test_expect_success 'one row per metric, the ratio as a multiple with its CI' '
	grep -E "^zeroing\.t +ms +[0-9.]+ ±[0-9.]+% +[0-9.]+ ±[0-9.]+% +[0-9.]+× \[[0-9.]+×, [0-9.]+×\] +REGRESSION$" out &&
	grep -x "zeroing\.$LONG" out &&
	test "$(grep -c " REGRESSION$" out)" = 2 &&
	test "$(grep -c "^metric  *unit  *A  *B  *B/A, 95% CI  *verdict$" out)" = 1 &&
	ratio=$(sql lab.db "SELECT printf(\"%.0f\", ratio) FROM verdicts WHERE experiment_id = 1 AND metric = \"t\"") &&
	grep -q "^zeroing\.t .* $ratio× \[" out
'

test_expect_success 'what was compared, the point and the clock are said once, not per metric' '
	test "$(grep -c "^this host, [0-9.]*G and [0-9]* CPUs*: samples compared, n 60 A, 60 B; lower is better$" out)" = 1 &&
	test "$(grep -c "wall time" out)" = 1 &&
	! grep -E "Number of iterations|std deviation|B/A [0-9]|e[-+][0-9][0-9]" out
'

test_expect_success 'lab ab --verbose and lab show E1 keep the detailed blocks' '
	test_expect_code 1 ab --a-cmdline "scale=1.0 metrics=t,$LONG" \
		--b-cmdline "scale=455 metrics=t,$LONG" --boots 3 --iters 20 --verbose >verbose 2>err &&
	grep -q "^zeroing\.t .* REGRESSION$" verbose &&
	grep -q "^  Number of iterations: .* 60 .* 60$" verbose &&
	grep -q "^  B/A 4[0-9][0-9]× \[4[0-9][0-9]×, 4[0-9][0-9]×\] (95% CI), p < 0.001 (adjusted < 0.001), MDE [0-9.]* %$" verbose &&
	grep -q "^  verdict: REGRESSION (alpha 0.05, delta 2 %)$" verbose &&
	"$LAB" show --db lab.db E1 >show &&
	grep -q "^  std deviation: " show
'

test_expect_success 'a small change: a percentage with the digits its CI supports' '
	test_expect_code 1 ab --a-cmdline "scale=1.0 cv=0.0001" --b-cmdline "scale=1.05 cv=0.0001" \
		--boots 2 --iters 10 >small 2>err &&
	cat small && test "$(widest small)" -le 100 &&
	grep -E "^zeroing\.t .* \+[45]\.[0-9]{3,} % \[\+[0-9.]+, \+[0-9.]+\] +REGRESSION$" small
'

test_expect_success 'a sweep: a table per point and a column per size, within 100 columns' '
	test_expect_code 1 ab --a-cmdline "scale=1.0 cv=0.0001" --b-cmdline "scale=1.5 cv=0.0001" --boots 2 --iters 5 \
		--mem 1G,2G,3G,4G,5G,6G >sweep 2>err &&
	cat sweep && test "$(widest sweep)" -le 100 &&
	test "$(grep -c "^[1-6]024M, 1 cpu: \|^[1-6]048M\|^[1-6]072M\|^[1-6]096M\|^[1-6]120M\|^[1-6]144M" sweep)" = 6 &&
	test "$(grep -c "^measured: this host, as it runs now ([0-9.]*G and [0-9]* CPUs*)$" sweep)" = 6 &&
	grep -q "^zeroing.t, median [a-zµ]*, 1 cpu, wall time: a row per variant, a column per memory size$" sweep &&
	grep -q "^ *1024M *2048M *3072M *4096M$" sweep &&
	grep -q "^ *5120M *6144M$" sweep
'

test_expect_success 'lab run: its table within 100 columns, a long name on a line of its own' '
	"$LAB" run --db lab.db --runner local --guest "$FAKE" --workload zeroing --iters 5 \
		--cmdline "metrics=t,$LONG scale=100000" >run 2>err &&
	cat run && test "$(widest run)" -le 100 &&
	grep -q "^metric  *unit  *n  *median  *spread  *min  *max$" run &&
	grep -qx "zeroing\.$LONG" run &&
	grep -q "^zeroing\.t  *s  *5  *[0-9]*  *±[0-9.]*%  *[0-9]*  *[0-9]*$" run
'

test_expect_success 'lab list: within 100 columns, each experiment with its verdict counts' '
	"$LAB" list --db lab.db >list &&
	cat list && test "$(widest list)" -le 100 &&
	grep -E "^ +E1 .* REGRESSION 2$" list &&
	grep -E "^ +E3 .* REGRESSION 1$" list &&
	grep -E "^ +E4 .* REGRESSION 6$" list
'

test_done
