#!/bin/bash
# Ten real A/A experiments in virtual time: Debian's kernel against itself,
# the boot workload (to_init, deferred init, freeing of init memory), on the
# adaptive schedule. host_to_init, the host's own measure, stays in wall time
# under either clock: its verdicts are printed, not held to this. No pair may give a verdict of
# change (REGRESSION, IMPROVEMENT or SMALL) on any metric, and icount's
# near-deterministic samples should end every pair at the first look.
. "$(dirname "$0")/../lib.sh"

PAIRS=${AA_PAIRS:-10}
DB=$TRASH/aa.db
KERNEL=$(debian_kernel)

test_expect_success 'Debian'\''s kernel, as the PVH vmlinux inside it' '
	"$TOP/tests/fixtures/extract-vmlinux.sh" "$KERNEL" vmlinux && test -s vmlinux
'

test_expect_success "$PAIRS A/A pairs in icount: no verdict of change" '
	for i in $(seq "$PAIRS"); do
		rc=0 && "$LAB" ab --aa --db "$DB" --a-kernel vmlinux --b-kernel vmlinux --workload boot \
			--mem 1G --clock icount --accel tcg >out.$i 2>err.$i || rc=$? &&
		{ test "$rc" = 0 || { cat out.$i err.$i; exit 1; }; } || exit 1
	done &&
	sql "$DB" "SELECT verdict, count(*) FROM verdicts GROUP BY verdict" >verdicts &&
	cat verdicts &&
	test "$(sql "$DB" "SELECT count(DISTINCT experiment_id) FROM verdicts")" = "$PAIRS" &&
	test "$(sql "$DB" "SELECT count(*) FROM verdicts WHERE metric != '\''host_to_init'\''
		AND verdict IN ('\''REGRESSION'\'', '\''IMPROVEMENT'\'', '\''SMALL'\'')")" = 0
'

# The schedule counts samples: the first look is at 5 a side, which the
# boot workload's one sample a boot reaches at 5 boots a side.
test_expect_success 'every pair ended at the first look: 5 boots a side at most' '
	sql "$DB" "SELECT count(*) FROM runs WHERE status = '\''OK'\''
		GROUP BY experiment_id" >boots &&
	cat boots && test "$(sort -n boots | tail -n 1)" -le 10
'
sql "$DB" "SELECT '# ' || metric || ' ' || verdict || ': ' || count(*) FROM verdicts
	GROUP BY metric, verdict" 2>/dev/null

test_done
