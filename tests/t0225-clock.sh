#!/bin/bash
# --clock wall|icount: QEMU's -icount as a second clock beside wall time.
# Each run stores its clock; an experiment never mixes the two; tables and
# report pages say which one their numbers are in.
. "$(dirname "$0")/lib.sh"

FAKE=$TOP/tests/fixtures/fake-guest.sh
export FAKE_SEED_FILE=$TRASH/seed
KERNEL=$(debian_kernel)
# QEMU that logs its arguments and refuses KVM, so that a KVM probe shows.
cat >qemu-logged <<SH
#!/bin/sh
echo "\$*" >>$TRASH/qemu.argv
case " \$* " in *" -accel kvm "*) echo "kvm start in a clock test" >&2; exit 1 ;; esac
exec qemu-system-x86_64 "\$@"
SH
chmod +x qemu-logged
printf '[qemu "x86_64"]\n\tbinary = %s/qemu-logged\n' "$TRASH" >logged.conf

test_expect_success 'a run stores its clock: the local runner measures wall time' '
	"$LAB" run --db lab.db --runner local --guest "$FAKE" --workload zeroing --iters 5 >out 2>err &&
	test "$(sql lab.db "SELECT clock FROM runs")" = wall &&
	test "$(sql lab.db "PRAGMA user_version")" = 14
'

test_expect_success 'lab run and lab show say the clock above the table' '
	grep -qx "clock: wall time" out &&
	"$LAB" show --db lab.db 1 >show &&
	grep -qx "clock: wall time" show
'

test_expect_success 'icount on the local runner is refused, nothing stored' '
	test_expect_code 2 "$LAB" run --db lab.db --runner local --guest "$FAKE" --workload zeroing \
		--clock icount 2>err &&
	expect_one_line_naming err "clock .icount. needs the qemu runner" &&
	test "$(sql lab.db "SELECT count(*) FROM runs")" = 1
'

test_expect_success KERNEL '--accel kvm --clock icount is refused before any boot' '
	test_expect_code 2 "$LAB" run --db lab.db --config logged.conf --kernel "$KERNEL" \
		--workload zeroing --accel kvm --clock icount 2>err &&
	test "$(unwrapped err)" = "lab: clock '\''icount'\'' needs accel tcg: kvm runs the guest in wall time (use --accel tcg, or --clock wall with kvm)" &&
	! test -e qemu.argv &&
	test "$(sql lab.db "SELECT count(*) FROM runs")" = 1
'

test_expect_success 'a bad clock, in options or lab.conf, is named' '
	test_expect_code 2 "$LAB" run --db lab.db --runner local --guest "$FAKE" --workload zeroing \
		--clock cycles 2>err &&
	expect_one_line_naming err "bad value .cycles. for --clock" &&
	printf "[run]\n\tclock = cycles\n" >bad.conf &&
	test_expect_code 2 "$LAB" run --config bad.conf --db lab.db --runner local --guest "$FAKE" \
		--workload zeroing 2>err &&
	expect_one_line_naming err "bad value .cycles. for .run.clock. in config bad.conf line 2: expected wall, icount or auto" &&
	printf "[qemu]\n\ticountShift = 11\n" >bad.conf &&
	test_expect_code 2 "$LAB" run --config bad.conf --db lab.db --runner local --guest "$FAKE" \
		--workload zeroing 2>err &&
	expect_one_line_naming err "bad value .11. for .qemu.icountshift. in config bad.conf line 2"
'

test_expect_success 'run.clock = icount in lab.conf is the clock of every boot' '
	printf "[run]\n\tclock = icount\n" >icount.conf &&
	test_expect_code 2 "$LAB" run --config icount.conf --db lab.db --runner local --guest "$FAKE" \
		--workload zeroing 2>err &&
	expect_one_line_naming err "clock .icount. needs the qemu runner"
'

# A database as version 3 left it: runs without the clock column (and
# bisections without the columns added later).
version3_schema () {
	sed -e "/^	clock	/d" -e "/^	effect_alpha	/d" -e "/^	config_fragments /d" \
		-e "/^	delta		REAL,/d" -e "/^	seed_experiment	/d" \
		-e "s/^\(	max_boots	INTEGER\),/\1/" \
		-e "s/user_version = [0-9]*/user_version = 3/" "$TOP/schema.sql"
}

