"""Submissions as archives: safe extraction of a student's ``.zip`` / ``.tar.gz`` / ``.tgz``.

Learning-management systems export one archive per student. An archive is untrusted
input, so ``extract(archive, dest)`` checks *every* member before it writes anything and
refuses the whole archive (``Rejected``, with a readable reason) when a member

- has an absolute path or a ``..`` component (zip slip: it would land outside ``dest``);
- is a symbolic link, a hard link, a device, a FIFO — anything but a file or a folder
  (a link could point at the solutions or another student's work);
- is encrypted (zip), or the archive has more than ``MAX_MEMBERS`` members or more than
  ``MAX_TOTAL_BYTES`` of content (a zip bomb; the limit is also enforced on the bytes
  actually decompressed, since a zip's declared sizes can lie);
- or the file is not a valid archive, or is larger than ``MAX_ARCHIVE_BYTES`` on disk.

A tarball is scanned before ``tarfile`` reads it (``_scan_tar``), because ``tarfile``
reads the whole data of an extended header (pax ``x``/``g``/``X``, GNU long name ``L`` and
long link ``K``) into memory before a member reaches the checks above: a 14 MB .tgz holding
one 3 GiB pax header took 3.19 GB and 70 s before it was refused (a red-team review). The
scan reads the decompressed stream once, in constant memory, and refuses an extended header
over ``MAX_TAR_EXTENDED_BYTES``, a GNU sparse member, and a stream longer than the limits
above can need.

Members are written with ``O_CREAT | O_EXCL | O_NOFOLLOW`` under a fresh ``dest``, so a
duplicate member or a path through a file is refused too. Names are kept as the archive
gives them (UTF-8 names, spaces). Backslashes in zip names are taken as separators
(Windows tools write them), so ``..\\evil`` is refused like ``../evil``.

``find_student_files(folder, names)``: LMS exports often wrap the work in one top-level
folder (``alice/kernels.cu``); the student files are looked for at the top, then inside a
single wrapping folder (macOS's ``__MACOSX`` and dot files ignored), a few levels deep.
"""

from __future__ import annotations

import gzip
import os
import stat
import tarfile
import zipfile
import zlib
from pathlib import Path, PurePosixPath

MAX_MEMBERS = 1000
MAX_TOTAL_BYTES = 64 * 1024 * 1024
# A submission is a few student files of at most assemble.MAX_FILE_BYTES (2 MiB) beside a
# lab folder under 1 MiB; this leaves room for a build folder archived by mistake.
MAX_ARCHIVE_BYTES = 32 * 1024 * 1024
# A pax header holds a path, times and a few attributes (macOS adds its xattrs): a few KiB.
MAX_TAR_EXTENDED_BYTES = 64 * 1024
_BLOCK = 512
# Header types tarfile reads whole: pax, pax global, Solaris pax, GNU long name and long
# link; and GNU sparse (its map blocks).
_TAR_REFUSED_FLAGS = frozenset(b"xgXLKS")
_SCAN_CHUNK = 1 << 20
ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".zip")  # longest first: "x.tar.gz" is a tarball
# archives a student may hand in that this module does not extract (other compressions than
# gzip: more decoders, xz's memory, for a hostile file to reach): the student's row is
# "rejected:", naming the formats taken, rather than the file left out of the class with a
# line that scrolls away (an instructor's trial, session 44: no gradebook row at all)
OTHER_ARCHIVE_SUFFIXES = (
    ".tar.bz2", ".tar.xz", ".tar.zst", ".tbz2", ".tbz", ".txz", ".tzst",
    ".tar", ".7z", ".rar", ".bz2", ".xz", ".zst", ".gz",
)
_CHUNK = 1 << 16
_IGNORED_TOP = ("__MACOSX",)


class Rejected(Exception):
    """The archive was refused; ``str(e)`` says why ("member ../evil leaves the folder")."""


