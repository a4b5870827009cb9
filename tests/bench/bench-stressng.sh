#!/bin/bash
# stress-ng's stressors as the lab's workloads (not a test: numbers). One
# kernel, one guest running every stressor in STRESSORS, BOOTS boots a
# clock, the clocks alternating boot by boot so that both see the same
# host. Per stressor metric and clock:
#   cv within:  the pooled sd within boots over the mean
#   cv between: the sd of the per-boot medians over their mean
# (the metrics of OK boots only: a boot that failed and was tried again is
# left out)
# Each stressor runs one instance for SECONDS (virtual seconds under
# icount), ITERS times a boot. BENCH_KERNEL=FILE boots another kernel
# (default: Debian's). The default takes a few minutes on 2 cores.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
LAB=$TOP/lab/lab
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
BOOTS=${BOOTS:-2}
ITERS=${ITERS:-2}
SECONDS_EACH=${SECONDS_EACH:-1}
STRESSORS=${STRESSORS:-"mmap fault"}
METRICS="bogo_ops_s real_s sys_s"

command -v stress-ng >/dev/null || { echo "stress-ng is not installed (make deps)"; exit 1; }
kernel=${BENCH_KERNEL:-$(ls -1 /boot/vmlinuz-* | sort -V | tail -n 1)}
workloads=
for s in $STRESSORS; do
	workloads="$workloads${workloads:+,}stress-ng:$s --timeout ${SECONDS_EACH}s"
done
echo "kernel $kernel, TCG, 1G, 1 CPU, $(stress-ng --version | sed 's/.*version \([^ ]*\).*/stress-ng \1/'),"
echo "$ITERS runs of ${SECONDS_EACH} s a stressor a boot, $BOOTS boots a clock"

for i in $(seq "$BOOTS"); do
	for clock in wall icount; do
		start=$(date +%s)
		# a loaded host can make a TCG boot in wall time fail its timer
		# check ("IO-APIC + timer doesn't work"): one more try, said
		for try in 1 2; do
			"$LAB" run --db "$DIR/$clock.db" --accel tcg --clock "$clock" --kernel "$kernel" \
				--workload "$workloads" --iters "$ITERS" --mem 1G --timeout 1800 \
				>/dev/null 2>"$DIR/err" && break
			echo "boot $i ($clock), try $try:"; sed -n 2p "$DIR/err"
			[ $try = 1 ] || exit 1
		done
		echo "boot $i of $BOOTS ($clock): $(( $(date +%s) - start )) s" >&2
	done
done

printf '\n%-36s %-6s %5s %6s %14s %10s %11s\n' metric clock boots n/boot mean \
	"cv within" "cv between"
for s in $STRESSORS; do
	for m in $METRICS; do
		for clock in wall icount; do
			rows="SELECT s.run_id, s.value FROM samples s JOIN runs r ON r.id = s.run_id
				WHERE r.status = 'OK' AND s.workload = 'stress-ng-$s' AND s.metric = '$m'
				ORDER BY s.run_id, s.value"
			sqlite3 -batch -noheader -separator ' ' "$DIR/$clock.db" "$rows" >"$DIR/rows"
			if [ ! -s "$DIR/rows" ]; then
				printf '%-36s %-6s %5s  no samples\n' "stress-ng-$s.$m" "$clock" -
				continue
			fi
			awk -v m="stress-ng-$s.$m" -v clock="$clock" '
				$1 != run { if (n) boot(); run = $1 }
				{ v[++n] = $2 }
				function boot(   i, s, mean, k) {
					for (i = 1; i <= n; i++) s += v[i]
					mean = s / n
					for (i = 1; i <= n; i++) { ss += (v[i] - mean) ^ 2 }
					dfw += n - 1; total += s; count += n
					k = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
					med[++boots] = k; n = 0
				}
				END {
					if (n) boot()
					grand = total / count
					for (i = 1; i <= boots; i++) mm += med[i]
					mm /= boots
					for (i = 1; i <= boots; i++) sb += (med[i] - mm) ^ 2
					within = dfw && grand ? 100 * sqrt(ss / dfw) / grand : -1
					between = boots > 1 && mm ? 100 * sqrt(sb / (boots - 1)) / mm : -1
					printf "%-36s %-6s %5d %6.0f %14.6g %9s %11s\n", m, clock, boots,
						count / boots, grand,
						within < 0 ? "-" : sprintf("%.4f %%", within),
						between < 0 ? "-" : sprintf("%.4f %%", between)
				}' "$DIR/rows"
		done
	done
done
