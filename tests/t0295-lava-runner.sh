#!/bin/bash
# The lava runner, fast, against tests/fixtures/fake-lava.py: LAVA's REST
# API as the runner uses it, each job a real QEMU boot of Debian's kernel
# with the lab's initramfs, its console the job's log. What the runner
# asks and how it tells the outcomes apart: the target check, samples
# stored, a job failed before the kernel (INFRA), the deadline (TIMEOUT,
# the job cancelled), a killed lab's job cancelled by the next. make
# check-lava runs the same against a real LAVA server.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib-lava.sh"

FAKE_LAVA_CONTROL=$TRASH/control lava_fake qemu,arm64-devkit,uefi-server
trap 'kill $FAKE 2>/dev/null; rm -rf "$TRASH"' EXIT
URL=$URL/ lava_conf file:///nonexistent # the slash the lab drops
export LAB_CONFIG=$TRASH/lab.conf
KERNEL=$(debian_kernel)

test_expect_success 'lab target check: ready, the token'\''s user named; a bad token, an open one, no such device type' '
	"$LAB" target check lava1 >wrapped &&
	within_columns wrapped && unwrapped wrapped >out &&
	test "$(cat out)" = "$(printf "target '\''lava1'\'' (lava, %s, qemu): ready\n  user: lab" "$URL")" &&
	cp token open-token && chmod 644 open-token &&
	echo wrong >bad-token && chmod 600 bad-token &&
	sed "s|token = .*|token = $TRASH/open-token|" lab.conf >open.conf &&
	sed "s|token = .*|token = $TRASH/bad-token|" lab.conf >bad.conf &&
	sed "s|deviceType = qemu|deviceType = nosuch|" lab.conf >type.conf &&
	test_expect_code 1 "$LAB" target check --config open.conf lava1 >wrapped &&
	within_columns wrapped && unwrapped wrapped >out &&
	grep -qx "target .lava1. (lava, .*): missing token file .$TRASH/open-token. is readable by others (mode 0644): chmod 600 it" out &&
	test_expect_code 1 "$LAB" target check --config bad.conf lava1 >wrapped &&
	within_columns wrapped && unwrapped wrapped >out &&
	grep -qx "target .lava1. (lava, .*): missing a token the server accepts (LAVA server .$URL. refused the token: HTTP 403 (Invalid token.))" out &&
	test_expect_code 1 "$LAB" target check --config type.conf lava1 >wrapped &&
	within_columns wrapped && unwrapped wrapped >out &&
	grep -qx "target .lava1. (lava, .*): missing device type .nosuch. (LAVA server .$URL. refused the device type: HTTP 404 (Not found.))" out
'

test_expect_success 'bad lava keys: one line naming the key and what it takes' '
	printf "[target \"l\"]\n\trunner = lava\n\turl = ftp://x\n" >badurl.conf &&
	test_expect_code 2 "$LAB" target list --config badurl.conf 2>err &&
	expect_one_line_naming err "target.l.url" &&
	unwrapped err | grep -q "the LAVA server.s http:// or https:// URL" &&
	printf "[target \"l\"]\n\trunner = lava\n\tqueue = 0\n" >badq.conf &&
	test_expect_code 2 "$LAB" target list --config badq.conf 2>err &&
	unwrapped err | grep -q "seconds from 1 to 604800"
'

test_lazy_prereq LAVA_SCHEMA '/usr/bin/python3 -c "import lava_common.schemas, voluptuous"'

# definition JOB: the YAML the lab submitted as job JOB, as LAVA keeps it
definition() {
	api "jobs/$1/" | python3 -c "import json, sys; sys.stdout.write(json.load(sys.stdin)[\"definition\"])"
}
# fetched JOB: the http:// URLs the stand-in's worker fetched for job JOB, one a line
fetched() {
	api "jobs/$1/" | python3 -c "import json, sys; print(\"\n\".join(json.load(sys.stdin)[\"fetched\"]))"
}

lava_target lab.conf lavaset accel=tcg "imageDir=$TRASH/img" imageUrl=file:///nonexistent \
	priority=80 visibility=group:kernel-team,lab tags=4g,usb "jobPrefix=perf lab (nightly)"

