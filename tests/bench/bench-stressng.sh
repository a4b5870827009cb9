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
. "$(dirname "$0")/lib-bench.bash"
BOOTS=${BOOTS:-2}
ITERS=${ITERS:-2}
SECONDS_EACH=${SECONDS_EACH:-1}
STRESSORS=${STRESSORS:-"mmap fault"}
METRICS="bogo_ops_s real_s sys_s"

command -v stress-ng >/dev/null || { echo "stress-ng is not installed (make deps)"; exit 1; }
kernel=${BENCH_KERNEL:-$DEBIAN_KERNEL}
workloads=
for s in $STRESSORS; do
	workloads="$workloads${workloads:+,}stress-ng:$s --timeout ${SECONDS_EACH}s"
done
echo "kernel $kernel, TCG, 1G, 1 CPU, $(stress-ng --version | sed 's/.*version \([^ ]*\).*/stress-ng \1/'),"
echo "$ITERS runs of ${SECONDS_EACH} s a stressor a boot, $BOOTS boots a clock"

# a loaded host can make a TCG boot in wall time fail its timer check
# ("IO-APIC + timer doesn't work"): one more try, said
bench_clocks 2 --kernel "$kernel" --workload "$workloads" --iters "$ITERS" --mem 1G \
	--timeout 1800

echo
BENCH_MEAN_WIDTH=13	# "0.3747 ops/s"
bench_cv_header 36 clock
for s in $STRESSORS; do
	for m in $METRICS; do
		for clock in wall icount; do
			if bench_rows "$DIR/$clock.db" "stress-ng-$s" "$m"; then
				bench_cv 36 "stress-ng-$s.$m" "$clock"
			else
				printf '%-36s %-6s %5s  no samples\n' "stress-ng-$s.$m" "$clock" -
			fi
		done
	done
done
