#!/usr/bin/env bash
# Lab 3.2c's on-demand baseline against the host NUMA node of its pages (design note 92):
# the machine's NUMA layout, then unified_numa (its header says what it times) unpinned twice
# and pinned to each node's CPUs. Run as: bash bench/numa/run.sh OUTDIR
set -uo pipefail
o=$1/numa
mkdir -p "$o"
{
    lscpu | grep -i -E "numa|socket|model name"
    nvidia-smi topo -m
    nvcc -O3 -arch=sm_90 -o /tmp/unified_numa bench/numa/unified_numa.cu || exit 1
    for k in 1 2; do echo "== unpinned $k"; timeout 60 /tmp/unified_numa 15; done
    for node in /sys/devices/system/node/node*; do
        cpus=$(cat "$node/cpulist")
        echo "== pinned to ${node##*/} (CPUs $cpus)"
        timeout 60 taskset -c "$cpus" /tmp/unified_numa 15
    done
} 2>&1 | tee "$o/log.txt"
