#!/bin/bash
# An A/B of the fixture's base and regression on the arm64 test host of
# r0100, as a class of targets: lab ab --targets arm builds both for
# arm64, kexecs each boot there in ABBA order and comes to a verdict, the
# host back in its default kernel after every boot. Each boot is a kexec
# and a reboot under TCG: about ten minutes a pair.
. "$(dirname "$0")/../lib.sh"

: "${FIXTURE:?make check-remote sets FIXTURE}"
DB=$TOP/state/check-remote.db
INIT=init=/usr/local/sbin/lab-ssh-init

IMG=$("$TOP/tests/remote/make-host.sh" arm64 "$TOP/state") || { echo "1..0 # SKIP no test host: make-host.sh failed"; exit 0; }
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
HOST=$TRASH/host
stop_host() { [ -s "$HOST/qemu.pid" ] && kill "$(cat "$HOST/qemu.pid")" 2>/dev/null; }
trap stop_host EXIT
secs=$("$TOP/tests/remote/start-host.sh" "$IMG" "$HOST" "$PORT") || { echo "1..0 # SKIP the test host does not boot"; exit 0; }
echo "# boot to ssh: $secs s"
hssh() {
	ssh -q -o BatchMode=yes -o StrictHostKeyChecking=yes -o UserKnownHostsFile="$HOST/known_hosts" \
		-i "$IMG/id_ed25519" -p "$PORT" root@127.0.0.1 "$@"
}
DEFAULT=$(hssh uname -r)
cat >"$TRASH/lab.conf" <<EOC
[ssh]
	identity = $IMG/id_ed25519
	knownHosts = $HOST/known_hosts
	deadline = 400
[target "arm1"]
	runner = ssh
	class = arm
	arch = aarch64
	host = root@127.0.0.1
	port = $PORT
	reset = $HOST/reset.sh
EOC
FRAG=$TOP/tests/remote/arm64-host.config

test_expect_success 'lab ab --targets arm: base against regression, kexec'\''d on the host, a verdict' '
	start=$(date +%s) &&
	rc=0 && "$LAB" ab --config "$TRASH/lab.conf" --db "$DB" --targets arm --arch aarch64 \
		--repo "$FIXTURE" --a fixture-base --b fixture-regression --a-config "$FRAG" \
		--b-config "$FRAG" --workload zeroing --iters 5 --param zeroing_mb=16 --boots 2 \
		--cmdline "$INIT" >out 2>err || rc=$? &&
	cat out err &&
	echo "# the A/B: $(( $(date +%s) - start )) s" &&
	test $rc -le 1 &&
	grep -q "^verdict: " out &&
	e=$(sql "$DB" "SELECT max(id) FROM experiments") &&
	sql "$DB" "SELECT v.name, count(*) FROM runs r JOIN variants v ON v.id = r.variant_id JOIN run_targets t ON t.run_id = r.id WHERE r.experiment_id = $e AND r.status = '\''OK'\'' AND r.runner = '\''ssh'\'' AND t.target = '\''arm1'\'' GROUP BY v.name" >sides &&
	test "$(cat sides)" = "$(printf "A|2\nB|2")" &&
	test "$(sql "$DB" "SELECT count(DISTINCT m.value) FROM runs r JOIN run_meta m ON m.run_id = r.id AND m.key = '\''ssh.restore'\'' WHERE r.experiment_id = $e")" = 1 &&
	test "$(hssh uname -r)" = "$DEFAULT"
'

test_done
