# The arm64 test host of tests/remote/, for a test file that sources it
# after ../lib.sh: made once by make-host.sh and cached under the state
# root, booted here under TCG with ssh on a loopback port. It is target
# arm1 (class arm) of $TRASH/lab.conf; hssh runs a command on it as root;
# DEFAULT is its own kernel's release. A host that cannot be made or booted
# fails the file (TAP's Bail out!, exit 1), saying why: nothing passes untested.
: "${FIXTURE:?make check-remote sets FIXTURE}"
DB=$TOP/state/check-remote.db
FRAG=$TOP/kernels/configs/arm64-server.config
# the host's disk and NIC drivers as modules: found only through the lab's initramfs
MODULAR=$TOP/tests/remote/modular.config

start=$(date +%s)
bail() { echo "Bail out! $*"; exit 1; }
[ "$(id -u)" = 0 ] || bail "the test host is made as root (debootstrap, mkfs.ext4): run make check-remote as root"
IMG=$("$TOP/tests/remote/make-host.sh" arm64 "$TOP/state") ||
	bail "no test host: make-host.sh failed (it needs the Debian mirror; its log is under $TOP/state/remote-host/arm64.tmp)"
echo "# host image: $IMG ($(cat "$IMG/build-times" 2>/dev/null || echo cached), $(( $(date +%s) - start )) s here)"
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
HOST=$TRASH/host
stop_host() { [ -s "$HOST/qemu.pid" ] && kill "$(cat "$HOST/qemu.pid")" 2>/dev/null; }
trap stop_host EXIT
secs=$("$TOP/tests/remote/start-host.sh" "$IMG" "$HOST" "$PORT") || {
	tail -n 20 "$HOST/console.log" 2>/dev/null | sed 's/^/# /'
	bail "the test host made in $IMG does not boot to ssh (its console's last lines above)"
}
echo "# boot to ssh: $secs s"

hssh() { # CMD on the host
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
	console = tail -n0 -F $HOST/console.log
	restore = reboot
EOC
