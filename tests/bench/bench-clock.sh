#!/bin/bash
# The two clocks side by side (not a test: numbers against a goal). One
# kernel, one guest (zeroing, demote and boot in every boot), BOOTS boots a
# clock, the clocks alternating boot by boot so that both see the same host.
# Per workload metric and clock:
#   cv within:  the pooled sd within boots over the mean
#   cv between: the sd of the per-boot medians over their mean
#   mde:        the smallest change an A/B of 5 boots a side would detect
#               (80 % power) on per-boot medians at the adaptive
#               schedule's first-look alpha, from 'lab compare' of two
#               halves of the boots
# Goal: mde <= 1 % for every metric in virtual time (icount). BENCH_KERNEL=FILE
# boots another kernel (default: Debian's, as a PVH vmlinux when it can be
# extracted).
set -eu
. "$(dirname "$0")/lib-bench.bash"
BOOTS=${BOOTS:-10}
ITERS=${ITERS:-3}
ALPHA=0.0109	# stats_schedule_alpha() of the default schedule, first look at 5 a side
METRICS="zeroing.touch zeroing.clear_huge_page demote.demote_page_wall boot.to_init
	boot.deferred_init_total"

kernel=${BENCH_KERNEL:-}
if [ -z "$kernel" ]; then
	kernel=$DEBIAN_KERNEL
	"$TOP/tests/fixtures/extract-vmlinux.sh" "$kernel" "$DIR/vmlinux" 2>/dev/null &&
		kernel=$DIR/vmlinux
fi
echo "kernel $kernel, TCG, 8G, 1 CPU, $ITERS iterations a boot, $BOOTS boots a clock"

bench_clocks 1 --kernel "$kernel" --workload zeroing,demote,boot --iters "$ITERS" --mem 8G \
	--param thp=always --timeout 1200 --cmdline "hugetlb_free_vmemmap=on nokaslr"

echo
bench_cv_header 26 clock "7:s:mde 5/5"
for m in $METRICS; do
	for clock in wall icount; do
		if ! bench_rows "$DIR/$clock.db" "${m%%.*}" "${m#*.}"; then
			printf '%-26s %-6s %5s  not reported by this kernel\n' "$m" "$clock" -
			continue
		fi
		# per-boot medians, split into two halves for lab compare
		awk '
			function flush(   k) {
				if (!n) return
				k = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
				print k >(boots % 2 ? FILENAME ".b" : FILENAME ".a")
				boots++; n = 0
			}
			$1 != run { flush(); run = $1 }
			{ v[++n] = $2 }
			END { flush() }' "$DIR/rows"
		mde=$("$LAB" compare --alpha $ALPHA "$DIR/rows.a" "$DIR/rows.b" 2>/dev/null |
			sed -n 's/^minimum detectable effect \(.* %\) (.*/\1/p')
		bench_cv 26 "$m" "$clock" "7:s:${mde:-n/a}"
		rm -f "$DIR/rows.a" "$DIR/rows.b"
	done
done
echo "goal: mde <= 1 % for every metric with icount"
