#!/bin/bash
# A kexec boot of the ssh runner from the copy to the restore, against a
# host emulated around a real sshd: the sshd runs in a mount namespace of
# its own where /proc/cmdline, /proc/version and the boot_id are files of
# the test, which the host's stand-ins for kexec and systemctl rewrite as
# a boot would. kexec -e "boots" the command line kexec -l was given (a
# new boot_id, lab.nonce= on /proc/cmdline), systemctl reboot brings the
# default kernel back, or leaves the host where it is; each writes its
# boot's lines to the console file the lab reads. The guest program runs
# for real. Proved: the host's network words on the kexec'd kernel's line,
# the console of the restore in the run's log, and a restore that fails
# making the run INFRA and the host out of service until lab target check
# finds it ready, a class of targets going on without it (a second host
# beside it, this machine as it is). make check-remote boots real kernels
# on a real host.
. "$(dirname "$0")/lib.sh"

H=$TRASH/host
mkdir -p "$H" "$TRASH/bin" || exit 1
HOST_CMDLINE="BOOT_IMAGE=/vmlinuz root=UUID=4f1c ro console=ttyS0,115200 net.ifnames=0 ip=10.0.0.5::10.0.0.1:255.255.255.0:arm1:eth0:off quiet"
DEFAULT="Linux version 6.1.0-host (debian@example.org) #1 SMP"
echo "$HOST_CMDLINE" >"$H/default-cmdline" && echo "$DEFAULT" >"$H/default-version" &&
cp "$H/default-cmdline" "$H/cmdline" && cp "$H/default-version" "$H/version" &&
cat /proc/sys/kernel/random/uuid >"$H/boot_id" && : >"$H/console.log" && echo back >"$H/reboot" ||
	exit 1
SSHD_SETUP="mount --bind $H/cmdline /proc/cmdline; mount --bind $H/version /proc/version;
	mount --bind $H/boot_id /proc/sys/kernel/random/boot_id"
. "$TOP/tests/lib-sshd.sh"
sshd_start main 127.0.0.1 ||
	{ echo "1..0 # SKIP sshd does not start in a mount namespace here: $(tail -1 "$TRASH/main.log")"; exit 0; }
PORT=$SSHD_PORT
# a second host of arm1's class, this machine as it is, for boots without a kernel
SSHD_SETUP= sshd_start two 127.0.0.2 || exit 1
P2=$SSHD_PORT

