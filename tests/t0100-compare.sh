#!/bin/bash
# lab compare: verdicts and exit status on files of numbers, column
# selection, and one-line errors for bad input.
. "$(dirname "$0")/lib.sh"

# nums START STEP COUNT: START, START+STEP, ... one per line
nums() {
	awk -v s="$1" -v d="$2" -v n="$3" 'BEGIN { for (i = 0; i < n; i++) printf "%.3f\n", s + i * d }'
}

test_expect_success 'setup: a baseline and a candidate 10 % slower' '
	nums 100 0.3 12 >base.txt &&
	nums 110 0.3 12 >slow.txt &&
	{ echo "# seconds per run"; echo; nums 110 0.3 12; echo "   "; } >slow-commented.txt
'

test_expect_success 'a clear regression exits 1 and says REGRESSION' '
	test_expect_code 1 "$LAB" compare base.txt slow.txt >out &&
	grep -q "^verdict: REGRESSION" out &&
	grep -q "^B/A +[0-9.]* % \[+[0-9.]*, +[0-9.]*\] (95 % CI, Hodges-Lehmann)$" out
'

test_expect_success 'comments and blank lines are skipped' '
	test_expect_code 1 "$LAB" compare base.txt slow-commented.txt >out &&
	grep -q "^+ *12 " out &&
	grep -q "^verdict: REGRESSION" out
'

test_expect_success 'identical data exits 0 with neither REGRESSION nor IMPROVEMENT' '
	"$LAB" compare base.txt base.txt >out &&
	! grep -q -e REGRESSION -e IMPROVEMENT out &&
	grep -q "^verdict: SAME" out
'

test_expect_success 'higher is better turns the same numbers into an IMPROVEMENT' '
	"$LAB" compare --higher-is-better base.txt slow.txt >out &&
	grep -q "^verdict: IMPROVEMENT" out
'

test_expect_success 'a speed-up is an IMPROVEMENT and exits 0' '
	"$LAB" compare slow.txt base.txt >out &&
	grep -q "^verdict: IMPROVEMENT" out
'

test_expect_success '-d takes a percentage or a fraction' '
	test_expect_code 1 "$LAB" compare -d 5% base.txt slow.txt >pct &&
	test_expect_code 1 "$LAB" compare -d 0.05 base.txt slow.txt >frac &&
	cmp pct frac &&
	grep -q "delta 5 %" pct &&
	"$LAB" compare -d 20% base.txt slow.txt >out &&
	! grep -q REGRESSION out
'

test_expect_success '-c 2 reads the second column' '
	paste -d " " base.txt base.txt >a2.txt &&
	paste -d " " base.txt slow.txt >b2.txt &&
	"$LAB" compare a2.txt b2.txt >out &&
	! grep -q REGRESSION out &&
	test_expect_code 1 "$LAB" compare -c 2 a2.txt b2.txt >out &&
	grep -q "^verdict: REGRESSION" out
'

test_expect_success 'the plot has a row of marks and a mean/sd row per side' '
	test_expect_code 1 "$LAB" compare base.txt slow.txt >out &&
	test "$(grep -c "^|x.*|$" out)" = 1 &&
	test "$(grep -c "^| *+.*|$" out)" = 1 &&
	test "$(grep -c "^| *|_*A_*| *|$" out)" = 2
'

test_expect_success 'an empty file: exit 2, one line naming it' '
	: >empty.txt &&
	test_expect_code 2 "$LAB" compare base.txt empty.txt >out 2>err &&
	expect_one_line_naming err "empty.txt: no numbers" &&
	test ! -s out
'

test_expect_success 'a file of comments only is empty too' '
	printf "# nothing\n\n" >comments.txt &&
	test_expect_code 2 "$LAB" compare comments.txt base.txt 2>err &&
	expect_one_line_naming err "comments.txt: no numbers"
'

test_expect_success 'a non-number: exit 2, one line naming file and line' '
	{ nums 1 1 6; echo abc; } >bad.txt &&
	test_expect_code 2 "$LAB" compare base.txt bad.txt 2>err &&
	expect_one_line_naming err "bad.txt:7: not a number: .abc."
'

test_expect_success 'a missing column: exit 2, one line naming file and line' '
	test_expect_code 2 "$LAB" compare -c 3 a2.txt b2.txt 2>err &&
	expect_one_line_naming err "a2.txt:1: no column 3"
'

test_expect_success 'a missing file: exit 2, one line naming it' '
	test_expect_code 2 "$LAB" compare base.txt nosuch.txt 2>err &&
	expect_one_line_naming err "cannot read file .nosuch.txt.: No such file or directory"
'

test_expect_success 'a pipe or a fifo is read to its end; a device or a directory is refused at once' '
	test_expect_code 1 "$LAB" compare base.txt slow.txt >out &&
	sed "s/ [^ ]*\.txt\$//" out >want && grep -q "^verdict: REGRESSION" want &&
	test_expect_code 1 "$LAB" compare <(cat base.txt) <(cat slow.txt) >got &&
	sed "s| /dev/fd/[0-9]*\$||" got | cmp want - &&
	mkfifo slow.fifo && { cat slow.txt >slow.fifo & } &&
	test_expect_code 1 timeout 20 "$LAB" compare base.txt slow.fifo >got && wait &&
	sed "s/ [^ ]*\.\(txt\|fifo\)\$//" got | cmp want - &&
	rc=0 && timeout 20 "$LAB" compare base.txt /dev/zero 2>err || rc=$? && test "$rc" = 2 &&
	expect_one_line_naming err "^lab: file ./dev/zero. is a character device, not a regular file\$" &&
	mkdir numbers.d && test_expect_code 2 "$LAB" compare numbers.d base.txt 2>err &&
	expect_one_line_naming err "^lab: file .numbers.d. is a directory, not a regular file\$"
'

test_expect_success 'a fifo whose writer is already waiting is read whole, the writer never cut off' '
	seq 1 100000 >big.txt &&
	for i in 1 2 3 4 5 6 7 8 9 10; do
		rm -f big.fifo && mkfifo big.fifo &&
		{ seq 1 100000 >big.fifo; echo $? >writer.rc; } &
		sleep 0.05 &&
		timeout 20 "$LAB" compare big.fifo big.txt >got 2>err &&
		wait $! &&
		grep -q "^x 100000 .* big.fifo\$" got && test "$(cat writer.rc)" = 0 || return 1
	done
'

test_expect_success 'bad options: exit 2, one line each' '
	test_expect_code 2 "$LAB" compare -d 2 base.txt slow.txt 2>err &&
	expect_one_line_naming err "bad value .2. for -d" &&
	test_expect_code 2 "$LAB" compare -a 1.5 base.txt slow.txt 2>err &&
	expect_one_line_naming err "bad value .1.5. for -a" &&
	test_expect_code 2 "$LAB" compare --frobnicate base.txt slow.txt 2>err &&
	expect_one_line_naming err "--frobnicate" &&
	test_expect_code 2 "$LAB" compare base.txt 2>err &&
	expect_one_line_naming err "two files"
'

test_expect_success '--help exits 0' '
	"$LAB" compare --help >out &&
	grep -q "^usage: lab compare" out
'

test_done
