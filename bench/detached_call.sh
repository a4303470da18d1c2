#!/usr/bin/env bash
# A GPU script that may outlast one device call (each at most 600 s; docs: the device's
# README: a process that started a session of its own runs on until the machine goes back,
# 30 s after a call, so a second call made at once finds it still running).
#   bash bench/detached_call.sh start WAIT_S OUT -- CMD...
#       copies the tree to /tmp/detached-tree (a later call's copy of the working tree cannot
#       touch the files CMD reads), starts CMD there in a session of its own, its output
#       folder argument /tmp/detached-out (CMD gets it as its last argument), then waits as
#       `wait` does;
#   bash bench/detached_call.sh wait WAIT_S OUT
#       waits until CMD has ended or WAIT_S seconds have passed, then copies what CMD wrote so
#       far (/tmp/detached-out), its console and a snapshot of the tree's .scratch/class* (a
#       class's reports and log so far) into OUT. /tmp/detached-out/EXIT holds CMD's exit
#       status once it has ended.
set -uo pipefail
verb=$1 wait_s=$2 out=$3
shift 3
T=/tmp/detached-tree
O=/tmp/detached-out
a=$(date +%s)
mkdir -p "$out"
if [ "$verb" = start ]; then
    [ "${1:-}" = -- ] && shift
    rm -rf "$T" "$O" && mkdir -p "$O" && cp -a . "$T"
    (cd "$T" && setsid nohup bash -c '"$@" "'"$O"'"; echo $? >'"$O"'/EXIT' _ "$@" \
        >"$O/console.txt" 2>&1 </dev/null &)
    echo "started at $(date +%T): $*" | tee -a "$O/calls.txt"
fi
while [ ! -e "$O/EXIT" ] && [ $(($(date +%s) - a)) -lt "$wait_s" ]; do
    sleep 2
done
echo "call ($verb) ended at $(date +%T) after $(($(date +%s) - a)) s; CMD ended: " \
    "$(cat "$O/EXIT" 2>/dev/null || echo no)" | tee -a "$O/calls.txt"
cp -r "$O"/. "$out"/
# shellcheck disable=SC2046 # the class folders, if any
tar czf "$out/scratch.tgz" -C "$T" $(cd "$T" && ls -d .scratch/class* 2>/dev/null) 2>/dev/null
ls -la "$out"
