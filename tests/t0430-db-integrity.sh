#!/bin/bash
# The database's errors reach the user: one line naming the database, exit
# 2, nothing written to a damaged file, nothing created by a reader, no
# --resume offered for an experiment that is not there.
. "$(dirname "$0")/lib.sh"

FAKE=$TOP/tests/fixtures/fake-guest.sh
export FAKE_SEED_FILE=$TRASH/seed
run() {
	"$LAB" run --db lab.db --runner local --guest "$FAKE" --workload zeroing "$@"
}
ab() {
	"$LAB" ab --db lab.db --runner local --guest "$FAKE" --workload zeroing "$@"
}
test_expect_success 'lab list and lab show with a mistyped --db create nothing' '
	test_expect_code 2 "$LAB" list --db typo/results/lab.db 2>err &&
	expect_one_line_naming err "no database at '\''typo/results/lab.db'\''" &&
	test_expect_code 2 "$LAB" show --db typo/results/lab.db 1 2>err &&
	expect_one_line_naming err "no database at '\''typo/results/lab.db'\''" &&
	test_expect_code 2 "$LAB" report --db typo/results/lab.db 2>err &&
	expect_one_line_naming err "no database at '\''typo/results/lab.db'\''" &&
	! test -e typo
'

test_expect_success 'lab report on a database in a directory it cannot write says why' '
	mkdir ro &&
	"$LAB" run --db ro/lab.db --runner local --guest "$FAKE" --workload zeroing --iters 3 \
		>/dev/null 2>&1 &&
	chmod 755 "$TRASH" && chmod 555 ro &&
	# root writes anywhere: read as nobody
	as=() && { test "$(id -u)" != 0 || as=(setpriv --reuid=65534 --regid=65534 --clear-groups); } &&
	test_expect_code 2 "${as[@]}" "$LAB" report --db ro/lab.db --out "$TRASH/site" 2>err &&
	chmod 755 ro &&
	expect_one_line_naming err "cannot read database '\''ro/lab.db'\''" &&
	grep -q "directory is not writable" err &&
	! grep -q "schema version" err
'

test_expect_success 'a database reached by a symlink from a directory it cannot write is written beside its file' '
	mkdir -p sym/real sym/linkdir sym/state && chmod 777 sym/real sym/state &&
	printf "[core]\n\tstate = $TRASH/sym/state\n" >sym/lab.conf &&
	ln -s ../real/lab.db sym/linkdir/lab.db && chmod 555 sym/linkdir && chmod 755 "$TRASH" sym &&
	as=() && { test "$(id -u)" != 0 || as=(setpriv --reuid=65534 --regid=65534 --clear-groups); } &&
	(cd sym && "${as[@]}" "$LAB" run --db real/lab.db --runner local --guest "$FAKE" \
		--workload zeroing --iters 3 >/dev/null 2>&1 &&
	 "${as[@]}" "$LAB" run --db linkdir/lab.db --runner local --guest "$FAKE" \
		--workload zeroing --iters 3 >out 2>err) &&
	chmod 755 sym/linkdir &&
	! grep -q "not writable" sym/err &&
	test "$(sql sym/real/lab.db "SELECT count(*) FROM runs WHERE status = '\''OK'\''")" = 2 &&
	! test -e sym/linkdir/lab.db-wal
'

test_expect_success 'a damaged database is refused for writing, and left as it was' '
	run --iters 200 >/dev/null 2>&1 && run --iters 200 >/dev/null 2>&1 &&
	run --iters 200 >/dev/null 2>&1 &&
	size=$(stat -c %s lab.db) &&
	test "$size" -gt 40000 &&
	head -c 4096 /dev/urandom | dd of=lab.db bs=4096 seek=$((size / 8192)) conv=notrunc 2>/dev/null &&
	before=$(md5sum <lab.db) &&
	test_expect_code 2 run --iters 3 >out 2>err &&
	expect_one_line_naming err "database '\''lab.db'\'' is damaged" &&
	test_expect_code 2 ab --aa --boots 1 --iters 3 >out 2>err &&
	expect_one_line_naming err "database '\''lab.db'\'' is damaged" &&
	test "$before" = "$(md5sum <lab.db)"
'

# refused FILE CMD...: lab CMD --db FILE exits 2 with one line naming FILE, and
# leaves FILE as it was, with no -wal or -shm beside it.
refused() {
	local db=$1 before rc=0
	shift
	before=$(md5sum <"$db") &&
	"$@" --db "$db" >out 2>err || rc=$?
	test "$rc" = 2 || { echo "exit $rc: $*"; cat err; return 1; }
	expect_one_line_naming err "database '$db'" &&
	test "$before" = "$(md5sum <"$db")" &&
	! ls "$db"-* 2>/dev/null
}

