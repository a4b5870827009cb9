#!/bin/bash
# Targets with real boots of Debian's prebuilt kernel under TCG: a libvirt
# target stores what the qemu runner stores; an A/B spread over a qemu and
# a libvirt target of one class boots on both at once and loses or doubles
# no sample; a target that always fails INFRA leaves the pool and the A/B
# goes on; runs of two classes are never compared without --force.
. "$(dirname "$0")/lib.sh"

KERNEL=$(debian_kernel)

if ! why=$("$TOP/tests/fixtures/start-libvirtd.sh" 2>&1); then
	echo "1..0 # SKIP libvirt cannot run here: $why"
	exit 0
fi

cat >lab.conf <<EOF
[target "vm1"]
	runner = libvirt
	uri = qemu:///system
	arch = x86_64
	mem = 2G
	class = tcg
[target "q1"]
	runner = qemu
	class = tcg
[target "broken"]
	runner = libvirt
	uri = qemu:///system?socket=$TRASH/no-such-sock
	class = flaky
[target "q2"]
	runner = qemu
	class = flaky
[target "q3"]
	runner = qemu
	class = other
EOF
export LAB_CONFIG=$PWD/lab.conf

run() {
	"$LAB" run --db lab.db --accel tcg --clock wall --kernel "$KERNEL" --timeout 240 "$@"
}
ab=("$LAB" ab --db lab.db --accel tcg --clock wall --kernel "$KERNEL" --timeout 240
	--workload boot --mem 1G --a-cmdline init_on_alloc=0 --b-cmdline init_on_alloc=1)
metrics() {
	sql lab.db "SELECT DISTINCT workload || '.' || metric FROM samples WHERE run_id = $1 ORDER BY 1"
}
side_counts() {
	sql lab.db "SELECT v.name, count(*) FROM runs r JOIN variants v ON v.id = r.variant_id WHERE r.experiment_id = $1 AND r.status = 'OK' GROUP BY v.name"
}

test_expect_success TCG 'lab run --target vm1: a libvirt target stores the samples the qemu runner stores' '
	run --runner qemu --workload boot --mem 1G >out &&
	run --target vm1 --workload boot --mem 1G >out &&
	cat out &&
	test "$(sql lab.db "SELECT status || '\'' '\'' || runner FROM runs WHERE id = 2")" = "OK libvirt" &&
	test "$(sql lab.db "SELECT target || '\'' '\'' || class FROM run_targets WHERE run_id = 2")" = "vm1 tcg" &&
	test "$(sql lab.db "SELECT value FROM run_meta WHERE run_id = 2 AND key = '\''libvirt.uri'\''")" = qemu:///system &&
	metrics 1 >qemu.metrics && metrics 2 >vm1.metrics &&
	grep -qx boot.to_init vm1.metrics &&
	diff qemu.metrics vm1.metrics &&
	test "$(sql lab.db "SELECT count(*) FROM samples WHERE run_id = 1")" = "$(sql lab.db "SELECT count(*) FROM samples WHERE run_id = 2")"
'

test_expect_success TCG 'a guest above the target'\''s mem is refused before it boots' '
	test_expect_code 2 run --target vm1 --workload boot --mem 4G 2>err &&
	expect_one_line_naming err "target .vm1. takes guests of up to 2048M, not 4096M" &&
	test "$(sql lab.db "SELECT count(*) FROM runs")" = 2
'

