# Sourced by the bench scripts (not a .sh, which make bench would run):
# where the lab is, a scratch folder removed on exit, Debian's kernel, the
# boots they make and the awk behind their tables, so that each script is
# its boots and its table's lines.
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
LAB=$TOP/lab/lab
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
DEBIAN_KERNEL=$(ls -1 /boot/vmlinuz-* | sort -V | tail -n 1)

# The median of a[1..n] (sorts a), and its least value, for awk programs.
BENCH_AWK_MEDIAN='
	function median(a, n,   i, j, x) {
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { x = a[j]; a[j] = a[j-1]; a[j-1] = x }
		return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
	}
	function min(a, n,   i, m) { m = a[1]; for (i = 2; i <= n; i++) if (a[i] < m) m = a[i]; return m }'

# bench_clocks TRIES [lab run options]: BOOTS boots a clock into
# $DIR/wall.db and $DIR/icount.db, the clocks alternating boot by boot so
# that both see the same host. A boot that fails is tried again, up to
# TRIES times, each failure said; the last ends the bench.
bench_clocks() {
	local tries=$1 i clock try start
	shift
	for i in $(seq "$BOOTS"); do
		for clock in wall icount; do
			start=$(date +%s)
			for try in $(seq "$tries"); do
				"$LAB" run --db "$DIR/$clock.db" --accel tcg --clock "$clock" "$@" \
					>/dev/null 2>"$DIR/err" && break
				echo "boot $i ($clock), try $try of $tries:"
				cat "$DIR/err"
				[ "$try" -lt "$tries" ] || exit 1
			done
			echo "boot $i of $BOOTS ($clock): $(( $(date +%s) - start )) s" >&2
		done
	done
}

# bench_rows DB WORKLOAD METRIC: "run value" lines of the OK boots'
# samples, by run and value, into $DIR/rows; false when there are none.
bench_rows() {
	sqlite3 -batch -noheader -separator ' ' "$1" "
		SELECT s.run_id, s.value FROM samples s JOIN runs r ON r.id = s.run_id
		WHERE r.status = 'OK' AND s.workload = '$2' AND s.metric = '$3'
		ORDER BY s.run_id, s.value" >"$DIR/rows"
	[ -s "$DIR/rows" ]
}

# bench_cv WIDTH NAME CLOCK [MDE]: the table line of $DIR/rows: boots,
# samples a boot, mean, the pooled sd within boots over the mean (cv
# within), the sd of the per-boot medians over their mean (cv between),
# and MDE when given.
bench_cv() {
	awk -v w="$1" -v m="$2" -v clock="$3" -v mde="${4-}" '
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
			printf "%-" w "s %-6s %5d %6.0f %14.6g %9s %11s", m, clock, boots,
				count / boots, grand,
				within < 0 ? "-" : sprintf("%.4f %%", within),
				between < 0 ? "-" : sprintf("%.4f %%", between)
			if (mde != "")
				printf " %8s", mde == "n/a" ? mde : mde " %"
			printf "\n"
		}' "$DIR/rows"
}

# bench_boots NAME DB KERNEL [lab run options]: BOOTS boots of the boot
# workload at 1G in wall time into DB; on failure, NAME and why.
bench_boots() {
	local name=$1 db=$2 kernel=$3
	shift 3
	"$LAB" run --db "$db" --accel tcg --clock wall --kernel "$kernel" --workload boot \
		--mem 1G --boots "$BOOTS" "$@" >/dev/null 2>"$DIR/run.err" ||
		{ echo "$name:"; cat "$DIR/run.err"; return 1; }
}

# bench_db NAME: a database in $DIR named after NAME.
bench_db() {
	echo "$DIR/$(echo "$1" | tr -c 'a-zA-Z0-9\n' _).db"
}
