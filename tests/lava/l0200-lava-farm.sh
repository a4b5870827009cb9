#!/bin/bash
# The lava runner against the real LAVA of tests/lava/start-lava.sh, for
# what a farm does to a boot: a job fetching the kernel and initramfs over
# HTTP from the lab's own file server; a job cancelled by someone else, a
# device taken into maintenance while a job waits (INFRA, never the
# kernel's); LAVA stopped mid-job (INFRA, and the job cancelled by the next
# boot once LAVA is back). Each stage's seconds are printed. A LAVA that
# cannot be made fails the file (Bail out!), saying why.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/lib-lava.sh"

lava_up LAVA_SMOKE=0
lava_target lab.conf served arch=x86_64 accel=tcg serve=127.0.0.1:0 "jobPrefix=lab l0200" \
	outage=30 queue=600

# a long boot of target served in the background, once the kernel speaks: its job in $job
long_boot() {
	"$LAB" run --config "$TRASH/lab.conf" --target served --kernel "$KERNEL" --workload zeroing \
		--iters 100000 --param zeroing_mb=64 --mem 1G >long.out 2>long.err &
	pid=$! &&
	test_wait_until 300 "ls state/cache/lava-jobs/ 2>/dev/null | grep -q ." &&
	job=$(ls state/cache/lava-jobs/) &&
	test_wait_until 600 "api jobs/$job/logs/ | grep -q \"Linux version\""
}
restore_device() {
	lava-server manage devices update --health GOOD qemu01 >/dev/null 2>&1
}

test_expect_success 'a job fetches the kernel and initramfs over HTTP from the lab, the copies gone after' '
	lab run --target served --kernel "$KERNEL" --workload zeroing --iters 2 --param zeroing_mb=16 \
		--mem 1G >out 2>err &&
	id=$(last_run) &&
	test "$(sql state/lab.db "SELECT status FROM runs WHERE id = $id")" = OK &&
	job=$(meta $id lava.job) &&
	api "jobs/$job/" | field definition >job.yaml &&
	# LAVA keeps the definition as it read it: its own quoting, its own order
	grep -Eq "^ +url: '\''?http://127.0.0.1:[0-9]+/lab-[0-9a-f]+-kernel'\''?$" job.yaml &&
	grep -Eq "^ +url: '\''?http://127.0.0.1:[0-9]+/lab-[0-9a-f]+-initramfs'\''?$" job.yaml &&
	grep -Eq "^job_name: '\''?lab l0200 boot [0-9a-f]{12} [0-9a-f]+'\''?$" job.yaml &&
	# the dispatcher said it fetched them from there
	api "jobs/$job/logs/" >job.log &&
	grep -Eq "\"downloading http://127.0.0.1:[0-9]+/lab-[0-9a-f]+-kernel\"" job.log &&
	grep -Eq "\"downloading http://127.0.0.1:[0-9]+/lab-[0-9a-f]+-initramfs\"" job.log &&
	test -z "$(ls state/cache/lava-serve)"
'
took "a job fetching its images from the lab"

