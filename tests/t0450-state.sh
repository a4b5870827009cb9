#!/bin/bash
# core.state: one root for what the lab makes (database, console logs,
# caches, the report site), out of the source folders.
. "$(dirname "$0")/lib.sh"

FAKE=$TOP/tests/fixtures/fake-guest.sh
export FAKE_SEED_FILE=$TRASH/seed
run() {
	"$LAB" run --runner local --guest "$FAKE" --workload zeroing --iters 5 "$@"
}

test_expect_success 'no lab.conf, no --db: everything goes under ./state' '
	mkdir fresh && (cd fresh && run >../out 2>../err) &&
	test "$(sql fresh/state/lab.db "SELECT status FROM runs")" = OK &&
	test -s "$(sql fresh/state/lab.db "SELECT console_log FROM runs")" &&
	sql fresh/state/lab.db "SELECT console_log FROM runs" | grep -q "/fresh/state/logs/lab/run-1.log$" &&
	(cd fresh && "$LAB" report >../out) &&
	test -s fresh/state/site/index.html &&
	test_must_fail grep -q warning err &&
	ls fresh >top && test "$(cat top)" = state
'

test_expect_success 'core.state puts the database and the logs in its folder' '
	mkdir named && printf "[core]\n\tstate = %s/elsewhere\n" "$TRASH" >named/lab.conf &&
	(cd named && run >out 2>err) &&
	test "$(sql elsewhere/lab.db "SELECT count(*) FROM runs")" = 1 &&
	sql elsewhere/lab.db "SELECT console_log FROM runs" | grep -q "/elsewhere/logs/lab/run-1.log$" &&
	test_must_fail test -e named/state
'

test_expect_success 'core.db alone: the state root is its folder' '
	mkdir dbonly && printf "[core]\n\tdb = %s/dbdir/x.db\n" "$TRASH" >dbonly/lab.conf &&
	(cd dbonly && run >out 2>err) &&
	test "$(sql dbdir/x.db "SELECT count(*) FROM runs")" = 1 &&
	sql dbdir/x.db "SELECT console_log FROM runs" | grep -q "/dbdir/logs/x/run-1.log$"
'

test_expect_success 'both: the database where core.db says, the rest under core.state' '
	mkdir both && printf "[core]\n\tdb = %s/bothdb/lab.db\n\tstate = %s/bothstate\n" "$TRASH" "$TRASH" >both/lab.conf &&
	(cd both && run >out 2>err) &&
	test "$(sql bothdb/lab.db "SELECT count(*) FROM runs")" = 1 &&
	sql bothdb/lab.db "SELECT console_log FROM runs" | grep -q "/bothstate/logs/lab/run-1.log$"
'

test_expect_success 'a database of before core.state in results/ is still used, with a warning' '
	mkdir -p old/results && (cd old && run --db results/lab.db >out 2>err) &&
	(cd old && run >out 2>err) &&
	test "$(sql old/results/lab.db "SELECT count(*) FROM runs")" = 2 &&
	test_must_fail test -e old/state &&
	test "$(grep -c warning old/err)" = 1 &&
	grep -q "^lab: warning: using results/lab.db, where labs before core.state kept it" old/err
'

test_done
