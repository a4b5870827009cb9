#!/bin/bash
# The lava runner, fast, against tests/fixtures/fake-lava.py: LAVA's REST
# API as the runner uses it, each job a real QEMU boot of Debian's kernel
# with the lab's initramfs, its console the job's log. What the runner
# asks and how it tells the outcomes apart: the target check, samples
# stored, a job failed before the kernel (INFRA), the deadline (TIMEOUT,
# the job cancelled), a killed lab's job cancelled by the next. make
# check-lava runs the same against a real LAVA server.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib-lava.sh"

PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
URL=http://127.0.0.1:$PORT
echo lab-test-token >token && chmod 600 token
python3 "$TOP/tests/fixtures/fake-lava.py" "$PORT" token >fake.log 2>&1 &
FAKE=$!
trap 'kill $FAKE 2>/dev/null; rm -rf "$TRASH"' EXIT
for _ in $(seq 50); do curl -s "$URL/" >/dev/null && break; sleep 0.1; done

lava_conf "$URL/" "$TRASH/token" file:///nonexistent
export LAB_CONFIG=$TRASH/lab.conf
KERNEL=$(debian_kernel)
api() { # PATH
	lava_api "$URL" "$TRASH/token" "$1"
}
field() {
	json_field "$1"
}
run_field() { # RUN COLUMN
	sql state/lab.db "SELECT $2 FROM runs WHERE id = $1"
}
meta() { # RUN KEY
	sql state/lab.db "SELECT value FROM run_meta WHERE run_id = $1 AND key = '$2'"
}

test_expect_success 'lab target check: ready, the token'\''s user named; a bad token, an open one, no such device type' '
	"$LAB" target check lava1 >out &&
	test "$(cat out)" = "$(printf "target '\''lava1'\'' (lava, %s, qemu): ready\n  user: lab" "$URL")" &&
	cp token open-token && chmod 644 open-token &&
	echo wrong >bad-token && chmod 600 bad-token &&
	sed "s|token = .*|token = $TRASH/open-token|" lab.conf >open.conf &&
	sed "s|token = .*|token = $TRASH/bad-token|" lab.conf >bad.conf &&
	sed "s|deviceType = qemu|deviceType = nosuch|" lab.conf >type.conf &&
	test_expect_code 1 "$LAB" target check --config open.conf lava1 >out &&
	grep -qx "target .lava1. (lava, .*): missing token file .$TRASH/open-token. is readable by others (mode 0644): chmod 600 it" out &&
	test_expect_code 1 "$LAB" target check --config bad.conf lava1 >out &&
	grep -qx "target .lava1. (lava, .*): missing a token the server accepts (LAVA server .$URL. refused the token: HTTP 403 (Invalid token.))" out &&
	test_expect_code 1 "$LAB" target check --config type.conf lava1 >out &&
	grep -qx "target .lava1. (lava, .*): missing device type .nosuch. (LAVA server .$URL. refused the device type: HTTP 404 (Not found.))" out
'

test_expect_success 'bad lava keys: one line naming the key and what it takes' '
	printf "[target \"l\"]\n\trunner = lava\n\turl = ftp://x\n" >badurl.conf &&
	test_expect_code 2 "$LAB" target list --config badurl.conf 2>err &&
	expect_one_line_naming err "target.l.url" &&
	grep -q "the LAVA server.s http:// or https:// URL" err &&
	printf "[target \"l\"]\n\trunner = lava\n\tqueue = 0\n" >badq.conf &&
	test_expect_code 2 "$LAB" target list --config badq.conf 2>err &&
	grep -q "seconds from 1 to 604800" err
'

test_lazy_prereq BOOT 'test_have_prereq TCG && test -n "$(debian_kernel)"'

