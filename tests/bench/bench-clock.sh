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
TOP=$(cd "$(dirname "$0")/../.." && pwd)
LAB=$TOP/lab/lab
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
BOOTS=${BOOTS:-10}
ITERS=${ITERS:-3}
ALPHA=0.0109	# stats_schedule_alpha() of the default schedule, first look at 5 a side
METRICS="zeroing.touch zeroing.clear_huge_page demote.demote_page_wall boot.to_init
	boot.deferred_init_total"

kernel=${BENCH_KERNEL:-}
if [ -z "$kernel" ]; then
	kernel=$(ls -1 /boot/vmlinuz-* | sort -V | tail -n 1)
	"$TOP/tests/fixtures/extract-vmlinux.sh" "$kernel" "$DIR/vmlinux" 2>/dev/null &&
		kernel=$DIR/vmlinux
fi
echo "kernel $kernel, TCG, 8G, 1 CPU, $ITERS iterations a boot, $BOOTS boots a clock"

for i in $(seq "$BOOTS"); do
	for clock in wall icount; do
		start=$(date +%s)
		"$LAB" run --db "$DIR/$clock.db" --accel tcg --clock "$clock" --kernel "$kernel" \
			--workload zeroing,demote,boot --iters "$ITERS" --mem 8G --param thp=always \
			--timeout 1200 --cmdline "hugetlb_free_vmemmap=on nokaslr" >/dev/null 2>"$DIR/err" ||
			{ echo "boot $i ($clock):"; cat "$DIR/err"; exit 1; }
		echo "boot $i of $BOOTS ($clock): $(( $(date +%s) - start )) s" >&2
	done
done

printf '\n%-26s %-6s %5s %6s %14s %10s %11s %8s\n' metric clock boots n/boot mean \
	"cv within" "cv between" "mde 5/5"
for m in $METRICS; do
	for clock in wall icount; do
		db=$DIR/$clock.db
		rows="SELECT s.run_id, s.value FROM samples s JOIN runs r ON r.id = s.run_id
			WHERE r.status = 'OK' AND s.workload = '${m%%.*}' AND s.metric = '${m#*.}'
			ORDER BY s.run_id, s.value"
		sqlite3 -batch -noheader -separator ' ' "$db" "$rows" >"$DIR/rows"
		if [ ! -s "$DIR/rows" ]; then
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
			sed -n 's/^minimum detectable effect \([^ ]*\) %.*/\1/p')
		awk -v m="$m" -v clock="$clock" -v mde="${mde:-n/a}" '
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
				within = dfw ? 100 * sqrt(ss / dfw) / grand : -1
				between = boots > 1 ? 100 * sqrt(sb / (boots - 1)) / mm : -1
				printf "%-26s %-6s %5d %6.0f %14.6g %9s %11s %8s\n", m, clock, boots,
					count / boots, grand,
					within < 0 ? "-" : sprintf("%.4f %%", within),
					between < 0 ? "-" : sprintf("%.4f %%", between),
					mde == "n/a" ? mde : mde " %"
			}' "$DIR/rows"
		rm -f "$DIR/rows.a" "$DIR/rows.b"
	done
done
echo "goal: mde <= 1 % for every metric with icount"
