#!/bin/bash
# How lab answers a person at its door: help for one command, its version,
# and a near miss of a command's name.
. "$(dirname "$0")/lib.sh"

test_expect_success 'lab help CMD prints that command'"'"'s usage, as CMD --help does' '
	"$LAB" help list >help &&
	"$LAB" list --help >dashdash &&
	cmp help dashdash &&
	grep -q "^usage: lab list " help
'

test_expect_success 'lab help with an unknown command: one line, exit 2' '
	rc=0 && "$LAB" help frobnicate >out 2>err || rc=$? && test "$rc" = 2 &&
	expect_one_line_naming err "^lab: unknown command .frobnicate. (see .lab --help.)$" &&
	test ! -s out
'

test_expect_success 'lab help with two words is refused' '
	rc=0 && "$LAB" help run list 2>err || rc=$? && test "$rc" = 2 &&
	expect_one_line_naming err "list"
'

test_expect_success 'lab --version names the build' '
	"$LAB" --version >v &&
	test "$(wc -l <v)" = 1 &&
	grep -q "^lab version [0-9a-zA-Z.+-]*$" v &&
	"$LAB" version >v2 && cmp v v2
'

test_expect_success 'a misspelt command gets the nearest one' '
	rc=0 && "$LAB" runn 2>err || rc=$? && test "$rc" = 2 &&
	expect_one_line_naming err "^lab: unknown command .runn.: did you mean .run.? (see .lab --help.)$" &&
	test_must_fail "$LAB" reprot 2>err &&
	expect_one_line_naming err "did you mean .report.?" &&
	test_must_fail "$LAB" bisetc-step 2>err &&
	expect_one_line_naming err "did you mean .bisect-step.?"
'

test_expect_success 'a word near nothing gets no guess' '
	test_must_fail "$LAB" frobnicate 2>err &&
	expect_one_line_naming err "^lab: unknown command .frobnicate. (see .lab --help.)$"
'

test_expect_success 'a misspelt option gets the nearest; a short prefix, its options' '
	test_must_fail "$LAB" run --wrokload boot 2>err &&
	expect_one_line_naming err "^lab: unknown option .--wrokload. for .lab run.: did you mean .--workload.? (see .lab run --help.)$" &&
	test_must_fail "$LAB" ab --a-c foo 2>err &&
	expect_one_line_naming err "^lab: ambiguous option .--a-c. for .lab ab.: --a-config, --a-cmdline? (see .lab ab --help.)$"
'

test_done