test_expect_success 'the target'\''s priority, visibility, tags and job prefix are the job'\''s; its metadata say whose' '
	test_expect_code 1 "$LAB" run --target lavaset --kernel "$KERNEL" --workload zeroing --iters 1 \
		--mem 1G >out 2>err &&
	last_error >/dev/null &&
	job=$(meta $id lava.job) &&
	hash=$(sql state/lab.db "SELECT k.hash FROM runs r JOIN kernels k ON k.id = r.kernel_id WHERE r.id = $id") &&
	definition $job >job.yaml &&
	/usr/bin/python3 - "$hash" "$(hostname)" "$(id -un)" >got <<-\EOF &&
	import re, sys, yaml
	hash, host, user = sys.argv[1:]
	job = yaml.safe_load(open("job.yaml"))
	nonce = job["metadata"]["lab.nonce"]
	print(re.fullmatch("[0-9a-f]{16,}", nonce) is not None and
	      job["job_name"] == "perf lab (nightly) boot %s %s" % (hash[:12], nonce))
	print(job["priority"], job["visibility"], job["tags"])
	print(job["metadata"] == {"lab.host": host, "lab.user": user, "lab.kernel": hash, "lab.nonce": nonce})
	EOF
	cat >want <<-\EOF &&
	True
	80 {'\''group'\'': ['\''kernel-team'\'', '\''lab'\'']} ['\''4g'\'', '\''usb'\'']
	True
	EOF
	diff -u want got
'

test_expect_success LAVA_SCHEMA 'the job with every setting passes LAVA'\''s own job schema' '
	"$TOP/tests/lava/validate-job.py" job.yaml
'

test_expect_success 'bad priority, visibility and job prefix: one line naming the key and what it takes' '
	for kv in "priority = urgent" "priority = 101" "visibility = group:" "visibility = friends" \
		"visibility = group:a,,b" "jobPrefix = " "jobPrefix = $(printf "%065d" 0)" \
		"serve = 8760" "serve = lab.example:8760" "serveUrl = ftp://x" "template = a b"; do
		printf "[target \"l\"]\n\trunner = lava\n\t%s\n" "$kv" >k.conf &&
		test_expect_code 2 "$LAB" target list --config k.conf 2>err &&
		expect_one_line_naming err "target.l.$(echo "${kv%% *}" | tr A-Z a-z)" || return 1
	done &&
	printf "[target \"l\"]\n\trunner = lava\n\tpriority = 7\n" >k.conf &&
	"$LAB" target list --config k.conf >out
'

test_expect_success 'docs/lava.md'\''s own example reads as it is: its token = ~/ in HOME' '
	sed -n "/^    \[target \"lava1\"\]/,/^\$/p" "$TOP/docs/lava.md" | sed "s/^    //" >doc.conf &&
	grep -q "token = ~/" doc.conf &&
	mkdir -p home/.config/lab && cp token home/.config/lab/lava-token &&
	HOME=$TRASH/home test_expect_code 1 "$LAB" target check --config doc.conf lava1 >wrapped &&
	within_columns wrapped && unwrapped wrapped >out &&
	grep -q "cannot reach LAVA server" out &&
	rm home/.config/lab/lava-token &&
	HOME=$TRASH/home test_expect_code 1 "$LAB" target check --config doc.conf lava1 >wrapped &&
	within_columns wrapped && unwrapped wrapped >out &&
	grep -qF "missing cannot read token file '\''$TRASH/home/.config/lab/lava-token'\'': No such file" out
'

lava_target lab.conf lavafast accel=tcg "imageDir=$TRASH/img" imageUrl=file:///nonexistent queue=6 outage=3
lava_target lab.conf lavaout arch=x86_64 accel=tcg outage=5
control() { # MODE: how the stand-in misbehaves from now on ("": not at all), till the test ends
	echo "$1" >"$TRASH/control"
	# a test that fails half-way leaves no misbehaving server to the next
	[ -z "$1" ] || [ -z "${test_cleanup_dir_:-}" ] || test_when_finished ": >\"$TRASH/control\""
}
fast() { # the lab run of a job that fails at once, before any boot
	"$LAB" run --target lavafast --kernel "$KERNEL" --workload zeroing --iters 1 --mem 1G "$@"
}

