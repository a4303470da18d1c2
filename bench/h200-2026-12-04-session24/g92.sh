#!/usr/bin/env bash
# Issue 15: the class of 100 with design note 55 (a batch's untimed runs and its judges'
# set-ups, under its shared hold, may use the 3 CPUs kept for timed runs: g91's read phases
# kept 13 of 16 CPUs busy and those 3 idle), otherwise as g91.sh (design note 54 in both).
# A fresh class, not g91's resumed. Resumable as g91.sh: unpack g92/class100 into
# .scratch/class100, carry it, NAME=g92b.
# Run as: LIMIT=590 MARGIN=12 bash bench/h200-2026-12-04-session24/g92.sh $OUT
set -uo pipefail
LIMIT=${LIMIT:-590}
source bench/device_prelude.sh "${NAME:-g92}" "$1"
s 90 build make -k -j16 all
python3 -c 'from grader import cgroup; print("limits:", cgroup.status())' | tee -a $L/summary.txt
class_run 100
cat $L/summary.txt
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"
