#!/usr/bin/env bash
# Session 35: g118's class of 100 again, whole over two calls (bench/detached_call.sh), with a
# stray timed again only (grade.Options.retime) and each run over the lab's hold_tail_ms; then
# where a hold's time goes outside the judge's phases (bench/throughput/hold_gap.py), a fresh
# process's first launch after a pool import (ipc_first_launch_bench, plain and with eager
# module loading), and one grade of the 3.3 solution alone (issue 15's 20 s).
# Run as (carrying .debs and .scratch/wheels; never .scratch/class100: it would resume a class):
#   env GRADER_UNTIMED_AT_ONCE=8 GRADER_DRAIN_AT=8,20 GRADER_DRAIN_STOP_AFTER=4 NAME=g119 \
#     LIMIT=1500 MARGIN=0 bash bench/detached_call.sh start 565 $OUT -- \
#     bash bench/h200-2026-12-05-session35/g119.sh
#   then at once: bash bench/detached_call.sh wait 560 $OUT
set -uo pipefail
source bench/device_prelude.sh "${NAME:-g119}" "$1"
class_of_100
# the knobs are the class's only: what follows is alone on the machine
unset GRADER_UNTIMED_AT_ONCE GRADER_DRAIN_AT GRADER_DRAIN_STOP_AFTER
s 90 ipc_first_launch bash -c "ipc_first_launch_bench 5"
s 90 ipc_first_launch_eager env CUDA_MODULE_LOADING=EAGER bash -c "ipc_first_launch_bench 3"
grep -h -A8 "^median ms" $L/ipc_first_launch*.log | tee -a $L/summary.txt
grade33_alone
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"
