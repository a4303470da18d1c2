#!/usr/bin/env bash
# Session 45: lab 3.5's stage 1 timed as its card sets it up (bench/variants/3.5-project/
# u8_memcpy2d.toml: an 8-bit cudaArray filled by cudaMemcpy2DToArray per call, read normalized
# x 255) against the solution's float cudaArray (a conversion kernel through a surface), both
# against resample_naive in the same run, 512^2 -> 8192^2 (lab.toml's "TO DO ON A GPU"),
# three runs each, alternated.
# Run as: NAME=g158 bash bench/h200-2026-12-06-session45/g158.sh $OUT (carrying .debs).
set -uo pipefail
source bench/device_prelude.sh "${NAME:-g158}" "$1"
nvidia-smi -L | tee -a "$L/summary.txt"
python3 -c 'import sys; from pathlib import Path; sys.path.insert(0, "."); from grader import fixtures
fixtures.apply(Path("."), Path("bench/variants/3.5-project/u8_memcpy2d.toml"), Path("/tmp/u8c"))'
cp /tmp/u8c/kernels.cu labs/3.5-project/kernels.cu
s 120 build bash -c "rm -rf build && make -j16 build/3.5-project/solution/lab && make lab LAB=3.5"
for r in 1 2 3; do
    for b in solution student; do
        j="$L/$b-$r.json"
        timeout 60 "build/3.5-project/$b/lab" --exercise resample_bilinear \
            --size 512,512,8192,8192 --time --reps 25 --json "$j" >"$L/$b-$r.log" 2>&1
        python3 - "$j" "$b" "$r" <<'PY' | tee -a "$L/summary.txt"
import json, sys
path, which, run = sys.argv[1:]
try:
    d = json.load(open(path))
except Exception as e:
    print(f"{which} run {run}: no document ({e})")
    raise SystemExit
t = d.get("timing") or {}
name = {"solution": "float array + conversion kernel", "student": "8-bit array, cudaMemcpy2DToArray"}
print(f"{which} ({name[which]}) run {run}: yours {t.get('student', {}).get('median_ms')} ms, "
      f"resample_naive {t.get('baseline', {}).get('median_ms')} ms, ratio {t.get('ratio')}, "
      f"status {d.get('status')}")
PY
    done
done
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"
