"""``make gradescope LAB=<id>``: a Gradescope autograder zip for one lab.

For courses whose Gradescope autograder machines have a GPU (Gradescope's own runners have
none: there the checks that need one are reported pending, not run, and the grade not
final: grader.gradescope). Gradescope unpacks the zip into ``/autograder/source``, runs
``setup.sh`` once when it builds the image, then
``run_autograder`` for every submission (the student's files in
``/autograder/submission``, the results expected in ``/autograder/results/results.json``;
specification: ``docs/specs.md`` of Gradescope's ``autograder_samples``). The zip holds:

- ``setup.sh`` and ``run_autograder`` at its root (mode 0755);
- next to them, the course tree as ``make dist-student`` selects it (``grader.dist.files``
  and ``read``: the last commit's files, no ``solutions/``, no known-bad fixtures), with
  the lab's student files as pristine skeletons generated from ``solutions/`` (where they
  exist) rather than whatever the
  checkout's ``labs/`` copy holds: the grader never reads them (a submission brings its
  own), and no solution can leak into the zip;
- the lab's instructor-only ``hidden.toml`` when it has one, which the student release
  leaves out: the zip is the instructor's autograder, and its reports never show a hidden
  case's size or seed.

``run_autograder`` takes its paths from ``AUTOGRADER_ROOT`` (default ``/autograder``), finds
the student files when the upload wraps them in a folder (``find_submission``), and always
leaves a ``results.json``: when the grader wrote none, one scoring 0 with the error.

The zip is deterministic like the student release: sorted names, the 1980-01-01 timestamp,
Unix modes 0644 or 0755 and nothing else in the headers.
"""

from __future__ import annotations

import io
import os
import zipfile
from pathlib import Path

from grader import archives, course, dist, manifest, skeleton
from grader.errors import GraderError
from grader.files import write_atomic

SCRIPTS = ("setup.sh", "run_autograder")
_EPOCH = (1980, 1, 1, 0, 0, 0)
_SEARCH_DEPTH = 4

SETUP_SH = """\
#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image of this course.
# It installs what a fresh Ubuntu image lacks. The CUDA toolkit (>= 12: nvcc, cuobjdump,
# compute-sanitizer, cuBLAS) is NOT installed here: it cannot be installed reliably from
# Ubuntu's apt, so the image must already have it (a CUDA "devel" image on a machine with a
# GPU; the "base" and "runtime" images lack nvcc or cuBLAS's link library).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

apt-get update
# bubblewrap: run_autograder grades every submission in the sandbox (GRADER_SANDBOX=auto)
apt-get install -y --no-install-recommends make gcc python3 bubblewrap
# Where the container forbids bubblewrap's namespaces, the grader (root) runs the submission
# as an unprivileged user of its own (grader/sandbox.py, the user sandbox), which must be
# able to read the course; the grader itself makes the hidden cases unreadable to it.
HERE="$(cd "$(dirname "$0")" && pwd)"
chmod -R o+rX "$HERE"
chmod o+x "$(dirname "$HERE")"

python3 - <<'PY'
import sys
if sys.version_info < (3, 11):
    sys.exit(
        "setup.sh: the grader needs Python >= 3.11; this image has Python "
        + sys.version.split()[0]
        + ": use a newer base image (Ubuntu 24.04 has 3.12)"
    )
PY

export PATH="$PATH:/usr/local/cuda/bin"
if ! command -v nvcc >/dev/null 2>&1; then
    echo "setup.sh: nvcc not found (PATH or /usr/local/cuda/bin): the image needs the CUDA" \\
         "toolkit >= 12; this script does not install it" >&2
    exit 1
fi
# cuBLAS: a lab's judge may time it as a roof (lab 3.3d); the course's Makefile links it
CUDA_LIB="$(dirname "$(dirname "$(command -v nvcc)")")/lib64"
if ! ls "$CUDA_LIB"/libcublas.so* >/dev/null 2>&1; then
    echo "setup.sh: cuBLAS not found in $CUDA_LIB: the image needs the CUDA toolkit's cuBLAS" \\
         "(a CUDA devel image has it); this script does not install it" >&2
    exit 1
fi
"""

RUN_AUTOGRADER = """\
#!/usr/bin/env bash
# Gradescope runs this for every submission of lab {lab}. The paths come from
# AUTOGRADER_ROOT (default /autograder), so that the course's tests can run it elsewhere.
# Whatever happens, it leaves a results.json: one scoring 0 with the error when the grader
# wrote none.
set -u
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
LAB="labs/{lab}"
RESULTS="$ROOT/results/results.json"
LOG="$ROOT/results/grader.log"
export PATH="$PATH:/usr/local/cuda/bin"

mkdir -p "$ROOT/results"
rm -f "$RESULTS"
cd "$ROOT/source" && {{
    # the folder holding the student files (the upload may wrap them in a folder)
    SUB=$(python3 -c 'import sys; from grader.gradescope_zip import find_submission; print(find_submission(sys.argv[1], sys.argv[2]))' "$LAB" "$ROOT/submission") \\
        || SUB="$ROOT/submission"
    # someone else's code: in bubblewrap where it runs, else as a user of its own (the
    # report's sandbox line says which, and why)
    GRADER_SANDBOX="${{GRADER_SANDBOX:-auto}}" \
        python3 -m grader grade "$LAB" --submission "$SUB" --gradescope "$RESULTS"
}} 2>&1 | tee "$LOG"
rc=${{PIPESTATUS[0]}}

if [ ! -s "$RESULTS" ]; then
    python3 - "$RESULTS" "$LOG" "$rc" <<'PY' || printf '%s\\n' '{{"score": 0, "output": "The autograder failed before it could grade this submission; please tell your instructor."}}' >"$RESULTS"
import json, sys
path, log, rc = sys.argv[1:]
try:
    with open(log, encoding="utf-8", errors="replace") as f:
        tail = f.read()[-20000:]
except OSError as e:
    tail = f"(no log: {{e}})"
doc = {{
    "score": 0,
    "output": "The autograder failed before it could grade this submission (exit status "
    + rc + "); please tell your instructor.\\n\\n" + tail,
}}
with open(path, "w", encoding="utf-8") as f:
    json.dump(doc, f, indent=2)
    f.write("\\n")
PY
fi
exit 0
"""


