#!/bin/bash
# An A/B of the fixture's base and regression on the arm64 test host of
# r0100, as a class of targets: lab ab --targets arm builds both for
# arm64, kexecs each boot there in ABBA order and comes to a verdict, the
# host back in its default kernel after every boot, and the hardware
# counters of QEMU's PMUv3 on both sides. Each boot is a kexec
# and a reboot under TCG: about ten minutes a pair.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/remote/lib-remote.sh"

test_expect_success 'lab ab --targets arm: base against regression, kexec'\''d on the host, a verdict' '
	start=$(date +%s) &&
	rc=0 && "$LAB" ab --config "$TRASH/lab.conf" --db "$DB" --targets arm --arch aarch64 \
		--repo "$FIXTURE" --a fixture-base --b fixture-regression --a-config "$FRAG" \
		--a-config "$MODULAR" --b-config "$FRAG" --b-config "$MODULAR" --workload zeroing \
		--iters 5 --param zeroing_mb=16 --boots 2 \
		>out 2>err || rc=$? &&
	cat out err &&
	echo "# the A/B: $(( $(date +%s) - start )) s" &&
	test $rc -le 1 &&
	grep -q "^metric .* verdict$" out &&
	e=$(sql "$DB" "SELECT max(id) FROM experiments") &&
	test "$(sql "$DB" "SELECT count(*) FROM verdicts WHERE experiment_id = $e AND metric IN ('\''touch'\'', '\''clear_huge_page'\'')")" = 2 &&
	sql "$DB" "SELECT v.name, count(*) FROM runs r JOIN variants v ON v.id = r.variant_id JOIN run_targets t ON t.run_id = r.id WHERE r.experiment_id = $e AND r.status = '\''OK'\'' AND r.runner = '\''ssh'\'' AND t.target = '\''arm1'\'' GROUP BY v.name" >sides &&
	test "$(cat sides)" = "$(printf "A|2\nB|2")" &&
	# QEMU emulates a PMUv3: its counters on both sides, beside the times, IPC derived
	for ev in cycles instructions ipc; do
		grep -Eq "^zeroing\.ev\.$ev +[0-9.]+ +[0-9.]+ +[^ ]+$" out || return 1
	done &&
	! grep -q "no hardware counters" out &&
	test "$(sql "$DB" "SELECT count(*) FROM runs r JOIN run_meta m ON m.run_id = r.id AND m.key = '\''pmu'\'' WHERE r.experiment_id = $e AND m.value LIKE '\''%cycles%instructions%'\''")" = 4 &&
	# every boot restored the host by its reboot, none with an error instead
	test "$(sql "$DB" "SELECT count(*) FROM runs WHERE experiment_id = $e")" = 4 &&
	test "$(sql "$DB" "SELECT count(*) FROM runs r JOIN run_meta m ON m.run_id = r.id AND m.key = '\''ssh.restore'\'' WHERE r.experiment_id = $e AND m.value = '\''reboot'\''")" = 4 &&
	test "$(hssh uname -r)" = "$DEFAULT"
'

test_done
