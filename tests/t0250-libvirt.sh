#!/bin/bash
# The libvirt runner against a real libvirtd (started here when it is not
# running and we are root): real boots of Debian's prebuilt kernel under
# TCG, each a transient domain, store what the qemu runner stores; a boot
# past its deadline is destroyed; libvirt's own failures are INFRA.
. "$(dirname "$0")/lib.sh"

KERNEL=$(debian_kernel)
URI=qemu:///system

if ! why=$("$TOP/tests/fixtures/start-libvirtd.sh" 2>&1); then
	echo "1..0 # SKIP libvirt cannot run here: $why"
	exit 0
fi

run() {
	"$LAB" run --db lab.db --accel tcg --kernel "$KERNEL" --timeout 240 "$@"
}

# The metrics (workload.metric) of one run, one a line, sorted.
metrics() {
	sql lab.db "SELECT DISTINCT workload || '.' || metric FROM samples WHERE run_id = $1 ORDER BY 1"
}

# Domains of this libvirtd whose name starts with $1, running or not.
domains_named() {
	virsh -q -c "$URI" list --all --name | grep "^$1" || true
}

test_expect_success 'boot: a libvirt boot stores the metrics a qemu boot stores' '
	run --runner qemu --clock wall --workload boot --mem 1G >out &&
	run --runner libvirt --clock wall --workload boot --mem 1G >out &&
	cat out &&
	test "$(sql lab.db "SELECT status || '\'' '\'' || runner FROM runs WHERE id = 2")" = "OK libvirt" &&
	metrics 1 >qemu.metrics && metrics 2 >libvirt.metrics &&
	cat libvirt.metrics &&
	grep -qx boot.to_init libvirt.metrics && grep -qx boot.host_to_init libvirt.metrics &&
	diff qemu.metrics libvirt.metrics &&
	to_init=$(sql lab.db "SELECT value FROM samples WHERE run_id = 2 AND metric = '\''to_init'\''") &&
	host=$(sql lab.db "SELECT value FROM samples WHERE run_id = 2 AND metric = '\''host_to_init'\''") &&
	wall=$(sql lab.db "SELECT wall_s FROM runs WHERE id = 2") &&
	test "$(echo "$to_init > 0 && $to_init < $host && $host < $wall" | bc)" = 1 &&
	test "$(sql lab.db "SELECT value FROM run_meta WHERE run_id = 2 AND key = '\''libvirt.uri'\''")" = "$URI" &&
	grep -q "lab.workload=boot" "$(sql lab.db "SELECT console_log FROM runs WHERE id = 2")"
'

test_expect_success 'demote in icount: the same metrics, QEMU started with -icount' '
	args="--workload demote --iters 1 --mem 4G --clock icount" &&
	run --runner qemu $args --cmdline "hugetlb_free_vmemmap=on nokaslr" >out &&
	run --runner libvirt $args --cmdline "hugetlb_free_vmemmap=on nokaslr" >out &&
	cat out &&
	test "$(sql lab.db "SELECT status FROM runs WHERE id = 4")" = OK &&
	test "$(sql lab.db "SELECT clock FROM runs WHERE id = 4")" = "icount shift=0" &&
	test "$(sql lab.db "SELECT value FROM run_meta WHERE run_id = 4 AND key = '\''demote.verified'\''")" = yes &&
	test "$(sql lab.db "SELECT value FROM run_meta WHERE run_id = 4 AND key = '\''demote.hvo'\''")" = on &&
	metrics 3 >qemu.metrics && metrics 4 >libvirt.metrics &&
	diff qemu.metrics libvirt.metrics &&
	test "$(sql lab.db "SELECT count(*) FROM samples WHERE run_id = 4 AND metric = '\''demote_page_wall'\'' AND value > 0")" = 1 &&
	domain=$(sql lab.db "SELECT value FROM run_meta WHERE run_id = 4 AND key = '\''libvirt.domain'\''") &&
	grep -q -- "-icount shift=0,sleep=off" "/var/log/libvirt/qemu/$domain.log"
'

# A thousand passes over 100 MB cannot end in 3 s, however fast the host.
test_expect_success 'a boot past its deadline ends TIMEOUT, its domain destroyed' '
	rc=0 && { run --runner libvirt --clock wall --workload zeroing --iters 1000 --mem 512M \
		--timeout 3 2>err >out || rc=$?; } &&
	cat out err && test "$rc" = 1 &&
	test "$(sql lab.db "SELECT status FROM runs WHERE id = 5")" = TIMEOUT &&
	domain=$(sql lab.db "SELECT value FROM run_meta WHERE run_id = 5 AND key = '\''libvirt.domain'\''") &&
	test -n "$domain" &&
	test -z "$(domains_named "$domain")" &&
	! pgrep -f "guest=$domain," &&
	virsh -q -c "$URI" vol-list lab >volumes &&
	! grep "$domain" volumes
