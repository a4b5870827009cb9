#!/bin/bash
# A lab that is killed, even by SIGKILL, takes its children with it, leaves
# no temp file behind for long, and the run it was doing is closed as INFRA
# by the next lab that writes the database. Ctrl-C (SIGINT) or SIGTERM
# during lab ab or lab run stops it between boots: the boot under way ends
# INFRA "interrupted", every boot that ended stays, an A/B is marked
# INTERRUPTED, and the command that goes on is said within 100 columns.
. "$(dirname "$0")/lib.sh"

FAKE=$TOP/tests/fixtures/fake-guest.sh
export FAKE_SEED_FILE=$TRASH/seed
export PIDS=$TRASH/pids
cat >hang.sh <<'EOF'
#!/bin/sh
# a guest that says hello and hangs, with a child of its own
echo "@lab hello 1 hang"
echo $$ >"$PIDS.tmp"
sleep 300 &
echo $! >>"$PIDS.tmp"
mv "$PIDS.tmp" "$PIDS"
wait
EOF
chmod +x hang.sh

# alive PID: a process that exists and is not a zombie
alive() {
	local st
	st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d" " -f1) || return 1
	test -n "$st" && test "$st" != Z
}
# gone PID...: each is dead within 5 s
gone() {
	for _ in $(seq 50); do
		local any=
		for p in "$@"; do alive "$p" && any=1; done
		test -z "$any" && return 0
		sleep 0.1
	done
	for p in "$@"; do alive "$p" && ps -o pid,ppid,pgid,args -p "$p"; done
	return 1
}

test_expect_success 'kill -9 of the lab: the guest program and its child die with it' '
	rm -f "$PIDS"
	"$LAB" run --db lab.db --runner local --guest ./hang.sh --workload zeroing --timeout 600 \
		>out 2>err &
	lab=$! &&
	test_when_finished "kill $lab 2>/dev/null || :" &&
	test_wait_until 30 "test -s \"$PIDS\"" &&
	kill -9 $lab && { wait $lab || true; } &&
	echo $lab >killed-pid &&
	gone $(cat "$PIDS")
'

test_expect_success 'reading the database leaves the dead lab'\''s run as it was' '
	"$LAB" list --db lab.db >list &&
	test "$(sql lab.db "SELECT status FROM runs WHERE id = 1")" = RUNNING
'

test_expect_success 'the next lab that writes closes that run as INFRA, naming the pid' '
	"$LAB" run --db lab.db --runner local --guest "$FAKE" --workload zeroing --iters 3 \
		>out 2>err &&
	test "$(sql lab.db "SELECT status FROM runs WHERE id = 1")" = INFRA &&
	test "$(sql lab.db "SELECT error FROM runs WHERE id = 1")" = \
		"the lab running it died (pid $(cat killed-pid))" &&
	test "$(sql lab.db "SELECT status FROM runs WHERE id = 2")" = OK &&
	test "$(sql lab.db "SELECT count(*) FROM run_owners")" = 0
'

test_expect_success 'a run of a lab still running is left alone' '
	rm -f "$PIDS"
	"$LAB" run --db lab.db --runner local --guest ./hang.sh --workload zeroing --timeout 600 \
		>out 2>err &
	lab=$! &&
	test_when_finished "kill $lab 2>/dev/null || :" &&
	test_wait_until 30 "test -s \"$PIDS\"" &&
	"$LAB" run --db lab.db --runner local --guest "$FAKE" --workload zeroing --iters 3 \
		>out2 2>err2 &&
	status=$(sql lab.db "SELECT status FROM runs WHERE id = 3") &&
	owner=$(sql lab.db "SELECT pid FROM run_owners WHERE run_id = 3") &&
	kill -TERM $lab && { wait $lab || true; } &&
	gone $(cat "$PIDS") &&
	test "$status" = RUNNING && test "$owner" = $lab
'

ok_runs() { # DB: its runs that ended OK
	sql "$1" "SELECT count(*) FROM runs WHERE status = 'OK'" 2>/dev/null
}
# stop_after_runs DB N SIG PID: once N runs of DB ended OK, send SIG to PID; rc gets its status
stop_after_runs() {
	test_wait_until 60 "test \"\$(ok_runs $1)\" -ge $2 2>/dev/null" &&
	kill -$3 $4 && { wait $4; echo $? >rc; }
}

