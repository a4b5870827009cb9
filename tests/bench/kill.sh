#!/bin/bash
# The kill -9 trial, long: 100 kills of lab ab at random moments, each
# followed by a resume (tests/kill-trial.sh); prints the counts.
exec "$(dirname "$0")/../kill-trial.sh" "${KILLS:-100}"
