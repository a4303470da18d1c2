#!/usr/bin/env bash
# PREPARED, NOT RUN: session 8 had no device time left for it. Verifies the host-link check in
# timed runs only (selfcheck 3.2 and the three fixtures that failed in g31).
set -uo pipefail
source bench/device_prelude.sh g32 "$1"
s 60 build make -k -j16 all
s 60 selfcheck-3.2 python3 -m grader selfcheck --lab 3.2 --json $L/selfcheck-3.2.json
tail -12 $L/selfcheck-3.2.log
s 80 knownbad python3 -m pytest -v -ra -m gpu -n 3 grader/tests/test_known_bad.py -k "verdict and (device_to_device or copy_once_stale or tma_no_cluster_sync)"
grep -E "PASSED|FAILED|^E  .*(assert|in the report)" $L/knownbad.log | cut -c1-200 | head -12
cat $L/summary.txt
