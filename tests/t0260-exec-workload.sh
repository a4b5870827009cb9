#!/bin/bash
# A user's own program as a workload (exec:PATH) and stress-ng's stressors
# (stress-ng:STRESSOR): run by the guest in the VM or on this host, their
# "name value unit" lines stored as samples, their failures as statuses;
# whatever a program starts ends with its run, and its tasks are bounded.
. "$(dirname "$0")/lib.sh"

KERNEL=$(debian_kernel)
# the page-fault loop below, built static: the guest has no libc
test_lazy_prereq STATIC_CC 'cc -static -O2 -o "$TRASH/pf" "$TRASH/pf.c" && "$TRASH/pf" >/dev/null'
test_lazy_prereq BUSYBOX 'test -x /bin/busybox'
test_lazy_prereq STRESS_NG 'stress-ng --version'

# A page-fault loop: 8 MiB touched a page at a time, timed.
cat >pf.c <<'C'
#include <stdio.h>
#include <sys/mman.h>
#include <time.h>
int main(void)
{
	struct timespec a, b;
	size_t len = 8 << 20;
	char *p;

	clock_gettime(CLOCK_MONOTONIC, &a);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (size_t i = 0; i < len; i += 4096)
		p[i] = 1;
	munmap(p, len);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("# 8 MiB of page faults\n");
	printf("fault_8m %.3f us\n", (b.tv_sec - a.tv_sec) * 1e6 + (b.tv_nsec - a.tv_nsec) / 1e3);
	printf("pages %d pages higher\n", (int)(len / 4096));
	return 0;
}
C
cat >counter.sh <<'SH'
#!/bin/sh
# a script: busybox is its shell in the guest
n=0
while [ $n -lt 200 ]; do n=$((n + 1)); done
echo "loops $n loops"
echo "iteration ${LAB_ITERATION:-0} n"
echo "not a sample line"
SH
printf '#!/bin/sh\necho "this is not a metric"\necho "neither is this one"\n' >garbage.sh
printf '#!/bin/sh\necho "t 1 us"\necho "out of disk" >&2\nexit 3\n' >exit3.sh
printf '#!/bin/sh\necho "t 1 us"\nwhile :; do :; done\n' >hang.sh
printf '#!/bin/sh\necho "t 1 us"\nkill -TERM $$\n' >term.sh
chmod +x counter.sh garbage.sh exit3.sh hang.sh term.sh

# Programs that leave things behind: a daemon of its own session, one of a
# double fork in a process group of its own, and a storm of the first.
cat >escape.sh <<'SH'
#!/bin/sh
setsid sleep 1021 </dev/null >/dev/null 2>&1 &
perl -MPOSIX -e 'fork and exit; fork and exit; POSIX::setpgid(0, 0);
	open STDIN, "</dev/null"; open STDOUT, ">/dev/null"; open STDERR, ">/dev/null";
	exec "sleep", "1022"'
echo "t 1 us"
SH
cat >storm.sh <<'SH'
#!/bin/sh
echo "t 1 us"
i=0
while [ $i -lt 300 ]; do setsid sleep 1024 </dev/null >/dev/null 2>&1 & i=$((i + 1)); done
SH
printf '#!/bin/sh\nsetsid sleep 1025 </dev/null >/dev/null 2>&1 &\nwhile :; do :; done\n' >hangesc.sh
chmod +x escape.sh storm.sh hangesc.sh
# What an old lab let escape is ended by id here, so that one failure does not make more.
leftovers() { # PATTERN
	for pid in $(pgrep -f "$1"); do kill -9 "$pid"; done; true
}
test_lazy_prereq ROOT 'test "$(id -u)" = 0'
# no_pidns CMD...: CMD where no PID (or user) namespace may be made
no_pidns() {
	unshare --user --map-root-user sh -c 'echo 0 >/proc/sys/user/max_user_namespaces &&
		echo 0 >/proc/sys/user/max_pid_namespaces && exec "$0" "$@"' "$@"
}
test_lazy_prereq NO_PIDNS 'test "$(id -u)" = 0 && no_pidns true'
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
test_lazy_prereq NOBODY_USERNS 'test "$(id -u)" = 0 && as_nobody unshare --user --pid --fork true'
containment() { # DB RUN
	sql "$1" "SELECT value FROM run_meta WHERE run_id = $2 AND key = 'exec.containment'"
}
test_lazy_prereq PIDS_CGROUP '
	test "$(id -u)" = 0 &&
	{ grep -qE " - cgroup cgroup .*[ ,]pids(,|$)" /proc/self/mountinfo ||
	  grep -qw pids /sys/fs/cgroup/cgroup.subtree_control; }