test_expect_success BOOT 'lab run --target lava1: a job boots the kernel, its samples stored, its job named' '
	"$LAB" run --target lava1 --kernel "$KERNEL" --workload zeroing --iters 3 --param zeroing_mb=16 \
		--mem 1G >out 2>err &&
	cat out err &&
	id=$(sql state/lab.db "SELECT max(id) FROM runs") &&
	test "$(run_field $id "status || \" \" || runner || \" \" || clock")" = "OK lava icount shift=0" &&
	test "$(sql state/lab.db "SELECT count(*) FROM samples WHERE run_id = $id AND metric = \"touch\"")" = 3 &&
	job=$(meta $id lava.job) &&
	test "$(meta $id lava.url)" = "$URL/scheduler/job/$job" &&
	test "$(meta $id lava.health)" = Complete && test "$(meta $id lava.device)" = fake01 &&
	grep -q "Linux version" "$(run_field $id console_log)" &&
	test ! -e state/cache/lava-jobs/$job &&
	# what the job asked of QEMU: the lab'\''s command line and nonce, its clock
	grep -q "lab.nonce=[0-9a-f]" "$(run_field $id console_log)" &&
	test "$(grep -c "^\[" "$(run_field $id console_log)")" -gt 10
'

test_expect_success BOOT 'a job that fails before the kernel speaks: INFRA, LAVA'\''s reason, no samples, no copies left' '
	test_expect_code 1 "$LAB" run --target lavabad --kernel "$KERNEL" --workload zeroing --iters 1 \
		--mem 1G >out 2>err &&
	id=$(sql state/lab.db "SELECT max(id) FROM runs") &&
	test "$(run_field $id status)" = INFRA &&
	run_field $id error >error && cat error &&
	grep -qx "LAVA job $(meta $id lava.job) ended Incomplete before the kernel spoke: Job error: Invalid job data: \[\"Image file '\''/nonexistent/lab-[0-9a-f]*-kernel'\'' does not exist or is not readable\"\]" error &&
	test "$(sql state/lab.db "SELECT count(*) FROM samples WHERE run_id = $id")" = 0 &&
	test -z "$(ls img)"
'

test_expect_success BOOT 'a hang: TIMEOUT at the deadline, the job cancelled' '
	test_expect_code 1 "$LAB" run --target lava1 --kernel "$KERNEL" --workload zeroing --iters 100000 \
		--param zeroing_mb=64 --mem 1G --timeout 20 >out 2>err &&
	id=$(sql state/lab.db "SELECT max(id) FROM runs") &&
	test "$(run_field $id status)" = TIMEOUT &&
	job=$(meta $id lava.job) &&
	test "$(api "jobs/$job/" | field health)" = Canceled &&
	test ! -e state/cache/lava-jobs/$job
'

test_expect_success BOOT 'a lab killed mid-job: the next cancels its job, saying so; a live lab'\''s is left alone' '
	"$LAB" run --target lava1 --kernel "$KERNEL" --workload zeroing --iters 100000 \
		--param zeroing_mb=64 --mem 1G >killed.out 2>&1 &
	pid=$! &&
	# every job before this one ended: its note is the only one
	test_wait_until 60 "ls state/cache/lava-jobs/ 2>/dev/null | grep -q ." &&
	job=$(ls state/cache/lava-jobs/) && test "$(echo $job | wc -w)" = 1 &&
	test_wait_until 60 "test \"\$(api jobs/$job/ | field state)\" = Running" &&
	# a lab still running: its job is its own
	"$LAB" run --target lava1 --kernel "$KERNEL" --workload zeroing --iters 1 \
		--param zeroing_mb=16 --mem 1G >out 2>err &&
	! grep -q "cancelling" err &&
	test "$(api "jobs/$job/" | field state)" = Running &&
	{ kill -9 $pid; wait $pid 2>/dev/null; true; } &&
	"$LAB" run --target lava1 --kernel "$KERNEL" --workload zeroing --iters 1 --param zeroing_mb=16 \
		--mem 1G >out 2>err &&
	grep -q "cancelling LAVA job $job of a lab that ended before it did" err &&
	test "$(api "jobs/$job/" | field health)" = Canceled &&
	test ! -e state/cache/lava-jobs/$job
'

test_done
