"""grader.cgroup: each run of submission code in its own cgroup with a process limit, so a
fork bomb cannot take the machine's process table (the H200 batch of 2026-11-29 showed it
can without one), and a memory limit, so a huge allocation is killed in its own group.
Where the grader cannot make cgroups (not root, read-only /sys/fs/cgroup) the limit tests
are skipped, visibly."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from grader import cgroup
from grader import run as runner


def _running(cmdline: str) -> list[int]:
    """Pids whose /proc/PID/cmdline is exactly ``cmdline`` (NUL-separated arguments)."""
    pids = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if (d / "cmdline").read_bytes().decode(errors="replace") == cmdline:
                    pids.append(int(d.name))
            except OSError:
                pass
    return pids


needs_cgroup = pytest.mark.skipif("pids" not in cgroup._parents().folders, reason=cgroup.status())
needs_memory_cgroup = pytest.mark.skipif(
    "memory" not in cgroup._parents().folders, reason=cgroup.status()
)
# writes (so really uses) 256 MiB of host memory, then says so
ALLOCATE_256_MIB = ["python3", "-c", "b = b'x' * (256 * 2**20); print(len(b))"]


@needs_cgroup
def test_a_run_cannot_start_more_than_the_limit_and_its_group_is_removed():
    parent = cgroup._parents().folders["pids"]
    script = (
        "grep -o 'cml-grader/run-[0-9a-f-]*' /proc/self/cgroup | head -n 1; "
        # a duration no other test sleeps, so that the check below sees only these sleeps
        # (test_run.py and test_harness.py run `sleep 30` beside it under xdist)
        "n=0; while [ $n -lt 700 ]; do sleep 3017 & if [ $? -ne 0 ]; then break; fi; "
        "n=$((n+1)); done; echo started $n"
    )
    out = runner.run(["/bin/sh", "-c", script], timeout_s=60, max_output=64 * 1024)
    assert out.kind == "exited", out.describe()
    assert "fork" in out.stderr.lower(), out.stderr[-400:]
    assert "started 700" not in out.stdout
    group = out.stdout.splitlines()[0].split("/", 1)[1]
    assert group.startswith("run-")
    # the sleeps are gone with the group, and so is the group (other runs on this machine
    # may have groups of their own: only this run's is checked)
    assert not _running("sleep\x003017\x00")
    assert not (parent / group).exists()


@needs_cgroup
def test_a_run_is_in_its_own_group():
    out = runner.run(["/bin/cat", "/proc/self/cgroup"], timeout_s=10)
    assert f"/{cgroup.PARENT}/run-" in out.stdout, out.stdout


@needs_memory_cgroup
def test_a_run_over_the_memory_limit_is_killed_and_said(monkeypatch):
    monkeypatch.setattr(cgroup, "MAX_MEMORY_BYTES", 64 * 2**20)
    out = runner.run(ALLOCATE_256_MIB, timeout_s=60)
    assert out.kind == "memory", out.describe()
    assert out.describe() == "killed for using more than 64 MiB of host memory"
    assert out.memory_limit == 64 * 2**20
    assert "268435456" not in out.stdout


@needs_memory_cgroup
def test_a_run_under_the_memory_limit_runs_and_its_peak_is_measured(monkeypatch):
    monkeypatch.setattr(cgroup, "MAX_MEMORY_BYTES", 1024 * 2**20)
    out = runner.run(ALLOCATE_256_MIB, timeout_s=60)
    assert out.ok and out.stdout.strip() == "268435456", out.describe()
    if out.peak_bytes is not None:  # the kernel may not say (v2 before 5.19)
        assert 256 * 2**20 <= out.peak_bytes <= 1024 * 2**20


def test_the_status_line_names_each_limit_or_why_it_is_missing():
    line = cgroup.status()
    parents = cgroup._parents()
    assert ("512 processes" in line) == ("pids" in parents.folders)
    assert ("no process limit" in line) == ("pids" not in parents.folders)
    assert ("GiB of memory" in line) == ("memory" in parents.folders)
    assert ("no memory limit" in line) == ("memory" not in parents.folders)


def test_one_reason_for_both_missing_limits_is_said_once(monkeypatch):
    """A batch on the H200 could make no cgroup of either kind for the same reason: the
    report's sandbox line says it once, not twice."""
    why = "runs share the grader's cgroup /x and its limits: it cannot delegate"
    both = cgroup._Parents(False, {}, {"pids": why, "memory": why})
    monkeypatch.setattr(cgroup, "_parents", lambda: both)
    line = cgroup.status()
    assert line == f"no process limit and no memory limit: {why}" and line.count(why) == 1
    apart = cgroup._Parents(False, {}, {"pids": why, "memory": "no memory controller"})
    monkeypatch.setattr(cgroup, "_parents", lambda: apart)
    assert cgroup.status() == f"no process limit: {why}; no memory limit: no memory controller"


