#!/bin/bash
# The kill -9 trial, long: lab ab and lab bisect, each killed 100 times at
# random moments and resumed each time (tests/kill-trial.sh); prints the
# counts.
set -e
trial=$(dirname "$0")/../kill-trial.sh
"$trial" "${KILLS:-100}"
"$trial" --bisect "${KILLS:-100}"