def archive_kind(path: Path) -> str | None:
    """ "zip", "tar" or None (not an archive name this module handles)."""
    name = path.name.lower()
    if name.endswith(".zip"):
        return "zip"
    if name.endswith((".tar.gz", ".tgz")):
        return "tar"
    return None


def other_archive(path: Path) -> str | None:
    """The suffix of an archive format this module does not extract (``OTHER_ARCHIVE_SUFFIXES``:
    ``alice.7z`` → ``.7z``), or None."""
    name = path.name.lower()
    return next((s for s in OTHER_ARCHIVE_SUFFIXES if name.endswith(s)), None)


def strip_suffix(name: str, other: bool = False) -> str:
    """The student's id of a submission file or folder name: ``alice.tar.gz`` → ``alice``;
    with ``other`` (an archive never extracted) ``alice.7z`` → ``alice`` too. A folder's or
    an extracted archive's id is as it always was (a folder named ``x.tar`` keeps it)."""
    lower = name.lower()
    for suffix in ARCHIVE_SUFFIXES + (OTHER_ARCHIVE_SUFFIXES if other else ()):
        if lower.endswith(suffix):
            return name[: -len(suffix)]
    return name


def _safe_parts(name: str) -> tuple[str, ...]:
    """The path components of a member name; Rejected when it is absolute or has ``..``."""
    drive = len(name) > 1 and name[0].isalpha() and name[1] == ":" and name[2:3] in ("", "/")
    if name.startswith("/") or drive:
        raise Rejected(f"member {name!r} has an absolute path")
    parts = tuple(p for p in PurePosixPath(name).parts if p not in ("", "."))
    if ".." in parts:
        raise Rejected(f"member {name!r} has a '..' component (it would leave its folder)")
    if "\0" in name:
        raise Rejected(f"member {name!r} has a NUL character in its name")
    return parts


def _plan_zip(zf: zipfile.ZipFile) -> list[tuple[tuple[str, ...], bool, zipfile.ZipInfo]]:
    """(path parts, is folder, member) for every member, checked."""
    infos = zf.infolist()
    if len(infos) > MAX_MEMBERS:
        raise Rejected(f"more than {MAX_MEMBERS} members")
    plan, total = [], 0
    for info in infos:
        name = info.filename.replace("\\", "/")
        parts = _safe_parts(name)
        kind = stat.S_IFMT(info.external_attr >> 16)  # 0: no Unix type recorded (a file)
        is_dir = info.is_dir()
        if kind and kind not in (stat.S_IFREG, stat.S_IFDIR):
            what = "a symbolic link" if kind == stat.S_IFLNK else "not a regular file"
            raise Rejected(f"member {info.filename!r} is {what}")
        if info.flag_bits & 0x1:
            raise Rejected(f"member {info.filename!r} is encrypted")
        total += info.file_size
        if total > MAX_TOTAL_BYTES:
            raise Rejected(f"more than {MAX_TOTAL_BYTES // 2**20} MiB once extracted")
        if parts:
            plan.append((parts, is_dir, info))
    return plan


def _plan_tar(tf: tarfile.TarFile) -> list[tuple[tuple[str, ...], bool, tarfile.TarInfo]]:
    plan, total, count = [], 0, 0
    for member in tf:  # one header at a time: a header bomb stops at the limit
        count += 1
        if count > MAX_MEMBERS:
            raise Rejected(f"more than {MAX_MEMBERS} members")
        parts = _safe_parts(member.name)
        if member.size < 0:  # tarfile would step back and read this header again
            raise Rejected(f"member {member.name!r} has a negative size")
        if member.issym() or member.islnk():
            raise Rejected(f"member {member.name!r} is a link")
        if not (member.isfile() or member.isdir()):
            raise Rejected(f"member {member.name!r} is not a regular file or folder")
        total += member.size
        if total > MAX_TOTAL_BYTES:
            raise Rejected(f"more than {MAX_TOTAL_BYTES // 2**20} MiB once extracted")
        if parts:
            plan.append((parts, member.isdir(), member))
    return plan