def test_joining_failure_is_said_and_the_run_still_happens(tmp_path):
    procs = [str(tmp_path / "missing" / "cgroup.procs"), str(tmp_path / "gone" / "cgroup.procs")]
    argv = ["/bin/sh", "-c", cgroup.JOIN, "cml-join", *procs, "--"]
    out = subprocess.run([*argv, "/bin/echo", "ran", "--"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout == "ran --\n"
    assert out.stderr.count("could not join the cgroup") == 2, out.stderr


def test_the_prefix_joins_every_group_before_the_run(tmp_path):
    procs = [tmp_path / "a.procs", tmp_path / "b.procs"]
    argv = ["/bin/sh", "-c", cgroup.JOIN, "cml-join", *map(str, procs), "--"]
    out = subprocess.run([*argv, "/bin/sh", "-c", "echo $$"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    # exec keeps the pid: the run is the process that joined
    assert [p.read_text().strip() for p in procs] == [out.stdout.strip()] * 2


def test_runs_without_limits_are_not_moved():
    out = runner.run(["/bin/cat", "/proc/self/cgroup"], timeout_s=10, limits=False)
    assert f"/{cgroup.PARENT}/run-" not in out.stdout


@pytest.mark.parametrize("v2", [True, False], ids=["v2", "v1"])
def test_the_limit_and_the_oom_killer_are_read_from_the_controller_files(tmp_path, v2):
    g = cgroup.Group([], tmp_path, v2, 2**30)
    assert not g.at_limit() and not g.oom_killed() and g.peak_bytes() is None  # no files yet
    if v2:
        (tmp_path / "memory.events").write_text("low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n")
        (tmp_path / "memory.peak").write_text("1234\n")
        assert not g.at_limit() and not g.oom_killed() and g.peak_bytes() == 1234
        (tmp_path / "memory.events").write_text("low 0\nhigh 0\nmax 17\noom 1\noom_kill 1\n")
    else:
        (tmp_path / "memory.failcnt").write_text("0\n")
        (tmp_path / "memory.oom_control").write_text(
            "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n"
        )
        (tmp_path / "memory.max_usage_in_bytes").write_text("1234\n")
        assert not g.at_limit() and not g.oom_killed() and g.peak_bytes() == 1234
        (tmp_path / "memory.failcnt").write_text("17\n")
        (tmp_path / "memory.oom_control").write_text(
            "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n"
        )
    assert g.at_limit() and g.oom_killed()


# -- where the groups are made: inside the grader's own cgroup (a Slurm job's, say) --------


def _fake_v2(tmp_path, monkeypatch, own: str, offered: str = "cpu pids memory") -> Path:
    """A cgroup2 mount at tmp_path/cgroup whose root offers cpu, pids and memory, the
    grader's cgroup ``own`` in it offering ``offered`` to its children; outside Slurm."""
    root = tmp_path / "cgroup"
    base = root / own.strip("/")
    base.mkdir(parents=True)
    (root / "cgroup.controllers").write_text("cpu pids memory\n")
    (root / "cgroup.subtree_control").write_text("")
    (base / "cgroup.controllers").write_text(f"{offered}\n")
    (base / "cgroup.subtree_control").write_text("")
    monkeypatch.delenv("SLURM_JOB_ID", raising=False)
    monkeypatch.setattr(cgroup, "ROOT_V2", root)
    proc = tmp_path / "proc-self-cgroup"
    proc.write_text(f"0::{own}\n")
    monkeypatch.setattr(cgroup, "PROC_SELF_CGROUP", proc)
    return base


def test_v2_groups_are_made_inside_the_graders_own_cgroup(tmp_path, monkeypatch):
    """A grader inside a Slurm job's cgroup makes its runs' groups there, not at the
    hierarchy's root, where they would escape the job's --mem and process tracking."""
    base = _fake_v2(tmp_path, monkeypatch, "/system.slice/job_7/step_0")
    (base / "cml-grader").mkdir()  # the kernel gives a new cgroup its files; a test folder not
    (base / "cml-grader" / "cgroup.subtree_control").write_text("")
    p = cgroup._v2_parent(["cpu", "pids", "memory"])
    assert p.folders == {"pids": base / "cml-grader", "memory": base / "cml-grader"}
    # both enabled in one write: the kernel enables all of them or none
    assert (base / "cgroup.subtree_control").read_text() == "+pids +memory"


def test_v2_without_delegation_in_a_slurm_job_reports_the_jobs_limits(tmp_path, monkeypatch):
    """The job's cgroup holds the grader's processes and cannot give controllers to
    children (EBUSY): no group per run, nothing made at the root, and the status says
    whose limits apply."""
    base = _fake_v2(tmp_path, monkeypatch, "/system.slice/job_7/step_0")
    monkeypatch.setenv("SLURM_JOB_ID", "7")
    (base / "cgroup.subtree_control").unlink()
    (base / "cgroup.subtree_control").mkdir()  # writing it fails, as EBUSY would
    p = cgroup._v2_parent(["pids", "memory"])
    assert p.folders == {}
    assert p.missing["pids"].startswith("runs share the Slurm job's cgroup and its limits")
    assert "/system.slice/job_7/step_0 cannot delegate" in p.missing["memory"]
    assert not (base / "cml-grader").exists()  # nothing left behind in the job's cgroup
    assert not (tmp_path / "cgroup" / "cml-grader").exists()
    assert (tmp_path / "cgroup" / "cgroup.subtree_control").read_text() == ""  # root untouched


def test_a_failed_delegation_disables_what_it_enabled(tmp_path, monkeypatch):
    """The kernel lets a threaded controller (pids) into a cgroup that holds processes and
    refuses memory: whatever this grader enabled on the way is disabled again, so the job's
    (or unit's) cgroup is left as it was."""
    base = _fake_v2(tmp_path, monkeypatch, "/system.slice/job_7/step_0")
    monkeypatch.setenv("SLURM_JOB_ID", "7")
    (base / "cml-grader").mkdir()
    (base / "cml-grader" / "cgroup.subtree_control").mkdir()  # this level's write fails
    p = cgroup._v2_parent(["pids", "memory"])
    assert p.folders == {}
    assert (base / "cgroup.subtree_control").read_text() == "-pids -memory"  # undone


def test_v2_groups_inside_the_root_cgroup_where_the_grader_runs_there(tmp_path, monkeypatch):
    """A grader in the hierarchy's root cgroup (a machine without systemd, a container's own
    namespace) makes its runs' parent there and says no more; where that fails, it says it
    cannot make a cgroup, and tries nothing else."""
    root = _fake_v2(tmp_path, monkeypatch, "/")
    (root / "cml-grader").mkdir()
    (root / "cml-grader" / "cgroup.subtree_control").write_text("")
    p = cgroup._v2_parent(["pids", "memory"])
    assert p.folders == {"pids": root / "cml-grader", "memory": root / "cml-grader"}
    assert p.where == "" and p.missing == {}
    (root / "cgroup.controllers").write_text("cpu memory\n")  # a root without pids to give
    p = cgroup._v2_parent(["pids", "memory"])
    assert p.folders == {}
    why = "cannot make a cgroup (it offers no pids controller to its children)"
    assert p.missing == {"pids": why, "memory": why}


def test_v2_groups_at_the_mounts_root_where_the_graders_cgroup_offers_no_pids(
    tmp_path, monkeypatch
):
    """The H200 machine (bench/h200-2026-12-04-session23/cgroup_steps.log): the grader's
    cgroup /process_api/<id> offers only memory to its children, so "+pids" in its
    subtree_control fails (ENOENT), and it holds processes. Outside a Slurm job the runs'
    groups are made at the mount's root, and the limits line says where and why."""
    base = _fake_v2(tmp_path, monkeypatch, "/process_api/67dac7", offered="memory")
    root = tmp_path / "cgroup"
    (root / "cml-grader").mkdir()  # the kernel gives a new cgroup its files; a test folder not
    (root / "cml-grader" / "cgroup.subtree_control").write_text("")
    p = cgroup._v2_parent(["cpu", "pids", "memory"])
    assert p.folders == {"pids": root / "cml-grader", "memory": root / "cml-grader"}
    assert not (base / "cml-grader").exists()
    monkeypatch.setattr(cgroup, "_parents", lambda: p)
    assert cgroup.status() == (
        f"at most {cgroup.MAX_PIDS} processes and threads and 6 GiB of memory per run "
        f"(cgroup, at the root of {root}: the grader's cgroup /process_api/67dac7 cannot "
        "delegate to a group per run (it offers no pids controller to its children))"
    )
    assert (root / "cgroup.subtree_control").read_text() == "+pids +memory"

    # where the root cannot be written either (a container's read-only view), none
    (root / "cml-grader" / "cgroup.subtree_control").unlink()
    (root / "cml-grader").rmdir()
    (root / "cgroup.subtree_control").unlink()
    (root / "cgroup.subtree_control").mkdir()
    p = cgroup._v2_parent(["pids", "memory"])
    assert p.folders == {} and not (root / "cml-grader").exists()
    assert p.missing["pids"].startswith("runs share the grader's cgroup and its limits")
    assert f"nor could groups be made at the root of {root}" in p.missing["pids"]


def test_v2_groups_at_the_mounts_root_where_the_graders_cgroup_is_not_in_it(
    tmp_path, monkeypatch
):
    """A container's mount of another view: /proc/self/cgroup names a cgroup the mounted
    hierarchy does not hold. Outside a Slurm job the groups are made at the mount's root,
    and the status line says where and why."""
    root = tmp_path / "cgroup"
    root.mkdir()
    (root / "cgroup.controllers").write_text("cpuset cpu io memory hugetlb pids\n")
    (root / "cgroup.subtree_control").write_text("")
    (root / "cml-grader").mkdir()  # the kernel gives a new cgroup its files; a test folder not
    (root / "cml-grader" / "cgroup.subtree_control").write_text("")
    monkeypatch.setattr(cgroup, "ROOT_V2", root)
    proc = tmp_path / "proc-self-cgroup"
    proc.write_text("0::/process_api/682b690542ef60232390555046b33216\n")
    monkeypatch.setattr(cgroup, "PROC_SELF_CGROUP", proc)
    monkeypatch.delenv("SLURM_JOB_ID", raising=False)
    p = cgroup._v2_parent(["cpuset", "cpu", "io", "memory", "hugetlb", "pids"])
    assert p.folders == {"pids": root / "cml-grader", "memory": root / "cml-grader"}
    assert p.missing == {}
    monkeypatch.setattr(cgroup, "_parents", lambda: p)
    assert cgroup.status() == (
        f"at most {cgroup.MAX_PIDS} processes and threads and 6 GiB of memory per run "
        f"(cgroup, at the root of {root}: the grader's cgroup "
        f"/process_api/682b690542ef60232390555046b33216 is not in the hierarchy mounted at {root})"
    )

    # in a Slurm job the job's limits are the ones in force: nothing is made at the root
    monkeypatch.setenv("SLURM_JOB_ID", "7")
    (root / "cml-grader" / "cgroup.subtree_control").unlink()
    (root / "cml-grader").rmdir()
    p = cgroup._v2_parent(["memory", "pids"])
    assert p.folders == {} and not (root / "cml-grader").exists()
    assert "is not in the hierarchy mounted at" in p.missing["pids"]
    assert p.missing["memory"].startswith("runs share the Slurm job's cgroup and its limits")


def test_v1_groups_are_made_inside_each_controllers_own_cgroup(tmp_path, monkeypatch):
    roots = {c: tmp_path / c for c in ("pids", "memory")}
    for r in roots.values():
        r.mkdir()
        (r / "cgroup.procs").write_text("")
    monkeypatch.setattr(cgroup, "ROOT_V1", roots)
    (roots["memory"] / "slurm" / "uid_0" / "job_7").mkdir(parents=True)  # the job's cgroup
    proc = tmp_path / "proc-self-cgroup"
    proc.write_text("8:pids:/\n4:memory:/slurm/uid_0/job_7\n0::/\n")
    monkeypatch.setattr(cgroup, "PROC_SELF_CGROUP", proc)
    p = cgroup._v1_parents()
    assert p.folders["pids"] == roots["pids"] / "cml-grader"
    assert p.folders["memory"] == roots["memory"] / "slurm" / "uid_0" / "job_7" / "cml-grader"


def test_a_slurm_jobs_cgroup_is_known_by_its_path_without_slurm_job_id(tmp_path, monkeypatch):
    """`sudo` clears SLURM_JOB_ID; the job's cgroup path (Slurm's cgroup/v2 plugin:
    .../job_<id>/step_<n>/...) still says the grader is in a job: nothing is made at the
    root, and the line says the job's limits hold. A path that merely holds "job" is no job."""
    own = "/system.slice/slurmstepd.scope/job_42/step_0/user/task_0"
    base = _fake_v2(tmp_path, monkeypatch, own, offered="memory")
    p = cgroup._v2_parent(["pids", "memory"])
    assert p.folders == {} and p.missing["pids"].startswith("runs share the Slurm job's cgroup")
    assert not (tmp_path / "cgroup" / "cml-grader").exists() and not (base / "cml-grader").exists()
    assert not cgroup._in_slurm_job("/user.slice/jobs_1/x") and cgroup._in_slurm_job("/a/job_7")


def test_the_machines_memory_is_the_kernels_total():
    meminfo = Path("/proc/meminfo").read_text().split()
    assert cgroup._machine_memory() == int(meminfo[meminfo.index("MemTotal:") + 1]) * 1024


@pytest.mark.parametrize("v2", [True, False])
def test_all_runs_together_are_bounded_in_their_parent_group(tmp_path, monkeypatch, v2):
    """Design note 64: the runs' memory parent gets ALL_RUNS_SHARE of the machine's memory
    (in whole GiB, never less than one run's limit), so that many runs at their own limit at
    once (a batch's gradings run up to three each) cannot exhaust the machine; the limits
    line says it. Where the parent's limit cannot be written, nothing is claimed."""
    memory = [131072000 * 1024]  # 125 GiB
    monkeypatch.setattr(cgroup, "_machine_memory", lambda: memory[0])
    parent = tmp_path / "cml-grader"
    parent.mkdir()
    p = cgroup._Parents(v2, {"pids": parent, "memory": parent}, {})
    bounded = cgroup._bound_all_runs(p)
    name = "memory.max" if v2 else "memory.limit_in_bytes"
    assert bounded.all_runs_bytes == 93 * 2**30  # 0.75 x 125 GiB, whole GiB
    assert (parent / name).read_text() == str(93 * 2**30)
    monkeypatch.setattr(cgroup, "_parents", lambda: bounded)
    assert "6 GiB of memory per run, 93 GiB of memory for all runs together" in cgroup.status()

    memory[0] = 4096000 * 1024  # 3.9 GiB: one run's limit at least
    assert cgroup._bound_all_runs(p).all_runs_bytes == cgroup.MAX_MEMORY_BYTES
    gone = cgroup._Parents(v2, {"memory": tmp_path / "not-made"}, {})
    assert cgroup._bound_all_runs(gone) == gone  # not written: not claimed
    monkeypatch.setattr(cgroup, "_parents", lambda: gone)
    assert "for all runs together" not in cgroup.status()
