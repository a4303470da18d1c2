#!/usr/bin/env bash
# Session 11, call 4 (about 400 s, the last of the session's device time): selfcheck of every
# lab (the student's process now reads its inputs back from the judge's buffers in every lab),
# then the two 3.5 fixtures g47 left unfinished at its time limit.
set -uo pipefail
LIMIT=${LIMIT:-420}
source bench/device_prelude.sh g48 "$1"
s 60 build make -k -j16 all
s 250 selfcheck-all python3 -m grader selfcheck --json $L/selfcheck-all.json
tail -14 $L/selfcheck-all.log
s $(left) knownbad-35 python3 -m pytest -ra -m gpu -n 2 -k "blur_halo_zero_padding or hostile_pipeline_memo" grader/tests/test_known_bad.py
tail -5 $L/knownbad-35.log
cat $L/summary.txt
tar czf "$CML_OUT/g48.tgz" -C /tmp g48