test_expect_success 'a version 3 database is upgraded: its runs are wall time' '
	version3_schema |
		sqlite3 old.db &&
	sql old.db "INSERT INTO runs(runner, workloads, cmdline, started, status) VALUES (\"local\", \"zeroing\", \"\", 1, \"OK\")" &&
	! sql old.db "SELECT clock FROM runs" 2>/dev/null &&
	"$LAB" list --db old.db >out &&
	test "$(sql old.db "PRAGMA user_version")" = 14 &&
	test "$(sql old.db "SELECT clock FROM runs")" = wall &&
	sql old.db "SELECT effect_alpha FROM bisections" &&
	sql old.db "SELECT config_fragments, delta, seed_experiment FROM bisect_specs" &&
	"$LAB" run --db old.db --runner local --guest "$FAKE" --workload zeroing --iters 3 >out &&
	"$LAB" run --db old.db --runner local --guest "$FAKE" --workload zeroing --iters 3 >out &&
	test "$(sql old.db "SELECT group_concat(clock) FROM runs")" = wall,wall,wall
'

test_expect_success 'a version 3 database read by lab report is upgraded once' '
	version3_schema |
		sqlite3 old2.db &&
	sql old2.db "INSERT INTO runs(runner, workloads, cmdline, started, status) VALUES (\"local\", \"zeroing\", \"\", 1, \"OK\")" &&
	"$LAB" report --db old2.db --out site2 >/dev/null &&
	test "$(sql old2.db "PRAGMA user_version")" = 14 &&
	grep -q "<dt>clock</dt><dd class=\"clock\">wall time</dd>" site2/r1.html
'

# A project whose build makes the stand-in guest, 10 % slower from change 3.
test_expect_success 'a bisection stores the clock of lab.conf with its options' '
	export FAKE &&
	fake_project repo "$FAKE_IMAGE" && fake_history repo 4 scale_from repo 3 1.10 &&
	printf "[core]\n\trepo = %s/repo\n[build]\n\tcommand = ./build.sh\n\tartifact = out/image\n[run]\n\trunner = local\n\tclock = wall\n" "$PWD" >bisect.conf &&
	test_expect_code 2 "$LAB" bisect --config bisect.conf --db b.db --good base --bad main \
		--workload zeroing --iters 10 --max-boots 3 >out 2>err &&
	grep -q "boot budget of 3 boots used up" err &&
	test "$(sql b.db "SELECT boot_clock FROM bisect_specs")" = wall
'

test_expect_success 'a resumed bisection keeps its clock when lab.conf changes' '
	sed -i "s/clock = wall/clock = icount/" bisect.conf &&
	test_expect_code 2 "$LAB" bisect --config bisect.conf --db b.db --resume 1 --max-boots 5 >out 2>err &&
	cat err && grep -q "boot budget of 5 boots used up" err &&
	test "$(sql b.db "SELECT count(*) || \" \" || group_concat(DISTINCT clock) FROM runs")" = "5 wall" &&
	"$LAB" bisect --config bisect.conf --db b.db --status 1 >status &&
	grep -qx "  clock: wall time" status
'

test_expect_success 'a bisection whose runs are of another clock is not continued' '
	sql b.db "UPDATE runs SET clock = \"icount shift=0\"" &&
	test_expect_code 2 "$LAB" bisect --config bisect.conf --db b.db --resume 1 --max-boots 8 >out 2>err &&
	unwrapped err | grep -q "^lab: experiment E1 was measured with clock .icount shift=0. (virtual time: instructions at 1 GHz), not .wall. (wall time): an experiment never mixes clocks" &&
	test "$(sql b.db "SELECT count(*) FROM runs")" = 5
'

test_expect_success 'an A/B in wall time without --delta has the band of 2 %; --delta its own' '
	"$LAB" ab --aa --db wall.db --runner local --guest "$FAKE" --workload zeroing --iters 5 \
		--boots 2 >out 2>err &&
	test "$(sql wall.db "SELECT DISTINCT delta FROM verdicts")" = 0.02 &&
	"$LAB" ab --aa --db wall.db --runner local --guest "$FAKE" --workload zeroing --iters 5 \
		--boots 2 --delta 0.5% >out 2>err &&
	test "$(sql wall.db "SELECT DISTINCT delta FROM verdicts WHERE experiment_id = 2")" = 0.005
