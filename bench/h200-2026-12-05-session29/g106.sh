#!/usr/bin/env bash
# Session 29: the 18 students of the class of 100 that g105 had not graded when its call
# ended (the class's order puts the heavy hostile fixtures, the reference, the skeleton, the
# unicode name and the zip-slip archive last), graded on their own as a batch
# (class_batch.py run --only), so that every verdict of the class is read on the tree of
# design notes 59-67; then, with the time left, the first-launch benchmark (g101's step 1).
# Run as: NAME=g106 LIMIT=250 bash bench/h200-2026-12-05-session29/g106.sh $OUT
set -uo pipefail
source bench/device_prelude.sh "${NAME:-g106}" "$1"
s 60 build make -k -j16 all
rm -rf /tmp/class100 /tmp/tail18
python3 bench/class_batch.py make --size 100 /tmp/class100 | tail -1 | tee -a $L/summary.txt
ONLY=h05,h14,h16,k05,k08,k12,k13,k15,k16,k17,k18,k20,k21,k23,s01,s02,u01,z01
s $(($(left) - 45)) tail18 python3 bench/class_batch.py run --once --only $ONLY /tmp/class100 /tmp/tail18
grep -E "^grading|^course|^sandbox|^memory|submissions," $L/tail18.log | tee -a $L/summary.txt
grep -v ": ok$" $L/tail18.log | grep -E "^[hksuz][0-9]" | tee -a $L/summary.txt
cp -r /tmp/tail18 $L/tail18
if [ "$(left)" -gt 35 ]; then
    s 30 first_launch bash -c "first_launch_bench 3"
    grep "first launch" $L/first_launch.log | tee -a $L/summary.txt
fi
tar czf "$CML_OUT/$CML_NAME.tgz" -C /tmp "$CML_NAME"
