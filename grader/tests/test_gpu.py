"""On a machine with a CUDA device: every solution full marks, every skeleton zero
correctness points without crashing (``python3 -m grader selfcheck``); a timed run over a
lab's exercises on the real judge."""

from __future__ import annotations

import pytest

from grader import gpu_lock, harness, manifest, plausible
from helpers import REPO, gpu_lock_file, grade_cli, instructors_only_reason, real_labs


@pytest.mark.gpu
def test_selfcheck(capsys):
    if not real_labs():
        pytest.skip(instructors_only_reason() or "no lab with a solution in the repository yet")
    code, out, err = grade_cli(capsys, "selfcheck", "--root", REPO, timed=True)
    assert code == 0, out + err


@pytest.mark.gpu
def test_a_timed_run_over_the_lab_times_every_exercise():
    """A batch's timed run over the lab on the real judge (harness.run_judged_timed_cases,
    docs/design-notes.md note 39): lab 3.3's solution, its timed exercises with one judge,
    one gate and one student's process; each verified, timed and not disturbed (its
    baseline timed alone before the student's process started, and again among the
    repetitions; SGEMM's, which only informs, in 7 of them; transpose's in fewer launches a
    sample than the student's); only the first case waited at the gate."""
    lab_dir = REPO / "labs" / "3.3-tiling"
    build = REPO / "build" / "3.3-tiling"
    judge, binary = build / "judge", build / "solution" / "lab"
    if not (judge.is_file() and binary.is_file()):
        pytest.skip("build/3.3-tiling is not built (make all)")
    lab = manifest.load(lab_dir)
    timed = [ex for ex in lab.exercises if ex.performance is not None and ex.performance.timed]
    assert len(timed) >= 2
    cases = [(ex.name, ex.performance.size, 7) for ex in timed]
    with gpu_lock_file():
        lock = gpu_lock.for_process()
        with lock.shared():
            info = {ex.name for ex in timed if ex.performance.info_baseline}
            assert info == {"sgemm"}
            runs = harness.run_judged_timed_cases(
                judge, binary, cases, timed[0].performance.reps, lab.run_timeout_s,
                harness.schema_version(REPO), gate=lock.upgrade, info_baselines=info,
            )
    assert list(runs) == [ex.name for ex in timed]
    for k, (name, t) in enumerate(runs.items()):
        doc = t.run.doc
        assert doc is not None and doc["status"] == "ok", (name, t.run.problem)
        timing = doc["timing"]
        assert timing["baseline_alone_ms"] > 0, name
        # the exchange with the empty-kernel server timed alone too, once a judged run
        # (design note 95; a case deferred to another run has that run's), the GPU idle
        assert 0 <= timing["worker_overhead_alone_ms"] < plausible.EXCHANGE_MIN_MS, name
        # what each student sample lost: the exchange among the repetitions, at most the
        # exchange alone plus 0.25 ms (common/cml_exchange.h, design note 96)
        among, alone = timing["worker_overhead_ms"], timing["worker_overhead_alone_ms"]
        subtracted = timing["worker_overhead_subtracted_ms"]
        assert subtracted == pytest.approx(min(among, alone + 0.25), abs=1e-9), (name, timing)
        # the judge's own empty launch alone, on an idle GPU (design note 97)
        assert 0 < timing["empty_launch_alone_ms"] < plausible.EMPTY_LAUNCH_MAX_MS, (name, timing)
        # an information-only baseline is timed in 7 of the repetitions (--info-baseline)
        assert timing["baseline_reps"] == (7 if name in info else timing["reps"]), name
        assert plausible.disturbed(doc) is None, (name, plausible.disturbed(doc))
        # the baseline's launches per sample: with fresh inputs as many as last 2 ms by its
        # time alone (transpose's naive kernel, about 7 times the tiled one's time, fewer
        # than the student's), else the student's count (design note 47)
        assert 1 <= timing["baseline_batch"] <= timing["batch"], (name, timing)
        if timing["fresh_inputs"] == 0:
            assert timing["baseline_batch"] == timing["batch"], (name, timing)
        if name == "transpose_tiled":
            assert timing["baseline_batch"] < timing["batch"], timing
        # the wait for the empty-kernel server (started before the set-up) on the first
        # case, and each baseline (none of lab 3.3's has a finish()) checked before the gate
        assert ("null_server" in timing["phases_ms"]) == (k == 0), (name, timing["phases_ms"])
        assert "baseline_check" in timing["phases_ms"], (name, timing["phases_ms"])
        # a phase the judge did not time is left out of phases_ms
        assert ("gate" in timing["phases_ms"]) == (k == 0), (name, timing["phases_ms"])
        # the judge's CPU in its phases (design note 55): none in a part's, and the wait at
        # its gate (a read of its standard input) costs next to none
        cpu = timing["phases_cpu_ms"]
        parts = {"timing_samples", "timing_checks", "null_server", "baseline_check",
                 "verify_run"}
        assert set(cpu) <= set(timing["phases_ms"]) - parts, cpu
        # the student's first launch (RUN to DONE), a part of the verify phase
        ms = timing["phases_ms"]
        assert 0 < ms["verify_run"] <= ms["verify"], ms
        assert all(v >= 0 for v in cpu.values()), cpu
        if "gate" in cpu:
            assert cpu["gate"] <= 0.2 * timing["phases_ms"]["gate"] + 20, (cpu, timing)
        assert t.wall_s > 0
