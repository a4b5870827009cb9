#!/bin/bash
# On the local runner the guest program is a plain process of this host:
# what it starts, even in a session of its own, ends with its run. A
# workload's failure is told with the end of its stderr, however much came
# before it.
. "$(dirname "$0")/lib.sh"

FAKE=$TOP/tests/fixtures/fake-guest.sh
TAG=$$

# leftovers PATTERN: kill what a failed test left behind, so that the next starts clean
leftovers() {
	for pid in $(pgrep -f "$1"); do kill -9 "$pid"; done; true
}

# A guest that starts a daemon of its own session holding the run's output,
# and another one orphaned at once by a subshell, then says its samples.
cat >escaping-guest.sh <<SH
#!/bin/sh
setsid sleep 30${TAG}1 &
( setsid sleep 30${TAG}2 </dev/null >/dev/null 2>&1 & )
exec "$FAKE" "\$@"
SH
# The same, killed at its deadline: it never says done.
cat >hanging-guest.sh <<SH
#!/bin/sh
setsid sleep 30${TAG}3 &
echo "@lab hello 2 hang"
exec sleep 30${TAG}4
SH
chmod +x escaping-guest.sh hanging-guest.sh

test_expect_success 'what a --guest program starts with setsid ends with its run' '
	test_when_finished "leftovers \"sleep 30${TAG}[12]\"" &&
	start=$(date +%s) &&
	"$LAB" run --db lab.db --runner local --guest "$TRASH/escaping-guest.sh" --workload zeroing \
		--iters 2 >out 2>err &&
	end=$(date +%s) &&
	test "$(sql lab.db "SELECT status FROM runs WHERE id = 1")" = OK &&
	! pgrep -af "sleep 30${TAG}[12]" &&
	# the daemon held the output: it was not waited for until the grace after done
	test $((end - start)) -lt 8
'

test_expect_success '... and when the run is killed at its deadline' '
	test_when_finished "leftovers \"sleep 30${TAG}[34]\"" &&
	test_expect_code 1 "$LAB" run --db lab.db --runner local --guest "$TRASH/hanging-guest.sh" \
		--workload zeroing --timeout 2 >out 2>err &&
	test "$(sql lab.db "SELECT status FROM runs WHERE id = 2")" = TIMEOUT &&
	! pgrep -af "sleep 30${TAG}[34]"
'

# 5 MiB of noise on stderr, then the line that says what went wrong.
cat >loud.sh <<'SH'
#!/bin/sh
echo "t 1 us"
head -c 5242880 /dev/zero | tr "\0" x >&2
echo >&2
echo "the real reason: quota of volume wk7 exceeded" >&2
exit 4
SH
chmod +x loud.sh

test_expect_success 'a workload'\''s failure keeps the end of 5 MiB of stderr, and says what was cut' '
	test_expect_code 1 "$LAB" run --db lab.db --runner local --workload "exec:$TRASH/loud.sh" \
		--iters 1 >out 2>err &&
	test "$(sql lab.db "SELECT status FROM runs WHERE id = 3")" = FAILED &&
	sql lab.db "SELECT error FROM runs WHERE id = 3" >error &&
	cat error &&
	grep -q "^loud: iteration 1: .*loud/run. exited with status 4; stderr (\.\.\. 5242447 bytes cut \.\.\.): x* the real reason: quota of volume wk7 exceeded$" error
'

test_done
