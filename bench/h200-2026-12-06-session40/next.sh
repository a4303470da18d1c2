#!/usr/bin/env bash
# The next session's first call (written in session 40), on whichever card comes, with the
# device time for it (CLASS_OK=1: about 800-1150 s of the session's 1800, the start included).
# The class of 100 (bench/h200-2026-12-05-session36/g120.sh: the build, the class with
# --jobs 16, one grade of the 3.3 solution alone), detached over two calls as session 38's
# first.sh does; the second call, at once: `bash bench/detached_call.sh wait 560 $OUT`.
# - On an H200: issue 15's run. Every verdict must be as expected, with no "error:" row.
# - On an H100: design note 95's check at scale. No honest run of the class may be "timed
#   twice" for its exchange (the empty-kernel exchange among the repetitions 0.5 ms over
#   its time alone), and every verdict must still be as expected.
# Run as: [NAME=g13x] CLASS_OK=1 bash bench/h200-2026-12-06-session40/next.sh $OUT (carrying .debs and
# .scratch/wheels; never .scratch/class100).
set -uo pipefail
card=$(nvidia-smi --query-gpu=name --format=csv,noheader)
echo "card: $card"
[ "${CLASS_OK:-0}" = 1 ] || { echo "CLASS_OK=1 not given: nothing run"; exit 0; }
env GRADER_UNTIMED_AT_ONCE=8 GRADER_DRAIN_AT=8,20 GRADER_DRAIN_STOP_AFTER=4 NAME=${NAME:-g132} \
    LIMIT=1500 MARGIN=0 bash bench/detached_call.sh start 565 "$1" -- \
    bash bench/h200-2026-12-05-session36/g120.sh
