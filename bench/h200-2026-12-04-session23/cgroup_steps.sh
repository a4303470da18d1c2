#!/usr/bin/env bash
# Which step of grader/cgroup.py's _v2_parent fails on the device (g89's limits line: "runs
# share the grader's cgroup /process_api/<id> ...: it cannot delegate to a group per run (No
# such file or directory)"): each step with the path and errno it meets.
set -u
cat /proc/self/cgroup
own=$(sed -n 's/^0:://p' /proc/self/cgroup)
B=/sys/fs/cgroup$own
echo "== base $B"; ls -la "$B" 2>&1 | head -30
ls -la /sys/fs/cgroup/process_api 2>&1 | head -10
for f in cgroup.type cgroup.controllers cgroup.subtree_control cgroup.procs; do
    echo "$f: $(cat "$B/$f" 2>&1 | head -5 | tr '\n' ' ')"
done
python3 - "$B" <<'PY'
import os, sys
from pathlib import Path
b = Path(sys.argv[1]); p = b / "cml-grader"
for what, f in [("is_dir", lambda: b.is_dir()), ("mkdir", lambda: p.mkdir(exist_ok=True)),
                ("access", lambda: os.access(p, os.W_OK)), ("ls", lambda: sorted(os.listdir(p))[:8]),
                ("read base", lambda: (b / "cgroup.subtree_control").read_text()),
                ("write base", lambda: (b / "cgroup.subtree_control").write_text("+pids")),
                ("read parent", lambda: (p / "cgroup.subtree_control").read_text()),
                ("write parent", lambda: (p / "cgroup.subtree_control").write_text("+pids"))]:
    try:
        print(what, "->", repr(f()))
    except OSError as e:
        print(what, "-> OSError", e.errno, e.strerror, e.filename)
try: p.rmdir()
except OSError as e: print("rmdir", e)
PY
mount | grep -i cgroup
