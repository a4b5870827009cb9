#!/bin/bash
# Progress of boots on stderr: on a terminal one line rewritten in place
# with the boot's phase, its elapsed time and the time the whole series has
# left, cut to the terminal's width; in a log (a pipe) a plain line when a
# boot begins and at least every 30 s while it goes on; never in stdout,
# where the table goes. An adaptive A/B counts to its most boots ("of at
# most"); --quiet says nothing of a boot that went well.
. "$(dirname "$0")/lib.sh"

# A workload that takes 36 s: four iterations of 9 s, one sample each.
cat >slow.sh <<'SH'
#!/bin/sh
sleep 9
echo "nap 9 s"
SH
chmod +x slow.sh

test_expect_success 'on a terminal: the phases of a boot, each with its elapsed time' '
	script -qfec "\"$LAB\" run --db tty.db --runner local --guest \"$GUEST\" \
		--workload exec:slow.sh --iters 4 2>&1" typescript >/dev/null &&
	tr "\\r" "\\n" <typescript | sed "s/\\x1b\\[K//g" | grep "^boot 1 of 1: " >lines &&
	grep -q "^boot 1 of 1: starting, 0:00$" lines &&
	grep -q "^boot 1 of 1: workloads started, 0:0[0-9]$" lines &&
	grep -q "^boot 1 of 1: slow: 1 sample, 0:[0-9][0-9]$" lines &&
	grep -q "^boot 1 of 1: slow: 3 samples, 0:[0-9][0-9]$" lines &&
	grep -q "^boot 1 of 1: OK (run 1, " lines &&
	test "$(grep -c "^boot 1 of 1: .*, 0:[0-9][0-9]$" lines | tr -d " ")" -ge 30 &&
	test "$(sed "s/, 0:[0-9][0-9]$//" lines | sort -u | wc -l)" -ge 4
'

test_expect_success 'the time left is the series'\'', from the boots that ended' '
	script -qfec "\"$LAB\" run --db tty2.db --runner local --guest \"$GUEST\" \
		--workload exec:slow.sh --iters 2 --boots 3 2>&1" typescript2 >/dev/null &&
	tr "\\r" "\\n" <typescript2 | sed "s/\\x1b\\[K//g" >lines2 &&
	! grep -q "^boot 1 of 3: .* left" lines2 &&
	grep -q "^boot 2 of 3: .*, 0:0[0-9], ~0:[34][0-9] left in all$" lines2 &&
	grep -q "^boot 3 of 3: .*, 0:0[0-9], ~0:1[0-9] left$" lines2
'

# Seeds counted per boot: samples drawn with the shell's pid as seed showed a
# boot effect now and then (by chance), and the first point then ran all its boots.
test_expect_success 'an adaptive A/B: the boots of the experiment, counted to its most' '
	export FAKE_SEED_FILE=$PWD/ab-seed &&
	test_expect_code 1 "$LAB" ab --db ab.db --runner local --guest "$TOP/tests/fixtures/fake-guest.sh" \
		--workload zeroing --a-cmdline "sleep=0.2" --b-cmdline "sleep=0.2 scale=1.5" \
		--iters 5 --max-boots 3 --mem 1G,2G >out 2>err &&
	cat err &&
	grep -q "^boot 1 of at most 12 (A): starting, 0:00$" err &&
	grep -q "^boot 2 of at most 12 (B): starting, 0:00, at most ~0:[0-9][0-9] left in all$" err &&
	grep -q "^boot 1 of at most 12: OK (run 1, " err &&
	first=$(sql ab.db "SELECT count(*) FROM runs WHERE mem_mib = 1024") &&
	# the schedule stopped the first point early: the second counts on from its boots
	test "$first" -lt 6 &&
	test "$(grep -c "^boot [0-9]* of at most 12: OK" err)" = "$first" &&
	grep -q "^boot $((first + 1)) of at most $((first + 6)) (A): starting" err &&
	! grep -q "^boot [0-9]* of [0-9]" err
'

test_expect_success 'on a terminal of 60 columns a line is cut to 59, never wrapped' '
	COLUMNS=60 script -qfec "\"$LAB\" run --db tty3.db --runner local --guest \"$GUEST\" \
		--workload exec:slow.sh --iters 1 2>&1" typescript4 >/dev/null &&
	tr "\\r" "\\n" <typescript4 | sed "s/\\x1b\\[K//g" | grep "^boot 1 of 1: " >lines4 &&
	grep -q "^boot 1 of 1: workloads started, 0:0[0-9]$" lines4 &&
	test "$(LC_ALL=C.UTF-8 wc -L <lines4)" -le 59 &&
	grep -q "^boot 1 of 1: OK (run 1, " lines4
'

test_expect_success 'piped: a plain line when the boot begins and within every 30 s' '
	"$LAB" run --db log.db --runner local --guest "$GUEST" \
		--workload exec:slow.sh --iters 4 2>&1 >stdout |
		while IFS= read -r line; do printf "%s %s\\n" "$(date +%s)" "$line"; done >stamped &&
	! grep -q "$(printf "\\r")" stamped &&
	grep -q "^[0-9]* boot 1 of 1: starting, 0:00$" stamped &&
	grep -q "^[0-9]* boot 1 of 1: workloads started, 0:0[0-9]$" stamped &&
	grep -q "^[0-9]* boot 1 of 1: slow: 3 samples, 0:3[0-9]$" stamped &&
	grep -q "^[0-9]* boot 1 of 1: OK" stamped &&
	awk "NR > 1 && \$1 - last > 31 { bad = 1 } { last = \$1 } END { exit bad }" stamped &&
	! grep -q "^boot" stdout && grep -q "^slow.nap " stdout
