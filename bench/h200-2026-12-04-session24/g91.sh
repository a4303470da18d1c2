#!/usr/bin/env bash
# Issue 15: the class of 100 with design note 54 (a grading lets the waiting timed runs pass
# between a crashing submission's fresh processes), built in session 23 and not yet run on
# the H200. As session 23's g90.sh without its cgroup tests (they passed there and the
# cgroup code is unchanged since), so that the class gets as much of the call as it can:
# LIMIT=590 and MARGIN=12 leave the class some 566 s. Resumable as g90.sh: unpack
# g91/class100 into .scratch/class100, carry it, NAME=g91b.
# Run as: LIMIT=590 MARGIN=12 bash bench/h200-2026-12-04-session24/g91.sh $OUT
set -uo pipefail
LIMIT=${LIMIT:-590}
source bench/device_prelude.sh "${NAME:-g91}" "$1"
s 90 build make -k -j16 all
python3 -c 'from grader import cgroup; print("limits:", cgroup.status())' | tee -a $L/summary.txt
class_run 100
cat $L/summary.txt
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"
