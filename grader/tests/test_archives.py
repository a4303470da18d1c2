"""Safe extraction of submission archives (grader.archives): zip slip, absolute paths,
links, devices, bombs, wrapping folders, unicode names."""

from __future__ import annotations

import io
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest

from grader import archives
from grader.archives import Rejected, extract, find_student_files


def make_zip(path, members: dict[str, bytes], modes: dict[str, int] | None = None):
    """A zip of ``members`` (name → content); ``modes`` overrides a member's st_mode."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = ((modes or {}).get(name, stat.S_IFREG | 0o644)) << 16
            zf.writestr(info, data)
    return path


def make_tar(path, members: list):
    """A .tar.gz of ``members``: (name, content) files or ready TarInfo headers."""
    with tarfile.open(path, "w:gz") as tf:
        for m in members:
            if isinstance(m, tarfile.TarInfo):
                tf.addfile(m)
            else:
                info = tarfile.TarInfo(m[0])
                info.size = len(m[1])
                tf.addfile(info, io.BytesIO(m[1]))
    return path


def test_zip_with_unicode_and_spaces(tmp_path):
    z = make_zip(tmp_path / "José Ñ.zip", {"kernels.cu": b"k", "notes ü ñ.txt": b"n"})
    extract(z, tmp_path / "x")
    assert (tmp_path / "x" / "kernels.cu").read_bytes() == b"k"
    assert (tmp_path / "x" / "notes ü ñ.txt").read_bytes() == b"n"


def test_tar_with_folders(tmp_path):
    d = tarfile.TarInfo("w")
    d.type = tarfile.DIRTYPE
    t = make_tar(tmp_path / "a.tgz", [d, ("w/kernels.cu", b"k")])
    extract(t, tmp_path / "x")
    assert (tmp_path / "x" / "w" / "kernels.cu").read_bytes() == b"k"


@pytest.mark.parametrize(
    "name, why",
    [
        ("../evil.cu", "'..' component"),
        ("a/../../evil.cu", "'..' component"),
        ("..\\evil.cu", "'..' component"),
        ("/tmp/evil.cu", "absolute path"),
    ],
)
def test_zip_slip_is_refused_and_writes_nothing(tmp_path, name, why):
    z = make_zip(tmp_path / "s.zip", {"kernels.cu": b"k", name: b"evil"})
    with pytest.raises(Rejected, match=why):
        extract(z, tmp_path / "deep" / "x")
    assert not (tmp_path / "deep" / "x" / "kernels.cu").exists()  # checked before writing
    assert not list(tmp_path.rglob("evil.cu"))


def test_zip_symlink_is_refused(tmp_path):
    z = make_zip(
        tmp_path / "l.zip", {"kernels.cu": b"/etc/passwd"}, {"kernels.cu": stat.S_IFLNK | 0o777}
    )
    with pytest.raises(Rejected, match="symbolic link"):
        extract(z, tmp_path / "x")


@pytest.mark.parametrize(
    "kind, why",
    [(tarfile.SYMTYPE, "is a link"), (tarfile.LNKTYPE, "is a link"), (tarfile.CHRTYPE, "not a")],
)
def test_tar_links_and_devices_are_refused(tmp_path, kind, why):
    m = tarfile.TarInfo("kernels.cu")
    m.type = kind
    m.linkname = "/etc/passwd"
    t = make_tar(tmp_path / "l.tar.gz", [m])
    with pytest.raises(Rejected, match=why):
        extract(t, tmp_path / "x")


def test_tar_absolute_path_is_refused(tmp_path):
    target = tmp_path / "outside.cu"
    t = make_tar(tmp_path / "a.tar.gz", [("kernels.cu", b"k"), (str(target), b"evil")])
    with pytest.raises(Rejected, match="absolute path"):
        extract(t, tmp_path / "x")
    assert not target.exists()


def test_too_many_members(tmp_path, monkeypatch):
    monkeypatch.setattr(archives, "MAX_MEMBERS", 3)
    z = make_zip(tmp_path / "m.zip", {f"f{i}": b"" for i in range(4)})
    with pytest.raises(Rejected, match="more than 3 members"):
        extract(z, tmp_path / "x")
    t = make_tar(tmp_path / "m.tgz", [(f"f{i}", b"") for i in range(4)])
    with pytest.raises(Rejected, match="more than 3 members"):
        extract(t, tmp_path / "y")


def test_zip_bomb_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(archives, "MAX_TOTAL_BYTES", 1 << 20)
    z = make_zip(tmp_path / "b.zip", {"bomb": b"\0" * (2 << 20)})
    assert z.stat().st_size < 64 * 1024
    with pytest.raises(Rejected, match="MiB once extracted"):
        extract(z, tmp_path / "x")


def test_zip_lying_about_its_size_is_stopped(tmp_path, monkeypatch):
    """The declared sizes pass (the plan is faked); the bytes written are still counted."""
    monkeypatch.setattr(archives, "MAX_TOTAL_BYTES", 1 << 20)
    monkeypatch.setattr(archives, "_plan_zip", lambda zf: [(("bomb",), False, zf.infolist()[0])])
    z = make_zip(tmp_path / "b.zip", {"bomb": b"\0" * (2 << 20)})
    with pytest.raises(Rejected, match="MiB once extracted"):
        extract(z, tmp_path / "x")


def test_duplicate_member_and_garbage(tmp_path):
    t = make_tar(tmp_path / "d.tgz", [("kernels.cu", b"a"), ("kernels.cu", b"b")])
    with pytest.raises(Rejected, match="appears twice"):
        extract(t, tmp_path / "x")
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"not a zip")
    with pytest.raises(Rejected, match="not a valid zip archive"):
        extract(bad, tmp_path / "y")


def test_ids_and_kinds():
    assert archives.strip_suffix("alice.TAR.GZ") == "alice"
    assert archives.strip_suffix("bob smith.tgz") == "bob smith"
    assert archives.strip_suffix("c.d.zip") == "c.d"
    assert archives.archive_kind(Path("x.tar.gz")) == "tar"
    assert archives.archive_kind(Path("x.tar")) is None


def test_find_student_files_in_a_wrapper(tmp_path):
    (tmp_path / "__MACOSX").mkdir()
    inner = tmp_path / "Alice Ü" / "lab"
    inner.mkdir(parents=True)
    (inner / "kernels.cu").write_text("k")
    assert find_student_files(tmp_path, ("kernels.cu",)) == inner
    (tmp_path / "other").mkdir()  # two folders: ambiguous, the top (assembly says missing)
    assert find_student_files(tmp_path, ("kernels.cu",)) == tmp_path