test_expect_success 'a truncated database is refused by readers and writers, and gets no -wal or -shm' '
	rm -rf lab.db* && run --iters 50 >/dev/null 2>&1 && test ! -e lab.db-wal &&
	test "$(sql lab.db "PRAGMA journal_mode")" = wal &&
	cp lab.db half.db && truncate -s $(($(stat -c %s lab.db) / 2)) half.db &&
	head -c 100 lab.db >header.db &&
	for db in half.db header.db; do
		refused $db "$LAB" list && refused $db "$LAB" show 1 &&
		refused $db "$LAB" report --out site &&
		refused $db "$LAB" run --runner local --guest "$FAKE" --workload zeroing &&
		refused $db "$LAB" ab --aa --runner local --guest "$FAKE" --workload zeroing --boots 1 &&
		grep -q "malformed" err || { echo "$db"; return 1; }
	done &&
	test ! -e site
'

test_expect_success 'a database the lab cannot write is refused before a boot, with nothing beside it' '
	cp lab.db ro.db && chmod 444 ro.db && chmod 777 . &&
	as=() && { test "$(id -u)" != 0 || as=(setpriv --reuid=65534 --regid=65534 --clear-groups); } &&
	refused ro.db "${as[@]}" "$LAB" run --runner local --guest "$FAKE" --workload zeroing &&
	grep -q "^lab: database .ro.db. is not writable: Permission denied\$" err &&
	! grep -q "boot 1" err out &&
	refused ro.db "${as[@]}" "$LAB" ab --aa --runner local --guest "$FAKE" --workload zeroing \
		--boots 1 &&
	chmod 755 .
'

test_lazy_prereq CHATTR 'touch f && chattr +i f && chattr -i f'
test_expect_success CHATTR 'an immutable database is refused for writing, even by root' '
	cp lab.db frozen.db && chattr +i frozen.db &&
	test_when_finished "chattr -i frozen.db" &&
	refused frozen.db "$LAB" run --runner local --guest "$FAKE" --workload zeroing &&
	grep -q "^lab: database .frozen.db. is not writable: Operation not permitted\$" err
'

test_expect_success 'a full disk while creating the experiment: no --resume for it' '
	rm -rf lab.db* &&
	run --iters 50 >/dev/null 2>&1 &&
	pad=$(head -c 40000 /dev/zero | tr "\0" x) &&
	rc=0 && (trap "" XFSZ; ulimit -f 40; ab --boots 2 --iters 5 --a-cmdline "pad=$pad" \
		>out 2>err) || rc=$? &&
	test $rc = 2 &&
	expect_one_line_naming err "in database '\''lab.db'\''" &&
	! grep -q -- --resume err &&
	test "$(sql lab.db "SELECT count(*) FROM experiments")" = 0
'

# boot_then DB CMD: a run of the fake guest into DB, 3 s asleep before its samples,
# in the background (its exit status in bg.rc, its stderr in bg.err); CMD runs
# once the run is in DB, RUNNING
boot_then() {
	local db=$1
	shift
	rm -f bg.rc &&
	{ rc=0; "$LAB" run --db "$db" --runner local --guest "$FAKE" --workload zeroing \
		--iters 200 --cmdline sleep=3 >bg.out 2>bg.err || rc=$?; echo $rc >bg.rc; } &
	test_wait_until 20 "test \"\$(sql $db \"SELECT status FROM runs ORDER BY id DESC LIMIT 1\")\" = RUNNING" &&
	eval "$*" &&
	test_wait_until 120 "test -f bg.rc"
}

test_expect_success 'a lock held past sqlite'"'"'s 10 s at the end of a boot is waited for; the samples are stored' '
	rm -rf lab.db* logs && run --iters 3 >/dev/null 2>&1 &&
	boot_then lab.db "{ echo \"BEGIN EXCLUSIVE;\"; sleep 14; echo \"COMMIT;\"; } | sqlite3 lab.db" &&
	test "$(cat bg.rc)" = 0 &&
	grep -q "^lab: warning: database .lab.db. is locked by another process: waiting up to 300 s to store run 2\$" bg.err &&
	grep -q "^lab: run 2 stored in database .lab.db.\$" bg.err &&
	test "$(sql lab.db "SELECT status FROM runs WHERE id = 2")" = OK &&
	test "$(sql lab.db "SELECT count(*) FROM samples WHERE run_id = 2")" = 200 &&
	test "$(sql lab.db "SELECT count(*) FROM run_owners")" = 0
