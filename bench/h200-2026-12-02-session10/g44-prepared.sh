#!/usr/bin/env bash
# PREPARED, NOT RUN, about 40 s (issue 13): bench/roof/lab34_texture_setup.cu, three times in
# separate processes — does lab 3.4d's (and 3.5's) texture need its per-call cudaArray?
set -uo pipefail
source bench/device_prelude.sh g44 "$1"
mkdir -p build/bench
s 120 build-tex nvcc -O3 -arch=sm_90 -I labs/3.4-constant-texture -o build/bench/lab34_texture_setup bench/roof/lab34_texture_setup.cu labs/3.4-constant-texture/baselines.cu solutions/3.4-constant-texture/kernels.cu
for r in 1 2 3; do s 60 tex-$r build/bench/lab34_texture_setup; cat $L/tex-$r.log; done
cat $L/summary.txt
