# For the lava runner's tests, after lib.sh: t0295 and t1110 against the
# stand-in of tests/fixtures/fake-lava.py, tests/lava/ against the LAVA
# server of tests/lava/start-lava.sh. Each sets URL, the server's, and
# LAVA_TOKEN, its token file, which api and the targets below use.

# lava_target FILE NAME [KEY=VALUE...]: a [target "NAME"] of the lava runner
# for the server at URL appended to FILE, deviceType qemu unless given
lava_target() {
	local file=$1 name=$2 kv
	shift 2
	{
		printf '[target "%s"]\n\trunner = lava\n\turl = %s\n\ttoken = %s\n' "$name" "$URL" "$LAVA_TOKEN"
		case " $* " in *" deviceType="*) ;; *) printf '\tdeviceType = qemu\n' ;; esac
		for kv; do printf '\t%s = %s\n' "${kv%%=*}" "${kv#*=}"; done
	} >>"$file"
}

# lava_conf BAD_IMAGE_URL: lab.conf with target lava1 (x86_64, its devices
# TCG) and target lavabad, whose images the worker is sent to fetch where
# they are not (imageDir $TRASH/img, imageUrl BAD_IMAGE_URL)
lava_conf() {
	mkdir -p "$TRASH/img"
	printf '[core]\n\tstate = %s\n' "$TRASH/state" >"$TRASH/lab.conf"
	lava_target "$TRASH/lab.conf" lava1 arch=x86_64 accel=tcg
	lava_target "$TRASH/lab.conf" lavabad accel=tcg "imageDir=$TRASH/img" "imageUrl=$1"
}

# api PATH: a GET of the server's REST API
api() {
	curl -sf -H "Authorization: Token $(cat "$LAVA_TOKEN")" "$URL/api/v0.2/$1"
}

# field KEY: of the JSON object on stdin
field() {
	python3 -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"
}

# last_run: the id of the lab's last run; run_field RUN COLUMN; meta RUN KEY
last_run() {
	sql state/lab.db "SELECT max(id) FROM runs"
}
run_field() {
	sql state/lab.db "SELECT $2 FROM runs WHERE id = $1"
}
meta() {
	sql state/lab.db "SELECT value FROM run_meta WHERE run_id = $1 AND key = '$2'"
}

# last_error: the last run's error, when it ended INFRA (its id in $id)
last_error() {
	id=$(last_run) &&
	test "$(run_field $id status)" = INFRA &&
	run_field $id error
}

# lava_modules_template OUT: the shipped qemu template with the kernel's
# modules among its images, given to the guest as its NVMe drive
# (/dev/nvme0n1, the tar of lib/modules/<release> the worker unpacked from
# modules.tar.xz): LAVA unpacks a job's modules into the ramdisk of a tftp
# or nfs deploy, not into a tmpfs one's
lava_modules_template() {
	sed "/^        url: '{{ramdisk_url}}'/a\\
      modules:\\
        image_arg: '-drive if=none,id=mods,format=raw,file={modules} -device nvme,serial=mods,drive=mods'\\
        url: '{{modules_url}}'\\
        compression: xz" "$TOP/runners/lava-templates/qemu.yaml" >"$1"
}

# lava_fake [ARG...]: the stand-in on a free port of 127.0.0.1, in the
# background (pid FAKE, log fake.log), ARGs after its port and token file
# (token: lab-test-token); URL and LAVA_TOKEN set for it
lava_fake() {
	local port
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	URL=http://127.0.0.1:$port
	LAVA_TOKEN=$TRASH/token
	echo lab-test-token >"$LAVA_TOKEN" && chmod 600 "$LAVA_TOKEN"
	python3 "$TOP/tests/fixtures/fake-lava.py" "$port" token "$@" >fake.log 2>&1 &
	FAKE=$!
	for _ in $(seq 50); do curl -s -o /dev/null "$URL/" && break; sleep 0.1; done
}

# The real LAVA is one on this machine (its port, its database, its one
# device): a test file of tests/lava/ has it to itself, from lava_up to its
# end, under this lock, so that no other (another check-lava, a test run
# by hand) stops it or takes its device halfway.
LAVA_LOCK=/run/lock/lab-lava.lock

bail() { echo "Bail out! $*"; exit 1; }

# lava_up [VAR=VALUE...]: the LAVA of tests/lava/start-lava.sh, started or
# found up (the VARs its environment), taken for this test file, and
# lava_conf's lab.conf for it (lavabad's images in $URL/no-such-folder); or
# the file fails (Bail out!) saying why. Sets LSTATE, URL, LAVA_TOKEN and
# KERNEL (Debian's); says how long it took.
lava_up() {
	[ "$(id -u)" = 0 ] || bail "LAVA is installed and started as root: run make check-lava as root"
	LSTATE=$TOP/state/lava
	exec 9>>"$LAVA_LOCK" || bail "cannot open $LAVA_LOCK"
	if ! flock -n 9; then
		echo "# another test has this machine's LAVA ($LAVA_LOCK): waiting for it to end"
		flock 9 || bail "cannot lock $LAVA_LOCK"
	fi
	stage=$(date +%s)
	lava_start "$@" >start.out 2>&1 || {
		tail -n 5 start.out | sed 's/^/# /'
		bail "no LAVA instance: tests/lava/start-lava.sh failed (its last lines above)"
	}
	took "LAVA up"
	URL=$(cat "$LSTATE/url")
	LAVA_TOKEN=$LSTATE/token
	KERNEL=$(debian_kernel)
	[ -n "$KERNEL" ] || bail "no Debian kernel in /boot (make deps)"
	lava_conf "$URL/no-such-folder"
}

# took WHAT: the seconds since the last stage, as a TAP comment
took() {
	echo "# $1: $(($(date +%s) - stage)) s"
	stage=$(date +%s)
}

# lab COMMAND ARG...: the lab with the test's lab.conf
lab() {
	"$LAB" "$1" --config "$TRASH/lab.conf" "${@:2}"
}

# lava_start [VAR=VALUE...]: tests/lava/start-lava.sh, its daemons without
# the lock (they outlive the test file)
lava_start() {
	env "$@" "$TOP/tests/lava/start-lava.sh" "$LSTATE" 9>&-
}
