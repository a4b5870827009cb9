#!/bin/bash
# The lab's own cost per boot (not a test: numbers against goals), per x86
# boot path, with the kernel's own start-to-/init time taken out:
#   overhead: host wall time from spawning QEMU to /init, minus the
#             kernel's own time from its clock's start to /init (goal
#             <= 300 ms under TCG): QEMU start, firmware, kernel loading
#             and decompression
#   cpu:      the lab's own CPU time per boot over the boot's wall time (goal <= 1 %)
# Paths: Debian's bzImage through SeaBIOS (the lab before qboot), the same
# through qboot, and the vmlinux inside it through PVH. BENCH_KERNEL=DIR
# adds a kernel the lab built: DIR is its artifact directory (image, and
# vmlinux when it has the PVH entry point).
set -eu
. "$(dirname "$0")/lib-bench.bash"
KERNEL=$DEBIAN_KERNEL
BOOTS=${BOOTS:-5}
QBOOT=/usr/share/qemu/qboot.rom

# QEMU as the lab ran it before qboot: the runner's -bios taken out
cat >"$DIR/seabios" <<'EOS'
#!/bin/bash
args=()
while [ $# -gt 0 ]; do
	if [ "$1" = -bios ]; then shift 2; continue; fi
	args+=("$1"); shift
done
exec qemu-system-x86_64 "${args[@]}"
EOS
chmod +x "$DIR/seabios"
printf '[qemu "x86_64"]\n\tbinary = %s/seabios\n' "$DIR" >"$DIR/seabios.conf"

# boot_path NAME KERNEL [lab options]: BOOTS boots, then one line
boot_path() {
	name=$1 kernel=$2 && shift 2
	db=$(bench_db "$name")
	bench_boots "$name" "$db" "$kernel" "$@" || return 1
	sqlite3 -batch -noheader "$db" "
		SELECT h.value, t.value, h.value - t.value FROM samples h
		JOIN samples t ON t.run_id = h.run_id
		WHERE h.metric = 'host_to_init' AND t.metric = 'to_init'" |
	awk -F'|' -v name="$name" "$BENCH_AWK_MEDIAN"'
		{ h[NR] = $1; t[NR] = $2; o[NR] = $3 }
		END {
			if (!NR) { printf "%-34s no OK boot\n", name; exit }
			printf "%-34s %5d %12.3f %12.3f %10.0f %10.0f\n", name, NR, median(h, NR), median(t, NR),
				1000 * median(o, NR), 1000 * min(o, NR)
		}'
	cp "$db" "$DIR/last.db"
}

printf '%-34s %5s %12s %12s %10s %10s\n' "x86 boot path, TCG, 1G" boots "spawn->init" "kernel->init" \
	"overhead" "min"
printf '%-34s %5s %12s %12s %10s %10s\n' "" "" "s (median)" "s (median)" "ms (med)" "ms"
boot_path "debian bzImage, SeaBIOS (before)" "$KERNEL" --config "$DIR/seabios.conf"
if [ -r $QBOOT ]; then
	boot_path "debian bzImage, qboot" "$KERNEL"
fi
if "$TOP/tests/fixtures/extract-vmlinux.sh" "$KERNEL" "$DIR/vmlinux" 2>"$DIR/err"; then
	boot_path "debian vmlinux, PVH$([ -r $QBOOT ] && echo ' + qboot')" "$DIR/vmlinux"
else
	echo "debian vmlinux, PVH: not measured: $(cat "$DIR/err")"
fi
if [ -n "${BENCH_KERNEL:-}" ]; then
	boot_path "lab-built bzImage, SeaBIOS" "$BENCH_KERNEL/image" --config "$DIR/seabios.conf"
	boot_path "lab-built bzImage, qboot" "$BENCH_KERNEL/image"
	if [ -r "$BENCH_KERNEL/vmlinux" ]; then
		boot_path "lab-built vmlinux, PVH + qboot" "$BENCH_KERNEL/vmlinux"
	fi
fi
echo "goal: overhead <= 300 ms under TCG"
sqlite3 -batch -noheader "$DIR/last.db" "
	SELECT printf('lab cpu per boot: %.1f ms = %.3f %% of %.1f s wall  (goal <= 1 %%)',
		1000 * avg(CAST(m.value AS REAL)), 100 * avg(CAST(m.value AS REAL) / r.wall_s), avg(r.wall_s))
		FROM run_meta m JOIN runs r ON r.id = m.run_id WHERE m.key = 'lab.cpu_s';
"
