#!/usr/bin/env bash
# Session 36 (g120; g121 with NAME=g121): the class of 100 again, whole over two calls
# (bench/detached_call.sh), as g119 (bench/h200-2026-12-05-session35/g119.sh) but with design
# note 82's judge end (the empty-kernel server told to end before the student's process, and
# the `done` line): every verdict must hold, and hold_tail_ms shows the judge's end now.
# Then one grade of the 3.3 solution alone (issue 15's 20 s). The class's reports come back
# in the tgz (class100/).
# Run as (carrying .debs and .scratch/wheels; never .scratch/class100: it would resume a class):
#   env GRADER_UNTIMED_AT_ONCE=8 GRADER_DRAIN_AT=8,20 GRADER_DRAIN_STOP_AFTER=4 NAME=g120 \
#     LIMIT=1500 MARGIN=0 bash bench/detached_call.sh start 565 $OUT -- \
#     bash bench/h200-2026-12-05-session36/g120.sh
#   then at once: bash bench/detached_call.sh wait 560 $OUT
set -uo pipefail
source bench/device_prelude.sh "${NAME:-g120}" "$1"
class_of_100
grade33_alone
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"
