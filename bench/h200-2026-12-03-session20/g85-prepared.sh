#!/usr/bin/env bash
# PREPARED in session 20, NOT RUN (the session's device time was spent): what design note 48
# (untimed runs with CUDA_DEVICE_MAX_CONNECTIONS=1) was not yet run on: selfcheck of every lab
# (every solution full marks, every skeleton 0), the alternatives of labs 3.2 and 3.4 (their
# correctness and sanitizer runs with one work queue; 3.2b's streams), and two lone grades of
# the 3.3 solution (issue 15: one grade <= 20 s with its build; g65: 18.0-19.5 s).
# Run as: LIMIT=480 bash bench/h200-2026-12-03-session20/g85-prepared.sh $OUT
set -uo pipefail
LIMIT=${LIMIT:-480}
source bench/device_prelude.sh g85 "$1"
s 90 build make -k -j16 all
KB=grader/tests/test_known_bad.py::test_known_bad_verdict
s 120 kb32 python3 -m pytest -ra -m gpu -n 8 -p no:cacheprovider \
    $(known_bad_ids 0 | grep 3.2-global-memory) $(known_bad_ids 1 | grep 3.2-global-memory)
tail -2 $L/kb32.log | tee -a $L/summary.txt
for lab in 3.1 3.2 3.3 3.4 3.5; do
    s 120 selfcheck$lab python3 -m grader selfcheck --lab $lab
    tail -3 $L/selfcheck$lab.log | tee -a $L/summary.txt
done
for n in 1 2; do
    a=$(date +%s)
    s 60 grade$n python3 -m grader grade labs/3.3-tiling --submission solutions/3.3-tiling \
        --json $L/grade$n.json
    echo "grade$n: $(($(date +%s) - a)) s wall, $(python3 -c "import json; r=json.load(open('$L/grade$n.json')); print(r['total'], '/', r['max'], r['timings_s'])")" | tee -a $L/summary.txt
done
export CML_ALTERNATIVE_FIGURES=$L/figures
s $(left) alts python3 -m pytest -v -rA -m gpu -n 12 -p no:cacheprovider --tb=line \
    grader/tests/test_alternatives.py -k "keeps_its_points_on_the_gpu and (3.2 or 3.4)"
unset CML_ALTERNATIVE_FIGURES
echo "alts: $(grep -cE ' PASSED' $L/alts.log) passed, $(grep -cE ' FAILED' $L/alts.log) failed" | tee -a $L/summary.txt
grep -E " FAILED" $L/alts.log | head -10 | tee -a $L/summary.txt
cat $L/summary.txt
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"