'

test_expect_success 'a kernel that panics is BOOT_FAILED, its domain gone' '
	rc=0 && { run --runner libvirt --clock wall --workload boot --mem 512M \
		--cmdline "rdinit=/nonexistent root=/dev/nonexistent" 2>err >out || rc=$?; } &&
	cat out err && test "$rc" = 1 &&
	test "$(sql lab.db "SELECT status FROM runs WHERE id = 6")" = BOOT_FAILED &&
	sql lab.db "SELECT error FROM runs WHERE id = 6" | grep -q "Kernel panic" &&
	domain=$(sql lab.db "SELECT value FROM run_meta WHERE run_id = 6 AND key = '\''libvirt.domain'\''") &&
	test -z "$(domains_named "$domain")"
'

test_expect_success 'a libvirtd that is not there is INFRA with libvirt'\''s message' '
	printf "[libvirt]\n\turi = qemu:///system?socket=%s/no-such-sock\n" "$TRASH" >down.conf &&
	rc=0 && { run --config down.conf --runner libvirt --workload boot 2>err >out || rc=$?; } &&
	cat out err && test "$rc" = 1 &&
	test "$(sql lab.db "SELECT status FROM runs WHERE id = 7")" = INFRA &&
	sql lab.db "SELECT error FROM runs WHERE id = 7" >error &&
	grep -q "^cannot connect to libvirt at .qemu:///system?socket=$TRASH/no-such-sock.: " error &&
	grep -q "no-such-sock.*No such file or directory" error
'

test_expect_success 'a domain libvirt refuses is INFRA with libvirt'\''s reason' '
	rc=0 && { run --runner libvirt --workload boot --cpus 1000 2>err >out || rc=$?; } &&
	cat out err && test "$rc" = 1 &&
	test "$(sql lab.db "SELECT status FROM runs WHERE id = 8")" = INFRA &&
	sql lab.db "SELECT error FROM runs WHERE id = 8" |
		grep -q "^cannot start libvirt domain: .*Maximum CPUs greater than"
'

test_expect_success 'kernel and initramfs reach a hypervisor user that cannot enter the lab'\''s directory' '
	chmod 700 "$TRASH" &&
	cp "$KERNEL" "$TRASH/vmlinuz" && chmod 600 "$TRASH/vmlinuz" &&
	"$LAB" run --db lab.db --accel tcg --runner libvirt --clock wall --kernel "$TRASH/vmlinuz" \
		--workload boot --mem 512M --timeout 240 >out &&
	test "$(sql lab.db "SELECT status FROM runs WHERE id = 9")" = OK
'

# As under the qemu runner (t0227): the nonce reaches the guest in an
# archive appended to the initramfs, never on the command line, which
# Linux mixes into its entropy; the RTC starts at a fixed date, RDRAND is
# seeded, and SMBIOS carries no random UUID of libvirt's.
test_expect_success QEMU_8_1 'two libvirt boots of 2 vCPUs in icount give the same samples' '
	"$LAB" run --db smp.db --runner libvirt --accel tcg --clock icount --cpus 2 \
		--kernel "$KERNEL" --workload zeroing,boot --iters 4 --param zeroing_mb=16 \
		--mem 512M --boots 2 --timeout 600 --cmdline nokaslr >out 2>err &&
	test "$(sql smp.db "SELECT group_concat(status || '\'' '\'' || runner || '\'' '\'' || cpus || '\'' '\'' || clock) FROM runs")" = \
		"OK libvirt 2 icount shift=0,OK libvirt 2 icount shift=0" &&
	for r in 1 2; do
		sql smp.db "SELECT workload, metric, iteration, value FROM samples WHERE run_id = $r ORDER BY id" >samples$r || return 1
	done &&
	test "$(grep -c "^zeroing|touch|" samples1)" = 4 &&
	grep -q "^boot|to_init|" samples1 &&
	diff samples1 samples2 &&
	n1=$(sql smp.db "SELECT value FROM run_meta WHERE run_id = 1 AND key = '\''lab.nonce'\''") &&
	n2=$(sql smp.db "SELECT value FROM run_meta WHERE run_id = 2 AND key = '\''lab.nonce'\''") &&
	test "$n1" != "$n2" &&
	log=$(sql smp.db "SELECT console_log FROM runs WHERE id = 2") &&
	grep -q "^@lab $n2 hello 2 guest " "$log" &&
	test "$(grep -c "^@lab $n2 " "$log")" = "$(grep -c "^@lab " "$log")" &&
	! grep -q "lab.nonce" "$log" &&
	domain=$(sql smp.db "SELECT value FROM run_meta WHERE run_id = 2 AND key = '\''libvirt.domain'\''") &&
	! grep -q "lab.nonce" "/var/log/libvirt/qemu/$domain.log" &&
	test -d cache && ls -A cache >left && ! grep initramfs left
