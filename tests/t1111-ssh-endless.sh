#!/bin/bash
# An ssh host the lab must not trust, against a real sshd on a loopback
# port: its answer to the lab's check never ends (the key's forced command
# prints forever). The lab reads 1 MiB of it, stops the command and says
# the answer was too long: the connection itself is not missing.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib-sshd.sh"

sshd_start one 127.0.0.1 && P1=$SSHD_PORT ||
	{ echo "1..0 # SKIP sshd does not start here: $(tail -1 "$TRASH"/*.log)"; exit 0; }
ssh-keygen -q -t ed25519 -N '' -f "$TRASH/endless" || exit 1
echo "command=\"yes @ssh arch x86_64\" $(cat "$TRASH/endless.pub")" >>"$TRASH/authorized_keys"

cat >lab.conf <<EOC
[core]
	state = $TRASH/state
[ssh]
	knownHosts = $TRASH/known_hosts
	host = root@127.0.0.1
	port = $P1
[target "endless"]
	runner = ssh
	identity = $TRASH/endless
[target "plain"]
	runner = ssh
	identity = $TRASH/id
EOC
export LAB_CONFIG=$PWD/lab.conf

test_expect_success 'an endless answer: cut off at 1 MiB, said as that, within seconds' '
	start=$(date +%s) &&
	test_expect_code 1 timeout 50 "$LAB" target check endless >wrapped 2>err &&
	within_columns wrapped && unwrapped wrapped >out &&
	test "$(cat out)" = "target '\''endless'\'' (ssh, root@127.0.0.1:$P1): missing a usable answer (cannot ask host '\''root@127.0.0.1'\'' what it has: answer over 1048576 bytes from host '\''root@127.0.0.1'\'': cut off (an endless answer?))" &&
	test ! -s err &&
	test $(( $(date +%s) - start )) -lt 30
'

test_expect_success 'the same host with a key that runs the lab'\''s command: connected, asked, answered' '
	rc=0 && "$LAB" target check plain >wrapped 2>err || rc=$? &&
	within_columns wrapped && unwrapped wrapped >out &&
	! grep -q "usable answer\|an ssh connection" out &&
	grep -q "^target .plain. (ssh, root@127.0.0.1:$P1): " out
'

test_done
