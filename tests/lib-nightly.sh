# What the lab nightly tests share (tests/t1100-nightly.sh and
# tests/kernel/k0300-nightly.sh), sourced after lib.sh: a git daemon on
# 127.0.0.1 serving the trash directory, so that the fetch path is real,
# and tests/fixtures/notify-sink.py catching mail and webhook POSTs.
#
#   . "$TOP/tests/lib-nightly.sh"
#   nightly_serve up            # git daemon and sink; waits until git://.../up lists
#   nightly_notify_conf         # the [nightly] keys that send to the sink
#
# nightly_serve sets $port (the daemon's), $smtp and $http (the sink's)
# and writes them to ports.conf for later tests. What it starts is
# stopped when the test file ends, whatever happens.

PY=/usr/bin/python3

test_lazy_prereq AIOSMTPD '$PY -c "import aiosmtpd"'
test_lazy_prereq GIT_DAEMON 'test -x "$(git --exec-path)/git-daemon"'

stop_all() {
	for p in "$TRASH"/*.pid; do
		[ -e "$p" ] && kill "$(cat "$p")" 2>/dev/null
	done
	[ -n "${LAB_TEST_KEEP:-}" ] || rm -rf "$TRASH"
}
trap stop_all EXIT

free_port() {
	$PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# nightly_serve REPO: serve the trash directory on a free port, start the
# sink in sink/, and wait until both answer.
nightly_serve() {
	port=$(free_port) &&
	{ git daemon --reuseaddr --export-all --base-path="$PWD" --listen=127.0.0.1 --port=$port \
		--pid-file="$TRASH/daemon.pid" "$PWD" >daemon.log 2>&1 & } &&
	mkdir -p sink &&
	{ $PY "$TOP/tests/fixtures/notify-sink.py" sink >sink.log 2>&1 & echo $! >"$TRASH/sink.pid"; } &&
	test_wait_until 20 "test -s sink/ports" &&
	read smtp http <sink/ports &&
	test_wait_until 20 "git ls-remote git://127.0.0.1:$port/$1 >/dev/null 2>&1" &&
	echo "$port $smtp $http" >ports.conf
}

# Read back what nightly_serve set, in a later test's subshell.
nightly_ports() {
	read port smtp http <ports.conf
}

# The keys of a [nightly] section that mail and post to the sink.
nightly_notify_conf() {
	printf '\tmailTo = mm@example.org\n\tsmtp = smtp://127.0.0.1:%s\n\twebhook = http://127.0.0.1:%s/hook\n' \
		"$smtp" "$http"
}

mails() {
	ls sink/mail-*.eml 2>/dev/null | wc -l
}

posts() {
	ls sink/post-*.json 2>/dev/null | wc -l
}
