#!/bin/bash
# lab report publishes only console logs the lab wrote: a stored path is a
# row whoever writes the database can change, so it is resolved and refused
# unless it leads to a regular file under <state>/logs.
. "$(dirname "$0")/lib.sh"

FAKE=$TOP/tests/fixtures/fake-guest.sh
export FAKE_SEED_FILE=$TRASH/seed
ESC=$(printf '\033')

# run_page_says_missing SITE ID
run_page_says_missing() {
	grep -q "<p>The console log is missing: its stored path does not lead to a log the lab wrote." "$1/r$2.html" ||
		{ echo "$1/r$2.html does not say its log is missing"; return 1; }
}

test_expect_success 'setup: six runs, their logs published' '
	for i in 1 2 3 4 5 6; do
		"$LAB" run --db lab.db --runner local --guest "$FAKE" --workload zeroing --iters 3 \
			>/dev/null 2>err || exit 1
	done &&
	"$LAB" report --db lab.db --out site >out 2>err && test ! -s err &&
	for i in 1 2 3 4 5 6; do
		cmp site/logs/r$i.txt "$(sql lab.db "SELECT console_log FROM runs WHERE id = $i")" || exit 1
	done &&
	test "$(sql lab.db "SELECT console_log FROM runs WHERE id = 6")" = "$TRASH/logs/lab/run-6.log"
'

test_expect_success 'paths out of the logs, through a symlink, to a fifo: refused, one warning a run' '
	echo "SECRET-$$-in-the-state-root" >secret.txt &&
	weird=$(printf "we\nird${ESC}[2J\\\\.txt") && echo "SECRET-$$-weird" >"$weird" &&
	ln -s ../../secret.txt logs/lab/link.log && mkfifo logs/lab/fifo.log &&
	sql lab.db "UPDATE runs SET console_log = '\''/etc/shadow'\'' WHERE id = 1;
		UPDATE runs SET console_log = '\''$TRASH/secret.txt'\'' WHERE id = 2;
		UPDATE runs SET console_log = '\''$TRASH/logs/lab/link.log'\'' WHERE id = 3;
		UPDATE runs SET console_log = '\''$TRASH/logs/lab/fifo.log'\'' WHERE id = 4;
		UPDATE runs SET console_log = '\''$TRASH/we'\'' || char(10) || '\''ird'\'' || char(27) ||
			'\''[2J\\.txt'\'' WHERE id = 5" &&
	test -f "$(sql lab.db "SELECT console_log FROM runs WHERE id = 5")" &&
	rc=0 && timeout 10 "$LAB" report --db lab.db --out site >out 2>err || rc=$? &&
	cat err && test "$rc" = 0 &&
	test "$(unwrapped err | wc -l)" = 5 &&
	grep -qx "lab: warning: run 1: console log '\''/etc/shadow'\'' is outside $TRASH/logs: not published" err &&
	unwrapped err | grep -qx "lab: warning: run 2: console log '\''$TRASH/secret.txt'\'' is outside $TRASH/logs: not published" &&
	unwrapped err | grep -qx "lab: warning: run 3: console log '\''$TRASH/logs/lab/link.log'\'' (resolved '\''$TRASH/secret.txt'\'') is outside $TRASH/logs: not published" &&
	unwrapped err | grep -qx "lab: warning: run 4: console log '\''$TRASH/logs/lab/fifo.log'\'' is not a regular file: not published" &&
	unwrapped err | grep -qxF "lab: warning: run 5: console log '\''$TRASH/we\x0aird\x1b[2J\\.txt'\'' is outside $TRASH/logs: not published" &&
	! grep -q "$ESC" err &&
	for i in 1 2 3 4 5; do
		test ! -e site/logs/r$i.txt || { echo "site/logs/r$i.txt is still there"; exit 1; }
		run_page_says_missing site $i || exit 1
	done &&
	! grep -r "SECRET-$$" site &&
	if test -r /etc/shadow; then ! grep -rF "$(head -n 1 /etc/shadow)" site; fi &&
	cmp site/logs/r6.txt logs/lab/run-6.log
'

test_expect_success 'a refused log stays refused: the next report changes nothing' '
	find site -type f -printf "%p %T@\n" | sort >before &&
	timeout 10 "$LAB" report --db lab.db --out site >out 2>err &&
	test "$(unwrapped err | wc -l)" = 5 && grep -q ": 0 files written, .* 0 removed" out &&
	find site -type f -printf "%p %T@\n" | sort >after &&
	diff before after
'

test_expect_success 'the state root is where the lab wrote the logs: core.state, else the database'"'"'s folder' '
	mkdir copy && sqlite3 lab.db ".backup copy/lab.db" &&
	timeout 10 "$LAB" report --db copy/lab.db >out 2>err &&
	test "$(unwrapped err | grep -c "^lab: warning: run [1-6]: console log .* is outside copy/logs: not published\$")" = 6 &&
	test ! -e copy/site/logs/r6.txt && run_page_says_missing copy/site 6 &&
	printf "[core]\n\tstate = %s\n" "$TRASH" >lab.conf &&
	timeout 10 "$LAB" report --config lab.conf --db copy/lab.db --out copy/site >out 2>err &&
	test "$(unwrapped err | wc -l)" = 5 && ! grep -q "run 6" err &&
	cmp copy/site/logs/r6.txt logs/lab/run-6.log
'

test_done
