#!/usr/bin/env bash
# Session 9, second call (about 400 s): the questions
# of issue 16 that decide 3.2d, 3.2f and 3.2g.
#   - 3.2d's two modes: the zero-copy sweep in 6 separate processes (does the 64 KiB line's
#     mapped or copied time change from process to process, and which part: update, copy,
#     k_mapped?);
#   - 3.2f: bench/roof/lab32_l2_persist.cu (where a window gains >= 1.3x);
#   - 3.2g: bench/roof/lab32_tma_cluster.cu (which variant reaches the plain baseline), and
#     whether racecheck and synccheck follow bulk copies and distributed shared memory on the
#     solution without false reports (then lab.toml adds them for 3.2g);
#   - issue 13, part 4: conv2d at R = 1..4, naive against one output per thread in a shared
#     tile against the reference (does a shared tile alone beat naive at any radius?).
set -uo pipefail
source bench/device_prelude.sh g33 "$1"
s 60 build make -k -j16 all
mkdir -p build/bench
s 60 bench-build bash -c "nvcc -O3 -arch=sm_90 -I labs/3.2-global-memory -o build/bench/lab32_zero_copy bench/roof/lab32_zero_copy.cu && nvcc -std=c++17 -O3 -arch=sm_90 -I labs/3.2-global-memory -o build/bench/lab32_l2_persist bench/roof/lab32_l2_persist.cu && nvcc -std=c++17 -O3 -arch=sm_90 -I labs/3.2-global-memory -o build/bench/lab32_tma_cluster bench/roof/lab32_tma_cluster.cu solutions/3.2-global-memory/kernels.cu labs/3.2-global-memory/baselines.cu labs/3.2-global-memory/reference.c"
for i in 1 2 3 4 5 6; do s 30 zero-copy-$i build/bench/lab32_zero_copy; done
grep -h "^csv,1,65536" $L/zero-copy-*.log
s 90 l2-persist build/bench/lab32_l2_persist
grep -E "^clear,|^csv," $L/l2-persist.log | head -50
s 120 tma-cluster build/bench/lab32_tma_cluster
grep -v "^csv," $L/tma-cluster.log | tail -25
for tool in racecheck synccheck; do
  for n in 4097 65537; do
    s 120 $tool-$n compute-sanitizer --tool $tool --error-exitcode 9 build/3.2-global-memory/solution/lab --exercise tma_cluster --size $n
    tail -3 $L/$tool-$n.log
  done
done
s 60 conv-build bash -c "nvcc -std=c++17 -O3 -arch=sm_90 -lineinfo -I labs/3.3-tiling -o build/bench/lab33_variants bench/roof/lab33_variants.cu solutions/3.3-tiling/kernels.cu labs/3.3-tiling/baselines.cu labs/3.3-tiling/reference.c"
for r in 1 2 3 4; do s 90 conv-r$r build/bench/lab33_variants --radius $r --conv-only; grep "^csv_r," $L/conv-r$r.log; done
cat $L/summary.txt
