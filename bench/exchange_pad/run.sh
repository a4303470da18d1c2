#!/usr/bin/env bash
# Design note 96's experiment: lab 3.5's solution graded on image_pipeline (single launches of
# about 0.7 ms) while a child of its process lengthens the course's empty-kernel exchange
# (bench/variants/3.5-project/exchange_padded.toml): PAD_US of every SM spun on the GPU,
# PAD_DELAY_US after each of the parent's launches ends. Each variant is graded once, without
# the sanitizer; summary.py gives the exchange (alone, among, subtracted) and the ratio as
# graded beside the ratio a judge without the cap would have given (the same samples, the
# whole exchange subtracted).
#   bash bench/exchange_pad/run.sh OUTDIR "PAD_US:PAD_DELAY_US ..."   (on a GPU machine)
set -uo pipefail
out=$1
mkdir -p "$out"
for v in $2; do
    pad=${v%%:*} delay=${v##*:}
    sub=/tmp/exchange-pad-$pad-$delay
    rm -rf "$sub"
    python3 -c "import sys; from pathlib import Path; from grader import fixtures; \
fixtures.apply(Path('.'), Path('bench/variants/3.5-project/exchange_padded.toml'), Path(sys.argv[1]))" \
        "$sub" || exit 1
    sed -i -e "s/^#define PAD_US 300$/#define PAD_US $pad/" \
        -e "s/^#define PAD_DELAY_US 0$/#define PAD_DELAY_US $delay/" "$sub/kernels.cu"
    grep -q "^#define PAD_US $pad$" "$sub/kernels.cu" || exit 1
    a=$(date +%s)
    timeout -k 5 120 python3 -m grader grade labs/3.5-project --submission "$sub" \
        --exercise image_pipeline --no-sanitizer --json "$out/pad-$pad-$delay.json" \
        >"$out/pad-$pad-$delay.log" 2>&1
    echo "pad $pad us, delay $delay us: exit $? in $(($(date +%s) - a)) s"
done
python3 bench/exchange_pad/summary.py "$out"/*.json
