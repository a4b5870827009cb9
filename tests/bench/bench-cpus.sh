#!/bin/bash
# Virtual time by the number of vCPUs (not a test: the noise floor a table
# in docs/clocks.md gives). One kernel, BOOTS boots of it in icount for each
# N of CPUS, each boot zeroing, demote and boot. Per N and metric:
#   cv within:  the pooled sd within boots over the mean
#   cv between: the sd of the per-boot medians over their mean (an A/A of
#               BOOTS boots: 0 when boots repeat to the instruction)
#   mde:        the smallest change an A/B of 5 boots a side would detect
#               (80 % power) on per-boot medians at the adaptive schedule's
#               first-look alpha, from 'lab compare' of two halves
#   wall/boot:  the host's seconds a boot took, on average
# CPUS="2" BOOTS=5 for one N; BENCH_KERNEL=FILE boots another kernel.
set -eu
. "$(dirname "$0")/lib-bench.bash"
BOOTS=${BOOTS:-5}
ITERS=${ITERS:-3}
CPUS=${CPUS:-1 2 4}
ALPHA=0.0109	# stats_schedule_alpha() of the default schedule, first look at 5 a side
METRICS="zeroing.touch zeroing.clear_huge_page demote.demote_page_wall boot.to_init"
kernel=${BENCH_KERNEL:-$DEBIAN_KERNEL}

echo "kernel $kernel, TCG, icount, 4G, $ITERS iterations a boot, $BOOTS boots an N;" \
	"$(qemu-system-x86_64 --version | head -n 1)"
for n in $CPUS; do
	start=$(date +%s)
	"$LAB" run --db "$DIR/cpus$n.db" --accel tcg --clock icount --cpus "$n" --boots "$BOOTS" \
		--kernel "$kernel" --workload zeroing,demote,boot --iters "$ITERS" --mem 4G \
		--timeout 1800 --cmdline "hugetlb_free_vmemmap=on nokaslr" >/dev/null 2>"$DIR/err" ||
		{ echo "$n vCPUs:"; cat "$DIR/err"; exit 1; }
	echo $(( ($(date +%s) - start) / BOOTS )) >"$DIR/wall$n"
	echo "$n vCPUs: $BOOTS boots, $(cat "$DIR/wall$n") s a boot" >&2
done

echo
bench_cv_header 26 cpus "7:s:mde 5/5" "9:s:wall/boot"
for m in $METRICS; do
	for n in $CPUS; do
		if ! bench_rows "$DIR/cpus$n.db" "${m%%.*}" "${m#*.}"; then
			printf '%-26s %-6s %5s  not reported by this kernel\n' "$m" "$n" -
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
		bench_cv 26 "$m" "$n" "7:s:${mde:-n/a}" "9:q:s:$(cat "$DIR/wall$n")"
		rm -f "$DIR/rows.a" "$DIR/rows.b"
	done
done