'

boot() {
	"$LAB" run --db vm.db --accel tcg --kernel "$KERNEL" --mem 512M "$@"
}
metrics_of() { # DB RUN
	sql "$1" "SELECT DISTINCT workload || '.' || metric FROM samples WHERE run_id = $2 ORDER BY 1" | tr '\n' ' '
}

# A dynamic program takes the libraries ldd names into the guest: one ldd
# cannot find is said before anything runs, not as a failed boot.
test_expect_success 'a dynamic program whose library is gone is refused before anything runs, naming it' '
	printf "int gone(void) { return 1; }\n" >gone.c &&
	printf "int gone(void);\nint main(void) { return !gone(); }\n" >needs.c &&
	cc -shared -fPIC -o libgone.so gone.c &&
	cc -o needs needs.c -L. -lgone -Wl,-rpath,"$TRASH" &&
	./needs &&
	rm libgone.so &&
	test_expect_code 2 "$LAB" run --db gone.db --runner local --workload "exec:$TRASH/needs" 2>err &&
	expect_one_line_naming err "library .libgone.so. of program .$TRASH/needs. (workload .exec:$TRASH/needs.) not found" &&
	! test -e gone.db
'

test_expect_success STATIC_CC,BUSYBOX,TCG 'a static program and a script run in the VM, their samples stored' '
	boot --workload "exec:$TRASH/pf,exec:$TRASH/counter.sh" --iters 3 --timeout 300 >out 2>err &&
	cat out &&
	test "$(sql vm.db "SELECT status || \" \" || workloads FROM runs WHERE id = 1")" = "OK pf,counter" &&
	test "$(metrics_of vm.db 1)" = "counter.iteration counter.loops pf.fault_8m pf.pages " &&
	test "$(sql vm.db "SELECT count(*) FROM samples WHERE run_id = 1 AND workload = \"pf\" AND metric = \"fault_8m\" AND value > 0")" = 3 &&
	test "$(sql vm.db "SELECT group_concat(value) FROM samples WHERE run_id = 1 AND metric = '\''iteration'\'' ORDER BY iteration")" = "1.0,2.0,3.0" &&
	test "$(sql vm.db "SELECT value FROM run_meta WHERE run_id = 1 AND key = \"counter.dropped_lines\"")" = 3 &&
	sql vm.db "SELECT value FROM run_meta WHERE run_id = 1 AND key = \"counter.dropped_line.1\"" | grep -q "line 3: .not a sample line.: value .a. of .not. is not a finite number" &&
	test "$(sql vm.db "SELECT value FROM run_meta WHERE run_id = 1 AND key = \"direction.pf.pages\"")" = higher &&
	test "$(sql vm.db "SELECT value FROM run_meta WHERE run_id = 1 AND key = \"workload.pf.sha256\"")" = "$(sha256sum <"$TRASH/pf" | cut -d" " -f1)"
'

test_expect_success STATIC_CC 'the same program on the local runner gives the same samples' '
	"$LAB" run --db local.db --runner local --workload "exec:$TRASH/pf,exec:$TRASH/counter.sh" --iters 2 >out 2>err &&
	test "$(sql local.db "SELECT status FROM runs WHERE id = 1")" = OK &&
	test "$(metrics_of local.db 1)" = "counter.iteration counter.loops pf.fault_8m pf.pages " &&
	if test_have_prereq TCG,BUSYBOX; then test "$(metrics_of local.db 1)" = "$(metrics_of vm.db 1)"; fi
'

