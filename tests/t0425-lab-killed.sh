#!/bin/bash
# A lab that is killed, even by SIGKILL, takes its children with it, leaves
# no temp file behind for long, and the run it was doing is closed as INFRA
# by the next lab that writes the database.
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
