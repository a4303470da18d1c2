#!/usr/bin/env bash
# Session 8, call 2 (run inline, recorded here): the alternatives of labs 3.3 and 3.4 on the GPU.
source bench/device_prelude.sh g30 "$1"
s 150 build make -k -j16 all
LIMIT=560 s $(left) alts python3 -m pytest -v -ra -m gpu -n 6 grader/tests/test_alternatives.py -k "3.3 or 3.4" --junitxml=$L/alts.xml
