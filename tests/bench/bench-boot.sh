#!/bin/bash
# The lab's own cost per boot (not a test: numbers against goals).
#   overhead: host wall time from spawning QEMU to the guest's first line,
#             minus the kernel's own time from start to /init (goal <= 100 ms)
#   cpu:      the lab's own CPU time per boot over the boot's wall time (goal <= 1 %)
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
KERNEL=$(ls -1 /boot/vmlinuz-* | sort -V | tail -n 1)
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
BOOTS=${BOOTS:-5}

"$TOP/lab/lab" run --db "$DIR/lab.db" --accel tcg --kernel "$KERNEL" --workload boot \
	--mem 1G --boots "$BOOTS" >/dev/null
sqlite3 -batch -noheader "$DIR/lab.db" "
	SELECT printf('boots %d', count(*)) FROM runs WHERE status = 'OK';
	SELECT printf('host spawn to /init  median of %d: %.3f s', count(*), avg(value))
		FROM samples WHERE metric = 'host_to_init';
	SELECT printf('kernel start to /init: %.3f s', avg(value)) FROM samples WHERE metric = 'to_init';
	SELECT printf('overhead (spawn to first line - kernel to init): %.0f ms  (goal <= 100 ms)',
		1000 * (avg(h.value) - avg(t.value)))
		FROM samples h JOIN samples t ON t.run_id = h.run_id
		WHERE h.metric = 'host_to_init' AND t.metric = 'to_init';
	SELECT printf('lab cpu per boot: %.1f ms = %.3f %% of %.1f s wall  (goal <= 1 %%)',
		1000 * avg(CAST(m.value AS REAL)), 100 * avg(CAST(m.value AS REAL) / r.wall_s), avg(r.wall_s))
		FROM run_meta m JOIN runs r ON r.id = m.run_id WHERE m.key = 'lab.cpu_s';
"
