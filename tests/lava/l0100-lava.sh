#!/bin/bash
# The lava runner against a real LAVA instance, made on this machine by
# tests/lava/start-lava.sh (Debian 12's lava-server and lava-dispatcher,
# PostgreSQL, the services on 127.0.0.1) with a qemu device on a local
# worker: lab target check asks the server; lab run stores samples; a job
# LAVA fails is INFRA, a hang TIMEOUT with its job cancelled, a killed
# lab's job cancelled by the next lab; and an A/B of the fixture's base
# and regression on demote through LAVA gives the verdict the qemu runner
# gives. Each stage's seconds are printed. A LAVA that cannot be made
# fails the file (Bail out!), saying why: nothing passes untested.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/lib-lava.sh"
: "${FIXTURE:?make check-lava sets FIXTURE}"

lava_up
# the fixture's builds, in the checkout's state: a cold one on a busy
# machine may take longer than the default hour
printf "[build]\n\ttimeout = 4h\n" >build.conf

test_expect_success 'lab target check: the token, the device type, a device online' '
	lab target check lava1 >wrapped &&
	cat wrapped &&
	within_columns wrapped && unwrapped wrapped >out &&
	test "$(cat out)" = "$(printf "target '\''lava1'\'' (lava, %s, qemu): ready\n  user: lab" "$URL")" &&
	cp "$LSTATE/token" open-token && chmod 644 open-token &&
	echo nosuch-token >bad-token && chmod 600 bad-token &&
	sed -e "s|token = .*|token = $TRASH/open-token|" lab.conf >open.conf &&
	sed -e "s|token = .*|token = $TRASH/bad-token|" lab.conf >bad.conf &&
	sed -e "s|deviceType = qemu|deviceType = nosuch|" lab.conf >type.conf &&
	test_expect_code 1 "$LAB" target check --config open.conf lava1 >wrapped &&
	within_columns wrapped && unwrapped wrapped >out &&
	grep -qx "target .lava1. (lava, .*): missing token file .$TRASH/open-token. is readable by others (mode 0644): chmod 600 it" out &&
	test_expect_code 1 "$LAB" target check --config bad.conf lava1 >wrapped &&
	cat wrapped &&
	within_columns wrapped && unwrapped wrapped >out &&
	grep -q "^target .lava1. (lava, .*): missing a token the server accepts (LAVA server .$URL. refused the token: HTTP 403" out &&
	test_expect_code 1 "$LAB" target check --config type.conf lava1 >wrapped &&
	cat wrapped &&
	within_columns wrapped && unwrapped wrapped >out &&
	grep -q "^target .lava1. (lava, .*): missing device type .nosuch. (LAVA server .$URL. refused the device type: HTTP 404" out
'
took "target check"

test_expect_success 'lab run --target lava1: a LAVA job boots the kernel, its samples stored' '
	lab run --target lava1 --kernel "$KERNEL" --workload zeroing --iters 3 --param zeroing_mb=16 \
		--mem 1G >out 2>err &&
	cat out err &&
	id=$(last_run) &&
	test "$(sql state/lab.db "SELECT status || \" \" || runner FROM runs WHERE id = $id")" = "OK lava" &&
	test "$(sql state/lab.db "SELECT count(*) FROM samples WHERE run_id = $id AND metric = \"touch\"")" = 3 &&
	job=$(meta $id lava.job) &&
	test "$(meta $id lava.url)" = "$URL/scheduler/job/$job" &&
	test "$(meta $id lava.health)" = Complete &&
	test "$(api "jobs/$job/" | field health)" = Complete &&
	# the console log is the device'\''s, read from the job'\''s log
	grep -q "Linux version" "$(sql state/lab.db "SELECT console_log FROM runs WHERE id = $id")" &&
	test ! -e state/cache/lava-jobs/$job
'
took "a run through LAVA"

test_expect_success 'a job LAVA fails before the kernel speaks: INFRA with its reason, nothing measured' '
	test_expect_code 1 lab run --target lavabad --kernel "$KERNEL" --workload zeroing --iters 1 \
		--mem 1G >out 2>err &&
	id=$(last_run) &&
	test "$(sql state/lab.db "SELECT status FROM runs WHERE id = $id")" = INFRA &&
	sql state/lab.db "SELECT error FROM runs WHERE id = $id" >error && cat error &&
	# LAVA names the images it could not fetch in an order of its own, the excerpt the first
	grep -q "^LAVA job [0-9]* ended Incomplete before the kernel spoke: Job error: Invalid job data: \[\"Resource unavailable at .$URL/no-such-folder/lab-[0-9a-f]*-\(kernel\|initramfs\). (404)\"" error &&
	test "$(sql state/lab.db "SELECT count(*) FROM samples WHERE run_id = $id")" = 0 &&
	# the copies for the worker are gone with the boot
	test -z "$(ls img)"
