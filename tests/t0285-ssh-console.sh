#!/bin/bash
# A host's console (console = COMMAND) while the kernel the lab sent boots:
# its output in the run's console log, a kernel failure it prints making a
# boot that never comes back BOOT_FAILED with that line, its last line in
# an INFRA's error otherwise, the command gone with the boot. The "host"
# is this machine behind a real sshd, its kexec a stand-in that loads
# nothing, so the kernel never comes back: make check-remote boots one.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib-sshd.sh"

sshd_start main 127.0.0.1 ||
	{ echo "1..0 # SKIP sshd does not start here: $(tail -1 "$TRASH/main.log")"; exit 0; }
PORT=$SSHD_PORT
# kexec-tools on the "host" that kexec nothing, and no systemd to kexec through
mkdir -p bin &&
printf '#!/bin/sh\nexit 0\n' >bin/kexec && printf '#!/bin/sh\nexit 1\n' >bin/systemctl &&
chmod +x bin/kexec bin/systemctl || exit 1
echo "environment=\"PATH=$TRASH/bin:/usr/bin:/bin\" $(cat "$TRASH/id.pub")" >"$TRASH/authorized_keys"

# console.sh MARK: a console printing a kernel's boot up to $CONSOLE_END, then waiting
cat >console.sh <<'EOS'
#!/bin/sh
printf '[    0.000000] Linux version 6.1.0-lab (lab@example.org) #1 SMP\n'
printf '[    0.000000] Kernel command line: console=ttyAMA0 root=/dev/vda\n'
printf '%b\n' "$CONSOLE_END"
exec sh -c "sleep 300" "$1"
EOS
chmod +x console.sh

write_conf() { # CONSOLE_END
	cat >lab.conf <<-EOC
	[ssh]
		host = root@127.0.0.1
		port = $PORT
		identity = $TRASH/id
		knownHosts = $TRASH/known_hosts
		deadline = 3
		console = CONSOLE_END='$1' $TRASH/console.sh lab-console-$$
	EOC
}
field() { # RUN COLUMN: the run's value
	sql lab.db "SELECT $2 FROM runs WHERE id = $1"
}
run() {
	"$LAB" run --config lab.conf --db lab.db --runner ssh --kernel "$(debian_kernel)" \
		--workload zeroing --iters 2 "$@"
}

test_expect_success 'a kernel that panics and never comes back: BOOT_FAILED with the panic line' '
	write_conf "[    1.234567] Kernel panic - not syncing: VFS: Unable to mount root fs on unknown-block(0,0)" &&
	run >out 2>err; cat err &&
	test "$(field 1 status)" = BOOT_FAILED &&
	field 1 error >error &&
	grep -q "^kernel failed: \[    1.234567\] Kernel panic - not syncing: VFS: Unable to mount root fs on unknown-block(0,0) (host .root@127.0.0.1. did not come back within 3s of kexec)$" error &&
	log=$(field 1 console_log) &&
	grep -q "Linux version 6.1.0-lab" "$log" && grep -q "Kernel panic - not syncing" "$log" &&
	test "$(sql lab.db "SELECT count(*) FROM samples WHERE run_id = 1")" = 0
'

test_expect_success 'its console command runs while the host is awaited, and is gone with the boot' '
	{ run >out 2>err & echo $! >run.pid; } &&
	test_wait_until 20 "pgrep -f lab-console-$$ >/dev/null" &&
	{ wait "$(cat run.pid)" || true; } &&
	test "$(field 2 status)" = BOOT_FAILED &&
	! pgrep -f "lab-console-$$"
'

test_expect_success 'the lab'\''s initramfs found no root: its line first, then the panic' '
	write_conf "lab-rootinit: no block device is root=UUID=4f1c (seen: sda sda1)\\\\n[    3.000000] Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000100" &&
	run >out 2>err; cat err &&
	id=$(sql lab.db "SELECT max(id) FROM runs") &&
	test "$(field $id status)" = BOOT_FAILED &&
	test "$(field $id error)" = "kernel failed: lab-rootinit: no block device is root=UUID=4f1c (seen: sda sda1), then [    3.000000] Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000100 (host '\''root@127.0.0.1'\'' did not come back within 3s of kexec)"
'

test_expect_success 'a console that shows no failure: INFRA, its last line in the error' '
	write_conf "[    2.000000] virtio_blk virtio1: [vda] 6291456 512-byte logical blocks" &&
	run >out 2>err; cat err &&
	test "$(field 4 status)" = INFRA &&
	field 4 error >error &&
	grep -q "did not come back within 3s of kexec (last: host answered, still in the boot it was in); its console.s last line: \[    2.000000\] virtio_blk virtio1: \[vda\] 6291456 512-byte logical blocks$" error &&
	! pgrep -f "lab-console-$$"
'

test_expect_success 'an empty console command is refused naming the key' '
	printf "[ssh]\n\tconsole =\n" >bad.conf &&
	test_expect_code 2 "$LAB" run --config bad.conf --db lab.db --runner ssh --workload zeroing 2>err &&
	expect_one_line_naming err "bad value .. for .ssh.console. in config bad.conf line 2: expected a shell command"
'

test_done