# The hang's deadline leaves room for the boot itself: under TCG on a busy
# host the guest started only 39 s after QEMU did.
test_expect_success BUSYBOX,TCG 'garbage, a non-zero exit and a hang in the VM: FAILED, FAILED, TIMEOUT with the reason' '
	rc=0 && { boot --workload "exec:$TRASH/garbage.sh" --iters 2 --timeout 300 >out 2>err || rc=$?; } &&
	test "$rc" = 1 &&
	test "$(sql vm.db "SELECT status FROM runs WHERE id = 2")" = FAILED &&
	sql vm.db "SELECT error FROM runs WHERE id = 2" | grep -q "garbage: iteration 1: no sample in 2 line(s) of output, 2 bad; first line 1: .this is not a metric." &&
	test "$(sql vm.db "SELECT count(*) FROM samples WHERE run_id = 2")" = 0 &&
	rc=0 && { boot --workload "exec:$TRASH/exit3.sh" --iters 2 --timeout 300 >out 2>err || rc=$?; } &&
	test "$rc" = 1 &&
	test "$(sql vm.db "SELECT status FROM runs WHERE id = 3")" = FAILED &&
	sql vm.db "SELECT error FROM runs WHERE id = 3" | grep -q "exit3: iteration 1: .*exit3/run. exited with status 3; stderr: out of disk" &&
	test "$(sql vm.db "SELECT count(*) FROM samples WHERE run_id = 3")" = 0 &&
	rc=0 && { boot --workload "exec:$TRASH/hang.sh" --iters 2 --timeout 90 >out 2>err || rc=$?; } &&
	test "$rc" = 1 &&
	test "$(sql vm.db "SELECT status FROM runs WHERE id = 4")" = TIMEOUT &&
	sql vm.db "SELECT error FROM runs WHERE id = 4" | grep -q "no result within .* s (guest started)"
'

test_expect_success 'on the local runner too, and a deadline of the guest names the program' '
	test_expect_code 1 "$LAB" run --db local.db --runner local --workload "exec:$TRASH/exit3.sh" --iters 2 >out 2>err &&
	sql local.db "SELECT status || \": \" || error FROM runs WHERE id = 2" | grep -q "^FAILED: exit3: iteration 1: .* exited with status 3" &&
	test_expect_code 1 "$LAB" run --db local.db --runner local --workload "exec:$TRASH/hang.sh" --timeout 2 >out 2>err &&
	test "$(sql local.db "SELECT status FROM runs WHERE id = 3")" = TIMEOUT &&
	# the guest killed at the deadline takes the program (staged as .../hang/run) with it
	for _ in $(seq 50); do pgrep -f "$TRASH/.*hang" >/dev/null || break; sleep 0.1; done &&
	! pgrep -af "$TRASH/.*hang" &&
	test_expect_code 1 "$LAB" run --db local.db --runner local --workload "exec:$TRASH/hang.sh" --param exec_timeout=1 --timeout 60 >out 2>err &&
	sql local.db "SELECT status || \": \" || error FROM runs WHERE id = 4" | grep -q "^FAILED: hang: iteration 1: .* ran past its deadline of 1 s (lab.exec_timeout) and was killed" &&
	! pgrep -af "$TRASH/.*hang"
'

test_expect_success ROOT 'what a program starts dies with its run: setsid, a double fork' '
	test_when_finished "leftovers \"sleep 102[12]\"" &&
	"$LAB" run --db contain.db --runner local --workload "exec:$TRASH/escape.sh" --iters 3 >out 2>err &&
	test "$(sql contain.db "SELECT status FROM runs WHERE id = 1")" = OK &&
	test "$(sql contain.db "SELECT count(*) FROM samples WHERE run_id = 1")" = 3 &&
	containment contain.db 1 | grep -q "^pid namespace; " &&
	! pgrep -af "sleep 102[12]"
'

test_expect_success ROOT 'a run killed at a deadline takes along what its program started with setsid' '
	test_when_finished "leftovers \"sleep 1025\"" &&
	test_expect_code 1 "$LAB" run --db contain.db --runner local --workload "exec:$TRASH/hangesc.sh" \
		--param exec_timeout=1 --timeout 60 >out 2>err &&
	sql contain.db "SELECT status || \": \" || error FROM runs WHERE id = 2" | grep -q "^FAILED: hangesc: iteration 1: .* ran past its deadline" &&
	! pgrep -af "sleep 1025" &&
	test_expect_code 1 "$LAB" run --db contain.db --runner local --workload "exec:$TRASH/hangesc.sh" \
		--timeout 2 >out 2>err &&
	test "$(sql contain.db "SELECT status FROM runs WHERE id = 3")" = TIMEOUT &&
	for _ in $(seq 50); do pgrep -f "sleep 1025" >/dev/null || break; sleep 0.1; done &&
	! pgrep -af "sleep 1025"
'

