#!/bin/bash
# Two ssh hosts as two targets of one class ([target] sections with the
# ssh keys of their own), each a real sshd on a loopback address: runs and
# an A/B spread over both, each run on the host its target names; a
# target's missing keys are [ssh]'s, and a target without a host is
# [ssh]'s host.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib-sshd.sh"

FAKE=$TOP/tests/fixtures/fake-guest.sh

sshd_start one 127.0.0.1 && P1=$SSHD_PORT &&
sshd_start two 127.0.0.2 && P2=$SSHD_PORT ||
	{ echo "1..0 # SKIP sshd does not start here: $(tail -1 "$TRASH"/*.log)"; exit 0; }

cat >lab.conf <<EOC
[ssh]
	host = root@127.0.0.1
	port = $P1
	identity = $TRASH/id
	knownHosts = $TRASH/known_hosts
	deadline = 20
[target "arm1"]
	runner = ssh
	class = arm
	host = root@127.0.0.1
	port = $P1
[target "arm2"]
	runner = ssh
	class = arm
	host = root@127.0.0.2
	port = $P2
[target "plain"]
	runner = ssh
EOC
export LAB_CONFIG=$PWD/lab.conf

meta() { # RUN KEY
	sql lab.db "SELECT value FROM run_meta WHERE run_id = $1 AND key = '$2'"
}
# each run's target and the host it ran on, "arm1 root@127.0.0.1"
where() {
	sql lab.db "SELECT t.target || ' ' || m.value FROM runs r JOIN run_targets t ON t.run_id = r.id JOIN run_meta m ON m.run_id = r.id AND m.key = 'ssh.host' WHERE r.id > ${1:-0} ORDER BY r.id"
}

test_expect_success 'lab run --target arm2: the run is on arm2'\''s host, named so' '
	"$LAB" run --db lab.db --guest "$FAKE" --workload zeroing --iters 3 --target arm2 >out &&
	test "$(sql lab.db "SELECT status || \" \" || runner FROM runs WHERE id = 1")" = "OK ssh" &&
	test "$(where)" = "arm2 root@127.0.0.2" &&
	test "$(sql lab.db "SELECT class FROM run_targets WHERE run_id = 1")" = arm &&
	grep -q "Accepted publickey" two.log && ! grep -q "Accepted publickey" one.log
'

test_expect_success 'lab run --targets arm: the boots on both hosts, each run with its target'\''s name' '
	"$LAB" run --db lab.db --guest "$FAKE" --workload zeroing --iters 3 --cmdline sleep=0.5 \
		--targets arm --boots 4 >out 2>err &&
	cat err &&
	where 1 >where &&
	cat where &&
	test "$(wc -l <where)" = 4 &&
	test "$(sort -u where | tr "\n" ,)" = "arm1 root@127.0.0.1,arm2 root@127.0.0.2," &&
	test "$(sql lab.db "SELECT count(*) FROM runs WHERE id > 1 AND status = '\''OK'\''")" = 4 &&
	test "$(sql lab.db "SELECT count(*) FROM samples WHERE run_id > 1")" = 12 &&
	grep -q "Accepted publickey" one.log
'

test_expect_success 'lab ab --targets arm: both sides on both hosts, a verdict' '
	test_expect_code 1 "$LAB" ab --db lab.db --guest "$FAKE" --workload zeroing --iters 5 \
		--boots 4 --targets arm --a-cmdline "scale=1.0 sleep=0.3" \
		--b-cmdline "scale=1.2 sleep=0.3" >out 2>err &&
	cat out err &&
	grep -q " REGRESSION$" out &&
	sql lab.db "SELECT v.name || '\'' '\'' || t.target || '\'' '\'' || m.value FROM runs r JOIN variants v ON v.id = r.variant_id JOIN run_targets t ON t.run_id = r.id JOIN run_meta m ON m.run_id = r.id AND m.key = '\''ssh.host'\'' WHERE r.experiment_id = 1 AND r.status = '\''OK'\''" | sort -u >sides &&
	cat sides &&
	test "$(cat sides)" = "$(printf "A arm1 root@127.0.0.1\nA arm2 root@127.0.0.2\nB arm1 root@127.0.0.1\nB arm2 root@127.0.0.2")"
'

test_expect_success 'a target of runner ssh without a host is [ssh]'\''s host' '
	n=$(sql lab.db "SELECT max(id) FROM runs") &&
	"$LAB" run --db lab.db --guest "$FAKE" --workload zeroing --iters 2 --target plain >out &&
	test "$(where $n)" = "plain root@127.0.0.1" &&
	printf "[target \"plain\"]\n\trunner = ssh\n" >nohost.conf &&
	test_expect_code 2 "$LAB" run --config nohost.conf --db lab.db --guest "$FAKE" \
		--workload zeroing --target plain 2>err &&
	expect_one_line_naming err "no host for the ssh runner (host in the \[ssh\] section of lab.conf, or in the target.s)"
'

test_expect_success 'a target'\''s own host key is checked: a wrong one refuses that target' '
	cp lab.conf good.conf &&
	test_when_finished "cp good.conf lab.conf" &&
	ssh-keygen -q -t ed25519 -N "" -f other_key &&
	echo "[127.0.0.2]:$P2 $(cut -d" " -f1,2 other_key.pub)" >wrong_known_hosts &&
	printf "\tknownHosts = %s\n" "$PWD/wrong_known_hosts" >>lab.conf &&
	sed -i "s|^\[target \"plain\"\]|[target \"plain\"]\n\thost = root@127.0.0.2\n\tport = $P2|" lab.conf &&
	n=$(sql lab.db "SELECT count(*) FROM runs") &&
	test_expect_code 2 "$LAB" run --db lab.db --guest "$FAKE" --workload zeroing --target plain 2>err &&
	cat err &&
	expect_one_line_naming err "host key of .root@127.0.0.2. not accepted (checked against $PWD/wrong_known_hosts)" &&
	test "$(sql lab.db "SELECT count(*) FROM runs")" = "$n"
'

test_done
