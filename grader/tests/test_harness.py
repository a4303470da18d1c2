"""Run documents: the schema version from common/cml_json.h, validation, seeds, and what a
run without a document becomes."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
import shlex
import socket
import stat
import time

import pytest

from grader import harness
from grader import run as runner
from grader.errors import GraderError
from helpers import REPO


def test_schema_version_comes_from_cml_json_h():
    text = (REPO / "common" / "cml_json.h").read_text()
    expected = int(re.search(r"#define CML_SCHEMA_VERSION (\d+)", text).group(1))
    assert harness.schema_version(REPO) == expected


def test_schema_version_missing(tmp_path):
    (tmp_path / "common").mkdir()
    (tmp_path / "common" / "cml_json.h").write_text("#pragma once\n")
    with pytest.raises(GraderError, match="does not define CML_SCHEMA_VERSION"):
        harness.schema_version(tmp_path)


def good_doc(**kw):
    d = {
        "schema": 1,
        "exercise": "scale",
        "size": [3, 4],
        "seed": 9,
        "status": "ok",
        "check": {"n": 12},
    }
    d.update(kw)
    return d


EXPECT = {"exercise": "scale", "size": (3, 4), "seed": 9}


def test_validate():
    assert harness.validate(good_doc(), 1, EXPECT) is None
    assert "seed is 10" in harness.validate(good_doc(seed=10), 1, EXPECT)
    assert "size is [4, 3]" in harness.validate(good_doc(size=[4, 3]), 1, EXPECT)
    assert "unknown status 'fine'" in harness.validate(good_doc(status="fine"), 1, EXPECT)
    assert "no check" in harness.validate(good_doc(status="wrong", check=None), 1, EXPECT)
    assert "not a JSON object" in harness.validate([1], 1, EXPECT)
    with pytest.raises(GraderError, match="schema 2, the grader reads schema 1"):
        harness.validate(good_doc(schema=2), 1, EXPECT)


def test_seeds_fresh_and_derived():
    # fresh per grading; within one, a run's seed is the same however often it is asked for
    # (a batch runs the lab's cases first and writes each exercise's rows after)
    graded = [harness.Seeds(None) for _ in range(5)]
    assert len({g.seed("scale", "correctness", (1, 1)) for g in graded}) > 1
    assert len({graded[0].seed("scale", "correctness", (1, 1)) for _ in range(5)}) == 1
    assert graded[0].seed("scale", "correctness", (1, 1)) != graded[0].seed(
        "scale", "correctness", (1, 2)
    )
    a, b = harness.Seeds(42), harness.Seeds(42)
    assert a.seed("scale", "correctness", (33, 65)) == b.seed("scale", "correctness", [33, 65])
    assert a.seed("scale", "correctness", (33, 65)) != a.seed("scale", "correctness", (65, 33))
    assert a.seed("scale", "correctness", (33, 65)) != a.seed("scale", "sanitizer", (33, 65))
    assert 0 <= a.seed("x", "y", (1,)) < 2**32


def test_inserting_a_case_leaves_every_other_runs_seed_unchanged():
    """A run's seed depends on (base, exercise, purpose, size), never on the case's position:
    a case inserted into lab.toml (first, in the middle, last) changes no other run's
    inputs under the same --seed; purposes, sizes, exercises and base seeds give their own."""
    seeds = harness.Seeds(7)

    def assign(cases):  # as grade.py does, case by case in lab.toml's order
        return {tuple(c): seeds.seed("matmul_tiled", "correctness", c) for c in cases}

    cases = [(1, 1, 1), (33, 17, 65), (64, 64, 64)]
    before = assign(cases)
    for at in range(len(cases) + 1):
        after = assign(cases[:at] + [(5, 7, 9)] + cases[at:])
        assert {k: after[k] for k in before} == before
    assert len(set(before.values())) == len(before)
    one = (33, 17, 65)
    purposes = ["correctness", "sanitizer-memcheck", "sanitizer-racecheck", "performance"]
    assert len({seeds.seed("matmul_tiled", p, one) for p in purposes}) == len(purposes)
    other = seeds.seed("transpose_tiled", "correctness", one)
    assert seeds.seed("matmul_tiled", "correctness", one) != other
    assert harness.Seeds(8).seed("matmul_tiled", "correctness", one) != before[one]
    # stable across processes and versions (no hash()): a changed derivation fails here
    assert harness.run_seed(7, "matmul_tiled", "correctness", one) == before[one]
    assert before[one] == int.from_bytes(
        hashlib.sha256(b"7:matmul_tiled:correctness:33,17,65").digest()[:4], "little"
    )
    # within the harness's --seed (a uint64; the grader's runs use 32 bits)
    assert all(0 <= s < 2**32 for s in before.values())


def _script(tmp_path, body):
    path = tmp_path / "lab"
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def test_crash_without_document(tmp_path):
    lab = _script(tmp_path, "kill -SEGV $$\n")
    run = harness.run_case(lab, "scale", (3, 4), 9, 10, 1)
    assert run.doc is None and run.status == "crash"
    assert run.problem == "crashed (SIGSEGV) before writing its result"


def test_timeout_without_document(tmp_path):
    lab = _script(tmp_path, "sleep 30\n")
    run = harness.run_case(lab, "scale", (3, 4), 9, 1, 1)
    assert run.status == "timeout" and run.problem == "did not finish within 1 s"


def test_exit_without_document(tmp_path):
    lab = _script(tmp_path, "exit 4\n")
    run = harness.run_case(lab, "scale", (3, 4), 9, 10, 1)
    assert run.problem == "exited with status 4 without writing its result"


def test_document_is_read(tmp_path):
    doc = json.dumps(good_doc())
    # the last argument is the --json path
    lab = _script(tmp_path, f"for a; do out=$a; done; echo '{doc}' > \"$out\"\n")
    run = harness.run_case(lab, "scale", (3, 4), 9, 10, 1)
    assert run.problem is None and run.status == "ok"


def test_invalid_json_document(tmp_path):
    lab = _script(tmp_path, 'for a; do out=$a; done; echo "{not json" > "$out"\n')
    run = harness.run_case(lab, "scale", (3, 4), 9, 10, 1)
    assert run.doc is None and "not valid JSON" in run.problem


def _judge_script(tmp_path, doc: dict):
    path = tmp_path / "judge"
    # quoted for the shell: a message may hold an apostrophe ("the timing's samples")
    path.write_text(
        f"#!/bin/sh\necho 'judge: cudaMalloc failed' >&2\necho {shlex.quote(json.dumps(doc))}\n"
    )
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def _judge_error(**error):
    err = {"kind": "cuda", "message": "out of memory", "where": "cml_judge.c:640",
           "expr": "cudaMalloc(&copy.d_dst, copy.n_bytes)"}
    err.update(error)
    return good_doc(status="error", check=None, judged=True, error=err)


def test_a_judge_failure_of_its_own_stops_the_grading_with_its_words(tmp_path):
    # error.by "judge" (common/cml_lab.c): the course is at fault, not the submission; the
    # grading stops and says what failed where, not "judged is False" (session 6, lab 3.4)
    judge = _judge_script(tmp_path, _judge_error(by="judge"))
    worker = _script(tmp_path, "exit 0\n")
    with pytest.raises(GraderError) as e:
        harness.run_judged(judge, worker, "scale", (3, 4), 9, 10, 1)
    text = str(e.value)
    assert text.startswith("the judge failed in scale at 3x4: cuda: out of memory")
    assert "at cml_judge.c:640 (cudaMalloc(&copy.d_dst, copy.n_bytes))" in text
    assert "judge: cudaMalloc failed" in text  # its log


def test_an_error_the_judge_relays_is_the_runs_result(tmp_path):
    # error.by "run": the student's launch failed; graded, not a course fault
    judge = _judge_script(tmp_path, _judge_error(by="run", kind="launch"))
    worker = _script(tmp_path, "exit 0\n")
    run = harness.run_judged(judge, worker, "scale", (3, 4), 9, 10, 1)
    assert run.status == "error" and run.doc["error"]["kind"] == "launch"


def test_a_correctness_judge_runs_nicer_than_a_timed_one(tmp_path):
    """The judge of untimed cases starts BACKGROUND_NICE steps nicer (grader.run, issue 15);
    a timed run's judge keeps the grader's nice value."""
    judge = tmp_path / "judge"
    judge.write_text("#!/bin/sh\nexec python3 -c 'import os; print(os.nice(0))'\n")
    judge.chmod(0o755)
    mine = os.nice(0)
    if mine + runner.BACKGROUND_NICE > 19:
        pytest.skip(f"the tests run at nice {mine}: no room to be {runner.BACKGROUND_NICE} nicer")
    for background, want in ((True, mine + runner.BACKGROUND_NICE), (False, mine)):
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        with open(tmp_path / "log", "w+") as log:
            proc = harness._start_judge(judge, [], ours, str(tmp_path), log, background=background)
            out, _ = proc.communicate(timeout=30)
        theirs.close()
        assert int(out) == want, (background, out)


def test_a_timed_judged_run_is_never_background(monkeypatch, tmp_path):
    """run_judged(background=True) nices an untimed run only: a timed one (time_reps) keeps
    the grader's priority whatever its caller asks (grader.run, issue 15), and an ungated
    timed judge starts on the CPUs kept for timed runs (grader.cpus)."""
    seen, kept = [], []

    def start(judge, args, ours, cwd, log, gated=False, background=False, kept_cpus=False):
        seen.append(background)
        kept.append(kept_cpus)
        ours.close()
        raise RuntimeError("stop here")

    monkeypatch.setattr(harness, "_start_judge", start)
    for reps in (25, None):
        with pytest.raises(RuntimeError):
            harness.run_judged(
                tmp_path / "judge", tmp_path / "lab", "x", (1,), 1, 5, 1, time_reps=reps,
                background=True,
            )
    assert seen == [False, True]
    assert kept == [True, False]


# A judge of timed runs over several cases (harness.run_judged_timed_cases): it answers
# every --case EX:A,B@S with a valid document after its gate; with DEFER it sets up the
# first case only ("defer 1" before its gate); with EXTRA it writes one more document, its
# own failure, after the last case's; with OOM=before (after) its first case's document is
# its own failure for want of memory, in place of its gate line (once through its gate and
# its HELLO, a message on its --peer socket that the student's process, started then, may
# read; OOM=hello: through its gate, before its HELLO).
_TIMED_JUDGE = r'''#!/usr/bin/env python3
import json, os, sys
args = sys.argv[1:]
first = args[args.index("--exercise") + 1]
# NULL_SERVER=judge: its first case's document, past its gate and its HELLO, is the judge's
# own failure to start its empty-kernel server (common/cml_judge.c, cml_null_server_fail);
# NULL_SERVER=gone: the document judges wrote for that before, the student's process's end
NULL_SERVER = {
    "judge": {"kind": "harness",
              "message": "the judge's empty-kernel server (judge --serve-null: the course's "
                         "process, not the submission's) could not be started for the timing: "
                         "fork: Resource temporarily unavailable",
              "where": "cml_judge.c:883", "expr": None, "by": "judge"},
    "gone": {"kind": "worker", "message": "the student's process ended or stopped answering",
             "where": None, "expr": None, "by": "run"},
}
cases = []
for i, a in enumerate(args):
    if a == "--case":
        ex, _, rest = args[i + 1].rpartition(":")
        size, _, seed = rest.partition("@")
        cases.append((ex or first, [int(d) for d in size.split(",")], int(seed)))
def oom(when):
    if os.environ.get("OOM") == when:
        ex, size, seed = cases[0]
        print(json.dumps({"schema": 1, "exercise": ex, "size": size, "seed": seed,
                          "judged": True, "status": "error", "check": None,
                          "error": {"kind": "cuda", "message": "out of memory",
                                    "by": "judge"}}), flush=True)
        sys.exit(4)
if os.environ.get("DEFER") and len(cases) > 1:
    cases = cases[:1]
    print("defer 1", flush=True)
oom("before")
print("gate", flush=True)
sys.stdin.read(1)
oom("hello")
os.write(int(args[args.index("--peer") + 1]), b"hello")
oom("after")
if os.environ.get("NULL_SERVER"):
    ex, size, seed = cases[0]
    print(json.dumps({"schema": 1, "exercise": ex, "size": size, "seed": seed,
                      "judged": True, "status": "error", "check": None,
                      "error": NULL_SERVER[os.environ["NULL_SERVER"]]}), flush=True)
    sys.exit(4)
for ex, size, seed in cases:
    print(json.dumps({"schema": 1, "exercise": ex, "size": size, "seed": seed,
                      "judged": True, "status": "ok", "check": {"n": 1}}), flush=True)
if os.environ.get("EXTRA"):
    print(json.dumps({"schema": 1, "exercise": ex, "size": size, "seed": seed,
                      "judged": True, "status": "error", "check": None,
                      "error": {"kind": "cuda", "message": "invalid argument", "by": "judge"}}))
'''


def _timed_judge(tmp_path):
    path = tmp_path / "judge"
    path.write_text(_TIMED_JUDGE)
    path.chmod(0o755)
    return path


TIMED_CASES = [("scale", (3, 4), 9), ("offset", (5,), 2)]


def _counting_gate():
    """(a list that gets one item each time the gate is passed, the gate)."""
    gates = []

    @contextlib.contextmanager
    def gate():
        gates.append(1)
        yield

    return gates, gate


def test_a_timed_run_over_cases_defers_what_its_judge_did_not_set_up(tmp_path, monkeypatch):
    """"defer 1" before the gate: the first case is timed in that run, the second in a
    fresh one, each through its own gate; every case gets its own document."""
    gates, gate = _counting_gate()
    worker = _script(tmp_path, "exit 0\n")
    monkeypatch.setenv("DEFER", "1")
    got = harness.run_judged_timed_cases(_timed_judge(tmp_path), worker, TIMED_CASES, 20, 10, 1,
                                         gate=gate)
    assert {ex: t.run.doc["exercise"] for ex, t in got.items()} == {"scale": "scale",
                                                                   "offset": "offset"}
    assert gates == [1, 1]
    monkeypatch.delenv("DEFER")
    gates.clear()
    got = harness.run_judged_timed_cases(_timed_judge(tmp_path), worker, TIMED_CASES, 20, 10, 1,
                                         gate=gate)
    assert sorted(got) == ["offset", "scale"] and gates == [1]  # one run without DEFER


def test_a_document_past_the_last_case_stops_the_grading(tmp_path, monkeypatch):
    """The judge's own failure after its last case's document (e.g. freeing its buffers) is
    a course fault, as in a run of one case, where two documents do not parse."""
    worker = _script(tmp_path, "exit 0\n")
    monkeypatch.setenv("EXTRA", "1")
    with pytest.raises(GraderError, match="the judge failed in offset at 5: cuda: invalid"):
        harness.run_judged_timed_cases(_timed_judge(tmp_path), worker, TIMED_CASES, 20, 10, 1,
                                       gate=contextlib.nullcontext)


def test_an_empty_kernel_server_not_started_is_the_courses_fault_not_a_crash(
    tmp_path, monkeypatch
):
    """A timed run whose judge could not start its empty-kernel server, past its gate, with the
    student's process running: the judge's own failure (kind "harness", by "judge", naming the
    cause), which stops the grading with its words, not the case's result. The document such a
    judge wrote before (kind "worker", by "run") was read as the student's process's crash."""
    worker = _script(tmp_path, "exit 0\n")
    served = _counting_serve(monkeypatch)
    monkeypatch.setenv("NULL_SERVER", "judge")
    with pytest.raises(GraderError) as e:
        harness.run_judged_timed_cases(_timed_judge(tmp_path), worker, TIMED_CASES, 20, 10, 1,
                                       gate=contextlib.nullcontext)
    assert not isinstance(e.value, harness.JudgeOutOfMemory)
    assert str(e.value).startswith(
        "the judge failed in scale at 3x4: harness: the judge's empty-kernel server (judge "
        "--serve-null: the course's process, not the submission's) could not be started for "
        "the timing: fork: Resource temporarily unavailable at cml_judge.c:883"
    )
    assert len(served) == 1  # past its HELLO: the student's process had started
    monkeypatch.setenv("NULL_SERVER", "gone")  # what the judge wrote before: a crash
    got = harness.run_judged_timed_cases(_timed_judge(tmp_path), worker, TIMED_CASES, 20, 10, 1,
                                         gate=contextlib.nullcontext)
    assert got["scale"].run.doc is None and got["scale"].run.status == "crash"


def test_a_judge_out_of_memory_is_a_grader_error_of_its_own(tmp_path):
    """Design note 84: the judge's own failure with kind "cuda" and CUDA's "out of memory" is a
    JudgeOutOfMemory, with the words of any judge failure; another message or kind is the
    plain GraderError. An untimed run of one case never says it came before a gate."""
    worker = _script(tmp_path, "exit 0\n")
    judge = _judge_script(tmp_path, _judge_error(by="judge"))
    with pytest.raises(harness.JudgeOutOfMemory) as e:
        harness.run_judged(judge, worker, "scale", (3, 4), 9, 10, 1)
    assert str(e.value) == (
        "the judge failed in scale at 3x4: cuda: out of memory at cml_judge.c:640 "
        "(cudaMalloc(&copy.d_dst, copy.n_bytes)); its log: judge: cudaMalloc failed"
    )
    assert isinstance(e.value, GraderError) and not e.value.before_gate
    for other in ({"message": "invalid argument"}, {"kind": "setup"}):
        judge = _judge_script(tmp_path, _judge_error(by="judge", **other))
        with pytest.raises(GraderError) as e:
            harness.run_judged(judge, worker, "scale", (3, 4), 9, 10, 1)
        assert not isinstance(e.value, harness.JudgeOutOfMemory), other


def _relayed(free, total=80 << 30, **error) -> dict:
    """A judge's relay of its student's process's CUDA out of memory (common/cml_judge.c),
    with the judge's own figures ``error.gpu_memory`` (None: that key null); ``error``
    overrides the error's other keys ("gpu_memory": ... to drop or replace it)."""
    gpu = None if free is None else {"free_bytes": free, "total_bytes": total}
    err = {
        "kind": "cuda",
        "message": "out of memory",
        "where": "cml_devmem.c:153",
        "expr": None,
        "by": "run",
        "gpu_memory": gpu,
        **error,
    }
    return {"status": "error", "error": {k: v for k, v in err.items() if v is not ...}}