test_expect_success 'a server failing (503) for a while: the job submitted once it answers' '
	control 503 &&
	{ sleep 2; control ""; } &
	test_expect_code 1 fast >out 2>err &&
	wait &&
	last_error >error &&
	grep -q "^LAVA job $(meta $id lava.job) ended Incomplete before the kernel spoke: Job error: Invalid job data" error
'

test_expect_success 'a server failing (503) past its outage bound: INFRA, saying so, no job' '
	control 503 &&
	test_expect_code 1 fast >out 2>err &&
	control "" &&
	last_error >error &&
	grep -qxF "LAVA server '\''$URL'\'' refused the job: HTTP 503" error &&
	test -z "$(meta $id lava.job)"
'

test_expect_success 'a job no device takes within the queue bound: INFRA, the job cancelled, its note gone' '
	control queue &&
	test_expect_code 1 fast >out 2>err &&
	control "" &&
	last_error >error &&
	job=$(meta $id lava.job) &&
	grep -qx "LAVA job $job waited 6s for a qemu device (queue)" error &&
	test "$(api "jobs/$job/" | field health)" = Canceled &&
	test ! -e state/cache/lava-jobs/$job
'

test_expect_success 'a job whose devices are retired: INFRA at once, the job cancelled' '
	control retired &&
	test_expect_code 1 fast >out 2>err &&
	control "" &&
	last_error >error &&
	job=$(meta $id lava.job) &&
	grep -qx "LAVA job $job waited in vain: no device of type .qemu. can take it (1: 1 Retired)" error &&
	test "$(api "jobs/$job/" | field health)" = Canceled
'

test_expect_success 'a server gone while its job waits: INFRA, the job noted until a cancel goes through' '
	# the server gone well within the queue bound, however slow this machine is
	sed "s/^	queue = 6\$/	queue = 120/" lab.conf >longq.conf &&
	control queue &&
	fast --config longq.conf >out 2>err &
	pid=$! &&
	test_wait_until 30 "ls state/cache/lava-jobs/ 2>/dev/null | grep -q ." &&
	job=$(ls state/cache/lava-jobs/) &&
	control drop &&
	{ wait $pid; test $? = 1; } &&
	last_error >error &&
	grep -qx "LAVA job $job: no answer from the server for 3s (cannot reach LAVA server .$URL.: .*)" error &&
	grep -q "cannot cancel LAVA job $job (cancelled once the server answers)" err &&
	test "$(head -n 1 state/cache/lava-jobs/$job)" = "0 cancel" &&
	! api "jobs/$job/" >/dev/null &&
	control queue &&
	test "$(api "jobs/$job/" | field state)" = Submitted &&
	test_expect_code 1 fast >out 2>err &&
	control "" &&
	unwrapped err | grep -q "cancelling LAVA job $job, left running while its server did not answer" &&
	test "$(api "jobs/$job/" | field health)" = Canceled &&
	test ! -e state/cache/lava-jobs/$job
'

echo "a board's device tree" >board.dtb
lava_target lab.conf devkit deviceType=arm64-devkit template=uboot-tftp "dtb=$TRASH/board.dtb" \
	tags=usb-eth "imageDir=$TRASH/img" imageUrl=http://files.example.org/lab
lava_target lab.conf server deviceType=uefi-server template=uefi-grub "imageDir=$TRASH/img" \
	imageUrl=http://files.example.org/lab

board() { # TARGET: a boot there, its job'\''s definition in TARGET.yaml
	test_expect_code 1 "$LAB" run --target $1 --kernel "$KERNEL" --workload zeroing --iters 1 \
		--mem 1G >out 2>err &&
	last_error >error &&
	grep -qx "LAVA job $(meta $id lava.job) ended Incomplete before the kernel spoke: Infrastructure error: fake-lava boots qemu jobs only" error &&
	definition $(meta $id lava.job) >$1.yaml
}