'

test_expect_success '--quiet: nothing of a boot that went well, a failed one and why; --progress: in place in a pipe' '
	printf "#!/bin/sh\nsleep 2\necho \"nap 2 s\"\n" >short.sh && chmod +x short.sh &&
	"$LAB" run --db q.db --runner local --guest "$GUEST" --workload exec:short.sh \
		--iters 2 --quiet 2>err >out &&
	test ! -s err && grep -q "^short.nap " out &&
	test_expect_code 2 "$LAB" ab --quiet --db q.db --runner local \
		--guest "$TOP/tests/fixtures/fake-guest.sh" --workload zeroing --a-cmdline scale=1 \
		--b-cmdline fail=1 --boots 2 --iters 5 2>err >out &&
	cat err &&
	test "$(grep -c "^boot 2 of 4: FAILED (run [0-9]*, [0-9.]* s)$" err)" = 3 &&
	test "$(grep -c "^  fake: asked to fail$" err)" = 3 &&
	grep -qx "lab: variant B failed 3 boots; last one: .lab show [0-9]*." err &&
	! grep -q ": OK (run\|starting" err &&
	"$LAB" run --db q.db --runner local --guest "$GUEST" --workload exec:short.sh \
		--iters 2 --progress 2>err >out &&
	grep -q "$(printf "\r")boot 1 of 1: short: 1 sample, 0:0" err
'

test_expect_success 'a failed boot: its long error wrapped within 100 columns, a deep console log whole' '
	cat >long-guest.sh <<-\EOF &&
	#!/bin/sh
	for a; do case $a in lab.nonce=*) n="${a#*=} " ;; esac; done
	echo "@lab ${n}hello 2 fake"
	echo "@lab ${n}error zeroing Kernel panic - not syncing: VFS: Unable to mount root fs on unknown-block(0,0) after trying every filesystem the kernel was built with"
	echo "@lab ${n}done error 0"
	exit 1
	EOF
	chmod +x long-guest.sh &&
	deep=$TRASH/a-directory-whose-name-is-long/and-another-one-under-it/and-a-third-to-pass-a-line &&
	mkdir -p "$deep" &&
	test_must_fail "$LAB" run --db "$deep/lab.db" --runner local --guest "$TRASH/long-guest.sh" \
		--workload zeroing --iters 2 2>err >out &&
	cat err &&
	# a path no line holds stands whole on a line of its own, to be pasted
	LC_ALL=C.UTF-8 awk "length > 100" err >wide &&
	test "$(cat wide)" = "    $deep/logs/lab/run-1.log" &&
	sed -n "/^boot 1 of 1: FAILED/,\$p" err >failed &&
	grep -q "^  zeroing: Kernel panic - not syncing: VFS: " failed &&
	grep -q "^  console log:" failed &&
	! grep -v "^boot 1 of 1: FAILED\|^  [^ ]\|^    [^ ]" failed &&
	sed -n "/^  zeroing: Kernel panic/,/^  console log/p" failed | sed "\$d" | sed "s/^ *//" | tr "\n" " " >said &&
	grep -qF "zeroing: Kernel panic - not syncing: VFS: Unable to mount root fs on unknown-block(0,0) after trying every filesystem the kernel was built with " said &&
	sed -n "/^  console log:/,\$p" failed | sed "s/^  console log://; s/^ *//" | tr -d "\n" >path &&
	test "$(cat path)" = "$deep/logs/lab/run-1.log"
'

test_expect_success 'a build on a terminal: checking out, the build command, each object counted' '
	git init -q -b main repo && (cd repo &&
		git config user.name "A U Thor" && git config user.email author@example.com &&
		printf "#!/bin/sh\nfor o in a b c d e; do\n\techo \"  CC      \$o.o\"\n\tsleep 1\ndone\nmkdir -p out && echo image >out/image\n" >build.sh &&
		chmod +x build.sh && git add . && git commit -q -m "base: a build of five objects") &&
	printf "[core]\n\trepo = %s/repo\n[build]\n\tcommand = ./build.sh\n\tartifact = out/image\n" \
		"$PWD" >lab.conf &&
	COLUMNS=100 script -qfec "\"$LAB\" build --db b.db main 2>&1" typescript3 >/dev/null &&
	tr "\r" "\n" <typescript3 | sed "s/\x1b\[K//g" | grep "^build " >lines3 &&
	grep -q "^build [0-9a-f]* base: a build of five objects (x86_64): checking out, [0-9]*:[0-9][0-9]$" lines3 &&
	grep -q "^build .*: running ./build.sh, [0-9]*:[0-9][0-9]$" lines3 &&
	grep -q "^build .*: 1 object, [0-9]*:[0-9][0-9]$" lines3 &&
	grep -q "^build .*: 4 objects, [0-9]*:[0-9][0-9]$" lines3 &&
	grep -q "^build .*: BUILT in [0-9.]* s, 1 file checked out$" lines3 &&
	test "$(sed "s/, [0-9]*:[0-9][0-9]$//" lines3 | sort -u | wc -l)" -ge 6
'

test_done
