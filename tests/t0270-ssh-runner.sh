#!/bin/bash
# The ssh runner against a real sshd on a loopback port, this machine as the
# "host": the guest program copied and run over ssh, its lines parsed as
# the local runner's; host keys checked; the host's checks in one line; a
# refused connection INFRA, a guest killed mid-run FAILED with nothing kept.
# Booting a kernel by kexec needs a host of its own (make check-remote).
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib-sshd.sh"

FAKE=$TOP/tests/fixtures/fake-guest.sh

# A host key, a client key, an sshd that accepts only that key on $PORT.
start_sshd() { sshd_start main 127.0.0.1 ${PORT:-}; }
stop_sshd() { sshd_stop main; }
start_sshd || { echo "1..0 # SKIP sshd does not start here: $(tail -1 "$TRASH/main.log")"; exit 0; }
PORT=$SSHD_PORT
ssh-keygen -q -t ed25519 -N '' -f "$TRASH/other_host_key" || exit 1
echo "[127.0.0.1]:$PORT $(cut -d' ' -f1,2 "$TRASH/other_host_key.pub")" >"$TRASH/wrong_known_hosts"

write_conf() { # [KNOWN_HOSTS [PORT]]
	cat >"$TRASH/lab.conf" <<EOC
[ssh]
	host = root@127.0.0.1
	port = ${2:-$PORT}
	identity = $TRASH/id
	knownHosts = ${1:-$TRASH/known_hosts}
	deadline = 20
EOC
}
write_conf
run() {
	"$LAB" run --config "$TRASH/lab.conf" --db lab.db --runner ssh "$@"
}
meta() { # RUN KEY
	sql lab.db "SELECT value FROM run_meta WHERE run_id = $1 AND key = '$2'"
}

test_expect_success 'a program run over ssh stores its samples, with the host in the metadata' '
	run --guest "$FAKE" --workload zeroing --iters 5 --cmdline scale=2 >out &&
	test "$(sql lab.db "SELECT status || \" \" || runner FROM runs WHERE id = 1")" = "OK ssh" &&
	test "$(sql lab.db "SELECT count(*) FROM samples WHERE run_id = 1")" = 5 &&
	test "$(sql lab.db "SELECT min(value) > 150 FROM samples WHERE run_id = 1")" = 1 &&
	test "$(meta 1 ssh.host)" = root@127.0.0.1 &&
	test "$(meta 1 host.cmdline)" = "$(cat /proc/cmdline)" &&
	grep -q "hello 2 fake" "$(sql lab.db "SELECT console_log FROM runs WHERE id = 1")" &&
	! ls -d /var/tmp/lab-"$(meta 1 lab.nonce)" 2>/dev/null
'

test_expect_success 'the guest program built for the host runs there: zeroing on its kernel' '
	run --workload zeroing --iters 3 --param zeroing_mb=8 >out &&
	test "$(sql lab.db "SELECT status FROM runs WHERE id = 2")" = OK &&
	test "$(sql lab.db "SELECT count(*) FROM samples WHERE run_id = 2 AND metric = \"touch\"")" = 3 &&
	test "$(meta 2 kernel.release)" = "$(uname -r)"
'

test_expect_success 'a guest killed mid-run is FAILED and its partial samples are not kept' '
	cat >killed.sh <<-\EOS &&
	#!/bin/sh
	for a; do case $a in lab.nonce=*) n="${a#*=} " ;; esac; done
	echo "@lab ${n}hello 2 killed"
	for i in 0 1 2; do echo "@lab ${n}sample zeroing touch $i 10.0 us"; done
	kill -9 $$
	EOS
	chmod +x killed.sh &&
	test_expect_code 1 run --guest "$PWD/killed.sh" --workload zeroing >out 2>err &&
	test "$(sql lab.db "SELECT status FROM runs WHERE id = 3")" = FAILED &&
	test "$(sql lab.db "SELECT count(*) FROM samples WHERE run_id = 3")" = 0 &&
	sql lab.db "SELECT error FROM runs WHERE id = 3" >error &&
	grep "before done (3 partial samples discarded)" error
'

test_expect_success 'a host key that does not match known_hosts is refused, saying so' '
	write_conf "$TRASH/wrong_known_hosts" &&
	test_when_finished write_conf &&
	test_expect_code 2 run --guest "$FAKE" --workload zeroing 2>err &&
	cat err &&
	test "$(unwrapped err | wc -l)" = 1 &&
	unwrapped err | grep -q "host key of '\''root@127.0.0.1'\'' not accepted (checked against $TRASH/wrong_known_hosts)" &&
	test "$(sql lab.db "SELECT count(*) FROM runs")" = 3
'

test_expect_success 'a refused connection before the first boot is one line and nothing stored' '
	write_conf "" "$(free_port)" &&
	test_when_finished write_conf &&
	test_expect_code 2 run --guest "$FAKE" --workload zeroing 2>err &&
	test "$(unwrapped err | wc -l)" = 1 &&
	unwrapped err | grep -q "cannot reach host '\''root@127.0.0.1'\'': .*Connection refused" &&
	test "$(sql lab.db "SELECT count(*) FROM runs")" = 3
'

test_expect_success 'a host that refuses ssh at a boot makes that boot INFRA' '
	cat >stops-sshd.sh <<-EOS &&
	#!/bin/sh
	kill \$(cat "$TRASH/main.pid")
	exec "$FAKE" "\$@"
	EOS
	chmod +x stops-sshd.sh &&
	test_when_finished start_sshd &&
	test_expect_code 1 run --guest "$PWD/stops-sshd.sh" --workload zeroing --iters 2 --boots 2 >out 2>err &&
	test "$(sql lab.db "SELECT group_concat(status, \" \") FROM runs WHERE id > 3 ORDER BY id")" = "OK INFRA" &&
	sql lab.db "SELECT error FROM runs WHERE id = 5" >error &&
	grep -q "cannot reach host '\''root@127.0.0.1'\'': .*Connection refused" error
'

test_lazy_prereq NO_KEXEC '! PATH=$PATH:/usr/sbin:/sbin command -v kexec'
test_expect_success NO_KEXEC 'booting a kernel on a host without kexec-tools: what is missing, in one line' '
	test_expect_code 2 run --kernel "$(debian_kernel)" --workload boot 2>err &&
	cat err &&
	test "$(unwrapped err | wc -l)" = 1 &&
	unwrapped err | grep -q "host '\''root@127.0.0.1'\'' cannot be used: missing kexec-tools"
'

test_expect_success 'bad [ssh] settings are refused naming the key' '
	printf "[ssh]\n\tport = 99999\n" >bad.conf &&
	test_expect_code 2 "$LAB" run --config bad.conf --db lab.db --runner ssh --workload zeroing 2>err &&
	unwrapped err | grep -q "bad value '\''99999'\'' for '\''ssh.port'\''" &&
	printf "[ssh]\n\trestore = poweroff\n" >bad.conf &&
	test_expect_code 2 "$LAB" run --config bad.conf --db lab.db --runner ssh --workload zeroing 2>err &&
	unwrapped err | grep -q "expected reboot or kexec:IMAGE" &&
	printf "[run]\n\trunner = ssh\n" >none.conf &&
	test_expect_code 2 "$LAB" run --config none.conf --db lab.db --workload zeroing 2>err &&
	unwrapped err | grep -q "no host for the ssh runner"
'

test_done