test_expect_success 'a u-boot board over tftp: kernel, dtb and initramfs by URL, the lab'\''s words after the board'\''s' '
	board devkit &&
	/usr/bin/python3 - >got <<-\EOF &&
	import re, yaml
	job = yaml.safe_load(open("devkit.yaml"))
	deploy, boot = job["actions"][0]["deploy"], job["actions"][1]["boot"]
	print(job["device_type"], job["tags"], deploy["to"], boot["method"], boot["commands"])
	for image in ("kernel", "dtb", "ramdisk"):
	    print(image, re.sub("lab-[0-9a-f]+-", "lab-N-", deploy[image]["url"]))
	args = job["context"]["extra_kernel_args"]
	print("console=" in args, args.startswith("panic=-1 "), re.search(" lab.nonce=[0-9a-f]+$", args) is not None)
	EOF
	cat >want <<-\EOF &&
	arm64-devkit ['\''usb-eth'\''] tftp u-boot ramdisk
	kernel http://files.example.org/lab/lab-N-kernel
	dtb http://files.example.org/lab/lab-N-dtb
	ramdisk http://files.example.org/lab/lab-N-initramfs
	False True True
	EOF
	diff -u want got &&
	test -z "$(ls img)"
'

test_expect_success 'a UEFI server over grub and tftp: kernel and initramfs by URL' '
	board server &&
	/usr/bin/python3 - >got <<-\EOF &&
	import yaml
	job = yaml.safe_load(open("server.yaml"))
	deploy, boot = job["actions"][0]["deploy"], job["actions"][1]["boot"]
	print(job["device_type"], deploy["to"], sorted(deploy), boot["method"], boot["commands"])
	EOF
	echo "uefi-server tftp ['\''kernel'\'', '\''os'\'', '\''ramdisk'\'', '\''timeout'\'', '\''to'\''] grub ramdisk" >want &&
	diff -u want got
'

test_expect_success LAVA_SCHEMA 'the u-boot and UEFI jobs pass LAVA'\''s own job schema' '
	"$TOP/tests/lava/validate-job.py" devkit.yaml server.yaml >out &&
	printf "devkit.yaml: ok\nserver.yaml: ok\n" >want &&
	diff -u want out &&
	sed "s/^    to: tftp/    to: tftpx/" devkit.yaml >broken.yaml &&
	test_expect_code 1 "$TOP/tests/lava/validate-job.py" broken.yaml
'

test_expect_success 'a template that does not fill: one line naming it, its line and the placeholder, nothing submitted' '
	jobs=$(sql state/lab.db "SELECT count(*) FROM run_meta WHERE key = '\''lava.job'\''") &&
	runs=$(sql state/lab.db "SELECT count(*) FROM runs") &&
	printf "device_type: qemu\njob_name: x\nurl: {{ kernel }}\n" >own.yaml &&
	sed "/^\[target \"devkit\"\]/,\$d" lab.conf >t.conf &&
	lava_target t.conf own "template=$TRASH/own.yaml" &&
	lava_target t.conf nodtb deviceType=arm64-devkit template=uboot-tftp &&
	lava_target t.conf nosuch template=nosuch &&
	lava_target t.conf gone "template=$TRASH/gone.yaml" &&
	for t in own nodtb nosuch gone; do
		test_expect_code 2 "$LAB" run --config t.conf --target $t --kernel "$KERNEL" \
			--workload zeroing --iters 1 --mem 1G >out 2>err$t || return 1
	done &&
	echo "lab: LAVA job template '\''$TRASH/own.yaml'\'' line 3: unknown placeholder '\''{{ kernel }}'\''" >want &&
	unwrapped errown | diff -u want - &&
	echo "lab: LAVA job template '\''uboot-tftp'\'' (the lab'\''s) line 31: no value for '\''{{dtb_url}}'\'' (dtb = PATH in the target'\''s section)" >want &&
	unwrapped errnodtb | diff -u want - &&
	echo "lab: no LAVA job template '\''nosuch'\'' in the lab (qemu, uboot-tftp, uefi-grub; or a path to a file of your own)" >want &&
	unwrapped errnosuch | diff -u want - &&
	echo "lab: cannot read LAVA job template '\''$TRASH/gone.yaml'\'': No such file or directory" >want &&
	unwrapped errgone | diff -u want - &&
	test "$(sql state/lab.db "SELECT count(*) FROM runs")" = $runs &&
	test_expect_code 1 "$LAB" target check --config t.conf nodtb >wrapped &&
	within_columns wrapped && unwrapped wrapped >out &&
	grep -qF "missing a job template that fills (LAVA job template '\''uboot-tftp'\'' (the lab'\''s) line 31: no value for '\''{{dtb_url}}'\''" out