'

# A remote URI: libvirtd on this host, reached over ssh through an sshd of
# the test's own on a loopback port, with its own host key; the kernel and
# the initramfs reach the far side as uploaded volumes.
SSHD=/usr/sbin/sshd
if [ ! -x "$SSHD" ]; then
	test_count=$((test_count + 1))
	echo "ok $test_count # skip no sshd for a remote URI (make deps installs openssh-server)"
	test_done
fi
ssh-keygen -q -t ed25519 -N "" -f "$TRASH/hostkey" &&
ssh-keygen -q -t ed25519 -N "" -f "$TRASH/id" &&
cp "$TRASH/id.pub" "$TRASH/authorized_keys" &&
mkdir -p /run/sshd &&
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])') &&
"$SSHD" -f /dev/null -h "$TRASH/hostkey" -p "$PORT" -o ListenAddress=127.0.0.1 \
	-o AuthorizedKeysFile="$TRASH/authorized_keys" -o StrictModes=no \
	-o PermitRootLogin=prohibit-password -o PasswordAuthentication=no \
	-o KbdInteractiveAuthentication=no -o UsePAM=no \
	-o PidFile="$TRASH/sshd.pid" -E "$TRASH/sshd.log" || exit 1
for _ in $(seq 50); do test -s "$TRASH/sshd.pid" && break; sleep 0.1; done
stop_sshd() { test -s "$TRASH/sshd.pid" && kill "$(cat "$TRASH/sshd.pid")" && rm -f "$TRASH/sshd.pid"; }
trap 'stop_sshd; [ -n "${LAB_TEST_KEEP:-}" ] || rm -rf "$TRASH"' EXIT
# root's known_hosts stays as it was
printf '#!/bin/sh\nexec ssh -o UserKnownHostsFile=%s/known_hosts -o BatchMode=yes "$@"\n' "$TRASH" >ssh &&
chmod +x ssh
REMOTE="qemu+ssh://root@127.0.0.1:$PORT/system?keyfile=$TRASH/id&no_verify=1&command=$TRASH/ssh"
printf '[libvirt]\n\turi = "%s"\n' "$REMOTE" >remote.conf

test_expect_success 'a remote URI: booted over ssh, kernel and initramfs uploaded, nothing left' '
	run --config remote.conf --runner libvirt --clock wall --workload boot --mem 1G >out &&
	cat out &&
	test "$(sql lab.db "SELECT status FROM runs WHERE id = 10")" = OK &&
	test "$(sql lab.db "SELECT value FROM run_meta WHERE run_id = 10 AND key = '\''libvirt.uri'\''")" = "$REMOTE" &&
	metrics 1 >qemu.metrics && metrics 10 >remote.metrics &&
	diff qemu.metrics remote.metrics &&
	grep -q "Accepted publickey for root" sshd.log &&
	domain=$(sql lab.db "SELECT value FROM run_meta WHERE run_id = 10 AND key = '\''libvirt.domain'\''") &&
	test -z "$(domains_named "$domain")" &&
	virsh -q -c "$URI" vol-list lab >volumes &&
	! grep "$domain" volumes
'

test_expect_success 'a remote host that cannot be reached is INFRA with what ssh said' '
	stop_sshd &&
	rc=0 && { run --config remote.conf --runner libvirt --workload boot 2>err >out || rc=$?; } &&
	cat out err && test "$rc" = 1 &&
	test "$(sql lab.db "SELECT status FROM runs WHERE id = 11")" = INFRA &&
	sql lab.db "SELECT error FROM runs WHERE id = 11" >error && cat error &&
	grep -q "^cannot connect to libvirt at .qemu+ssh://root@127.0.0.1:$PORT/system" error &&
	grep -q "Connection refused" error
'

test_done