# host-boot CMDLINE VERSION: the host down a second, then up in a new boot
# (each file rewritten in place: the bind mounts hold their inodes)
cat >bin/host-boot <<EOS
#!/bin/sh
sleep 1
echo "[    0.000000] \$2" >>"$H/console.log"
printf '%s\n' "\$1" >"$H/cmdline"
printf '%s\n' "\$2" >"$H/version"
cat /proc/sys/kernel/random/uuid >"$H/boot_id"
echo "[    2.000000] Run /sbin/init as init process" >>"$H/console.log"
EOS
cat >bin/kexec <<EOS
#!/bin/sh
case \$1 in
-l) for a; do case \$a in --command-line=*) printf '%s\n' "\${a#--command-line=}" >"$H/loaded";; esac; done ;;
-e) exec host-boot "\$(cat "$H/loaded")" "Linux version 6.1.0-lab-test (lab@example.org) #1 SMP" ;;
esac
EOS
# systemctl reboot as $H/reboot says: back (the default kernel), none (stays where it is)
cat >bin/systemctl <<EOS
#!/bin/sh
[ "\$1" = reboot ] || exit 1
echo "[ 1234.000000] reboot: Restarting system" >>"$H/console.log"
case \$(cat "$H/reboot") in
back) exec host-boot "\$(cat "$H/default-cmdline")" "$DEFAULT" ;;
none) echo "[    0.000000] firmware: no boot device" >>"$H/console.log" ;;
esac
EOS
chmod +x bin/* || exit 1
sshd_login_path "$TRASH/bin:/usr/bin:/bin"
{
	ssh_conf "deadline = 15"
	ssh_target arm1 root@127.0.0.1 $PORT "console = tail -n0 -F $H/console.log" "class = arm"
	ssh_target arm2 root@127.0.0.2 $P2 "class = arm"
	ssh_target solo root@127.0.0.1 $PORT "class = solo"
} >lab.conf
export LAB_CONFIG=$PWD/lab.conf
field() { # RUN COLUMN
	sql lab.db "SELECT $2 FROM runs WHERE id = $1"
}
last() {
	sql lab.db "SELECT max(id) FROM runs"
}
meta() { # RUN KEY
	sql lab.db "SELECT value FROM run_meta WHERE run_id = $1 AND key = '$2'"
}
run() {
	"$LAB" run --db lab.db --target arm1 --kernel "$(debian_kernel)" --workload zeroing \
		--iters 2 --param zeroing_mb=8 "$@"
}

test_expect_success 'the host emulated: its own command line and boot, as the lab reads them' '
	"$LAB" target check arm1 >wrapped &&
	cat wrapped &&
	within_columns wrapped && unwrapped wrapped >out &&
	grep -qx "target .arm1. (ssh, root@127.0.0.1:$PORT): ready" out
'

test_expect_success 'a kexec boot: measured in the kernel sent, with the host'\''s root, console and network words' '
	run --cmdline "transparent_hugepage=never" >out 2>err &&
	cat err &&
	test "$(field 1 status)" = OK &&
	test "$(sql lab.db "SELECT count(*) FROM samples WHERE run_id = 1")" -ge 2 &&
	test "$(meta 1 ssh.kernel)" = "Linux version 6.1.0-lab-test (lab@example.org) #1 SMP" &&
	nonce=$(meta 1 lab.nonce) &&
	test "$(cat "$H/loaded")" = "root=UUID=4f1c ro console=ttyS0,115200 net.ifnames=0 ip=10.0.0.5::10.0.0.1:255.255.255.0:arm1:eth0:off transparent_hugepage=never lab.nonce=$nonce" &&
	test "$(meta 1 ssh.restore)" = reboot &&
	test "$(cat "$H/cmdline")" = "$HOST_CMDLINE"
'

test_expect_success 'the restore'\''s console: in the run'\''s log after the boot'\''s, the default kernel coming up' '
	log=$(field 1 console_log) &&
	cat "$log" &&
	line() { grep -n "$1" "$log" | head -n 1 | cut -d: -f1; } &&
	sent=$(line "Linux version 6.1.0-lab-test") &&
	header=$(line "== the console of host .root@127.0.0.1. while it returns to its default kernel (restore = reboot) ==") &&
	restart=$(line "reboot: Restarting system") &&
	back=$(line "Linux version 6.1.0-host") &&
	test -n "$sent" && test -n "$back" &&
	test "$sent" -lt "$header" && test "$header" -lt "$restart" && test "$restart" -lt "$back"
'

test_expect_success 'a restore that does not bring the default kernel back: INFRA, out of service, one line' '
	echo none >"$H/reboot" &&
	test_expect_code 1 run >out 2>err &&
	cat err &&
	test "$(field 2 status)" = INFRA &&
	field 2 error >error &&
	grep -qx "host .root@127.0.0.1. did not return to its default kernel after the boot: host answered, still in the boot it was in; its console.s last line: \[    0.000000\] firmware: no boot device (out of service until .lab target check. finds it ready)" error &&
	# said once, its words perhaps wrapped over two lines
	test "$(tr -s " \n" "  " <err | grep -o "out of service" | wc -l)" = 1 &&
	test "$(meta 2 ssh.reset)" = "none configured" &&
	grep -q "firmware: no boot device" "$(field 2 console_log)"
'

test_expect_success 'no boot goes to a host out of service: refused in one line, nothing stored' '
	test_expect_code 2 run >out 2>err &&
	cat err &&
	expect_one_line_naming err "host .root@127.0.0.1. is out of service since [0-9T:Z-]*: host .root@127.0.0.1. did not return to its default kernel after the boot: .* (.lab target check. puts it back once it lacks nothing)" &&
	test "$(sql lab.db "SELECT count(*) FROM runs")" = 2
'

test_expect_success 'a class with a host out of service: the others boot, said in one line' '
	n=$(sql lab.db "SELECT count(*) FROM runs") &&
	"$LAB" run --db lab.db --guest "$TOP/tests/fixtures/fake-guest.sh" --workload zeroing \
		--iters 2 --targets arm --boots 2 >out 2>err &&
	cat err &&
	grep -q "^lab: host .root@127.0.0.1. is out of service since " err &&
	grep -qx "target .arm1. left out of the pool: it cannot boot (above); the others of class .arm. go on" err &&
	test "$(sql lab.db "SELECT group_concat(r.status || \" \" || t.target) FROM runs r JOIN run_targets t ON t.run_id = r.id WHERE r.id > $n")" = "OK arm2,OK arm2" &&
	# only if every host of the class is out does it stop, before any boot
	test_expect_code 2 "$LAB" run --db lab.db --guest "$TOP/tests/fixtures/fake-guest.sh" \
		--workload zeroing --targets solo --boots 2 >out 2>err &&
	cat err &&
	grep -qx "lab: no target of class .solo. can boot" err &&
	! grep -q "left out of the pool" err &&
	test "$(sql lab.db "SELECT count(*) FROM runs")" = $((n + 2))
'

test_expect_success 'lab target check: still in the lab'\''s kernel, missing its default one; once back, back in service' '
	test_expect_code 1 "$LAB" target check arm1 >wrapped &&
	cat wrapped &&
	# the long lines wrapped within the columns, their further lines indented under them
	grep -q "^    " wrapped &&
	within_columns wrapped && unwrapped wrapped >out &&
	grep -qx "target .arm1. (ssh, root@127.0.0.1:$PORT): missing its default kernel (it runs one the lab kexec.d: lab.nonce= on its command line)" out &&
	grep -qx "  out of service since .*: host .root@127.0.0.1. did not return to its default kernel after the boot: .*" out &&
	test_expect_code 2 run 2>err &&
	# the host power-cycled by hand: its own kernel again
	cp "$H/default-cmdline" "$H/cmdline" && cp "$H/default-version" "$H/version" &&
	echo back >"$H/reboot" &&
	"$LAB" target check arm1 >wrapped &&
	cat wrapped &&
	within_columns wrapped && unwrapped wrapped >out &&
	grep -qx "target .arm1. (ssh, root@127.0.0.1:$PORT): ready" out &&
	grep -qx "  back in service (out of service since .*)" out &&
	run >out 2>err &&
	test "$(field "$(last)" status)" = OK
'

test_expect_success 'a host word the kernel cannot take as one word: INFRA naming it, nothing sent' '
	echo "root=/dev/vda ip=\"dhcp\"" >"$H/cmdline" &&
	test_when_finished "cp \"$H/default-cmdline\" \"$H/cmdline\"" &&
	test_expect_code 1 run >out 2>err &&
	test "$(field "$(last)" status)" = INFRA &&
	test "$(field "$(last)" error)" = "host '\''root@127.0.0.1'\'': the host'\''s command line word '\''ip=\"dhcp\"'\'' holds a double quote: it cannot be passed on as one word"
'

test_done
