"""The test session's memo of builds (build_memo): a second build of the same input is a copy
whose paths are the new grading's; a failed build, or another input, is built again."""

from __future__ import annotations

from pathlib import Path

import build_memo
from grader import build, sandbox


class _Tool:
    path = "/usr/local/cuda/bin/nvcc"


def _course(base: Path) -> Path:
    root = base / "course"
    (root / "common").mkdir(parents=True)
    (root / "Makefile").write_text("all:\n")
    (root / "common" / "cml_lab.h").write_text("/* header */\n")
    return root


def _src(base: Path, text: str) -> Path:
    src = base / "grading" / "src"
    src.mkdir(parents=True)
    (src / "kernels.cu").write_text(text)
    return src


def test_the_same_input_is_a_copy_with_the_new_gradings_paths(tmp_path):
    calls = []

    def real(root, src, out_dir, nvcc, arch, box=None, reuse=None):
        calls.append(src)
        out_dir.mkdir(parents=True)
        (out_dir / "lab").write_bytes(b"\x7fELF binary")
        (out_dir / "kernels.cu.d").write_text(
            f"{out_dir}/kernels.cu.o: {src}/kernels.cu {root}/common/cml_lab.h\n"
        )
        ok = "fail" not in (src / "kernels.cu").read_text()
        return build.BuildResult(ok, out_dir / "lab" if ok else None, out_dir,
                                 f"NVCC {src}/kernels.cu\nwarning in {src}/kernels.cu\n")

    memo = build_memo.BuildMemo(tmp_path / "memo")
    built = memo.wrap(real)
    first_root, first_src = _course(tmp_path / "a"), _src(tmp_path / "a", "k();")
    first = built(first_root, first_src, first_src.parent / "out", _Tool(), "sm_90", None, {})
    assert first.ok and len(calls) == 1 and memo.hits == 0

    # another course folder and grading, the same bytes: no build, the new paths
    root, src = _course(tmp_path / "b"), _src(tmp_path / "b", "k();")
    out = src.parent / "out"
    again = built(root, src, out, _Tool(), "sm_90", None, reuse={})
    assert len(calls) == 1 and memo.hits == 1
    assert again.ok and again.binary == out / "lab" and again.out_dir == out
    assert (out / "lab").read_bytes() == b"\x7fELF binary"
    assert (out / "kernels.cu.d").read_text() == (
        f"{out}/kernels.cu.o: {src}/kernels.cu {root}/common/cml_lab.h\n"
    )
    assert again.log == f"NVCC {src}/kernels.cu\nwarning in {src}/kernels.cu\n"
    assert str(tmp_path / "a") not in again.log

    # another architecture, another header, other sources: built
    built(root, src, src.parent / "out2", _Tool(), "sm_80", None, {})
    assert len(calls) == 2
    (root / "common" / "cml_lab.h").write_text("/* changed */\n")
    built(root, src, src.parent / "out3", _Tool(), "sm_90", None, {})
    assert len(calls) == 3

    # a failure is never kept: built every time
    fail = _src(tmp_path / "c", "fail();")
    for k in range(2):
        got = built(root, fail, fail.parent / f"out{k}", _Tool(), "sm_90", None, {})
        assert not got.ok
    assert len(calls) == 5 and memo.hits == 1


def test_a_source_folder_with_a_link_is_not_kept(tmp_path):
    src = _src(tmp_path, "k();")
    (src / "elsewhere.h").symlink_to("/etc/hostname")
    root = _course(tmp_path)
    memo = build_memo.BuildMemo(tmp_path / "memo")
    assert memo.key(root, src, _Tool(), "sm_90", None, {}) is None


def test_what_is_read_from_outside_the_input_is_never_kept(tmp_path):
    """.incbin, the course's own folder named in a source, or a dependency outside the
    sources, the course's common/ and the system's folders: built every time (a review)."""
    calls = []
    elsewhere = tmp_path / "elsewhere.h"
    elsewhere.write_text("/* not in the input */\n")

    def real(root, src, out_dir, nvcc, arch, box=None, reuse=None):
        calls.append(src)
        out_dir.mkdir(parents=True)
        (out_dir / "lab").write_bytes(b"binary")
        deps = f"{src}/kernels.cu" + (f" {elsewhere}" if "outside" in src.parent.name else "")
        (out_dir / "kernels.cu.d").write_text(f"{out_dir}/kernels.cu.o: {deps}\n")
        return build.BuildResult(True, out_dir / "lab", out_dir, "")

    memo = build_memo.BuildMemo(tmp_path / "memo")
    built = memo.wrap(real)
    root = _course(tmp_path)
    for name, text in (("incbin", 'asm(".incbin \\"x\\"");'), ("course", f'// "{root}/common"'),
                       ("outside", "k();")):
        src = tmp_path / name / "src"
        src.mkdir(parents=True)
        (src / "kernels.cu").write_text(text)
        for k in range(2):
            assert built(root, src, src.parent / f"out{k}", _Tool(), "sm_90", None, {}).ok
    assert len(calls) == 6 and memo.hits == 0


def test_another_sandbox_layout_is_another_input(tmp_path):
    """What the sandbox hides is in the input, the course's and the grading's own folders as
    names: a class kept inside the course (test_batch) is built, not copied from a build
    laid out otherwise (a review)."""
    root, src = _course(tmp_path), _src(tmp_path, "k();")
    memo = build_memo.BuildMemo(tmp_path / "memo")
    plain = sandbox.Sandbox("bwrap", hidden=(f"{root}/solutions",))
    inside = sandbox.Sandbox("bwrap", hidden=(f"{root}/solutions", f"{root}/class"))
    keys = {memo.key(root, src, _Tool(), "sm_90", box, {}) for box in (plain, inside, None)}
    assert len(keys) == 3 and None not in keys
    # another course folder laid out alike: the same input
    other = _course(tmp_path / "b")
    moved = sandbox.Sandbox("bwrap", hidden=(f"{other}/solutions",))
    assert memo.key(other, src, _Tool(), "sm_90", moved, {}) == memo.key(
        root, src, _Tool(), "sm_90", plain, {}
    )
