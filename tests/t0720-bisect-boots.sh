#!/bin/bash
# lab bisect is not fooled by boots: a host that makes some boots slow (every
# sample of the boot), an effect too noisy for two boots a side, and a culprit
# that does not explain the whole effect.
. "$(dirname "$0")/lib.sh"

export FAKE=$TOP/tests/fixtures/fake-guest.sh
export FAKE_SEED_FILE=$TRASH/seed
export BOOT_COUNT=$TRASH/boots

# A history of 30 commits, each tagged cI; "scale" is the kernel's speed,
# changed at the commits named (I:SCALE...); the program's boot factor
# comes from slow.sh, the host.
make_repo() {
	rm -rf repo && fake_project repo '#!/bin/sh\nexec "$SLOW" %s "$@"\n' &&
	fake_history repo 30 history_step "$@"
}

# fake_history's step: the scale of each I:SCALE at commit I, the commit tagged cI
history_step() {
	for change in "$@"; do
		test "${change%%:*}" = $i && echo "${change#*:}" >repo/scale
	done
	tag=c$i
}

# The host: boot n of the whole test runs its kernel at factor f(n).
write_host() {
	cat >slow.sh <<-EOS &&
	#!/bin/sh
	scale=\$1; shift
	n=\$(( \$(cat "\$BOOT_COUNT" 2>/dev/null || echo 0) + 1 )); echo \$n >"\$BOOT_COUNT"
	f=\$("\$AWK" -v n=\$n 'BEGIN { $1 }')
	exec "\$FAKE" "\$@" scale=\$("\$AWK" -v a=\$scale -v f=\$f 'BEGIN { print a * f }') cv=${2:-0.001}
	EOS
	chmod +x slow.sh
}

export SLOW=$TRASH/slow.sh
# the noise drawn as mawk (Debian's awk) draws it, whatever awk names (gawk's rand differs)
AWK=$(command -v mawk || command -v awk)
export AWK

test_expect_success 'setup' '
	local_conf "$PWD/repo" >lab.conf
'

# Every third boot after the first four runs 25 % slow: more than half of the
# 30 % effect. One boot of a good commit that lands on a slow boot looks bad.
test_expect_success 'a host that slows some boots does not make a good commit bad' '
	make_repo 12:1.30 && rm -f "$BOOT_COUNT" &&
	write_host "print (n > 4 && n % 3 == 2) ? 1.25 : 1" &&
	rc=0 && "$LAB" bisect --db boots.db --good base --bad main --workload zeroing --metric t \
		--iters 10 >out 2>err || rc=$? &&
	cat out && test "$rc" = 0 &&
	grep -q "^culprit: $(git -C repo rev-parse c12)" out &&
	test "$(sql boots.db "SELECT outcome FROM bisections")" = FOUND
'

test_expect_success 'no step was decided on fewer than two boots of its commit' '
	test "$(sql boots.db "SELECT count(*) FROM bisect_steps WHERE mark != '\''SKIP'\'' AND n < 2")" = 0 &&
	grep -q "boots  M/G" out
'

# Boots spread 6 %: at two boots a side a 12 % effect is not clear yet.
test_expect_success 'an unclear good-to-bad takes more boots before giving up' '
	make_repo 12:1.12 && rm -f "$BOOT_COUNT" &&
	write_host "srand(n * 7919); u = rand(); v = rand(); print exp(0.06 * sqrt(-2 * log(u + 1e-12)) * cos(6.283185 * v))" &&
	rc=0 && "$LAB" bisect --db unclear.db --good base --bad main --workload zeroing --metric t \
		--iters 10 >out 2>err || rc=$? &&
	cat out && test "$rc" = 0 &&
	grep -q "^culprit: $(git -C repo rev-parse c12)" out &&
	g=$(sql unclear.db "SELECT count(*) FROM runs r JOIN variants v ON v.id = r.variant_id WHERE v.name = '\''G'\''") &&
	test "$g" -gt 2
'

test_expect_success 'without --metric, the ends get more boots while every metric is unclear' '
	rm -f "$BOOT_COUNT" &&
	rc=0 && "$LAB" bisect --db choose.db --good base --bad main --workload zeroing \
		--iters 10 >out 2>err || rc=$? &&
	test "$rc" != 2 &&
	grep "per metric (4 boots a side)" err
'

# Two commits share the effect: neither is the whole of it.
test_expect_success 'a culprit that does not explain the effect is UNCLEAR, exit 3, after a re-test' '
	make_repo 8:1.15 20:1.40 && rm -f "$BOOT_COUNT" &&
	write_host "print 1" &&
	rc=0 && "$LAB" bisect --db two.db --good base --bad main --workload zeroing --metric t \
		--iters 10 >out 2>err || rc=$? &&
	cat out && test "$rc" = 3 &&
	grep -q "^culprit: $(git -C repo rev-parse c20)" out &&
	grep -q "re-tested" out && grep -q "^  UNCLEAR: the culprit does not explain the whole effect" out &&
	test "$(sql two.db "SELECT outcome FROM bisections")" = UNCLEAR &&
	test "$(sql two.db "SELECT count(*) FROM runs r JOIN variants v ON v.id = r.variant_id WHERE v.name = '\''P'\''")" -ge 8 &&
	"$LAB" bisect --db two.db --status >status && grep -q "^bisection E1: UNCLEAR" status
'

test_expect_success 'near-deterministic boots: a 3 % step found with two boots a step' '
	make_repo 17:1.03 && rm -f "$BOOT_COUNT" &&
	write_host "print 1" 0.000001 &&
	rc=0 && "$LAB" bisect --db det.db --good base --bad main --workload zeroing --metric t \
		--iters 10 >out 2>err || rc=$? &&
	cat out && test "$rc" = 0 &&
	grep -q "^culprit: $(git -C repo rev-parse c17)" out &&
	test "$(sql det.db "SELECT max(n) FROM bisect_steps")" = 2
'

test_done
