#!/bin/bash
# The kill -9 trial, short: lab ab killed 10 times and lab bisect 5 times
# with SIGKILL at random moments, each kill followed by a resume, lose and
# double nothing, change no outcome and leave no process behind
# (tests/kill-trial.sh says what is checked; make bench runs 100 kills).
. "$(dirname "$0")/lib.sh"

test_expect_success 'lab ab killed 10 times with SIGKILL, resumed each time' '
	"$TOP/tests/kill-trial.sh" 10 "$TRASH/ab" >out 2>&1 || { cat out; false; } &&
	cat out &&
	grep -q "^kill trial (seed [0-9]*): 10 kills of lab ab" out
'

test_expect_success 'lab bisect killed 5 times with SIGKILL, resumed each time' '
	"$TOP/tests/kill-trial.sh" --bisect 5 "$TRASH/bisect" >out 2>&1 || { cat out; false; } &&
	cat out &&
	grep -q "^kill trial (seed [0-9]*): 5 kills of lab bisect" out
'

test_done
