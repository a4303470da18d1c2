#!/usr/bin/env bash
# Session 19, call 2 (LIMIT seconds, about 570):
# - g75's failure fixed: hostile_weights_recomputed's timed run, wrong only in the host-link
#   check's element, now gets lab 3.2's edge hint (with device_to_device, the same check);
# - issue 13: the third pass of lab 3.4's alternatives (figures/);
# - issue 15: where a lone 3.3 grade's CPU goes (bench/throughput/grade_cpu.py: each exercise's
#   timed run, the sanitizer tools);
# - session 18's judge, worker and timing refactors against the known-bad fixtures that do not
#   lose performance points, and selfcheck of labs 3.1, 3.4, 3.5 (lab 3.2's ran in g75).
# Run as: LIMIT=570 bash bench/h200-2026-12-03-session19/g76.sh $OUT
set -uo pipefail
LIMIT=${LIMIT:-570}
source bench/device_prelude.sh g76 "$1"
s 90 build make -k -j16 all
KB=grader/tests/test_known_bad.py::test_known_bad_verdict
s 90 hostlink python3 -m pytest -ra -m gpu -n 2 -p no:cacheprovider \
    "$KB[3.2-global-memory/hostile_weights_recomputed]" "$KB[3.2-global-memory/device_to_device]"
tail -3 $L/hostlink.log
export CML_ALTERNATIVE_FIGURES=$L/figures
s 200 alts34 python3 -m pytest -v -rA -m gpu -n 12 -p no:cacheprovider --tb=line \
    grader/tests/test_alternatives.py -k "keeps_its_points_on_the_gpu and constant"
unset CML_ALTERNATIVE_FIGURES
cat $L/figures/*.txt > $L/points.txt 2>/dev/null
echo "alts34: $(grep -cE ' PASSED' $L/alts34.log) passed, $(grep -cE ' FAILED' $L/alts34.log) failed, $(wc -l < $L/points.txt) figures" | tee -a $L/summary.txt
grep -E " FAILED" $L/alts34.log | head -10
s 140 cpu python3 bench/throughput/grade_cpu.py labs/3.3-tiling solutions/3.3-tiling $L/cpu
cat $L/cpu.log
s $(($(left) - 5)) knownbad-other python3 -m pytest -ra -m gpu -n 8 -p no:cacheprovider $(known_bad_ids 0)
tail -4 $L/knownbad-other.log
s $(left) selfcheck python3 -m grader selfcheck --lab 3.1 --lab 3.4 --lab 3.5
tail -14 $L/selfcheck.log
cat $L/summary.txt
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"