def _max_tar_stream() -> int:
    """The decompressed bytes a tarball within the limits can need: the content, and for
    each member a header, its last data block's padding and one extended header, then 1 MiB
    of end-of-archive padding (about 129 MiB)."""
    return MAX_TOTAL_BYTES + MAX_MEMBERS * (2 * _BLOCK + MAX_TAR_EXTENDED_BYTES) + (1 << 20)


def _tar_number(field: bytes) -> int:
    """A tar header's number field as ``tarfile.nti`` reads it: octal text up to the first
    NUL, or base-256 big-endian after a 0x80 (positive) or 0xff (negative) byte. ValueError
    when it is neither (``tarfile`` then takes the block for no header)."""
    if field[0] in (0o200, 0o377):
        n = int.from_bytes(field[1:], "big")
        return n - 256 ** (len(field) - 1) if field[0] == 0o377 else n
    text = field.split(b"\0", 1)[0].decode("ascii").strip()
    return int(text or "0", 8)


def _tar_header(block: bytes) -> tuple[bytes, int] | None:
    """(type flag, size in bytes) of a 512-byte block ``tarfile`` would take for a header
    (its checksum matches, signed or unsigned as ``tarfile.calc_chksums``); None otherwise."""
    try:
        stored = _tar_number(block[148:156])
        size = _tar_number(block[124:136])
    except (ValueError, UnicodeDecodeError):
        return None
    unsigned = sum(block[:148]) + 8 * 32 + sum(block[156:])
    if stored != unsigned:
        high = sum(1 for b in block[:148] if b > 127) + sum(1 for b in block[156:] if b > 127)
        if stored != unsigned - 256 * high:  # the signed sum: each byte over 127 less 256
            return None
    return block[156:157], size


def _scan_tar(archive: Path) -> None:
    """Reads the decompressed stream of the .tar.gz ``archive`` in 512-byte blocks, in
    constant memory (about 1 MiB), before ``tarfile`` parses it; Rejected when a block that
    ``tarfile`` could take for a header is an extended header (pax ``x``/``g``/``X``, GNU
    ``L``/``K``) of a negative size or over ``MAX_TAR_EXTENDED_BYTES``, a pax header naming
    GNU sparse data, or a GNU sparse member (``S``): ``tarfile`` reads each of these into
    memory whole. Also Rejected past ``_max_tar_stream()`` decompressed bytes. Every block is
    checked, not only those where the members' sizes place a header, so a header the
    scan and ``tarfile`` would place differently (a pax ``size``) is not missed; a tarball
    archived inside the submission is checked the same way. gzip and EOF errors propagate
    (``extract`` reports them)."""
    window, pos, seen, eof, most = bytearray(), 0, 0, False, _max_tar_stream()
    with gzip.open(archive, "rb") as stream:
        while True:
            # Keep a whole extended header's data in the window after the block at pos.
            while not eof and len(window) - pos < _BLOCK + MAX_TAR_EXTENDED_BYTES:
                chunk = stream.read(_SCAN_CHUNK)
                eof = not chunk
                seen += len(chunk)
                if seen > most:
                    raise Rejected(
                        f"more than {most // 2**20} MiB once decompressed (at most "
                        f"{MAX_TOTAL_BYTES // 2**20} MiB of content in {MAX_MEMBERS} members)"
                    )
                window += chunk
            if len(window) - pos < _BLOCK:
                return
            if window[pos + 156] in _TAR_REFUSED_FLAGS:
                header = _tar_header(bytes(window[pos : pos + _BLOCK]))
                if header:
                    _check_tar_header(*header, window, pos + _BLOCK)
            pos += _BLOCK
            if pos >= _SCAN_CHUNK:
                del window[:pos]
                pos = 0