test_expect_success 'Ctrl-C during lab ab: INTERRUPTED, the ended boots kept, how to resume it' '
	with_sigint "$LAB" ab --db int.db --runner local --guest "$FAKE" --workload zeroing \
		--a-cmdline "sleep=1 tag=int$$" --b-cmdline "sleep=1 scale=1.2 tag=int$$" \
		--boots 3 --iters 5 >out 2>err &
	lab=$! &&
	test_when_finished "kill $lab 2>/dev/null || :" &&
	stop_after_runs int.db 2 INT $lab &&
	cat err &&
	test "$(cat rc)" = 130 &&
	test "$(sql int.db "SELECT status FROM experiments WHERE id = 1")" = INTERRUPTED &&
	ok=$(ok_runs int.db) &&
	test "$ok" -ge 2 &&
	test "$(sql int.db "SELECT count(*) FROM samples s JOIN runs r ON r.id = s.run_id WHERE r.status = '\''OK'\''")" = $((ok * 5)) &&
	test "$(sql int.db "SELECT count(*) FROM runs WHERE status NOT IN ('\''OK'\'', '\''INFRA'\'')")" = 0 &&
	test "$(sql int.db "SELECT count(*) FROM runs WHERE status = '\''INFRA'\'' AND error != '\''interrupted'\''")" = 0 &&
	sed -n "/^experiment E1: interrupted, its finished boots kept; resume it with:\$/,\$p" err \
		>said &&
	said_command said >resume &&
	test "$(cat resume)" = "lab ab --db int.db --runner local --guest $FAKE --workload zeroing --a-cmdline '\''sleep=1 tag=int$$'\'' --b-cmdline '\''sleep=1 scale=1.2 tag=int$$'\'' --boots 3 --iters 5 --resume E1" &&
	test "$(wc -l <said)" -gt 2 &&
	test -z "$(awk "length > 100" said)" &&
	test -z "$(pgrep -f "tag=int$$")"
'

test_expect_success 'the command it printed, its lines pasted as they are, resumes the experiment to its end' '
	resume=$(sed -e 1d -e "2s/^ *lab //" said) &&
	test_expect_code 1 eval "\"\$LAB\" $resume" >out 2>err2 &&
	grep -qx "experiment E1: resumed" err2 &&
	test "$(sql int.db "SELECT status FROM experiments WHERE id = 1")" = DONE &&
	test "$(ok_runs int.db)" = 6 &&
	grep -q " REGRESSION$" out
'

test_expect_success 'SIGTERM during lab run: the ended boots kept, the rest one command away' '
	"$LAB" run --db run.db --runner local --guest "$FAKE" --workload zeroing --boots 4 \
		--iters 3 --cmdline sleep=1 >out 2>err &
	lab=$! &&
	test_when_finished "kill $lab 2>/dev/null || :" &&
	stop_after_runs run.db 1 TERM $lab &&
	cat err &&
	test "$(cat rc)" = 143 &&
	ok=$(ok_runs run.db) &&
	test "$(sql run.db "SELECT count(*) FROM runs WHERE status != '\''OK'\''")" -le 1 &&
	sed -n "/^lab run: interrupted after $ok of 4 boots, $(test $ok = 1 && echo it || echo all) kept; the other $((4 - ok)) with:\$/,\$p" err >said &&
	said_command said >rest &&
	test "$(cat rest)" = "lab run --db run.db --runner local --guest $FAKE --workload zeroing --boots 4 --iters 3 --cmdline sleep=1 --boots $((4 - ok))" &&
	test -z "$(awk "length > 100" said)"
'

kernel=$(debian_kernel)
qemu_of() {
	pgrep -f "initramfs-x86_64-$1-" || true
}

test_expect_success TCG 'SIGTERM during a QEMU boot: QEMU and the initramfs go at once' '
	"$LAB" run --db q.db --kernel "$kernel" --accel tcg --workload zeroing --timeout 600 \
		>out 2>err &
	lab=$! &&
	test_when_finished "kill $lab 2>/dev/null || :" &&
	test_wait_until 30 "test -n \"\$(qemu_of $lab)\"" &&
	qemu=$(qemu_of $lab) &&
	ls cache/initramfs-*-$lab-*.cpio &&
	# the boot'\''s own, the lab'\''s with the nonce appended
	ls cache/initramfs-*-$lab-*.cpio.[0-9a-f]* &&
	kill -TERM $lab && { wait $lab || true; } &&
	gone $qemu &&
	! ls cache/initramfs-*-$lab-* 2>/dev/null
'

test_expect_success TCG 'kill -9 during a QEMU boot: QEMU dies, the next lab removes the initramfs' '
	"$LAB" run --db q.db --kernel "$kernel" --accel tcg --workload zeroing --timeout 600 \
		>out 2>err &
	lab=$! &&
	test_when_finished "kill $lab 2>/dev/null || :" &&
	test_wait_until 30 "test -n \"\$(qemu_of $lab)\"" &&
	qemu=$(qemu_of $lab) &&
	kill -9 $lab && { wait $lab || true; } &&
	gone $qemu &&
	ls cache/initramfs-*-$lab-*.cpio cache/initramfs-*-$lab-*.cpio.[0-9a-f]* &&
	"$LAB" run --db q.db --runner local --guest "$FAKE" --workload zeroing --iters 3 \
		>out 2>err &&
	! ls cache/initramfs-*-$lab-* 2>/dev/null &&
	test "$(sql q.db "SELECT status FROM runs WHERE id = 2")" = INFRA
'

test_done