'

# The icount A/A: Debian's kernel against itself, 3 boots a side. In
# virtual time the guest's clock counts instructions, so the touch test
# repeats to far better than 0.1 %, and no verdict of change may come out,
# not even with the band of virtual time, 0.1 %.
test_expect_success TCG 'icount A/A on Debian'\''s kernel: no false verdict, touch CV below 0.1 %' '
	rm -f qemu.argv &&
	test_expect_code 0 "$LAB" ab --aa --db aa.db --config logged.conf --kernel "$KERNEL" \
		--workload zeroing --iters 10 --boots 3 --mem 1G --clock icount \
		--timeout 600 >aa.out 2>aa.err &&
	cat aa.out &&
	! grep -E " (REGRESSION|IMPROVEMENT)$" aa.out &&
	test "$(sql aa.db "SELECT DISTINCT delta FROM verdicts")" = 0.001 &&
	test "$(sql aa.db "SELECT count(*) FROM runs WHERE status = \"OK\" AND clock = \"icount shift=0\" AND accel = \"tcg\"")" = 6 &&
	sql aa.db "SELECT metric, count(*), avg(value), sqrt(avg(value * value) - avg(value) * avg(value)) / avg(value) FROM samples WHERE metric = \"touch\" AND flags = 0" &&
	test "$(sql aa.db "SELECT sqrt(avg(value * value) - avg(value) * avg(value)) / avg(value) < 0.001 FROM samples WHERE metric = \"touch\" AND flags = 0")" = 1
'

test_expect_success TCG 'in icount the host'\''s wall-time host_to_init is a meta entry, not a sample' '
	"$LAB" run --db boot.db --accel tcg --clock icount --kernel "$KERNEL" --workload boot \
		--mem 512M --timeout 600 >boot.out 2>boot.err &&
	test "$(sql boot.db "SELECT count(*) FROM samples WHERE metric = \"host_to_init\"")" = 0 &&
	test "$(sql boot.db "SELECT count(*) FROM samples WHERE metric = \"to_init\"")" = 1 &&
	test "$(sql boot.db "SELECT value > 0 FROM run_meta WHERE key = \"host.to_init_s\"")" = 1
'

test_expect_success TCG 'icount under accel auto is TCG without a KVM probe' '
	test "$(grep -c -- "-icount shift=0,sleep=off" qemu.argv)" = 6 &&
	! grep -q -- "-accel kvm" qemu.argv &&
	# the boots; the guest size QEMU was asked about once, without a kernel
	test "$(grep -v -- "-kernel /nonexistent/" qemu.argv | grep -c -- "-accel tcg")" = 6
'

test_expect_success TCG 'the A/B table says its clock' '
	grep -qx "  clock: virtual time: instructions at 1 GHz" aa.out &&
	grep -q "^1024M, 1 cpu: .* compared, n .*; lower is better$" aa.out &&
	grep -q "^zeroing.touch  *\(ms\|µs\|s\)  " aa.out &&
	"$LAB" show --db aa.db E1 --format json | grep -q "\"clock\": \"virtual time: instructions at 1 GHz\""
'

test_expect_success TCG 'the report pages say the clock' '
	"$LAB" report --db aa.db --out site >/dev/null &&
	grep -q "<dt>clock</dt><dd class=\"clock\">virtual time: instructions at 1 GHz</dd>" site/e1.html &&
	grep -q "<dt>clock</dt><dd class=\"clock\">virtual time: instructions at 1 GHz</dd>" site/r1.html
'

test_expect_success TCG 'a wall-time resume of an icount A/B is refused, --force or not, before a boot' '
	test_expect_code 2 "$LAB" ab --db aa.db --config logged.conf --kernel "$KERNEL" \
		--workload zeroing --iters 10 --boots 4 --mem 1G --clock wall --accel tcg --force \
		--resume E1 >out 2>err &&
	cat err &&
	unwrapped err | grep -q "^lab: experiment E1 was measured with clock .icount shift=0. (virtual time: instructions at 1 GHz), not .wall. (wall time): an experiment never mixes clocks (use --clock icount and its qemu.icountShift)$" &&
	test "$(sql aa.db "SELECT count(*) FROM runs")" = 6
'

test_done
