"""Safe extraction of submission archives (grader.archives): zip slip, absolute paths,
links, devices, bombs, wrapping folders, unicode names."""

from __future__ import annotations

import gzip
import io
import os
import stat
import tarfile
import time
import tracemalloc
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


def tar_header(kind: bytes, size: int, name: str = "././@PaxHeader") -> bytes:
    """One 512-byte tar header of type ``kind`` declaring ``size`` bytes of data (GNU
    base-256 when it needs it, negative included), its checksum right."""
    info = dict(name=name, mode=0o644, uid=0, gid=0, size=size, mtime=0, type=kind)
    info |= dict(linkname="", uname="", gname="", devmajor=0, devminor=0, prefix="")
    return tarfile.TarInfo._create_header(info, tarfile.GNU_FORMAT, "utf-8", "strict")


def header_bomb(path, kind: bytes, size: int):
    """A .tgz of one ``kind`` header declaring ``size`` bytes, then that many zeros, as
    /tmp/rt/mkpax.py built the 3 GiB red-team one (14 MB): 200 MiB compress to 200 KB."""
    zeros = b"\0" * (1 << 20)
    with gzip.open(path, "wb", compresslevel=9) as g:
        g.write(tar_header(kind, size))
        left = max(size, 0) + (-max(size, 0) % 512)
        while left > 0:
            g.write(zeros[: min(left, len(zeros))])
            left -= min(left, len(zeros))
        g.write(b"\0" * 1024)
    return path


def test_tar_header_bomb_is_refused_before_tarfile_reads_it(tmp_path):
    """tarfile reads a pax header's data whole before the member is seen: the 3 GiB one of
    the red-team review took 3.19 GB. The scan refuses it with the data left unread."""
    bomb = header_bomb(tmp_path / "pax.tgz", tarfile.XHDTYPE, 200 << 20)
    assert bomb.stat().st_size < 1 << 20
    tracemalloc.start()
    start = time.monotonic()
    try:
        with pytest.raises(Rejected, match="extended tar header .* 64 KiB allowed"):
            extract(bomb, tmp_path / "x")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20, f"{peak >> 20} MiB allocated refusing it"
    assert time.monotonic() - start < 5
    assert not list((tmp_path / "x").iterdir())


@pytest.mark.parametrize(
    "kind, size",
    [
        (tarfile.XGLTYPE, 65 * 1024),
        (tarfile.SOLARIS_XHDTYPE, 65 * 1024),
        (tarfile.GNUTYPE_LONGNAME, 65 * 1024),
        (tarfile.GNUTYPE_LONGLINK, 65 * 1024),
        (tarfile.GNUTYPE_LONGNAME, -512),  # tarfile reads the rest of the stream for it
    ],
)
def test_every_kind_of_extended_header_is_bounded(tmp_path, kind, size):
    bomb = header_bomb(tmp_path / "h.tgz", kind, size)
    with pytest.raises(Rejected, match=rf"type {kind.decode()}\) of {size} bytes"):
        extract(bomb, tmp_path / "x")


def test_extended_header_hidden_behind_a_pax_size_is_found(tmp_path):
    """A pax ``size`` moves where tarfile reads the next header; the scan checks every block."""
    bomb = tmp_path / "moved.tgz"
    with gzip.open(bomb, "wb") as g:
        g.write(tar_header(tarfile.XHDTYPE, 512) + b"13 size=1024\n".ljust(512, b"\0"))
        g.write(tar_header(tarfile.REGTYPE, 0, "kernels.cu") + b"\0" * 1024)
        g.write(tar_header(tarfile.XHDTYPE, 100 << 20) + b"\0" * 1024)
    with pytest.raises(Rejected, match="extended tar header"):
        extract(bomb, tmp_path / "x")


def test_tar_sparse_members_are_refused(tmp_path):
    """GNU sparse maps are read into memory as lists (a pax 1.0 map, quadratically)."""
    info = tarfile.TarInfo("kernels.cu")
    info.size = 4
    info.pax_headers = {"GNU.sparse.major": "1", "GNU.sparse.minor": "0"}
    t = tmp_path / "s.tgz"
    with tarfile.open(t, "w:gz", format=tarfile.PAX_FORMAT) as tf:
        tf.addfile(info, io.BytesIO(b"0\n\0\0"))
    with pytest.raises(Rejected, match="GNU sparse file"):
        extract(t, tmp_path / "x")
    old = tmp_path / "old.tgz"
    with gzip.open(old, "wb") as g:
        g.write(tar_header(tarfile.GNUTYPE_SPARSE, 0, "kernels.cu") + b"\0" * 1024)
    with pytest.raises(Rejected, match="GNU sparse file"):
        extract(old, tmp_path / "y")


def test_tar_member_of_negative_size_is_refused(tmp_path):
    """tarfile steps back to the same header again for it (and the total would shrink)."""
    t = tmp_path / "n.tgz"
    with gzip.open(t, "wb") as g:
        g.write(tar_header(tarfile.REGTYPE, -512, "kernels.cu") + b"\0" * 1024)
    with pytest.raises(Rejected, match="'kernels.cu' has a negative size"):
        extract(t, tmp_path / "x")


def test_tar_stream_longer_than_the_limits_need_is_refused(tmp_path, monkeypatch):
    """The scan reads to the end of the stream, so the stream is bounded too: 1 MiB of
    content in 3 members, each with a 1 KiB extended header, needs under 3 MiB."""
    monkeypatch.setattr(archives, "MAX_TOTAL_BYTES", 1 << 20)
    monkeypatch.setattr(archives, "MAX_MEMBERS", 3)
    monkeypatch.setattr(archives, "MAX_TAR_EXTENDED_BYTES", 1024)
    t = make_tar(tmp_path / "t.tgz", [("kernels.cu", b"k")])
    with open(t, "ab") as f:  # a second gzip member: zeros after the end-of-archive blocks
        f.write(gzip.compress(b"\0" * (4 << 20)))
    with pytest.raises(Rejected, match="more than 2 MiB once decompressed"):
        extract(t, tmp_path / "x")
    t = make_tar(tmp_path / "ok.tgz", [("kernels.cu", b"k" * (1 << 20))])
    extract(t, tmp_path / "y")
    assert (tmp_path / "y" / "kernels.cu").stat().st_size == 1 << 20


def test_archive_larger_than_allowed_on_disk(tmp_path, monkeypatch):
    monkeypatch.setattr(archives, "MAX_ARCHIVE_BYTES", 1 << 20)
    z = make_zip(tmp_path / "big.zip", {"blob": os.urandom(2 << 20)})
    with pytest.raises(Rejected, match=r"archive is 2\.0 MiB, over the 1 MiB allowed: archive"):
        extract(z, tmp_path / "x")


@pytest.mark.parametrize("fmt", [tarfile.GNU_FORMAT, tarfile.PAX_FORMAT])
def test_tar_long_names_and_global_headers_pass_the_scan(tmp_path, fmt):
    """What tar, bsdtar, git archive and Python write: long names (GNU ``L``, pax ``x``),
    a pax global header (``g``, git's commit id), UTF-8 names."""
    long = "d" * 120 + "/" + "ñ" * 100 + ".cu"
    t = tmp_path / "l.tgz"
    with tarfile.open(t, "w:gz", format=fmt, pax_headers={"comment": "a" * 40}) as tf:
        for name, data in [(long, b"l"), ("kernels.cu", b"k")]:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    extract(t, tmp_path / "x")
    assert (tmp_path / "x" / long).read_bytes() == b"l"
    assert (tmp_path / "x" / "kernels.cu").read_bytes() == b"k"


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
