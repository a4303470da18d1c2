#!/usr/bin/env bash
# Session 8, call 3: lab 3.2 with c-e calibrated (selfcheck, every known-bad), 3.3d's known-bad,
# the two 3.3 alternatives that failed in g30, a NUMA probe for 3.2d's two modes, a batch of 16.
set -uo pipefail
source bench/device_prelude.sh g31 "$1"
s 150 build make -k -j16 all
s 170 selfcheck-3.2 python3 -m grader selfcheck --lab 3.2 --json $L/selfcheck-3.2.json
tail -30 $L/selfcheck-3.2.log
s 200 knownbad python3 -m pytest -v -ra -m gpu -n 4 grader/tests/test_known_bad.py -k "3.2 or sgemm"
grep -E "PASSED|FAILED|SKIPPED|ERROR" $L/knownbad.log | sed 's/.*test_known_bad.py:://' | sort | uniq | head -40
s 110 alts2 python3 -m pytest -v -ra -m gpu -n 2 --tb=short grader/tests/test_alternatives.py -k "keeps_its_points_on_the_gpu and (conv_grid_stride_tiles or conv_tile32x32)"
grep -E "PASSED|FAILED|^E " $L/alts2.log | head -30
{ lscpu | grep -iE "numa|model name|socket"; nvidia-smi topo -m; bus=$(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader | tr 'A-Z' 'a-z' | sed 's/^0000//'); echo "bus $bus"; cat /sys/bus/pci/devices/0000${bus#0000}/local_cpulist /sys/bus/pci/devices/0000${bus#0000}/numa_node 2>&1; cat /sys/devices/system/node/node*/cpulist 2>&1; } > $L/numa.txt 2>&1
cat $L/numa.txt
for node in /sys/devices/system/node/node*; do
  n=$(basename $node); cpus=$(cat $node/cpulist)
  s 60 zc-$n taskset -c $cpus python3 bench/calibrate.py --runs 3 --lab 3.2 --exercise zero_copy --out $L/zc-$n.json
  grep "^| zero_copy | solution" $L/zc-$n.log
done
mkdir -p /tmp/class16; for i in $(seq -w 1 16); do cp -r solutions/3.3-tiling /tmp/class16/s$i; done
s $(left) batch16 python3 -m grader batch labs/3.3-tiling /tmp/class16/s* --out $L/batch16
tail -5 $L/batch16.log; ls $L/batch16 | head
cat $L/summary.txt
