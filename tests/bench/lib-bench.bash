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
# samples, by run and value, into $DIR/rows, their unit into $DIR/unit;
# false when there are none.
bench_rows() {
	sqlite3 -batch -noheader -separator ' ' "$1" "
		SELECT s.run_id, s.value FROM samples s JOIN runs r ON r.id = s.run_id
		WHERE r.status = 'OK' AND s.workload = '$2' AND s.metric = '$3'
		ORDER BY s.run_id, s.value" >"$DIR/rows"
	sqlite3 -batch -noheader "$1" "
		SELECT unit FROM samples WHERE workload = '$2' AND metric = '$3' LIMIT 1" >"$DIR/unit"
	[ -s "$DIR/rows" ]
}

# The table lines are written by tests/bench/benchfmt.c, with the lab's
# own formatter: "1.140 s", "35 %", "0.0019 %", as docs/measurements.md
# shows them and lab ab writes them.
BENCHFMT=$TOP/build/bench/benchfmt
# the columns of bench_cv's mean: a time takes 11 ("1234.5 ms"), ops/s more
BENCH_MEAN_WIDTH=11

# bench_cv_header WIDTH KEY [CELL...]: the header of bench_cv's lines, KEY
# naming their second column (clock, cpus), CELLs any further columns
# (benchfmt's, as "7:s:mde 5/5").
bench_cv_header() {
	[ -x "$BENCHFMT" ] || { echo "$BENCHFMT is not built (make bench builds it)"; exit 1; }
	"$BENCHFMT" "-$1:s:metric" "-6:s:$2" 5:s:boots 6:s:n/boot "$BENCH_MEAN_WIDTH:s:mean" "9:s:cv within" \
		"10:s:cv between" "${@:3}"
}

# bench_cv WIDTH NAME KEY [CELL...]: the table line of $DIR/rows: boots,
# samples a boot, mean, the pooled sd within boots over the mean (cv
# within), the sd of the per-boot medians over their mean (cv between),
# then CELLs (benchfmt's: the MDE, say).
bench_cv() {
	local w=$1 name=$2 key=$3
	shift 3
	set -- $(awk '
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
			# every digit: benchfmt rounds
			printf "%d %.0f %.17g %s %s\n", boots, count / boots, grand,
				within < 0 ? "-" : sprintf("%.17g", within),
				between < 0 ? "-" : sprintf("%.17g", between)
		}' "$DIR/rows") "$@"
	"$BENCHFMT" "-$w:s:$name" "-6:s:$key" "5:s:$1" "6:s:$2" \
		"$BENCH_MEAN_WIDTH:q:$(cat "$DIR/unit"):$3" \
		"9:p:$4" "10:p:$5" "${@:6}"
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
