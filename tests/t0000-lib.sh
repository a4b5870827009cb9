#!/bin/bash
# tests/lib.sh itself: small test files run apart, their TAP output
# compared with what each helper promises.
. "$(dirname "$0")/lib.sh"

# run_sub NAME: run the test file NAME.sh written in this directory, its
# TAP output in NAME.out, its exit status in NAME.rc
run_sub() {
	{ echo ". '$TOP/tests/lib.sh'"; cat; } >"$1.sh" &&
	rc=0 && LAB_TEST_KEEP= LAB_FAIL_LOG=${SUB_FAIL_LOG:-} bash "$1.sh" >"$1.out" 2>&1 || rc=$?
	echo $rc >"$1.rc"
}

# tap NAME: its TAP lines, without the comments
tap() {
	grep -v "^#" "$1.out"
}

test_expect_success 'a missing prerequisite skips the test, saying which; a present one runs it' '
	LAB_SKIP_LOG=$PWD/skips && export LAB_SKIP_LOG &&
	run_sub prereq <<-\EOF &&
	test_set_prereq HERE
	test_lazy_prereq NOT_HERE "false"
	test_lazy_prereq LAZY_HERE "true"
	test_expect_success HERE "runs" "true"
	test_expect_success NOT_HERE "skipped" "false"
	test_expect_success HERE,NOT_HERE "skipped too" "false"
	test_expect_success !NOT_HERE,LAZY_HERE "negated" "true"
	test_expect_success "a body asks" "test_have_prereq HERE && ! test_have_prereq NOT_HERE"
	test_done
	EOF
	cat >want <<-\EOF &&
	ok 1 - runs
	ok 2 # skip skipped (missing NOT_HERE)
	ok 3 # skip skipped too (missing NOT_HERE)
	ok 4 - negated
	ok 5 - a body asks
	1..5
	EOF
	tap prereq >got && diff -u want got &&
	test "$(cat prereq.rc)" = 0 &&
	printf "%s\n" "prereq.sh 2: skipped (missing NOT_HERE)" \
		"prereq.sh 3: skipped too (missing NOT_HERE)" >want &&
	diff -u want skips
'

test_expect_success 'a lazy prerequisite is tried once, in a directory of its own' '
	run_sub lazy <<-\EOF &&
	test_lazy_prereq ONCE "echo tried >>\"$TRASH/tries\" && test \"\$(basename \"\$PWD\")\" = .prereq-ONCE"
	test_expect_success ONCE "first" "true"
	test_expect_success ONCE "second" "true"
	test_expect_success "tried once" "test \$(wc -l <tries) = 1"
	test_done
	EOF
	test "$(tap lazy | grep -c "^ok [0-9]* - ")" = 3
'

test_expect_success 'test_must_fail: a failure passes; success, a signal and 126 or more do not' '
	run_sub mustfail <<-\EOF &&
	test_expect_success "exit 1" "test_must_fail sh -c \"exit 1\""
	test_expect_success "exit 125" "test_must_fail sh -c \"exit 125\""
	test_expect_success "exit 0" "test_must_fail true"
	test_expect_success "a signal" "test_must_fail sh -c \"kill -TERM \\\$\\\$\""
	test_expect_success "not found" "test_must_fail ./no-such-program"
	test_expect_success "exit 126" "test_must_fail sh -c \"exit 126\""
	test_done
	EOF
	cat >want <<-\EOF &&
	ok 1 - exit 1
	ok 2 - exit 125
	not ok 3 - exit 0
	not ok 4 - a signal
	not ok 5 - not found
	not ok 6 - exit 126
	1..6
	EOF
	tap mustfail >got && diff -u want got &&
	test "$(cat mustfail.rc)" = 1 &&
	grep -q "^#   test_must_fail: command succeeded: true$" mustfail.out &&
	grep -q "^#   test_must_fail: died of signal 15: " mustfail.out &&
	grep -q "^#   test_must_fail: exit 127, not a failure of the command: ./no-such-program$" mustfail.out
'

test_expect_success 'test_must_fail leaves the stderr the test redirects to the command alone' '
	run_sub quiet <<-\EOF &&
	test_expect_success "one line" "test_must_fail sh -c \"echo it failed >&2; exit 2\" 2>err && test \"\$(cat err)\" = \"it failed\""
	test_done
	EOF
	tap quiet | grep -qx "ok 1 - one line"
'