'

# a kernel laid out as a build leaves it: the image, modules/ beside it
# (INSTALL_MOD_PATH, depmod's modules.dep, a link back to the build's tree)
mkdir -p kdir/modules/lib/modules/6.1.0-lab/kernel/fs/labfs &&
cp "$KERNEL" kdir/bzImage &&
echo "kernel/fs/labfs/labfs.ko:" >kdir/modules/lib/modules/6.1.0-lab/modules.dep &&
echo "a module" >kdir/modules/lib/modules/6.1.0-lab/kernel/fs/labfs/labfs.ko &&
ln -s /nonexistent/linux-obj kdir/modules/lib/modules/6.1.0-lab/build
lava_modules_template modules.yaml
lava_target lab.conf modsbad accel=tcg "template=$TRASH/modules.yaml" "imageDir=$TRASH/img" \
	imageUrl=file:///nonexistent
mods() { # KERNEL: a boot of it on modsbad, which fails before the kernel
	test_expect_code 1 "$LAB" run --target modsbad --kernel "$1" --workload zeroing --iters 1 \
		--mem 1G >out 2>err
}

test_expect_success 'a kernel'\''s modules: packed beside them once, again once they are installed anew' '
	mods "$TRASH/kdir/bzImage" &&
	last_error >error &&
	grep -q "^LAVA job $(meta $id lava.job) ended Incomplete before the kernel spoke: .*/nonexistent/lab-[0-9a-f]*-kernel" error &&
	definition $(meta $id lava.job) >mods.yaml &&
	grep -qx "        url: '\''file:///nonexistent/lab-[0-9a-f]*-modules'\''" mods.yaml &&
	tar -tJf kdir/modules.tar.xz >list &&
	grep -qx "lib/modules/6.1.0-lab/modules.dep" list &&
	grep -qx "lib/modules/6.1.0-lab/kernel/fs/labfs/labfs.ko" list &&
	! grep -q "/build" list &&
	before=$(stat -c %y kdir/modules.tar.xz) &&
	mods "$TRASH/kdir/bzImage" &&
	test "$(stat -c %y kdir/modules.tar.xz)" = "$before" &&
	touch kdir/modules/lib/modules/6.1.0-lab/modules.dep &&
	mods "$TRASH/kdir/bzImage" &&
	test "$(stat -c %y kdir/modules.tar.xz)" != "$before" &&
	test -z "$(ls img)"
'

test_expect_success LAVA_SCHEMA 'the job with the kernel'\''s modules passes LAVA'\''s own job schema' '
	"$TOP/tests/lava/validate-job.py" mods.yaml
'

test_expect_success 'a template asking for modules: none for a kernel without them, none without modules.dep' '
	test_expect_code 2 "$LAB" run --target modsbad --kernel "$KERNEL" --workload zeroing \
		--iters 1 --mem 1G >out 2>err &&
	echo "lab: LAVA job template '\''$TRASH/modules.yaml'\'' line 38: no value for '\''{{modules_url}}'\'' (a kernel built with CONFIG_MODULES, or modules = PATH in the target'\''s section)" >want &&
	unwrapped err | diff -u want - &&
	mkdir -p kdep/modules/lib/modules/6.1.0-lab && cp "$KERNEL" kdep/bzImage &&
	mods "$TRASH/kdep/bzImage" &&
	last_error >error &&
	echo "no modules.dep under '\''$TRASH/kdep/modules/lib/modules'\'' (a build'\''s modules, as modules_install leaves them with depmod'\''s)" >want &&
	diff -u want error
'

test_lazy_prereq BOOT 'test_have_prereq TCG && test -n "$(debian_kernel)"'