'
took "a job LAVA fails"

test_expect_success 'a hang: TIMEOUT at the lab'\''s deadline, and its LAVA job cancelled' '
	test_expect_code 1 lab run --target lava1 --kernel "$KERNEL" --workload zeroing --iters 100000 \
		--param zeroing_mb=64 --mem 1G --timeout 45 >out 2>err &&
	id=$(last_run) &&
	test "$(sql state/lab.db "SELECT status FROM runs WHERE id = $id")" = TIMEOUT &&
	job=$(meta $id lava.job) &&
	test "$(api "jobs/$job/" | field health)" = Canceled &&
	test "$(api "jobs/$job/" | field state)" = Finished &&
	test ! -e state/cache/lava-jobs/$job
'
took "a hang, its job cancelled"

test_expect_success 'a lab killed mid-job: the next lab cancels that job, saying so' '
	"$LAB" run --config "$TRASH/lab.conf" --target lava1 --kernel "$KERNEL" --workload zeroing \
		--iters 100000 --param zeroing_mb=64 --mem 1G >killed.out 2>&1 &
	pid=$! &&
	# every job before this one ended: its note is the only one
	test_wait_until 300 "ls state/cache/lava-jobs/ 2>/dev/null | grep -q ." &&
	job=$(ls state/cache/lava-jobs/) && test "$(echo $job | wc -w)" = 1 &&
	test_wait_until 600 "test \"\$(api jobs/$job/ | field state)\" = Running" &&
	{ kill -9 $pid; wait $pid 2>/dev/null; true; } &&
	test "$(api "jobs/$job/" | field state)" = Running &&
	lab run --target lava1 --kernel "$KERNEL" --workload zeroing --iters 1 --param zeroing_mb=16 \
		--mem 1G >out 2>err &&
	cat err &&
	grep -q "cancelling LAVA job $job of a lab that ended before it did" err &&
	test "$(api "jobs/$job/" | field health)" = Canceled &&
	test ! -e state/cache/lava-jobs/$job
'
took "a killed lab'\''s job"

# the A/B of make demo's step 3, in virtual time, through each runner: the
# fixture kernels built (or found) in the checkout's state, as make demo has them
ab() { # RUNNER-OPTIONS...
	lab ab --a-kernel "$(cat base)" --b-kernel "$(cat regression)" --workload demote --mem 4G \
		--max-boots 8 --cmdline "hugetlb_free_vmemmap=on nokaslr" "$@"
}
verdict() { # EXPERIMENT
	sql state/lab.db "SELECT verdict FROM verdicts WHERE experiment_id = $1 AND metric = 'demote_total_wall'"
}

test_expect_success 'an A/B through LAVA: the fixture'\''s regression, the verdict the qemu runner gives' '
	(cd "$TOP" && "$LAB" build --config "$TRASH/build.conf" --repo "$FIXTURE" fixture-base) >base &&
	(cd "$TOP" && "$LAB" build --config "$TRASH/build.conf" --repo "$FIXTURE" fixture-regression) >regression &&
	rc=0 && ab --targets lava1 >lava.out 2>lava.err || rc=$? &&
	cat lava.out && test $rc = 1 &&
	e=$(sql state/lab.db "SELECT max(id) FROM experiments") &&
	test "$(sql state/lab.db "SELECT count(DISTINCT runner) || \" \" || min(runner) FROM runs WHERE experiment_id = $e")" = "1 lava" &&
	test "$(verdict $e)" = REGRESSION &&
	rc=0 && ab --runner qemu --accel tcg >qemu.out 2>qemu.err || rc=$? &&
	cat qemu.out && test $rc = 1 &&
	q=$(sql state/lab.db "SELECT max(id) FROM experiments") &&
	test "$(verdict $q)" = "$(verdict $e)" &&
	sql state/lab.db "SELECT e.id, r.runner, r.clock FROM experiments e JOIN runs r ON r.experiment_id = e.id WHERE e.id IN ($e, $q) GROUP BY e.id" | sed "s/^/# /"
'
took "the A/B through LAVA and through QEMU"

test_done
