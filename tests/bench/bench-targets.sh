#!/bin/bash
# Targets (not a test: numbers): boots per hour of Debian's kernel (boot
# workload, TCG, 1G) on one qemu target and on two qemu targets of one
# class booting at once (--targets), and the lab's per-boot overhead with
# the libvirt runner against the qemu runner: host wall time from the
# start of the boot to /init minus the kernel's own time to /init, the
# boot's whole wall time, and the lab's own CPU time per boot.
# BOOTS=N boots per line (default 6). The libvirt line needs libvirtd
# (tests/fixtures/start-libvirtd.sh); without it that line says why.
set -eu
. "$(dirname "$0")/lib-bench.bash"
KERNEL=$DEBIAN_KERNEL
BOOTS=${BOOTS:-6}

cat >"$DIR/lab.conf" <<EOF
[target "solo"]
	runner = qemu
	class = one
[target "pair1"]
	runner = qemu
	class = two
[target "pair2"]
	runner = qemu
	class = two
EOF

# per_hour NAME CLASS: BOOTS boots on the targets of CLASS, one line
per_hour() {
	db=$DIR/$2.db
	t0=$(date +%s.%N)
	bench_boots "$1" "$db" "$KERNEL" --config "$DIR/lab.conf" --targets "$2" || return 1
	t1=$(date +%s.%N)
	ok=$(sqlite3 -batch -noheader "$db" "SELECT count(*) FROM runs WHERE status = 'OK'")
	awk -v name="$1" -v ok="$ok" -v s="$(echo "$t1 - $t0" | bc)" \
		'BEGIN { printf "%-36s %5d %10.1f %12.0f\n", name, ok, s, ok * 3600 / s }'
}

# overhead NAME [lab options]: BOOTS boots, one line of medians
overhead() {
	name=$1 && shift
	db=$(bench_db "$name")
	bench_boots "$name" "$db" "$KERNEL" "$@" || return 1
	sqlite3 -batch -noheader "$db" "
		SELECT h.value - t.value, r.wall_s, c.value FROM samples h
		JOIN samples t ON t.run_id = h.run_id
		JOIN runs r ON r.id = h.run_id
		JOIN run_meta c ON c.run_id = h.run_id AND c.key = 'lab.cpu_s'
		WHERE h.metric = 'host_to_init' AND t.metric = 'to_init'" |
	awk -F'|' -v name="$name" "$BENCH_AWK_MEDIAN"'
		{ o[NR] = $1; w[NR] = $2; c[NR] = $3 }
		END {
			if (!NR) { printf "%-36s no OK boot\n", name; exit }
			printf "%-36s %5d %10.0f %10.2f %10.0f\n", name, NR, 1000 * median(o, NR),
				median(w, NR), 1000 * median(c, NR)
		}'
}

printf '%-36s %5s %10s %12s\n' "boots per hour (TCG, boot, 1G)" boots "wall s" "boots/hour"
per_hour "1 qemu target" one
per_hour "2 qemu targets of one class at once" two
echo "host: $(nproc) CPUs; two targets on one host share them"
echo
printf '%-36s %5s %10s %10s %10s\n' "per-boot overhead by runner" boots "ms" "wall s" "lab cpu ms"
printf '%-36s %5s %10s %10s %10s\n' "" "" "(median)" "(median)" "(median)"
overhead "qemu runner" --runner qemu
if why=$("$TOP/tests/fixtures/start-libvirtd.sh" 2>&1); then
	overhead "libvirt runner, qemu:///system" --runner libvirt
else
	echo "libvirt runner: not measured: $why"
fi
echo "ms: host wall time from the boot's start to /init, minus the kernel's own time to /init"
