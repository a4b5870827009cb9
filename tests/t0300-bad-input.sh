#!/bin/bash
# Bad input: one line naming the bad thing, a non-zero exit, earlier data intact.
. "$(dirname "$0")/lib.sh"

KERNEL=$(debian_kernel)

test_expect_success 'setup: a database with one local run' '
	"$LAB" run --db lab.db --runner local --guest "$GUEST" --workload zeroing --iters 3 \
		--param zeroing_mb=8 >out &&
	test "$(sql lab.db "SELECT count(*) FROM samples")" -ge 3 &&
	sql lab.db "SELECT count(*) FROM samples" >before
'

check_intact() {
	test "$(sql lab.db "SELECT count(*) FROM samples")" = "$(cat before)"
}

test_expect_success 'a missing kernel file' '
	test_must_fail "$LAB" run --db lab.db --kernel /nonexistent/bzImage --workload boot 2>err &&
	expect_one_line_naming err /nonexistent/bzImage && check_intact
'

test_expect_success 'a fifo or a directory as --kernel is refused at once, saying what it is' '
	mkfifo kernel.fifo && mkdir kernel.dir &&
	rc=0 && timeout 20 "$LAB" run --db lab.db --kernel kernel.fifo --workload boot 2>err || rc=$? &&
	test "$rc" = 2 &&
	expect_one_line_naming err "^lab: kernel .kernel.fifo. is a fifo, not a regular file\$" &&
	rc=0 && timeout 20 "$LAB" run --db lab.db --kernel kernel.dir --workload boot 2>err || rc=$? &&
	test "$rc" = 2 &&
	expect_one_line_naming err "^lab: kernel .kernel.dir. is a directory, not a regular file\$" &&
	check_intact
'

test_expect_success 'a file that is not a kernel' '
	echo hello >notakernel &&
	test_must_fail "$LAB" run --db lab.db --kernel notakernel --workload boot 2>err &&
	expect_one_line_naming err notakernel && check_intact
'

test_expect_success 'an unknown workload' '
	test_must_fail "$LAB" run --db lab.db --kernel "$KERNEL" --workload frobnicate 2>err &&
	expect_one_line_naming err frobnicate && check_intact
'

test_expect_success 'an unwritable database path' '
	test_must_fail "$LAB" run --db /proc/lab/lab.db --runner local --guest "$GUEST" --workload zeroing 2>err &&
	expect_one_line_naming err /proc/lab
'