# Debian's kernel as a build leaves it: the image, and modules/ beside it
# with two of its modules (vfat needs fat) and depmod's modules.dep
release=${KERNEL##*/vmlinuz-}
mods=kdir/modules/lib/modules/$release
mkdir -p "$mods" && cp "$KERNEL" kdir/bzImage && cp /lib/modules/"$release"/modules.builtin* "$mods" ||
	bail "no modules.builtin of $release"
for m in fat vfat; do
	ko=$(modinfo -k "$release" -n $m) &&
	mkdir -p "kdir/modules${ko%/*}" && cp "$ko" "kdir/modules$ko" &&
	echo "${ko#/lib/modules/$release/}" >>"$mods/modules.order" || bail "no module $m of $release"
done
depmod -b kdir/modules "$release" || bail "depmod -b kdir/modules $release failed"
lava_modules_template modules.yaml
lava_target lab.conf mods arch=x86_64 accel=tcg serve=127.0.0.1:0 "template=$TRASH/modules.yaml"
# in the guest: the drive unpacked, vfat loaded by modprobe with fat first
cat >mods.sh <<'SH'
#!/bin/sh
i=0
while [ ! -b /dev/nvme0n1 ] && [ $i -lt 60 ]; do sleep 1; i=$((i + 1)); done
tar -x -f /dev/nvme0n1 -C / || exit 1
echo "modules_dep $(ls /lib/modules/$(uname -r)/modules.dep | wc -l) files higher"
modprobe vfat || exit 1
echo "fat $(grep -c '^fat ' /proc/modules) modules higher"
echo "vfat $(grep -cw vfat /proc/filesystems) filesystems higher"
SH
chmod +x mods.sh

test_expect_success 'a kernel with modules: LAVA fetches modules.tar.xz from the lab, the guest loads them' '
	lab run --target mods --kernel "$TRASH/kdir/bzImage" --workload exec:mods.sh --iters 1 \
		--mem 1G >out 2>err &&
	cat out err &&
	id=$(last_run) &&
	test "$(run_field $id status)" = OK &&
	sql state/lab.db "SELECT metric || \" \" || value FROM samples WHERE run_id = $id AND workload = \"mods\" ORDER BY metric" >got &&
	printf "fat 1.0\nmodules_dep 1.0\nvfat 1.0\n" >want &&
	diff -u want got &&
	job=$(meta $id lava.job) &&
	api "jobs/$job/logs/" >job.log &&
	grep -Eq "\"downloading http://127.0.0.1:[0-9]+/lab-[0-9a-f]+-modules\"" job.log &&
	tar -tJf kdir/modules.tar.xz >list &&
	grep -qx "lib/modules/$release/modules.dep" list &&
	test -z "$(ls state/cache/lava-serve)"
'
took "a kernel with its modules"

test_expect_success 'a job cancelled by someone else mid-boot: INFRA, not the kernel'\''s' '
	long_boot &&
	api "jobs/$job/cancel/" >/dev/null &&
	{ wait $pid; test $? = 1; } &&
	last_error >error && cat error &&
	grep -qx "LAVA job $job was cancelled on the server, not by the lab" error &&
	test ! -e state/cache/lava-jobs/$job
'
took "a job cancelled by another"

test_expect_success 'its only device taken into maintenance while a job waits: INFRA, the job cancelled' '
	test_when_finished restore_device &&
	lava-server manage devices update --health MAINTENANCE qemu01 >/dev/null &&
	test_expect_code 1 lab run --target served --kernel "$KERNEL" --workload zeroing --iters 1 \
		--mem 1G >out 2>err &&
	last_error >error && cat error &&
	job=$(meta $id lava.job) &&
	grep -qx "LAVA job $job waited in vain: no device of type .qemu. can take it (1: 1 Maintenance)" error &&
	test "$(api "jobs/$job/" | field health)" = Canceled &&
	test ! -e state/cache/lava-jobs/$job
'
took "a device in maintenance"

test_expect_success 'LAVA stopped mid-job: INFRA, not TIMEOUT; the job cancelled once LAVA is back' '
	long_boot &&
	"$TOP/tests/lava/stop-lava.sh" "$LSTATE" >stop.out 2>&1 &&
	{ wait $pid; test $? = 1; } &&
	last_error >error && cat error &&
	grep -q "^LAVA job $job: no answer from the server for 30s (cannot reach LAVA server" error &&
	test "$(head -n 1 state/cache/lava-jobs/$job)" = "0 cancel" &&
	lava_start LAVA_SMOKE=0 >start2.out 2>&1 &&
	lab run --target served --kernel "$KERNEL" --workload zeroing --iters 1 --param zeroing_mb=16 \
		--mem 1G >out 2>err &&
	cat err &&
	grep -q "cancelling LAVA job $job, left running while its server did not answer" err &&
	test "$(api "jobs/$job/" | field state)" = Finished &&
	test ! -e state/cache/lava-jobs/$job
'
took "LAVA stopped mid-job"

test_done
