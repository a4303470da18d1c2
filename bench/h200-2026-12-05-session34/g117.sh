#!/usr/bin/env bash
# Prepared in session 34, not yet run: two configurations of the class of 100 in one call,
# one after the other, each given about half of it (design note 79's next measurement 1): the
# students each has graded by 100 / 200 s compare (the class's shuffled order is the same in
# both), as do their lock traces' read phases. Both with the drain's policy and the stops
# (GRADER_DRAIN_AT=8,20, GRADER_DRAIN_STOP_AFTER=4, side by side on); A with 8 gradings at
# once in their untimed runs (session 34's g116a), B with B_AT (default 4; by session 33's
# time-slice test, 4 or more processes with GPU work at once do the same total, so if 4 shows
# no gain, 2 is the next to try: a grading keeps some 4-8 processes on the GPU).
# Run as: NAME=g117 bash bench/h200-2026-12-05-session34/g117.sh $OUT
# carrying .debs and .scratch/wheels (never .scratch/class100*: it would resume a class).
set -uo pipefail
source bench/device_prelude.sh "${NAME:-g117}" "$1"
s 60 build make -k -j16 all
export GRADER_DRAIN_AT=8,20 GRADER_DRAIN_STOP_AFTER=4 MARGIN=${MARGIN:-8}
CLASS_EXTRA="--jobs 16" GRADER_UNTIMED_AT_ONCE=8 LIMIT=${HALF:-300} class_run 100 100at8
CLASS_EXTRA="--jobs 16" GRADER_UNTIMED_AT_ONCE=${B_AT:-4} LIMIT=${LIMIT:-597} \
    class_run 100 "100at${B_AT:-4}"
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"
