#!/usr/bin/env bash
# Session 18, call 3 (LIMIT seconds): lab 3.2c's thresholds from g70 (zero 1.5, full 3.0, the
# move back outside the samples): its three known-bad fixtures (performance lost) and its
# alternative (every point kept) in the GPU tests, selfcheck of lab 3.2, and a batch of four
# copies of the 3.2 solution (fresh seeds, side by side): every copy's total must be the same.
set -uo pipefail
LIMIT=${LIMIT:-300}
source bench/device_prelude.sh g71 "$1"
s 90 build make -k -j16 all
KB=grader/tests/test_known_bad.py::test_known_bad_verdict
s 150 knownbad python3 -m pytest -ra -m gpu -n 4 -p no:cacheprovider \
    "$KB[3.2-global-memory/prefetch_elements_not_bytes]" "$KB[3.2-global-memory/advise_without_prefetch]" \
    "$KB[3.2-global-memory/prefetch_to_host]" grader/tests/test_alternatives.py -k "unified_read_mostly or prefetch"
tail -5 $L/knownbad.log
s 120 selfcheck python3 -m grader selfcheck --lab 3.2
tail -4 $L/selfcheck.log
for i in 1 2 3 4; do mkdir -p /tmp/subs/s$i && cp solutions/3.2-global-memory/kernels.cu /tmp/subs/s$i/; done
s $(left) batch python3 -m grader batch labs/3.2-global-memory /tmp/subs/s1 /tmp/subs/s2 /tmp/subs/s3 /tmp/subs/s4 --out $L/batch
cat $L/batch/gradebook.csv
grep -h -A1 "unified_memory" $L/batch/s*/report.txt | grep -iE "ratio|unified" | head -8
cat $L/summary.txt
