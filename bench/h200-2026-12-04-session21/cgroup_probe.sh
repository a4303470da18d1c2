#!/usr/bin/env bash
# What a run's cgroup can be on this machine (g87: "no process limit and no memory limit: runs
# share the grader's cgroup /process_api/...: it cannot delegate (No such file or directory)"):
# the grader's own cgroup as /proc/self/cgroup names it, where the cgroup2 file system is
# mounted and which of the hierarchy's paths is its root (mountinfo's fourth field), and
# whether a child group with pids and memory limits can be made under that mount.
set -u
echo "== /proc/self/cgroup"; cat /proc/self/cgroup
echo "== mountinfo (cgroup)"; grep -E " - cgroup2? " /proc/self/mountinfo
M=/sys/fs/cgroup
echo "== $M"; ls $M | head -40
for f in cgroup.controllers cgroup.subtree_control cgroup.type; do
    echo "$f: $(cat $M/$f 2>&1)"
done
echo "cgroup.procs: $(wc -l < $M/cgroup.procs) processes"
grep -qx "$$" $M/cgroup.procs && echo "this shell is in the mount's root group"
echo "== grader.cgroup.status(): $(python3 -c 'from grader import cgroup; print(cgroup.status())')"
echo "== a child of the mount's root"
P=$M/cml-probe
mkdir $P && echo "mkdir: ok" || echo "mkdir: failed"
echo +pids +memory > $M/cgroup.subtree_control 2>&1 && echo "subtree_control +pids +memory: ok" \
    || echo "subtree_control: failed"
echo "subtree_control now: $(cat $M/cgroup.subtree_control 2>&1)"
ls $P 2>&1 | tr '\n' ' '; echo
echo 64 > $P/pids.max 2>&1 && echo "pids.max: $(cat $P/pids.max)"
sh -c "echo \$\$ > $P/cgroup.procs && cat /proc/self/cgroup && cat $P/pids.current" 2>&1
rmdir $P 2>&1 && echo "rmdir: ok"
