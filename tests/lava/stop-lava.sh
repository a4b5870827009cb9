#!/bin/bash
# Stop what tests/lava/start-lava.sh started:
#   tests/lava/stop-lava.sh [STATE_DIR]          (default state/lava of the checkout)
# Kills the daemons named by STATE_DIR/pids/*.pid (checking that each pid is
# still the process that was started), the lava-run jobs of the worker (each
# in its own process group, with its qemu), and stops PostgreSQL when
# pids/postgres.started says start-lava.sh started it.
set -u
STATE=${1:-$(cd "$(dirname "$0")/../.." && pwd)/state/lava}
[ -d "$STATE/pids" ] || { echo "stop-lava: no '$STATE/pids'" >&2; exit 0; }

# is PID the daemon NAME? (a pid file may outlive its process)
is_ours() {
	local pid=$1 name=$2 cmd
	cmd=$( { tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null) || return 1
	case $name in
	gunicorn) [[ $cmd == *lava_server.wsgi* ]] ;;
	lava-worker) [[ $cmd == *lava-worker* ]] ;;
	*) [[ $cmd == *"manage $name"* ]] ;;
	esac
}

pids=()
for name in lava-worker lava-scheduler lava-publisher gunicorn; do
	f=$STATE/pids/$name.pid
	[ -s "$f" ] || continue
	pid=$(cat "$f")
	if is_ours "$pid" "$name"; then
		if [ "$name" = lava-worker ]; then
			# its jobs: lava-run children, each leading its own process group
			for child in $(ps -o pid= --ppid "$pid" 2>/dev/null); do
				pgid=$(ps -o pgid= -p "$child" 2>/dev/null | tr -d ' ')
				if [ "$pgid" = "$child" ]; then kill -TERM -- "-$child" 2>/dev/null; else kill -TERM "$child" 2>/dev/null; fi
				pids+=("$child")
			done
		fi
		kill -TERM "$pid" 2>/dev/null && pids+=("$pid")
		echo "stop-lava: stopping $name (pid $pid)"
	fi
	rm -f "$f"
done
for _ in $(seq 30); do
	left=()
	for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && left+=("$p"); done
	[ ${#left[@]} -eq 0 ] && break
	sleep 1
done
for p in "${left[@]}"; do kill -KILL "$p" 2>/dev/null; done

if [ -s "$STATE/pids/postgres.started" ]; then
	read -r ver cluster <"$STATE/pids/postgres.started"
	echo "stop-lava: stopping PostgreSQL $ver $cluster"
	pg_ctlcluster "$ver" "$cluster" stop || echo "stop-lava: pg_ctlcluster $ver $cluster stop failed" >&2
	rm -f "$STATE/pids/postgres.started" "$STATE/pids/postgres.pid"
fi
exit 0