test_expect_success 'a failed test is logged for make check with its last lines; a passing one is not' '
	SUB_FAIL_LOG=$PWD/fails &&
	run_sub failing <<-\EOF &&
	test_expect_success "passes" "true"
	test_expect_success "says why" "echo the reason && false"
	test_done
	EOF
	SUB_FAIL_LOG= &&
	printf "%s\n" "failing.sh 2: says why" "#   the reason" >want &&
	diff -u want fails
'

test_expect_success 'test_when_finished: after the body, passed or failed, the last first, where it was asked' '
	run_sub finished <<-\EOF &&
	test_expect_success "fails" "mkdir d && cd d && test_when_finished \"echo 1 >>../log\" && test_when_finished \"echo 2 >>../log\" && false"
	test_expect_success "cleaned up" "test \"\$(cat log | tr \"\\n\" \" \")\" = \"2 1 \""
	test_expect_success "a cleanup that fails" "test_when_finished false"
	test_done
	EOF
	cat >want <<-\EOF &&
	not ok 1 - fails
	ok 2 - cleaned up
	not ok 3 - a cleanup that fails
	1..3
	EOF
	tap finished >got && diff -u want got &&
	grep -q "^#   cleanup failed: false$" finished.out
'

test_expect_success 'test_expect_failure: a known breakage is TODO, and one that passes is said' '
	run_sub todo <<-\EOF &&
	test_expect_failure "still broken" "false"
	test_expect_failure "fixed" "true"
	test_done
	EOF
	cat >want <<-\EOF &&
	not ok 1 - still broken # TODO known breakage
	ok 2 - fixed # TODO known breakage vanished
	1..2
	EOF
	tap todo >got && diff -u want got &&
	test "$(cat todo.rc)" = 0
'

test_expect_success 'test_expect_code and test_wait_until' '
	run_sub code <<-\EOF &&
	test_expect_success "exit 2 is 2" "test_expect_code 2 sh -c \"exit 2\""
	test_expect_success "exit 1 is not 2" "test_expect_code 2 sh -c \"exit 1\""
	test_expect_success "true at once" "test_wait_until 1 true"
	test_expect_success "never true" "test_wait_until 1 false"
	test_done
	EOF
	cat >want <<-\EOF &&
	ok 1 - exit 2 is 2
	not ok 2 - exit 1 is not 2
	ok 3 - true at once
	not ok 4 - never true
	1..4
	EOF
	tap code >got && diff -u want got &&
	grep -q "^#   test_expect_code: exit 1, want 2: " code.out &&
	grep -q "^#   test_wait_until: still false after 1 s: false$" code.out
'

test_expect_success 'scaled_project: base and slow tagged, each built to its own image, lab.conf' '
	scaled_project proj "echo scale=%s\n" &&
	test "$(git -C proj rev-parse base^{tree})" != "$(git -C proj rev-parse slow^{tree})" &&
	test "$(git -C proj rev-parse slow^)" = "$(git -C proj rev-parse base)" &&
	(cd proj && git checkout -q base && ./build.sh) && test "$(cat proj/out/image)" = "echo scale=1.00" &&
	(cd proj && git checkout -q slow && ./build.sh) && test "$(cat proj/out/image)" = "echo scale=1.50" &&
	test -x proj/out/image &&
	grep -qx "	command = ./build.sh" lab.conf && grep -qx "	runner = local" lab.conf
'

# fake_history's step in the test below: the scale 2.00 from change 2 on,
# change 3 tagged and not building, change 4 with a subject of its own
history_step() {
	case $i in
	2) echo 2.00 >fake/scale ;;
	3) touch fake/broken && tag=three ;;
	4) rm fake/broken && subject=four ;;
	esac
}

test_expect_success 'fake_project, fake_history, commit: a build that runs its lines, a commit a step' '
	fake_project fake "echo scale=%s%s\n" "test -e broken && exit 3
test -e more && extra=\" more\"" &&
	fake_history fake 4 history_step &&
	test "$(git -C fake log --format=%s | tr "\n" ,)" = "four,change 3,change 2,change 1,base," &&
	test "$(git -C fake tag | tr "\n" ,)" = "base,three," &&
	test "$(git -C fake show three:notes.txt)" = "change 3" &&
	(cd fake && git checkout -q base && ./build.sh) && test "$(cat fake/out/image)" = "echo scale=1.00" &&
	test -x fake/out/image &&
	(cd fake && git checkout -q three && test_expect_code 3 ./build.sh) &&
	(cd fake && git checkout -q main && touch more && ./build.sh) &&
	test "$(cat fake/out/image)" = "echo scale=2.00 more" &&
	commit fake more &&
	test "$(git -C fake log -1 --format=%s)" = more && git -C fake ls-files --error-unmatch more out/image
'

test_done
