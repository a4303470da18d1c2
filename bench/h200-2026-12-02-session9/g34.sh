#!/usr/bin/env bash
# Session 9. The alternatives that g30 did not reach (45 of 81: the rest
# of 3.3 and all of 3.4), about 16 s of the GPU each: two calls, by lab (ARG 2: 3.3 or 3.4).
set -uo pipefail
source bench/device_prelude.sh g34-$2 "$1"
s 60 build make -k -j16 all
LIMIT=570 s $(left) alts python3 -m pytest -v -ra -m gpu -n 6 --tb=line grader/tests/test_alternatives.py -k "keeps_its_points_on_the_gpu and $2"
grep -E "PASSED|FAILED" $L/alts.log | sed 's/.*on_the_gpu\[//; s/\].*//' | sort | uniq -c
cat $L/summary.txt