def _check_tar_header(kind: bytes, size: int, window: bytearray, start: int) -> None:
    """Rejected when a tar header of type ``kind`` and ``size`` bytes, its data at
    ``window[start:]``, is one ``_scan_tar`` refuses."""
    if kind == b"S":
        raise Rejected("it holds a GNU sparse file: archive the files without --sparse")
    if not 0 <= size <= MAX_TAR_EXTENDED_BYTES:
        raise Rejected(
            f"an extended tar header (type {kind.decode()}) of {size} bytes, over the "
            f"{MAX_TAR_EXTENDED_BYTES // 1024} KiB allowed (tar writes a few hundred): "
            "archive the student files again with tar or zip"
        )
    if kind in b"xgX" and window.find(b"GNU.sparse", start, start + size) >= 0:
        raise Rejected("it holds a GNU sparse file: archive the files without --sparse")


def _write(src, target: Path, budget: list[int]) -> None:
    """Copies the open member ``src`` to a new file ``target``; ``budget[0]`` bytes may
    still be written in the whole archive."""
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "wb") as out:
        while chunk := src.read(_CHUNK):
            budget[0] -= len(chunk)
            if budget[0] < 0:
                raise Rejected(f"more than {MAX_TOTAL_BYTES // 2**20} MiB once extracted")
            out.write(chunk)


def _materialize(plan, dest: Path, open_member) -> None:
    budget = [MAX_TOTAL_BYTES]
    for parts, is_dir, member in plan:
        target = dest.joinpath(*parts)
        try:
            if is_dir:
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            with open_member(member) as src:
                _write(src, target, budget)
        except FileExistsError:
            raise Rejected(f"member {'/'.join(parts)!r} appears twice or clashes with a folder")
        except (NotADirectoryError, IsADirectoryError):
            raise Rejected(f"member {'/'.join(parts)!r} clashes with another member")


def extract(archive: Path, dest: Path) -> None:
    """Extracts ``archive`` into ``dest`` (created, must not exist) or raises Rejected
    (``dest`` may then hold part of the archive: discard it)."""
    kind = archive_kind(archive)
    dest.mkdir(parents=True)
    try:
        size = archive.stat().st_size
        if size > MAX_ARCHIVE_BYTES:
            raise Rejected(
                f"the archive is {size / 2**20:.1f} MiB, over the {MAX_ARCHIVE_BYTES // 2**20} "
                "MiB allowed: archive the student files only (no build outputs or .git)"
            )
        if kind == "zip":
            with zipfile.ZipFile(archive) as zf:
                _materialize(_plan_zip(zf), dest, zf.open)
        elif kind == "tar":
            _scan_tar(archive)
            with tarfile.open(archive, "r:gz") as tf:
                _materialize(_plan_tar(tf), dest, tf.extractfile)
        else:
            raise Rejected(f"{archive.name} is not a .zip, .tar.gz or .tgz archive")
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        tarfile.TarError,
        gzip.BadGzipFile,
        EOFError,
    ) as e:
        raise Rejected(f"not a valid {kind} archive ({e})")
    except (zlib.error, NotImplementedError, RuntimeError) as e:
        raise Rejected(f"cannot extract it ({e})")
    except OSError as e:
        raise Rejected(f"cannot extract it ({e.strerror or e})")


def find_student_files(folder: Path, names: tuple[str, ...], depth: int = 3) -> Path:
    """The folder under ``folder`` holding the student files: ``folder`` itself, or the
    inside of a single wrapping folder (up to ``depth`` levels); ``folder`` when neither
    holds them (assembly then reports what is missing)."""
    here = folder
    for _ in range(depth + 1):
        if all((here / n).is_file() and not (here / n).is_symlink() for n in names):
            return here
        entries = [
            e for e in here.iterdir() if not e.name.startswith(".") and e.name not in _IGNORED_TOP
        ]
        if len(entries) != 1 or not entries[0].is_dir() or entries[0].is_symlink():
            break
        here = entries[0]
    return folder