'

test_lazy_prereq TMPFS 'mkdir m && mount -t tmpfs -o size=1m tmpfs m && umount m'
test_expect_success TMPFS 'a disk that fills during a boot: its results are kept beside its log, imported by the next lab' '
	mkdir small && mount -t tmpfs -o size=2m tmpfs small &&
	test_when_finished "umount small" &&
	mkdir full && printf "[core]\n\tstate = $TRASH/full/state\n" >full/lab.conf &&
	cd full && "$LAB" run --db ../small/lab.db --runner local --guest "$FAKE" \
		--workload zeroing --iters 3 >/dev/null 2>&1 &&
	boot_then ../small/lab.db "dd if=/dev/zero of=../small/fill bs=4k 2>/dev/null; test -s ../small/fill" &&
	test "$(cat bg.rc)" = 2 &&
	spool=$TRASH/full/state/logs/lab/run-2.spool &&
	test "$(grep -c "^lab" bg.err)" = 1 &&
	unwrapped bg.err | grep -q "^lab: cannot store run 2 in database .../small/lab.db.: database or disk is full; its results are kept in .$spool. for the next lab to import\$" &&
	test -f "$spool" && test "$(grep -c "^sample" "$spool")" = 200 &&
	test "$(sql ../small/lab.db "SELECT count(*) FROM samples WHERE run_id = 2")" = 0 &&
	rm ../small/fill &&
	"$LAB" run --db ../small/lab.db --runner local --guest "$FAKE" --workload zeroing \
		--iters 3 >/dev/null 2>err &&
	unwrapped err | grep -q "^lab: run 2 stored from .$spool., where it was kept when database .../small/lab.db. could not take it\$" &&
	test ! -e "$spool" &&
	test "$(sql ../small/lab.db "SELECT status FROM runs WHERE id = 2")" = OK &&
	test "$(sql ../small/lab.db "SELECT count(*) FROM samples WHERE run_id = 2")" = 200 &&
	test "$(sql ../small/lab.db "SELECT value FROM run_meta WHERE run_id = 2 AND key = '\''kernel.release'\''")" = fake &&
	test "$(sql ../small/lab.db "SELECT count(*) FROM runs WHERE status <> '\''OK'\''")" = 0
'

test_expect_success 'an error counting the boots so far is not zero boots' '
	rm -rf lab.db* &&
	run --iters 3 >/dev/null 2>&1 &&
	sql lab.db "ALTER TABLE runs RENAME COLUMN variant_id TO variant" &&
	test_expect_code 2 ab --aa --boots 2 --iters 3 >out 2>err &&
	grep -q "^lab: cannot count boots in database '\''lab.db'\'': no such column" err &&
	test "$(sql lab.db "SELECT count(*) FROM runs")" = 1
'

test_expect_success 'lab recipe --resume: an error looking up earlier A/Bs starts none' '
	rm -rf lab.db* &&
	mkdir repo && (cd repo && git init -q -b main . &&
		printf "#!/bin/sh\nmkdir -p out && cp \"\$FAKE\" out/image\n" >build.sh &&
		chmod +x build.sh && git add . &&
		git -c user.name=A -c user.email=a@example.com commit -q -m base) &&
	printf "[build]\n\tcommand = ./build.sh\n\tartifact = out/image\n[run]\n\trunner = local\n" >lab.conf &&
	printf "[recipe]\n\trepo = repo\n\tref = main\n\tworkload = zeroing\n\tmetric = zeroing.t\n\tboots = 2\n\titers = 3\n[variant \"a\"]\n\tcmdline = scale=1.0\n[variant \"b\"]\n\tcmdline = scale=1.1\n" >r.recipe &&
	{ FAKE=$FAKE "$LAB" recipe r.recipe --db lab.db >out 2>err; test $? -le 1 || { cat err; false; }; } &&
	test "$(sql lab.db "SELECT count(*) FROM experiments")" = 1 &&
	# looking up an experiment'\''s status now fails; creating one does not
	sql lab.db "ALTER TABLE experiments DROP COLUMN status" &&
	rc=0 && FAKE=$FAKE "$LAB" recipe r.recipe --resume --db lab.db >out 2>err || rc=$? &&
	cat err && test $rc = 2 &&
	grep -q "cannot look up earlier experiments in database '\''lab.db'\''" err &&
	test "$(sql lab.db "SELECT count(*) FROM experiments")" = 1
'

test_done