test_expect_success 'a --db that is not a regular file is refused at once, by every command' '
	mkfifo fifo && mkdir dir && ln -s fifo fifolink &&
	for case in "fifo:a fifo" "fifolink:a fifo" "dir:a directory" "/dev/null:a character device"; do
		db=${case%%:*} kind=${case#*:} &&
		for cmd in list report "show 1" "run --runner local --guest $GUEST --workload zeroing"; do
			rc=0 && timeout 10 "$LAB" $cmd --db $db 2>err || rc=$? &&
			test "$rc" = 2 &&
			expect_one_line_naming err "^lab: database .$db. is not a regular file but $kind\$" ||
			{ echo "lab $cmd --db $db"; return 1; }
		done
	done &&
	test -p fifo && test -d dir && test -c /dev/null && check_intact
'

test_expect_success 'a fifo or a device as --config, ./lab.conf, LAB_CONFIG or a recipe is refused at once' '
	mkfifo conf.fifo && mkdir cwd && mkfifo cwd/lab.conf &&
	for case in "--config conf.fifo:config .conf.fifo. is a fifo" \
		    "--config /dev/zero:config ./dev/zero. is a character device" \
		    "--config cwd:config .cwd. is a directory"; do
		opt=${case%%:*} want=${case#*:} &&
		rc=0 && timeout 20 "$LAB" list --db lab.db $opt 2>err || rc=$? &&
		test "$rc" = 2 && expect_one_line_naming err "^lab: $want, not a regular file\$" ||
		{ echo "lab list $opt"; return 1; }
	done &&
	rc=0 && LAB_CONFIG=conf.fifo timeout 20 "$LAB" list --db lab.db 2>err || rc=$? &&
	test "$rc" = 2 &&
	expect_one_line_naming err "^lab: config .conf.fifo. is a fifo, not a regular file\$" &&
	rc=0 && (cd cwd && timeout 20 "$LAB" list --db ../lab.db) 2>err || rc=$? &&
	test "$rc" = 2 &&
	expect_one_line_naming err "^lab: config .lab.conf. is a fifo, not a regular file\$" &&
	rc=0 && timeout 20 "$LAB" recipe conf.fifo --db lab.db 2>err || rc=$? &&
	test "$rc" = 2 &&
	expect_one_line_naming err "^lab: recipe .conf.fifo. is a fifo, not a regular file\$" &&
	test -p conf.fifo && test -p cwd/lab.conf && check_intact
'

test_expect_success 'a --db in a directory that does not exist is refused; the directory is not made' '
	for cmd in list report "run --runner local --guest $GUEST --workload zeroing"; do
		rc=0 && timeout 10 "$LAB" $cmd --db nodir/sub/x.db 2>err || rc=$? &&
		test "$rc" = 2 &&
		expect_one_line_naming err "^lab: no database at .nodir/sub/x.db.: no directory .nodir/sub.\$" &&
		test ! -e nodir || { echo "lab $cmd"; return 1; }
	done
'

test_expect_success 'without --db the default state root is the lab'"'"'s to make' '
	mkdir fresh &&
	(cd fresh && "$LAB" run --runner local --guest "$GUEST" --workload zeroing --iters 3 \
		--param zeroing_mb=8 >out 2>err) &&
	test "$(sql fresh/state/lab.db "SELECT status FROM runs")" = OK
'

test_expect_success 'a corrupt database file' '
	head -c 20000 /dev/urandom >corrupt.db && cp corrupt.db corrupt.orig &&
	test_must_fail "$LAB" list --db corrupt.db 2>err &&
	expect_one_line_naming err corrupt.db &&
	cmp corrupt.db corrupt.orig
'

test_expect_success 'a bad config value' '
	printf "[run]\n\tcpus = lots\n" >lab.conf &&
	test_must_fail "$LAB" run --db lab.db --runner local --guest "$GUEST" --workload zeroing 2>err &&
	expect_one_line_naming err run.cpus && check_intact &&
	rm lab.conf
'

test_expect_success 'a misspelled section in lab.conf' '
	printf "[core]\n\tdb = lab.db\n[rnu]\n\tmem = 4G\n" >lab.conf &&
	rc=0 && "$LAB" run --runner local --guest "$GUEST" --workload zeroing 2>err || rc=$? &&
	test "$rc" = 2 &&
	expect_one_line_naming err "^lab: unknown section .rnu. in config lab.conf line 3 (known: core, qemu, run, build, libvirt, report, nightly, ssh, target, workload)$" &&
	check_intact && rm lab.conf
'

test_expect_success 'an unterminated quote and binary bytes in lab.conf' '
	printf "[core]\n\tdb = \"lab.db\n" >lab.conf &&
	rc=0 && "$LAB" list 2>err || rc=$? && test "$rc" = 2 &&
	expect_one_line_naming err "^lab: unterminated quote in config lab.conf line 2$" &&
	printf "[core]\n\tdb = lab.db\n\tdb = \001\002\377\n" >lab.conf &&
	rc=0 && "$LAB" list 2>err || rc=$? && test "$rc" = 2 &&
	expect_one_line_naming err "^lab: binary byte 0x01 in config lab.conf line 3: expected UTF-8 text$" &&
	check_intact && rm lab.conf
'

test_expect_success 'a recipe with a misspelled section or key names its line' '
	printf "[recipe]\n\tworkload = demote\n[varient \"a\"]\n\tref = x\n" >typo.recipe &&
	rc=0 && "$LAB" recipe typo.recipe 2>err || rc=$? && test "$rc" = 2 &&
	expect_one_line_naming err "^lab: unknown section .varient. in recipe typo.recipe line 3 (known: recipe, variant, workload)$" &&
	printf "[recipe]\n\tworkload = demote\n\n\tmetirc = demote.x\n" >typo.recipe &&
	rc=0 && "$LAB" recipe typo.recipe 2>err || rc=$? && test "$rc" = 2 &&
	expect_one_line_naming err "^lab: unknown key .recipe.metirc. in recipe typo.recipe line 4 (known: recipe.title, " &&
	printf "[recipe]\n\ttitle = \"open\n" >typo.recipe &&
	rc=0 && "$LAB" recipe typo.recipe 2>err || rc=$? && test "$rc" = 2 &&
	expect_one_line_naming err "^lab: unterminated quote in recipe typo.recipe line 2$" &&
	printf "[recipe]\n\tref = v1\n\tmetric = demote.x\n\tref = v2\n" >typo.recipe &&
	rc=0 && "$LAB" recipe typo.recipe 2>err || rc=$? && test "$rc" = 2 &&
	expect_one_line_naming err "^lab: key .ref. of \[recipe\] given twice in recipe typo.recipe line 4 (first at line 2; keys that may repeat: arch, workload, metric, param, probe)$"
'

test_expect_success 'a [workload] of lab.conf without a program, or with one not there: the file and the line' '
	printf "[run]\n\tcpus = 1\n[workload \"pf\"]\n\targ = -n\n" >lab.conf &&
	rc=0 && "$LAB" run --db lab.db --runner local --guest "$GUEST" --workload pf 2>err || rc=$? &&
	test "$rc" = 2 &&
	expect_one_line_naming err "^lab: workload section .pf. in config lab.conf line 3 has no program (program = PATH or stress-ng:STRESSOR)$" &&
	printf "[workload \"pf\"]\n\targ = -n\n\tprogram = bench/nosuch\n" >lab.conf &&
	rc=0 && "$LAB" run --db lab.db --runner local --guest "$GUEST" --workload pf 2>err || rc=$? &&
	test "$rc" = 2 &&
	expect_one_line_naming err "^lab: cannot find program .bench/nosuch. for .workload.pf.program. in config lab.conf line 3: No such file or directory$" &&
	check_intact && rm lab.conf
'

test_expect_success 'a key given twice in one section of lab.conf is refused, naming both lines' '
	printf "[run]\n\tmem = 1G\n[workload \"pf\"]\n\tprogram = /bin/true\n\targ = 1\n\targ = 2\n\tprogram = /bin/false\n" >lab.conf &&
	rc=0 && "$LAB" run --db lab.db --runner local --guest "$GUEST" --workload pf 2>err || rc=$? &&
	test "$rc" = 2 &&
	expect_one_line_naming err "^lab: key .program. of \[workload \"pf\"\] given twice in config lab.conf line 7 (first at line 4; keys that may repeat: arg, higher, lower)$" &&
	printf "[run]\n\tmem = 1G\n[core]\n\tdb = lab.db\n[run]\n\tMem = 2G\n" >lab.conf &&
	rc=0 && "$LAB" run --runner local --guest "$GUEST" --workload zeroing 2>err || rc=$? &&
	test "$rc" = 2 &&
	expect_one_line_naming err "^lab: key .mem. of \[run\] given twice in config lab.conf line 6 (first at line 2)$" &&
	check_intact && rm lab.conf
'

test_expect_success 'sizes and counts beyond their bounds never reach QEMU' '
	for opt in "--mem 99999999999999G" "--mem 17T" "--cpus 1025" "--timeout 169h" \
		   "--boots 99999999999" "--iters 2147483648"; do
		rc=0 && "$LAB" run --db lab.db --kernel "$KERNEL" --accel tcg --workload boot \
			$opt 2>err || rc=$? &&
		test "$rc" = 2 && expect_one_line_naming err "^lab: bad value .${opt#* }. for ${opt% *} " ||
		return 1
	done &&
	check_intact
'

test_expect_success 'an option without its value says so, in every command' '
	for cmd in run ab bisect build list show report; do
		rc=0 && "$LAB" $cmd --db 2>err || rc=$? && test "$rc" = 2 &&
		expect_one_line_naming err "^lab: option .--db. needs a value (see .lab $cmd --help.)$" ||
		return 1
	done &&
	rc=0 && "$LAB" run --db lab.db --kernel "$KERNEL" --workload 2>err || rc=$? &&
	test "$rc" = 2 &&
	expect_one_line_naming err "^lab: option .--workload. needs a value (see .lab run --help.)$" &&
	rc=0 && "$LAB" compare -c 2>err || rc=$? && test "$rc" = 2 &&
	expect_one_line_naming err "^lab: option .-c. needs a value (see .lab compare --help.)$" &&
	rc=0 && "$LAB" list -n 2>err || rc=$? && test "$rc" = 2 &&
	expect_one_line_naming err "^lab: option .-n. needs a value (see .lab list --help.)$" &&
	rc=0 && "$LAB" run --help=x 2>err || rc=$? && test "$rc" = 2 &&
	expect_one_line_naming err "^lab: option .--help. takes no value (see .lab run --help.)$" &&
	rc=0 && "$LAB" run --bogus 2>err || rc=$? && test "$rc" = 2 &&
	expect_one_line_naming err "^lab: unknown option .--bogus. for .lab run. (see .lab run --help.)$" &&
	check_intact
'

test_expect_success 'a word too many is named, in every command' '
	for cmd in run ab bisect list report; do
		rc=0 && "$LAB" $cmd --db lab.db extra 2>err || rc=$? && test "$rc" = 2 &&
		expect_one_line_naming err "^lab: unexpected argument .extra. for .lab $cmd.$" ||
		return 1
	done &&
	rc=0 && "$LAB" bisect-step --db lab.db extra 2>err || rc=$? && test "$rc" = 128 &&
	expect_one_line_naming err "^lab: unexpected argument .extra. for .lab bisect-step.$" &&
	rc=0 && "$LAB" nightly --db lab.db one two 2>err || rc=$? && test "$rc" = 2 &&
	expect_one_line_naming err "^lab: unexpected argument .two. for .lab nightly.$" &&
	check_intact
'

test_expect_success 'bad option values' '
	test_must_fail "$LAB" run --db lab.db --kernel "$KERNEL" --workload boot --mem lots 2>err &&
	expect_one_line_naming err "--mem" &&
	test_expect_code 2 "$LAB" run --db lab.db --kernel "$KERNEL" --workload boot --mem 4 2>err &&
	test "$(cat err)" = "lab: --mem 4: 4 what? 4G? (a size takes its unit: M, G or T)" &&
	test_expect_code 2 "$LAB" ab --db lab.db --kernel "$KERNEL" --workload boot --mem 1G,512 2>err &&
	test "$(cat err)" = "lab: --mem 1G,512: 512 what? 512G? (a size takes its unit: M, G or T)" &&
	printf "[run]\n\tmem = 4\n" >unitless.conf &&
	test_must_fail "$LAB" run --db lab.db --config unitless.conf --kernel "$KERNEL" --workload boot 2>err &&
	expect_one_line_naming err "mem" &&
	test_must_fail "$LAB" run --db lab.db --kernel "$KERNEL" --workload boot --boots 0 2>err &&
	expect_one_line_naming err "--boots" &&
	test_must_fail "$LAB" show --db lab.db 999 2>err &&
	expect_one_line_naming err "no run 999" && check_intact
'

test_done
