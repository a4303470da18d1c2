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
# Run as: LIMIT=585 bash bench/h200-2026-12-04-session23/g90.sh $OUT
set -uo pipefail
LIMIT=${LIMIT:-585}
source bench/device_prelude.sh "${NAME:-g90}" "$1"  # NAME=g90b for a resuming call
s 90 build make -k -j16 all
python3 -c 'from grader import cgroup; print("limits:", cgroup.status())' | tee -a $L/summary.txt
s 60 cgroup_tests python3 -m pytest -q -p no:cacheprovider grader/tests/test_cgroup.py
tail -2 $L/cgroup_tests.log | tee -a $L/summary.txt
rm -rf /tmp/class100 && python3 bench/class_batch.py make --size 100 /tmp/class100 | tail -2 | tee -a $L/summary.txt
mkdir -p .scratch/class100
watch_start 100
a=$(date +%s)
s $(($(left) - 25)) class100 python3 bench/class_batch.py run --once /tmp/class100 .scratch/class100
echo "class100: $(ls .scratch/class100/grading-1/*/report.json 2>/dev/null | wc -l) reports in $(($(date +%s) - a)) s (this call)" | tee -a $L/summary.txt
watch_stop
gzip -f $L/top100.txt
python3 bench/throughput/lock_trace.py $L/trace100.txt | tee -a $L/summary.txt
python3 bench/throughput/batch_phases.py .scratch/class100/grading-1 | tee -a $L/summary.txt
python3 bench/throughput/class_verdicts.py .scratch/class100/grading-1 /tmp/class100/expected.json | tee $L/verdicts.txt | tail -4 | tee -a $L/summary.txt
cp -r .scratch/class100 $L/class100
cat $L/summary.txt
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"
