# sshd of a test's own on loopback addresses, for the ssh runner's tests
# (sourced after tests/lib.sh). One client key, $TRASH/id; each sshd_start
# adds its host key to $TRASH/known_hosts; all are stopped at exit. A key
# of $TRASH/authorized_keys may set PATH (environment="PATH=...").
#   sshd_start NAME ADDR [PORT]  starts $TRASH/NAME.*; its port in $SSHD_PORT;
#                                with SSHD_SETUP set, in a mount namespace of
#                                its own after that shell command (a host
#                                emulated: its /proc or /sys files bound over)
#   sshd_stop NAME
#   sshd_login_path PATH         the client key logs in with PATH (a host's
#                                stand-ins for kexec, systemctl first in it)
#   ssh_conf [KEY=VALUE...]      a lab.conf's [core] and [ssh] for these
#                                sshds, each "key = value" given under [ssh]
#   ssh_target NAME HOST PORT [KEY=VALUE...]
#                                a [target] of runner ssh on HOST:PORT
SSHD=/usr/sbin/sshd

if [ "$(id -u)" != 0 ] || ! [ -x "$SSHD" ]; then
	echo "1..0 # SKIP an sshd of its own needs root and openssh-server (make deps)"
	exit 0
fi

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

ssh-keygen -q -t ed25519 -N '' -f "$TRASH/id" || exit 1
cp "$TRASH/id.pub" "$TRASH/authorized_keys"
: >"$TRASH/known_hosts"
mkdir -p /run/sshd
SSHD_NAMES=

sshd_start() { # NAME ADDR [PORT]
	local name=$1 addr=$2 line
	SSHD_PORT=${3:-$(free_port)}
	[ -e "$TRASH/$name.host_key" ] || ssh-keygen -q -t ed25519 -N '' -f "$TRASH/$name.host_key" || return 1
	cat >"$TRASH/$name.sshd_config" <<-EOC
	ListenAddress $addr
	Port $SSHD_PORT
	HostKey $TRASH/$name.host_key
	AuthorizedKeysFile $TRASH/authorized_keys
	PidFile $TRASH/$name.pid
	PermitRootLogin prohibit-password
	PasswordAuthentication no
	KbdInteractiveAuthentication no
	StrictModes no
	UsePAM no
	PermitUserEnvironment PATH
	LogLevel VERBOSE
	Subsystem sftp /usr/lib/openssh/sftp-server
	EOC
	line="[$addr]:$SSHD_PORT $(cut -d' ' -f1,2 "$TRASH/$name.host_key.pub")"
	grep -qxF "$line" "$TRASH/known_hosts" || echo "$line" >>"$TRASH/known_hosts"
	case " $SSHD_NAMES " in *" $name "*) ;; *) SSHD_NAMES="$SSHD_NAMES $name" ;; esac
	if [ -n "${SSHD_SETUP:-}" ]; then
		unshare -m --propagation private sh -ec "$SSHD_SETUP; exec \"\$@\"" sh \
			"$SSHD" -f "$TRASH/$name.sshd_config" -E "$TRASH/$name.log" || return 1
	else
		"$SSHD" -f "$TRASH/$name.sshd_config" -E "$TRASH/$name.log" || return 1
	fi
	for _ in $(seq 50); do [ -s "$TRASH/$name.pid" ] && return 0; sleep 0.1; done
	return 1
}

sshd_login_path() { # PATH
	echo "environment=\"PATH=$1\" $(cat "$TRASH/id.pub")" >"$TRASH/authorized_keys"
}

ssh_conf() { # [KEY=VALUE...]
	printf '[core]\n\tstate = %s\n[ssh]\n\tidentity = %s\n\tknownHosts = %s\n' \
		"$TRASH/state" "$TRASH/id" "$TRASH/known_hosts"
	for kv; do printf '\t%s\n' "$kv"; done
}

ssh_target() { # NAME HOST PORT [KEY=VALUE...]
	printf '[target "%s"]\n\trunner = ssh\n\thost = %s\n\tport = %s\n' "$1" "$2" "$3"
	shift 3
	for kv; do printf '\t%s\n' "$kv"; done
}

sshd_stop() { # NAME
	[ -s "$TRASH/$1.pid" ] && kill "$(cat "$TRASH/$1.pid")" 2>/dev/null
	rm -f "$TRASH/$1.pid"
}

sshd_stop_all() {
	for n in $SSHD_NAMES; do sshd_stop "$n"; done
}
# lib.sh's own trap removes $TRASH: this one does too
trap 'sshd_stop_all; [ -n "${LAB_TEST_KEEP:-}" ] || rm -rf "$TRASH"' EXIT
