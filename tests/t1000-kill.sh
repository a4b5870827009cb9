#!/bin/bash
# The kill -9 trial, short: 10 kills of lab ab at random moments, each
# followed by a resume, lose and double nothing and leave no process behind
# (tests/kill-trial.sh says what is checked; make bench runs 100 kills).
. "$(dirname "$0")/lib.sh"

test_expect_success 'lab ab killed 10 times with SIGKILL, resumed each time' '
	"$TOP/tests/kill-trial.sh" 10 "$TRASH/trial" >out 2>&1 || { cat out; false; } &&
	cat out &&
	grep -q "^kill trial (seed [0-9]*): 10 kills" out
'

test_done
