#!/usr/bin/env bash
# Session 30: what this session changed, checked on the H200 before the class (g110):
# 1. every lab's solution and skeleton graded (the selfcheck): check sets no longer build the
#    lists the judge's secret or light list replaces (common/cml_sample.c, every lab's judge);
#    lab 3.3's transpose and convolution draw their image on the device only
#    (cml_input_uniform_view) and sgemm is timed at 2048^3 (design note 70);
# 2. the Check tests on the GPU: the device's draw is the host stream bit for bit
#    (test_fresh.c, input_view_draws_the_host_stream_on_the_device), cml_rng_uniform_at;
# 3. test_gpu.py's timed run over lab 3.3.
# Run as: LIMIT=200 bash bench/h200-2026-12-05-session30/g109.sh $OUT (carrying .debs and
# .scratch/wheels).
set -uo pipefail
LIMIT=${LIMIT:-200}
source bench/device_prelude.sh "${NAME:-g109}" "$1"
s 60 build make -k -j16 all
s 40 check bash -c check_make
grep -E "Checks|Errors|Failures|input_view|uniform_at" $L/check.log | tail -10 |
    tee -a $L/summary.txt
s 150 selfcheck env STEPS="selfcheck" bash grader/gpu_check.sh $L/gpucheck
grep -A14 "^lab  " $L/gpucheck/summary.txt | tee -a $L/summary.txt
[ "$(left)" -gt 20 ] && s $(($(left) - 5)) gpu_tests python3 -m pytest -q -p no:cacheprovider \
    grader/tests/test_gpu.py -k timed_run_over_the_lab
tail -3 $L/gpu_tests.log | tee -a $L/summary.txt
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"
