#!/usr/bin/env bash
# Issue 15: the class of 100 after design note 53 (per-run cgroups at the mount's root again on
# this machine). First the limits line and grader/tests/test_cgroup.py on the H200 (a run is in
# its own group, a fork past the limit fails, a run over 6 GiB is killed); then, as session
# 21's g87.sh (80 of 100 in 563 s, three verdicts wrong beside the fork bomb without per-run
# limits): the class of bench/class_batch.py extended to 100, graded once with the lock's
# trace, `top` and `nvidia-smi dmon`, every verdict checked against expected.json. The
# grading's folder is .scratch/class100 (carried): if the call's limit cuts the class, unpack
# it into .scratch/class100 here and run this again, which resumes it (the class's time is
# then the sum of the calls' grading walls, in summary.txt).
# (Its class steps moved afterwards, unchanged, into device_prelude.sh's class_run.)
# Run as: LIMIT=585 bash bench/h200-2026-12-04-session23/g90.sh $OUT
set -uo pipefail
LIMIT=${LIMIT:-585}
source bench/device_prelude.sh "${NAME:-g90}" "$1"  # NAME=g90b for a resuming call
s 90 build make -k -j16 all
python3 -c 'from grader import cgroup; print("limits:", cgroup.status())' | tee -a $L/summary.txt
s 60 cgroup_tests python3 -m pytest -q -p no:cacheprovider grader/tests/test_cgroup.py
tail -2 $L/cgroup_tests.log | tee -a $L/summary.txt
class_run 100
cat $L/summary.txt
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"
