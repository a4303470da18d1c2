#!/usr/bin/env bash
# PREPARED in session 19, NOT RUN (too little device time was left to start a machine); about 60 s
# of work: g78 showed lone sgemm grades pinned to the 3 kept CPUs timing their samples in 10.85 s
# three times out of three, 0.35 s with nothing kept. Here: where
# each thread of the timed run runs (ps -L's psr, sampled every 0.5 s) with 3 kept CPUs, then two
# grades with 4 kept (cpus.TIMING_CPUS patched on this machine only).
# Run as: LIMIT=120 bash bench/h200-2026-12-03-session19/g79-prepared.sh $OUT
set -uo pipefail
LIMIT=${LIMIT:-120}
source bench/device_prelude.sh g79 "$1"
s 90 build make -k -j16 all
one() {
    local n=$1
    (for k in $(seq 60); do echo "== $k"; ps -eLo pid,tid,psr,pcpu,stat,comm | awk '$4 > 5'; sleep 0.5; done) > $L/psr-$n.txt &
    local P=$!
    s 40 $n python3 -m grader grade labs/3.3-tiling --submission solutions/3.3-tiling \
        --exercise sgemm --no-sanitizer --json $L/$n.json
    kill $P
    python3 -c "
import json,sys
r=json.load(open('$L/$n.json'))
for e in r['exercises']:
    for d in e['parts']['performance'].get('details') or []:
        print('  $n timing_samples', round((d.get('phases_ms') or {}).get('timing_samples',-1)), 'ms')
" | tee -a $L/summary.txt
}
one kept3
sed -i 's/^TIMING_CPUS = 3 /TIMING_CPUS = 4 /' grader/cpus.py
grep -n "^TIMING_CPUS" grader/cpus.py | tee -a $L/summary.txt
one kept4a
one kept4b
cat $L/summary.txt
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"