test_expect_success BOOT 'lab run --target lava1: a job boots the kernel, its samples stored, its job named' '
	"$LAB" run --target lava1 --kernel "$KERNEL" --workload zeroing --iters 3 --param zeroing_mb=16 \
		--mem 1G >out 2>err &&
	cat out err &&
	id=$(last_run) &&
	test "$(run_field $id "status || \" \" || runner || \" \" || clock")" = "OK lava icount shift=0" &&
	test "$(sql state/lab.db "SELECT count(*) FROM samples WHERE run_id = $id AND metric = \"touch\"")" = 3 &&
	job=$(meta $id lava.job) &&
	test "$(meta $id lava.url)" = "$URL/scheduler/job/$job" &&
	test "$(meta $id lava.health)" = Complete && test "$(meta $id lava.device)" = fake01 &&
	grep -q "Linux version" "$(run_field $id console_log)" &&
	test ! -e state/cache/lava-jobs/$job &&
	# what the job asked of QEMU: the lab'\''s command line and nonce, its clock
	grep -q "lab.nonce=[0-9a-f]" "$(run_field $id console_log)" &&
	test "$(grep -c "^\[" "$(run_field $id console_log)")" -gt 10
'

test_expect_success BOOT 'a job that fails before the kernel speaks: INFRA, LAVA'\''s reason, no samples, no copies left' '
	test_expect_code 1 "$LAB" run --target lavabad --kernel "$KERNEL" --workload zeroing --iters 1 \
		--mem 1G >out 2>err &&
	id=$(last_run) &&
	test "$(run_field $id status)" = INFRA &&
	run_field $id error >error && cat error &&
	grep -qx "LAVA job $(meta $id lava.job) ended Incomplete before the kernel spoke: Job error: Invalid job data: \[\"Image file '\''/nonexistent/lab-[0-9a-f]*-kernel'\'' does not exist or is not readable\"\]" error &&
	test "$(sql state/lab.db "SELECT count(*) FROM samples WHERE run_id = $id")" = 0 &&
	test -z "$(ls img)"
'

test_expect_success BOOT 'a hang: TIMEOUT at the deadline, the job cancelled' '
	test_expect_code 1 "$LAB" run --target lava1 --kernel "$KERNEL" --workload zeroing --iters 100000 \
		--param zeroing_mb=64 --mem 1G --timeout 20 >out 2>err &&
	id=$(last_run) &&
	test "$(run_field $id status)" = TIMEOUT &&
	job=$(meta $id lava.job) &&
	test "$(api "jobs/$job/" | field health)" = Canceled &&
	test ! -e state/cache/lava-jobs/$job
'

test_expect_success BOOT 'a lab killed mid-job: the next cancels its job, saying so; a live lab'\''s is left alone' '
	"$LAB" run --target lava1 --kernel "$KERNEL" --workload zeroing --iters 100000 \
		--param zeroing_mb=64 --mem 1G >killed.out 2>&1 &
	pid=$! &&
	# every job before this one ended: its note is the only one
	test_wait_until 60 "ls state/cache/lava-jobs/ 2>/dev/null | grep -q ." &&
	job=$(ls state/cache/lava-jobs/) && test "$(echo $job | wc -w)" = 1 &&
	test_wait_until 60 "test \"\$(api jobs/$job/ | field state)\" = Running" &&
	# a lab still running: its job is its own
	"$LAB" run --target lava1 --kernel "$KERNEL" --workload zeroing --iters 1 \
		--param zeroing_mb=16 --mem 1G >out 2>err &&
	! grep -q "cancelling" err &&
	test "$(api "jobs/$job/" | field state)" = Running &&
	{ kill -9 $pid; wait $pid 2>/dev/null; true; } &&
	"$LAB" run --target lava1 --kernel "$KERNEL" --workload zeroing --iters 1 --param zeroing_mb=16 \
		--mem 1G >out 2>err &&
	grep -q "cancelling LAVA job $job of a lab that ended before it did" err &&
	test "$(api "jobs/$job/" | field health)" = Canceled &&
	test ! -e state/cache/lava-jobs/$job
'

# a long boot of lavaout, in the background, once its job runs: the job's id in $job
long_boot() {
	"$LAB" run --target lavaout --kernel "$KERNEL" --workload zeroing --iters 100000 \
		--param zeroing_mb=64 --mem 1G >long.out 2>long.err &
	pid=$! &&
	test_wait_until 60 "ls state/cache/lava-jobs/ 2>/dev/null | grep -q ." &&
	job=$(ls state/cache/lava-jobs/) &&
	test_wait_until 60 "api jobs/$job/logs/ | grep -q \"Linux version\""
}

test_expect_success BOOT 'a job cancelled by someone else mid-boot: INFRA, not the kernel'\''s' '
	long_boot &&
	api "jobs/$job/cancel/" >/dev/null &&
	{ wait $pid; test $? = 1; } &&
	last_error >error &&
	grep -qx "LAVA job $job was cancelled on the server, not by the lab" error &&
	test ! -e state/cache/lava-jobs/$job
'

test_expect_success BOOT 'the dispatcher losing the device after the kernel spoke: INFRA with LAVA'\''s reason' '
	control dispatcher &&
	long_boot &&
	{ wait $pid; test $? = 1; } &&
	control "" &&
	last_error >error &&
	grep -qx "LAVA job $job ended Incomplete with the kernel not done: Infrastructure error: Connection closed" error
'

test_expect_success BOOT 'LAVA gone mid-boot: INFRA, not TIMEOUT; its job cancelled when it is back' '
	long_boot &&
	control drop &&
	{ wait $pid; test $? = 1; } &&
	last_error >error &&
	grep -q "^LAVA job $job: no answer from the server for 5s" error &&
	test "$(head -n 1 state/cache/lava-jobs/$job)" = "0 cancel" &&
	control "" &&
	test "$(api "jobs/$job/" | field state)" = Running &&
	test_expect_code 1 fast >out 2>err &&
	unwrapped err | grep -q "cancelling LAVA job $job, left running while its server did not answer" &&
	test "$(api "jobs/$job/" | field health)" = Canceled &&
	test ! -e state/cache/lava-jobs/$job
'

lava_target lab.conf lavaserve arch=x86_64 accel=tcg serve=127.0.0.1:0

test_expect_success BOOT 'serve: the worker fetches kernel and initramfs from the lab over HTTP, copies gone after' '
	"$LAB" run --target lavaserve --kernel "$KERNEL" --workload zeroing --iters 1 --param zeroing_mb=16 \
		--mem 1G >out 2>err &&
	id=$(last_run) &&
	test "$(run_field $id status)" = OK &&
	fetched $(meta $id lava.job) >fetched &&
	test "$(wc -l <fetched)" = 2 &&
	grep -qx "http://127.0.0.1:[0-9]*/lab-[0-9a-f]*-kernel" fetched &&
	grep -qx "http://127.0.0.1:[0-9]*/lab-[0-9a-f]*-initramfs" fetched &&
	test -d state/cache/lava-serve && test -z "$(ls state/cache/lava-serve)" &&
	# the server ended with the lab
	! curl -s -m 5 "$(head -n 1 fetched)" >/dev/null
'

test_expect_success BOOT 'serve: the worker fetches the kernel'\''s modules.tar.xz from the lab, lib/modules/<release> in it' '
	rm -f kdir/modules.tar.xz &&
	sed "/^\[target \"lavaserve\"\]/a\\
	template = $TRASH/modules.yaml" lab.conf >mods.conf &&
	"$LAB" run --config mods.conf --target lavaserve --kernel "$TRASH/kdir/bzImage" \
		--workload zeroing --iters 1 --param zeroing_mb=16 --mem 1G >out 2>err &&
	id=$(last_run) &&
	test "$(run_field $id status)" = OK &&
	job=$(meta $id lava.job) &&
	fetched $job >fetched &&
	test "$(wc -l <fetched)" = 3 &&
	url=$(grep -x "http://127.0.0.1:[0-9]*/lab-[0-9a-f]*-modules" fetched) &&
	# what the worker fetched by that URL, as it fetched it
	got=$(ls fake-lava.*/"$job-${url##*/}") &&
	tar -tJf "$got" >list &&
	grep -qx "lib/modules/6.1.0-lab/modules.dep" list &&
	grep -qx "lib/modules/6.1.0-lab/kernel/fs/labfs/labfs.ko" list &&
	cmp "$got" kdir/modules.tar.xz &&
	test -z "$(ls state/cache/lava-serve)"
'

test_done