def find_submission(labdir: str | Path, submission: str | Path) -> Path:
    """The folder under ``submission`` that holds the lab's student files: ``submission``
    itself, a single wrapping folder (``archives.find_student_files``), else the one folder
    (at most ``_SEARCH_DEPTH`` levels down, links not followed) that holds them all;
    ``submission`` when none or several do (the grader then reports what is missing)."""
    names = manifest.load(Path(labdir)).required_files  # a missing report costs only its points
    top = Path(submission)
    found = archives.find_student_files(top, names)
    if found != top or not top.is_dir():
        return found

    def holds_all(folder: Path) -> bool:
        return all((folder / n).is_file() and not (folder / n).is_symlink() for n in names)

    if holds_all(top):
        return top
    matches = []
    for folder, dirs, _ in os.walk(top):
        depth = len(Path(folder).relative_to(top).parts)
        dirs[:] = sorted(d for d in dirs if d != "__MACOSX" and depth < _SEARCH_DEPTH)
        if holds_all(Path(folder)):
            matches.append(Path(folder))
    return matches[0] if len(matches) == 1 else top


def _pristine(root: Path, lab_dir: Path) -> dict[str, bytes]:
    """{repository path: bytes} of the lab's student files generated from its solutions as
    committed (``skeleton.committed_skeletons``); empty for a lab without solutions (its
    labs/ files are then the pristine ones)."""
    return {
        name: text.encode("utf-8")
        for name, text in skeleton.committed_skeletons(root, [lab_dir.name]).items()
    }


def contents(root: Path, lab: str) -> tuple[str, dict[str, tuple[bytes, int]]]:
    """(lab folder name, {zip path: (bytes, mode)}) of the autograder zip of ``lab``."""
    chosen = course.select_labs(root, [lab])
    if len(chosen) != 1:
        raise GraderError(f"'{lab}' names {len(chosen)} labs; give the folder name")
    lab_dir = chosen[0]
    pristine = _pristine(root, lab_dir)
    entries = {}
    names = dist.files(root)
    if not names:
        raise GraderError(f"{root}: {dist.NO_FILES}")
    for name in names:
        if name in SCRIPTS:
            raise GraderError(f"the course has a file {name}, which the zip reserves")
    for name, (data, mode) in dist.read(root, names).items():  # the last commit's
        entries[name] = (pristine.pop(name) if name in pristine else data, mode)
    for name, data in pristine.items():  # a student file missing from labs/
        entries[name] = (data, 0o644)
    hidden = lab_dir / manifest.HIDDEN_FILE
    if hidden.is_file():  # left out of the student release, needed by the autograder
        entries[f"labs/{lab_dir.name}/{manifest.HIDDEN_FILE}"] = (hidden.read_bytes(), 0o644)
    entries["setup.sh"] = (SETUP_SH.encode(), 0o755)
    entries["run_autograder"] = (RUN_AUTOGRADER.format(lab=lab_dir.name).encode(), 0o755)
    return lab_dir.name, entries


def default_out(root: Path, lab_name: str) -> Path:
    return root / "build" / "dist" / f"gradescope-{lab_name}.zip"


def build(root: Path, lab: str, out: Path | None = None) -> tuple[Path, list[str]]:
    """Writes the autograder zip of ``lab`` (atomically); returns its path and names."""
    lab_name, entries = contents(root, lab)
    out = out if out is not None else default_out(root, lab_name)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(entries):
            data, mode = entries[name]
            info = zipfile.ZipInfo(name, date_time=_EPOCH)
            info.create_system = 3  # Unix, so that the modes below are honoured
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(out, buf.getvalue())
    except OSError as e:
        raise GraderError(f"cannot write {out}: {e.strerror}")
    return out, sorted(entries)


def gradescope_zip(root: Path, lab: str, out: str | None, stream) -> int:
    """``gradescope-zip LAB [--out PATH]``: builds the zip and says where it is."""
    path, names = build(root, lab, Path(out) if out else None)
    # every folder the zip leaves out (an instructor's trial: the records were left out
    # unsaid), and the hidden cases it keeps
    hidden = [n for n in names if dist.is_hidden_cases(n)]
    print(
        f"wrote {manifest.display_path(path)}: {len(names)} files (setup.sh, run_autograder "
        f"and the course without {', '.join(dist.EXCLUDED + dist.EXCLUDED_RECORDS)}"
        + (f"; with {hidden[0]}, the instructor's hidden cases: never give it to students)"
           if hidden else ")"),
        file=stream,
    )
    notice = dist.untracked_notice(root)
    if notice:
        print(notice, file=stream)
    return 0