test_expect_success PIDS_CGROUP 'a fork storm is bounded: FAILED when fork fails, nothing left' '
	test_when_finished "leftovers \"sleep 1024\"" &&
	test_expect_code 1 "$LAB" run --db contain.db --runner local --workload "exec:$TRASH/storm.sh" \
		--param exec_pids=64 --iters 2 >out 2>err &&
	sql contain.db "SELECT status || \": \" || error FROM runs WHERE id = 4" >error && cat error &&
	grep -q "^FAILED: storm: iteration 1: .* exited with status 2; stderr: .*fork" error &&
	containment contain.db 4 | grep -q "pids cgroup v[12] of 64$" &&
	! pgrep -af "sleep 1024" &&
	! ls -d /sys/fs/cgroup/*/lab-guest-* /sys/fs/cgroup/lab-guest-* 2>/dev/null
'

test_expect_success NOBODY_USERNS 'as another user: a user namespace of the run, RLIMIT_NPROC bounding a storm' '
	test_when_finished "leftovers \"sleep 102[124]\"" &&
	mkdir -m 777 nobody && chmod 755 "$TRASH" && cp escape.sh storm.sh nobody/ &&
	as_nobody "$LAB" run --db nobody/n.db --runner local --workload "exec:$TRASH/nobody/escape.sh" \
		--iters 2 >out 2>err &&
	test "$(sql nobody/n.db "SELECT status FROM runs WHERE id = 1")" = OK &&
	test "$(containment nobody/n.db 1)" = "pid namespace in a user namespace; RLIMIT_NPROC of 4096" &&
	! pgrep -af "sleep 102[12]" &&
	test_expect_code 1 as_nobody "$LAB" run --db nobody/n.db --runner local \
		--workload "exec:$TRASH/nobody/storm.sh" --param exec_pids=64 >out 2>err &&
	sql nobody/n.db "SELECT status || \": \" || error FROM runs WHERE id = 2" |
		grep -q "^FAILED: storm: iteration 1: .* exited with status 2; stderr: .*fork" &&
	! pgrep -af "sleep 1024"
'

test_expect_success NO_PIDNS 'where no PID namespace may be made, the run goes on and says so in one line' '
	test_when_finished "leftovers \"sleep 102[12]\"" &&
	no_pidns "$LAB" run --db nons.db --runner local --workload "exec:$TRASH/escape.sh" \
		--param exec_pids=0 >out 2>err &&
	test "$(sql nons.db "SELECT status FROM runs WHERE id = 1")" = OK &&
	test "$(grep -c warning err)" = 1 &&
	unwrapped err | grep -q "^  warning: no PID namespace (.*): what a program starts with setsid can outlive its run" &&
	test "$(containment nons.db 1)" = "process group; tasks not bounded (lab.exec_pids=0)"
'

test_expect_success NO_PIDNS,PIDS_CGROUP '... and its pids cgroup, emptied after each run, leaves nothing' '
	test_when_finished "leftovers \"sleep 102[12]\"" &&
	leftovers "sleep 102[12]" &&
	no_pidns "$LAB" run --db nons.db --runner local --workload "exec:$TRASH/escape.sh" --iters 2 >out 2>err &&
	test "$(sql nons.db "SELECT status FROM runs WHERE id = 2")" = OK &&
	! grep warning err &&
	containment nons.db 2 | grep -q "^process group; pids cgroup v[12] of 4096$" &&
	! pgrep -af "sleep 102[12]"
'

test_expect_success 'a program killed by a signal: FAILED, naming the signal' '
	test_expect_code 1 "$LAB" run --db local.db --runner local --workload "exec:$TRASH/term.sh" >out 2>err &&
	id=$(sql local.db "SELECT max(id) FROM runs") &&
	sql local.db "SELECT status || \": \" || error FROM runs WHERE id = $id" >error && cat error &&
	grep -q "^FAILED: term: iteration 1: .* was killed by signal 15 (Terminated)" error
'

test_expect_success 'bad workloads are refused before anything runs, one line, exit 2' '
	test_expect_code 2 "$LAB" run --db bad.db --runner local --workload exec:nonexistent 2>err &&
	expect_one_line_naming err "cannot find program .nonexistent. of workload .exec:nonexistent." &&
	test_expect_code 2 "$LAB" run --db bad.db --runner local --workload "exec:$TRASH/pf.c" 2>err &&
	expect_one_line_naming err "is not an executable file" &&
	cp counter.sh zeroing.sh &&
	test_expect_code 2 "$LAB" run --db bad.db --runner local --workload "exec:$TRASH/zeroing.sh" 2>err &&
	expect_one_line_naming err "has the name of a built-in workload" &&
	mkdir -p other && cp counter.sh other/ &&
	test_expect_code 2 "$LAB" run --db bad.db --runner local \
		--workload "exec:$TRASH/counter.sh,exec:$TRASH/other/counter.sh" 2>err &&
	expect_one_line_naming err "would both be stored as .counter.: rename one program" &&
	test_expect_code 2 "$LAB" run --db bad.db --runner local --workload custom 2>err &&
	expect_one_line_naming err "unknown workload .custom. (known: zeroing, demote, boot, exec:PATH, stress-ng:STRESSOR)" &&
	! test -e bad.db
'

test_expect_success STRESS_NG 'an unknown stressor is refused, naming it' '
	test_expect_code 2 "$LAB" run --db bad.db --runner local --workload stress-ng:nosuch 2>err &&
	expect_one_line_naming err "unknown stressor .nosuch. in workload .stress-ng:nosuch."
'

test_expect_success 'an A/B of two builds of the program is refused, unless --force' '
	cp counter.sh bench.sh &&
	ab() { "$LAB" ab --db ab.db --runner local --workload "exec:$TRASH/bench.sh" --iters 3 \
		--a-cmdline lab.side=a --b-cmdline lab.side=b "$@"; } &&
	ab --boots 2 >out 2>err &&
	grep -q "bench.loops" out &&
	echo "echo \"extra 1 n\"" >>bench.sh &&
	test_expect_code 2 ab --boots 3 --resume E1 >out 2>err &&
	unwrapped err | grep -q "refusing to compare: runs of experiment 1 differ in workload.bench.sha256" &&
	test "$(sql ab.db "SELECT status FROM experiments WHERE id = 1")" = REFUSED &&
	ab --boots 3 --resume E1 --force >out 2>err &&
	unwrapped err | grep -q "differ in workload.bench.sha256 .* compared anyway (--force)"
'

test_expect_success STRESS_NG 'stress-ng on the local runner: bogo ops/s higher is better, times lower' '
	"$LAB" run --db sng.db --runner local --workload "stress-ng:mmap --mmap-ops 2 --mmap-bytes 4M" --iters 2 >out 2>err &&
	test "$(metrics_of sng.db 1)" = "stress-ng-mmap.bogo_ops_s stress-ng-mmap.bogo_ops_s_cpu stress-ng-mmap.real_s stress-ng-mmap.sys_s stress-ng-mmap.usr_s " &&
	test "$(sql sng.db "SELECT group_concat(key, \" \") FROM (SELECT key FROM run_meta WHERE run_id = 1 AND value = \"higher\" ORDER BY key)")" = "direction.stress-ng-mmap.bogo_ops_s direction.stress-ng-mmap.bogo_ops_s_cpu" &&
	test "$(sql sng.db "SELECT value FROM run_meta WHERE run_id = 1 AND key = \"workload.stress-ng-mmap.version\"")" = "$(stress-ng --version | sed "s/.*version \([^ ]*\).*/\1/")"
'

test_expect_success STRESS_NG,TCG 'lab ab of two command lines with a stressor under icount gives a verdict' '
	rc=0 && { "$LAB" ab --db sngab.db --accel tcg --clock icount --kernel "$KERNEL" --mem 512M \
		--workload "stress-ng:mmap --mmap-ops 2 --mmap-bytes 4M" --iters 2 --boots 2 --timeout 300 \
		--a-cmdline transparent_hugepage=never --b-cmdline transparent_hugepage=always >out 2>err || rc=$?; } &&
	cat out && test "$rc" -le 1 &&
	test "$(sql sngab.db "SELECT count(*) FROM runs WHERE status = \"OK\"")" = 4 &&
	test "$(sql sngab.db "SELECT direction FROM verdicts WHERE metric = \"bogo_ops_s\"")" = higher &&
	test "$(sql sngab.db "SELECT direction FROM verdicts WHERE metric = \"real_s\"")" = lower &&
	test "$(sql sngab.db "SELECT count(*) FROM verdicts WHERE verdict IN (\"REGRESSION\", \"IMPROVEMENT\", \"SAME\", \"SMALL\", \"INCONCLUSIVE\")")" = 5
'

test_done