def test_a_relayed_out_of_memory_is_crowded_by_the_judges_free_figure_only():
    """Design note 89: a relayed CUDA out of memory of the student's process is crowded
    (free, total) only where the judge's own figure says the GPU is nearly full: free below
    1 GiB, or below 2 % of the total (1.6 GiB of 80, 2.8 of 141); never by the process's
    words alone (no figure, a null one, or another kind, message or writer)."""
    gib = 1 << 30
    assert harness.crowded_out_of_memory(_relayed(256 << 20)) == (256 << 20, 80 * gib)
    assert harness.crowded_out_of_memory(_relayed(0)) == (0, 80 * gib)
    # 2 % of 80 GiB is 1.6 GiB: 1.5 nearly full, 1.7 to spare
    assert harness.crowded_out_of_memory(_relayed(3 * gib // 2)) is not None
    assert harness.crowded_out_of_memory(_relayed(17 * gib // 10)) is None
    # on a 16-GiB card the 1 GiB floor decides (2 % would be 0.32 GiB)
    assert harness.crowded_out_of_memory(_relayed(9 * gib // 10, 16 * gib)) is not None
    assert harness.crowded_out_of_memory(_relayed(11 * gib // 10, 16 * gib)) is None
    # 2 % of an H200's 141 GiB is 2.8 GiB: 2.5 GiB free is nearly full there, not at 80
    assert harness.crowded_out_of_memory(_relayed(5 * gib // 2, 141 * gib)) is not None
    assert harness.crowded_out_of_memory(_relayed(5 * gib // 2, 80 * gib)) is None
    assert harness.crowded_out_of_memory(_relayed(40 * gib)) is None
    for forged in (
        _relayed(None),  # the judge's cudaMemGetInfo failed
        _relayed(0, gpu_memory=...),  # a judge before note 89: no figure
        _relayed(0, gpu_memory={"free_bytes": "0", "total_bytes": 80 * gib}),
        _relayed(0, gpu_memory={"free_bytes": True, "total_bytes": 80 * gib}),
        _relayed(0, gpu_memory={"free_bytes": -1, "total_bytes": 80 * gib}),
        _relayed(0, by="judge"),  # the judge's own: JudgeOutOfMemory's, not this
        _relayed(0, kind="launch"),
        _relayed(0, message="out of memory at cml_devmem.c:153"),
        {**_relayed(0), "status": "wrong"},
        None,
    ):
        assert harness.crowded_out_of_memory(forged) is None, forged


def test_a_judge_out_of_host_memory_is_the_courses_fault_and_no_judge_out_of_memory(tmp_path):
    """A judge's failure of kind "host" (common/cml_setup.c: a host allocation of its own) is
    the plain GraderError, never the GPU's JudgeOutOfMemory that design note 84 makes again:
    the judge's words, then the course's fault named with its fix, then its log."""
    worker = _script(tmp_path, "exit 0\n")
    judge = _judge_script(tmp_path, _judge_error(
        by="judge", kind="host", message="out of host memory for the problem",
        where="cml_setup.c:57", expr=None,
    ))
    with pytest.raises(GraderError) as e:
        harness.run_judged(judge, worker, "scale", (3, 4), 9, 10, 1)
    assert not isinstance(e.value, harness.JudgeOutOfMemory)
    assert str(e.value) == (
        "the judge failed in scale at 3x4: host: out of host memory for the problem at "
        f"cml_setup.c:57; {harness.HOST_MEMORY_FAULT}; its log: judge: cudaMalloc failed"
    )
    assert "the course's fault, not the submission's" in harness.HOST_MEMORY_FAULT


@pytest.mark.parametrize(
    "kind, message, where",
    [
        ("host", "out of host memory for the inputs and the CPU reference", None),  # its set-up
        ("host", "out of host memory for the timing's samples", "cml_timing.c:68"),
        ("host", "out of page-locked host memory", "harness.cu:170"),  # lab 3.2's cudaMallocHost
        ("host", "out of host memory for the result", "cml_lab.c:643"),
        (
            "harness",
            "setup() asked for more than CML_DEVMEM_MAX (32) device buffers (cml_devmem.h): "
            "a course bug, please report",
            "cml_setup.c:128",
        ),
        (  # its empty-kernel server's context out of GPU memory: still no JudgeOutOfMemory
            "harness",
            "the judge's empty-kernel server (judge --serve-null: the course's process, not the "
            "submission's) could not be started for the timing: it failed before its READY: "
            "cuda: out of memory at cml_judge.c:296 (cudaFree(0))",
            "cml_judge.c:883",
        ),
    ],
)
def test_the_judges_host_memory_and_course_bugs_are_never_its_gpu_memory(
    tmp_path, kind, message, where
):
    """The judge's kinds for what used to read as CUDA's "out of memory" (or as "setup", or
    "harness", for host memory), design note 84: the plain GraderError with the judge's words,
    never the JudgeOutOfMemory made again as the GPU's memory full; HOST_MEMORY_FAULT after
    kind "host" only."""
    worker = _script(tmp_path, "exit 0\n")
    error = _judge_error(by="judge", kind=kind, message=message, where=where, expr=None)
    judge = _judge_script(tmp_path, error)
    with pytest.raises(GraderError) as e:
        harness.run_judged(judge, worker, "scale", (3, 4), 9, 10, 1)
    assert not isinstance(e.value, harness.JudgeOutOfMemory)
    at = f" at {where}" if where else ""
    fault = f"; {harness.HOST_MEMORY_FAULT}" if kind == "host" else ""
    assert str(e.value) == (
        f"the judge failed in scale at 3x4: {kind}: {message}{at}{fault}; its log: judge: "
        "cudaMalloc failed"
    )


def _counting_serve(monkeypatch) -> list:
    """Wraps ``harness._serve`` (the student's process of a judged run): the returned list
    gets each start's argv."""
    served, real_serve = [], harness._serve

    def serve(argv, *args, **kwargs):
        served.append(argv)
        return real_serve(argv, *args, **kwargs)

    monkeypatch.setattr(harness, "_serve", serve)
    return served


def test_a_timed_judge_that_ended_before_its_hello_gets_no_students_process(
    tmp_path, monkeypatch
):
    """A timed run of one case whose judge wrote its own failure and ended before its HELLO
    starts no student's process on its closed socket; an untimed one starts it at once, as
    it waits for nothing (design note 84)."""
    served = _counting_serve(monkeypatch)
    worker = _script(tmp_path, "exit 0\n")
    judge = _judge_script(tmp_path, _judge_error(by="judge"))
    with pytest.raises(harness.JudgeOutOfMemory):
        harness.run_judged(judge, worker, "scale", (3, 4), 9, 10, 1, time_reps=20)
    assert served == []
    with pytest.raises(harness.JudgeOutOfMemory):
        harness.run_judged(judge, worker, "scale", (3, 4), 9, 10, 1)
    assert len(served) == 1


@pytest.mark.parametrize("when", ["before", "hello", "after"])
def test_a_timed_judge_out_of_memory_says_whether_it_came_before_its_gate(
    tmp_path, monkeypatch, when
):
    """A gated timed run over cases whose judge wrote its failure for want of memory in place
    of its gate line (its set-up's) says so (``before_gate``), and starts no student's
    process on its closed socket (design note 84); once through its gate, not before it, and
    the process is started only where the judge said HELLO before it failed."""
    gates, gate = _counting_gate()
    worker = _script(tmp_path, "exit 0\n")
    monkeypatch.setenv("OOM", when)
    served = _counting_serve(monkeypatch)
    with pytest.raises(harness.JudgeOutOfMemory, match="in scale at 3x4: cuda: out of memory") as e:
        harness.run_judged_timed_cases(_timed_judge(tmp_path), worker, TIMED_CASES, 20, 10, 1,
                                       gate=gate)
    assert e.value.before_gate is (when == "before")
    assert gates == ([] if when == "before" else [1])
    assert len(served) == (1 if when == "after" else 0), served


def test_a_judges_process_group_is_awaited_until_only_zombies_are_left():
    """``_await_group_end``: a group whose last live process ends later is waited for; a
    zombie left in it (its memory freed) does not count; one still alive past the limit
    gives False."""
    import subprocess

    lingering = subprocess.Popen(["sh", "-c", "sleep 0.4 & exit 0"], start_new_session=True)
    lingering.wait()  # the leader is gone, its child still in the group
    start = time.monotonic()
    assert harness._group_alive(lingering.pid)
    assert harness._await_group_end(lingering.pid, 10)
    assert 0.2 < time.monotonic() - start < 5 and not harness._group_alive(lingering.pid)
    zombie = subprocess.Popen(["true"], start_new_session=True)
    deadline = time.monotonic() + 5
    while harness._group_alive(zombie.pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not harness._group_alive(zombie.pid)  # not reaped yet: a zombie of ours
    assert zombie.poll() == 0
    alive = subprocess.Popen(["sleep", "5"], start_new_session=True)
    try:
        assert not harness._await_group_end(alive.pid, 0.2)
    finally:
        alive.kill()
        alive.wait()


def test_an_untimed_judge_opens_one_cuda_work_queue_and_a_timed_one_the_default(
    tmp_path, monkeypatch
):
    """The judge of correctness runs (background) starts with CUDA_DEVICE_MAX_CONNECTIONS=1,
    a timed run's judge without it (runner.child_env, design note 48)."""
    judge = tmp_path / "judge"
    judge.write_text('#!/bin/sh\necho "${CUDA_DEVICE_MAX_CONNECTIONS-unset}"\n')
    judge.chmod(0o755)
    monkeypatch.setenv("CUDA_DEVICE_MAX_CONNECTIONS", "8")
    for background, want in ((True, b"1"), (False, b"unset")):
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        with open(tmp_path / "log", "w+") as log:
            proc = harness._start_judge(judge, [], ours, str(tmp_path), log, background=background)
            out, _ = proc.communicate(timeout=30)
        theirs.close()
        assert out.strip() == want, (background, out)


def _gated(script: str):
    """A fake gated judge (a Python ``script``: its standard input and output are the
    judge's pipes) and ``_pass_gate`` run on it with a gate that notes when it is entered:
    (the process, what ``_pass_gate`` returned, whether the gate was entered)."""
    import subprocess
    import sys

    judge = subprocess.Popen(
        [sys.executable, "-c", script],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, start_new_session=True,
    )
    entered = []

    @contextlib.contextmanager
    def gate():
        entered.append(True)
        yield

    with contextlib.ExitStack() as held:
        head = harness._pass_gate(judge, gate, held, timeout_s=20)
    return judge, head, bool(entered)


def test_a_judge_that_wrote_its_document_instead_of_its_gate_gets_no_hold():
    """A gated judge whose set-up failed writes its document and ends, without a gate line:
    while it is still ending (its process not yet gone) it must not be taken for one still
    setting up, which would wait for and take the GPU alone for a run that times nothing (a
    review's finding, session 27)."""
    writes_and_lingers = (
        "import sys, time\n"
        "sys.stdout.write('{\"schema\": 1, \"status\": \"error\"}\\n')\n"
        "sys.stdout.flush()\n"
        "time.sleep(30)\n"
    )
    judge, head, entered = _gated(writes_and_lingers)
    try:
        assert judge.poll() is None  # it was still there when the gate was decided
    finally:
        judge.kill()
        judge.wait()
        judge.stdout.close()
    assert not entered and head.startswith(b'{"schema": 1')


def test_a_judge_past_a_stray_line_is_never_let_through_its_gate_without_a_hold():
    """The other side of the test above (a review's finding): a judge that wrote some other
    line before its gate is given no hold, so it must not be let through either: its
    standard input is closed without the byte, and a judge at its gate then ends untimed."""
    stray_then_gate = (
        "import sys, time\n"
        "sys.stdout.write('warning: something\\n'); sys.stdout.flush()\n"
        "time.sleep(0.5)\n"
        "sys.stdout.write('gate\\n'); sys.stdout.flush()\n"
        "got = sys.stdin.buffer.read(1)\n"
        "sys.stdout.write('TIMED without hold\\n' if got == b'g' else 'refused\\n')\n"
    )
    judge, _, entered = _gated(stray_then_gate)
    rest, _ = judge.communicate(timeout=10)
    judge.stdout.close()
    assert not entered and b"refused" in rest and b"TIMED" not in rest, rest


def test_the_judges_launch_lines_are_no_documents():
    """"launch" and "landed" (an untimed judge's launch, design note 65) set and clear the
    launch's start, and leave the case's clock (``progress[0]``, the last document's time)
    alone: a case's limit still runs from the document before it (a review found them
    restarting it, so a hang after a long set-up got up to two limits)."""
    lines, progress, launch = [], [0.0], [None]
    harness._judge_lines(io.BytesIO(b'{"a": 1}\n'), lines, progress, launch=launch)
    case_start = progress[0]
    assert lines == [b'{"a": 1}'] and case_start > 0.0 and launch[0] is None
    time.sleep(0.01)
    harness._judge_lines(io.BytesIO(b"launch\n"), lines, progress, launch=launch)
    assert launch[0] is not None and launch[0] > case_start and progress[0] == case_start
    harness._judge_lines(io.BytesIO(b"landed\n"), lines, progress, launch=launch)
    assert launch[0] is None and progress[0] == case_start and lines == [b'{"a": 1}']
    harness._judge_lines(io.BytesIO(b'{"b": 2}\n'), lines, progress, launch=launch)
    assert lines == [b'{"a": 1}', b'{"b": 2}'] and progress[0] > case_start
    # a document ends a launch its judge never said landed: no stale start for the next case
    harness._judge_lines(io.BytesIO(b'launch\n{"c": 3}\n'), lines, progress, launch=launch)
    assert launch[0] is None and lines[-1] == b'{"c": 3}'


def test_the_judges_done_line_is_no_document():
    """"done" (a timed run over the lab's end, design note 82) is never a document, in an
    untimed run's reader or a timed one's: it notes when it came where a list is given, and
    leaves the case's clock alone. Before a gate it is kept, as "defer K" is."""
    lines, progress, done = [], [0.0], [None]
    harness._judge_lines(io.BytesIO(b'{"a": 1}\ndone\n'), lines, progress, done=done)
    assert lines == [b'{"a": 1}'] and done[0] is not None and done[0] >= progress[0]
    case_start = progress[0]
    harness._judge_lines(io.BytesIO(b"done"), lines, progress, launch=[None])
    assert lines == [b'{"a": 1}'] and progress[0] == case_start
    judge, head, entered = _gated(
        "import sys\nprint('done', flush=True)\nprint('gate', flush=True)\n"
        "sys.stdin.buffer.read(1)\n"
    )
    judge.wait(10)
    judge.stdout.close()
    assert entered and head == b"done\n", head


def test_a_run_killed_at_any_of_its_caps_reads_as_killed_before_its_result():
    """Every outcome the grader ends for a resource it used up (runner.OVER_LIMIT) reads
    the same way in a case's message: what killed it, before its result."""
    said = [
        (runner.Outcome("flooded"), "more than 64 MB of output"),
        (runner.Outcome("filled", filled_by="bytes"), "more than 1024 MB to its working folder"),
        (
            runner.Outcome("filled", filled_by="entries"),
            "more than 4096 files and folders in its working folder",
        ),
        (runner.Outcome("memory", memory_limit=6 << 30), "more than 6 GiB of host memory"),
    ]
    for outcome, limit in said:
        text = harness._describe_missing(outcome, 30)
        assert text.startswith("was killed ") and limit in text, text
        assert text.endswith(" before writing its result"), text
    hidden = harness._describe_missing(runner.Outcome("filled", filled_by="hidden"), 30)
    assert hidden.startswith("was killed for making part of its working folder unreadable")


@pytest.mark.parametrize("over_cases", [False, True])
def test_a_stopped_run_does_not_wait_for_its_judge(tmp_path, over_cases):
    """A run stopped for a drain (runner.stoppable, design note 78) raises Stopped without
    waiting out its judge's grace (JUDGE_GRACE_S): nothing of the judge is read, and a real
    judge setting a case up (its reference: seconds) would otherwise keep the drain waiting
    after the stop. The judge (its session) is killed before Stopped is raised (review)."""
    judge = tmp_path / "judge"
    judge.write_text(f"#!/bin/sh\necho $$ > {tmp_path / 'pid'}\nsleep 30\n")
    judge.chmod(0o755)
    worker = _script(tmp_path, "sleep 30\n")
    start = time.monotonic()
    with runner.stoppable(lambda started: time.monotonic() - started > 0.3):
        with pytest.raises(runner.Stopped):
            if over_cases:
                harness.run_judged_cases(judge, worker, "scale", [((3, 4), 9)], 20, 1)
            else:
                harness.run_judged(judge, worker, "scale", (3, 4), 9, 20, 1)
    assert time.monotonic() - start < 10
    pid = int((tmp_path / "pid").read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
