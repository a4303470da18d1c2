#!/usr/bin/env bash
# Issue 15: the class of 100 with design note 55 (a batch's untimed runs and its judges'
# set-ups, under its shared hold, may use the 3 CPUs kept for timed runs: g91's read phases
# kept 13 of 16 CPUs busy and those 3 idle); g91.sh's steps on the tree of the call, logged
# as g92. A fresh class, not g91's resumed. Resumable as g91.sh: unpack g92/class100 into
# .scratch/class100, carry it, NAME=g92b.
# Run as: LIMIT=590 MARGIN=12 bash bench/h200-2026-12-04-session24/g92.sh $OUT
NAME=${NAME:-g92} exec bash "$(dirname "$0")/g91.sh" "$@"