test_expect_success TCG 'an A/B over a qemu and a libvirt target: both boot at once, nothing lost or doubled' '
	rc=0 && "${ab[@]}" --boots 3 --targets tcg >out 2>err || rc=$? &&
	cat err out && test $rc != 2 &&
	e=$(sql lab.db "SELECT max(id) FROM experiments") &&
	test "$(side_counts $e)" = "$(printf "A|3\nB|3")" &&
	test "$(sql lab.db "SELECT count(*) FROM runs r LEFT JOIN run_targets t ON t.run_id = r.id WHERE r.experiment_id = $e AND t.class IS NOT '\''tcg'\''")" = 0 &&
	test "$(sql lab.db "SELECT group_concat(n) FROM (SELECT count(*) n FROM runs r JOIN run_targets t ON t.run_id = r.id WHERE r.experiment_id = $e GROUP BY t.target HAVING count(*) >= 2)")" != "" &&
	test "$(sql lab.db "SELECT count(DISTINCT t.target) FROM runs r JOIN run_targets t ON t.run_id = r.id WHERE r.experiment_id = $e")" = 2 &&
	test "$(sql lab.db "SELECT count(DISTINCT runner) FROM runs WHERE experiment_id = $e")" = 2 &&
	test "$(sql lab.db "SELECT count(*) FROM runs a JOIN run_targets ta ON ta.run_id = a.id, runs b JOIN run_targets tb ON tb.run_id = b.id WHERE a.experiment_id = $e AND b.experiment_id = $e AND ta.target = '\''vm1'\'' AND tb.target = '\''q1'\'' AND a.started < b.ended AND b.started < a.ended")" -ge 1 &&
	test "$(sql lab.db "SELECT count(*) FROM (SELECT s.run_id FROM samples s JOIN runs r ON r.id = s.run_id WHERE r.experiment_id = $e GROUP BY s.run_id, s.workload, s.metric, s.iteration HAVING count(*) > 1)")" = 0 &&
	test "$(sql lab.db "SELECT count(*) FROM runs r WHERE r.experiment_id = $e AND r.status = '\''OK'\'' AND NOT EXISTS (SELECT 1 FROM samples s WHERE s.run_id = r.id AND s.metric = '\''to_init'\'')")" = 0 &&
	test "$(sql lab.db "SELECT count(*) FROM verdicts WHERE experiment_id = $e AND metric = '\''to_init'\''")" = 1
'

test_expect_success TCG 'runs of two classes are refused without --force' '
	e=$(sql lab.db "SELECT max(id) FROM experiments") &&
	test_expect_code 2 "${ab[@]}" --boots 4 --targets other --resume E$e >out 2>err &&
	unwrapped err | grep "^lab:" >errline &&
	expect_one_line_naming errline "runs of experiment $e ran on targets of class .tcg. and of class .other., which are not declared interchangeable; use --force" &&
	test "$(sql lab.db "SELECT status FROM experiments WHERE id = $e")" = REFUSED
'

test_expect_success TCG 'a target that always fails INFRA leaves the pool; the A/B goes on with the rest' '
	rc=0 && "${ab[@]}" --boots 2 --targets flaky >out 2>err || rc=$? &&
	cat err out && test $rc != 2 &&
	unwrapped err | grep "target .broken. taken out of the pool: 3 INFRA boots in a row" >taken &&
	test $(wc -l <taken) = 1 &&
	grep -q "cannot connect to libvirt at .qemu:///system?socket=$TRASH/no-such-sock." taken &&
	e=$(sql lab.db "SELECT max(id) FROM experiments") &&
	test "$(sql lab.db "SELECT count(*) FROM runs r JOIN run_targets t ON t.run_id = r.id WHERE r.experiment_id = $e AND t.target = '\''broken'\'' AND r.status = '\''INFRA'\''")" = 3 &&
	test "$(sql lab.db "SELECT count(*) FROM runs r JOIN run_targets t ON t.run_id = r.id WHERE r.experiment_id = $e AND t.target = '\''broken'\''")" = 3 &&
	test "$(side_counts $e)" = "$(printf "A|2\nB|2")" &&
	test "$(sql lab.db "SELECT count(*) FROM verdicts WHERE experiment_id = $e AND metric = '\''to_init'\''")" = 1
'

# Volumes as a lab killed mid-boot leaves them: one of a dead process of
# this host, one of a live one (this shell), one of another host.
test_expect_success TCG 'volumes of a lab killed with -9 are removed by the next libvirt boot, no others' '
	sh -c "exit 0" &
	dead=$! && wait $dead &&
	host=$(hostname | cut -d. -f1) &&
	! kill -0 $dead 2>/dev/null &&
	for v in "lab-$host-$dead-0-boot-kernel" "lab-$host-$$-0-boot-kernel" "lab-elsewhere-$dead-0-boot-kernel"; do
		virsh -q -c qemu:///system vol-create-as lab "$v" 1M >/dev/null || return 1
	done &&
	test_when_finished "virsh -q -c qemu:///system vol-delete --pool lab lab-$host-$$-0-boot-kernel >/dev/null;
		virsh -q -c qemu:///system vol-delete --pool lab lab-elsewhere-$dead-0-boot-kernel >/dev/null" &&
	run --target vm1 --workload boot --mem 1G >out 2>err &&
	unwrapped err | grep -q "removed volume .lab-$host-$dead-0-boot-kernel. of a lab that died (pid $dead)" &&
	virsh -q -c qemu:///system vol-list lab >volumes &&
	! grep -q "lab-$host-$dead-" volumes &&
	grep -q "lab-$host-$$-0-boot-kernel" volumes &&
	grep -q "lab-elsewhere-$dead-0-boot-kernel" volumes
'

test_done
