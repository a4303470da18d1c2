"""A class of lab 3.3 submissions for batch grading on the course's GPU machine (issue 6).

    python3 bench/class_batch.py make DIR        # write the submissions into DIR
    python3 bench/class_batch.py make --size 100 DIR   # the same class, extended to 100
    python3 bench/class_batch.py make --size 10 DIR    # cut to 10, some of every kind
    python3 bench/class_batch.py run DIR OUT     # grade them twice, compare, time it
    python3 bench/class_batch.py run --once DIR OUT    # grade them once (a class's time)
    python3 bench/class_batch.py run --gpus 0,1 DIR OUT   # the two gradings at once, one per GPU
    python3 bench/class_batch.py run --only s01,h16 DIR OUT  # only these students (a short check)
    python3 bench/class_batch.py run --in-id-order DIR OUT     # graded in id order (see below)

``make`` writes at least 30 submissions, each as an LMS exports them (a folder, a ``.zip``
or a ``.tar.gz`` named after the student): the reference solution, the skeleton, every
known-bad fixture of the lab (grader/tests/known_bad/3.3-tiling), correct alternatives with
other tile shapes, and hostile submissions (issue 6, part 4: kernel and host infinite loops,
a barrier deadlock, a fork bomb by raw system call, a 10 GB flood of stdout, a write into
the course tree, a read of solutions/, a network connection, a forged result line, a
redefined timing function, a static constructor that exits 0 (in every run, and only
where argv holds --exercise), a segfault, an out-of-bounds device write, a huge allocation,
16 GiB of host memory written, a solution read into the object by the assembler at build
time, a unicode file name with spaces, a zip-slip archive).
``--size N`` extends it to N students (issue 15: a class of 100) with the lab's alternative
correct solutions (grader/tests/alternatives/3.3-tiling, each expected to keep the parts its
fixture lists), then copies of the reference solution. An N under the whole class (51 now)
cuts it: the reference and the skeleton, then hostile submissions and known-bad fixtures half
and half, each spread over its list, then the correct alternatives; the same ids as in the
whole class, and a line says how many of each kind it keeps.
Every submission is the reference solution with exact text replacements (as the fixtures
are: grader/fixtures.py), so the set follows the solution when it changes and fails loudly
when a replacement no longer applies. ``expected.json`` beside them says, per student,
what the grade must show.

The ids begin with the kind of submission (b alternatives, c copies, h hostile, k known-bad,
s, u, z), so in id order the heaviest gradings (the hangs, the fork bomb, the floods) come
last and run as the class's tail, with the GPU and the CPUs otherwise idle. A real class's
names do not sort by what the submissions do: ``run`` hands the batch the class in one fixed
shuffled order (``class_order``), as names would fall; ``--in-id-order`` grades it as
sessions 29 and 30 did (docs/design-notes.md, note 73).

``run`` grades the folder twice with ``python3 -m grader batch ... --seed 7`` (into two
folders; running it again resumes both), checks each student's verdict against
``expected.json``, compares the two gradebooks, and writes ``OUT/summary.json`` and
``OUT/summary.txt`` (wall times, differences). Exit 0 when every expectation held and the
two gradings agree.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import json
import os
import random
import subprocess
import sys
import tarfile
import time
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from grader import fixtures, sandbox  # noqa: E402

LAB = "3.3-tiling"
SOLUTION = ROOT / "solutions" / LAB / "kernels.cu"
SKELETON = ROOT / "labs" / LAB / "kernels.cu"

# Places the hostile code goes: the start of the matmul launcher (host code, run once per
# matmul case) and the start of the transpose kernel (device code).
HOST = "void matmul_tiled(const float *d_A, const float *d_B, float *d_C, int M, int N, int K) {"
PWNED = ROOT / "labs" / "h06-was-here"  # what h06 tries to create in the course tree
KERNEL = "__global__ void transpose_tiled_kernel(const float *in, float *out, int rows, int cols) {"

# the lab's exercises, as its lab.toml lists them
EXERCISES = tuple(
    e["name"] for e in tomllib.loads((ROOT / "labs" / LAB / "lab.toml").read_text())["exercise"]
)
# Raw system calls (x86-64 Linux): no libc symbol, so the symbol check cannot see them and
# the sandbox must contain them.
SYSCALL = """#include <cstdint>
static long raw3(long n, long a, long b, long c) {
    long r;
    asm volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
    return r;
}
"""

# (student id, archive kind, [(old, new)], text put at the top, expectation)
# An expectation: "total" ("full" | "zero" | "partial"), optionally "lost" (exercise: part
# names that must not get full points), "status" (the gradebook status, prefix match),
# "says" (text the JSON report must contain: the verdict's reason, not just a loss),
# "needs" ("sandbox" | "memory": where it is missing, the expectation does not apply).
HOSTILE = [
    (
        "h01_kernel_infinite_loop",
        "dir",
        # for (;;) with nothing in it: a volatile local spin was optimised away on the H200
        # (the first runs graded it 53/53); an empty infinite loop compiles to a branch to itself
        [(KERNEL, KERNEL + "\n    for (;;) { }")],
        "",
        {"total": "partial", "lost": {"transpose_tiled": ["correctness"]}},
    ),
    (
        "h02_host_infinite_loop",
        "zip",
        [(HOST, HOST + "\n    for (volatile int spin = M > 0; spin;) { }")],
        "",
        {"total": "partial", "lost": {"matmul_tiled": ["correctness"]}},
    ),
    (
        "h03_barrier_deadlock",
        "tar",
        # named barrier 1 waits for every thread of the block, but only the first warp row
        # arrives: the block never finishes
        [
            (
                KERNEL,
                KERNEL + '\n    if (threadIdx.y == 0) { asm volatile("bar.sync 1, %0;" :: '
                '"r"(blockDim.x * blockDim.y)); }',
            )
        ],
        "",
        {"total": "partial", "lost": {"transpose_tiled": ["correctness"]}},
    ),
    (
        "h04_fork_bomb",
        "dir",
        [(HOST, HOST + "\n    for (;;) { raw3(57, 0, 0, 0); }")],
        SYSCALL,
        {"total": "partial", "lost": {"matmul_tiled": ["correctness"]}},
    ),
    (
        "h05_stdout_flood_10GB",
        "zip",
        [
            (
                HOST,
                HOST + "\n    static char buf[1 << 20];\n"
                "    for (long i = 0; i < 10L * 1024; ++i) { fwrite(buf, 1, sizeof buf, stdout); }",
            )
        ],
        "#include <cstdio>\n",
        {"total": "partial", "lost": {"matmul_tiled": ["correctness"]}},
    ),
    (
        "h06_write_course_tree",
        "tar",
        # open("<course>/labs/h06-was-here", O_WRONLY | O_CREAT, 0644): correct results only
        # while the open fails, so a sandbox that let it through costs the points (and
        # `run` reports the file)
        [
            (
                HOST,
                HOST + f"\n    if (raw3(2, (long){json.dumps(str(PWNED))}, 01 | 0100, 0644) >= 0)"
                " { return; }",
            )
        ],
        SYSCALL,
        {"total": "full_if_sandboxed"},
    ),
    (
        "h07_read_solutions",
        "dir",
        [
            (
                HOST,
                HOST
                + f"\n    if (raw3(2, (long){json.dumps(str(SOLUTION))}, 0, 0) >= 0) {{ return; }}",
            )
        ],
        SYSCALL,
        {"total": "full_if_sandboxed"},
    ),
    (
        "h08_network_socket",
        "zip",
        [(HOST, HOST + "\n    socket(2, 1, 0);")],
        "#include <sys/socket.h>\n",
        {"total": "zero", "status": "symbol check failed"},
    ),
    (
        "h09_forged_result_line",
        "tar",
        [
            (
                HOST,
                HOST + '\n    printf("{\\"schema\\":1,\\"lab\\":\\"3.3\\",\\"exercise\\":'
                '\\"matmul_tiled\\",\\"status\\":\\"ok\\"}\\n"); return;',
            )
        ],
        "#include <cstdio>\n",
        {"total": "partial", "lost": {"matmul_tiled": ["correctness"]}},
    ),
    (
        "h10_redefined_timing",
        "dir",
        [],
        'extern "C" int cml_time_interleaved(void) { return 0; }\n',
        {"total": "zero"},  # the link or the symbol check refuses it
    ),
    (
        "h11_static_ctor_exit0",
        "zip",
        [],
        # exits 0 before main in every run the grader makes of it (a judged run's --serve, a
        # sanitizer run's --exercise): g90 found the first version, keyed on --exercise,
        # firing in the sanitizer runs only (54/63, its correctness served by the judge)
        SYSCALL + "__attribute__((constructor)) static void early(int argc, char **argv) {\n"
        "    (void)argv;\n"
        "    if (argc > 1) { raw3(231, 0, 0, 0); }\n"
        "}\n",
        {"total": "zero"},
    ),
    (
        # h11's first version (g90: 54/63): exits 0 before main only where argv holds
        # --exercise, which the sanitizer runs pass and the judge's served runs do not. An
        # exit 0 there is not believed (every sanitizer part lost); what the judge served,
        # the reference's code, keeps its points.
        "h18_exit0_under_exercise_flag",
        "zip",
        [],
        SYSCALL + "__attribute__((constructor)) static void early(int argc, char **argv) {\n"
        "    for (int i = 1; i < argc; ++i) {\n"
        '        const char *a = argv[i], *w = "--exercise";\n'
        "        while (*w && *a == *w) { ++a; ++w; }\n"
        "        if (!*w && !*a) { raw3(231, 0, 0, 0); }\n"
        "    }\n"
        "}\n",
        {
            "total": "partial",
            "lost": {ex: ["sanitizer"] for ex in EXERCISES},
            "keeps": {ex: ["correctness", "performance"] for ex in EXERCISES},
        },
    ),
    (
        "h12_segfault",
        "tar",
        [(HOST, HOST + "\n    if (M == 1) { *(volatile int *)0 = 1; }")],
        "",
        {"total": "partial", "lost": {"matmul_tiled": ["correctness"]}},
    ),
    (
        "h13_oob_device_write",
        "dir",
        # writes every C element also 1M elements further on: past the end of C, into
        # whatever the harness allocated next
        [
            (
                "        C[(size_t)row * N + col] = acc;",
                "        C[(size_t)row * N + col] = acc;\n"
                "        C[(size_t)row * N + col + (1u << 20)] = 42.0f;",
            )
        ],
        "",
        {"total": "partial", "lost": {"matmul_tiled": ["sanitizer"]}},
    ),
    (
        "h14_huge_allocation",
        "zip",
        [
            (
                HOST,
                HOST + "\n    void *big = nullptr;\n    cudaMalloc(&big, 1ULL << 50);"
                "\n    float *h = (float *)malloc(1ULL << 40);\n    if (h) { h[0] = 1.0f; free(h); }",
            )
        ],
        "#include <cstdlib>\n",
        {"total": "partial", "lost": {"matmul_tiled": ["correctness"]}, "says": "out of memory"},
    ),
    (
        "h16_host_memory_hog",
        "dir",
        # 16 GiB written page by page in the matmul launcher: the memory cgroup's limit
        # (grader/cgroup.py, 6 GiB) kills the run, not the machine
        [
            (
                HOST,
                HOST + "\n    volatile char *hog = (volatile char *)malloc(16ULL << 30);"
                "\n    for (size_t i = 0; hog && i < (16ULL << 30); i += 4096) { hog[i] = 1; }",
            )
        ],
        "#include <cstdlib>\n",
        {
            "total": "partial",
            "lost": {"matmul_tiled": ["correctness"]},
            "says": "killed for using more than 6 GiB of host memory",
            "needs": "memory",
        },
    ),
    (
        "h17_incbin_solutions",
        "zip",
        # the assembler reads the reference into the object at build time (no #include for
        # check_includes to see); in the sandbox solutions/ is empty and the build fails
        [],
        f'__asm__(".section .rodata\\n.incbin \\"{SOLUTION}\\"\\n.text");\n',
        {"total": "zero", "status": "build failed", "needs": "sandbox"},
    ),
    (
        "h15_fopen_solutions",
        "tar",
        [(HOST, HOST + f'\n    fopen({json.dumps(str(SOLUTION))}, "r");')],
        "#include <cstdio>\n",
        {"total": "zero", "status": "symbol check failed"},
    ),
]

# Correct alternatives: other tile shapes (all must pass correctness and the static checks).
ALTERNATIVES = [
    ("a01_matmul_tile16", "dir", [("#define MATMUL_TILE 32", "#define MATMUL_TILE 16")]),
    ("a02_matmul_tile8", "zip", [("#define MATMUL_TILE 32", "#define MATMUL_TILE 8")]),
    (
        "a03_transpose_32x16",
        "tar",
        [("#define TRANSPOSE_REF_THREADS_Y 8", "#define TRANSPOSE_REF_THREADS_Y 16")],
    ),
    (
        "a04_conv_4_rows_per_thread",
        "dir",
        [("#define CONV_REF_PER_Y 2", "#define CONV_REF_PER_Y 4")],
    ),
]


def _edit(text: str, edits, head: str = "") -> str:
    for old, new in edits:
        if text.count(old) != 1:
            raise SystemExit(f"class_batch: {old[:60]!r} occurs {text.count(old)} times")
        text = text.replace(old, new)
    return head + text


def _member(name: str) -> zipfile.ZipInfo:
    """A zip member with a fixed date: the same class made twice is the same bytes, so a
    batch resumed over a class made again skips the students it graded (g90b, g90c: made
    with the clock's date, every zip and tarball was "changed since it was graded")."""
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.external_attr = 0o600 << 16  # as writestr(name, ...) sets it: rw for the owner
    return info


def _write(out: Path, student: str, kind: str, files: dict[str, str]) -> Path:
    """One student's submission as a folder, a .zip or a .tar.gz (files wrapped in a folder
    for the tarballs, as some LMS exports are); archives without dates, the same bytes each
    time."""
    if kind == "dir":
        d = out / student
        d.mkdir(parents=True)
        for name, text in files.items():
            (d / name).write_text(text)
        return d
    if kind == "zip":
        path = out / f"{student}.zip"
        with zipfile.ZipFile(path, "w") as z:
            for name, text in files.items():
                z.writestr(_member(name), text)
        return path
    path = out / f"{student}.tar.gz"
    with open(path, "wb") as f, gzip.GzipFile(fileobj=f, mode="wb", mtime=0) as g, \
            tarfile.open(fileobj=g, mode="w") as t:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"{student}/{name}")
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    return path


def _spread(items: list, n: int) -> list:
    """``n`` of ``items`` spread evenly over the list (its first, then every len/n-th), in
    order: a cut class keeps hostile and known-bad fixtures of every kind, not the first few
    (h01-h03 are all hangs)."""
    return [items[i * len(items) // n] for i in range(n)] if n < len(items) else list(items)


def _cut(groups: dict[str, list[str]], size: int) -> list[str]:
    """The students a class cut to ``size`` (under the whole class) keeps: the reference and
    the skeleton, then half hostile (the zip slip and the unicode name with them) and half
    known-bad, each spread over its kind (``_spread``), then correct alternatives."""
    keep = groups["ends"][:size]
    left = size - len(keep)
    hostile = min(len(groups["hostile"]), max(left - left // 2, left - len(groups["known_bad"])))
    known_bad = min(len(groups["known_bad"]), left - hostile)
    keep += _spread(groups["hostile"], hostile) + _spread(groups["known_bad"], known_bad)
    return keep + groups["alternatives"][: size - len(keep)]


def make(out: Path, size: int | None = None) -> int:
    """Writes the class into ``out`` (module docstring): without ``size`` the whole class (51
    students as the fixtures are now); with it, that many: the whole class extended, or,
    under it, a cut that keeps some of every kind (``_cut``; an instructor's trial: ``--size
    10`` wrote the 51 and exited 1). A ``size`` under 1 is refused before anything is
    written. Returns the exit status: 0 once written."""
    if size is not None and size < 1:
        raise SystemExit(f"class_batch: --size {size}: give 1 or more students")
    if out.exists() and any(out.iterdir()):
        raise SystemExit(f"class_batch: {out} is not empty")
    solution = SOLUTION.read_text()
    expected: dict[str, dict] = {}
    files: dict[str, tuple] = {}  # student -> _write's (kind, files); the zip slip's its own
    groups: dict[str, list[str]] = {"ends": [], "known_bad": [], "alternatives": [], "hostile": []}
    kinds = ["dir", "zip", "tar"]

    def add(group: str, student: str, kind, text: str, expect: dict) -> None:
        groups[group].append(student)
        files[student] = (kind, {"kernels.cu": text})
        expected[student] = expect

    add("ends", "s01_reference", "dir", solution, {"total": "full"})
    add("ends", "s02_skeleton", "zip", SKELETON.read_text(), {"total": "zero"})

    # a fixture with expect.in_class = false is for a GPU run of its own (test_known_bad.py),
    # not the class: its ids would shift the others' k numbers (hostile_gpu_memory_hog, note 88)
    in_class = [
        p for p in fixtures.find(ROOT, LAB) if fixtures.load(p)["expect"].get("in_class", True)
    ]
    for i, path in enumerate(in_class):
        fx = fixtures.load(path)
        edits = [(r["old"], r["new"]) for r in fx["replace"] if r["file"] == "kernels.cu"]
        lost = {fx["expect"]["exercise"]: list(fx["expect"]["lost"])}
        expect = {"total": "partial", "lost": lost}
        add("known_bad", f"k{i + 1:02d}_{path.stem}", kinds[i % 3], _edit(solution, edits), expect)

    for student, kind, edits in ALTERNATIVES:
        add("alternatives", student, kind, _edit(solution, edits), {"total": "correct"})

    for student, kind, edits, head, expect in HOSTILE:
        add("hostile", student, kind, _edit(solution, edits, head), expect)

    # names as LMS exports them: spaces and non-ASCII letters
    add("hostile", "u01_Zoë Ångström (late)", "zip", solution, {"total": "full"})
    # zip slip: a member that would land outside the extraction folder
    groups["hostile"].append("z01_mallory")
    files["z01_mallory"] = ("zip slip", {})
    expected["z01_mallory"] = {"total": "zero", "status": "rejected"}

    whole = len(expected)
    said = ""
    if size is not None and size < whole:
        keep = set(_cut(groups, size))
        expected = {k: v for k, v in expected.items() if k in keep}
        ends = " and the ".join(("reference", "skeleton")[: min(size, 2)])
        said = f" (the class of {whole} cut to --size {size}: the {ends}, " + ", ".join(
            f"{sum(s in keep for s in groups[g])} of its {len(groups[g])} {what}"
            for g, what in (("hostile", "hostile"), ("known_bad", "known-bad"),
                            ("alternatives", "correct alternatives"))
        ) + ")"
    out.mkdir(parents=True, exist_ok=True)
    for student in expected:
        kind, texts = files[student]
        if kind == "zip slip":
            with zipfile.ZipFile(out / f"{student}.zip", "w") as z:
                z.writestr(_member("kernels.cu"), solution)
                z.writestr(_member("../../../tmp/pwned.cu"), "int pwned;\n")
        else:
            _write(out, student, kind, texts)

    if size is not None and size > whole:
        for path in fixtures.find(ROOT, LAB, alternatives=True):
            if len(expected) >= size:
                break
            fx = fixtures.load(path)
            edits = [(r["old"], r["new"]) for r in fx["replace"] if r["file"] == "kernels.cu"]
            student = f"b{len(expected):03d}_{path.stem}"
            _write(out, student, kinds[len(expected) % 3], {"kernels.cu": _edit(solution, edits)})
            expected[student] = {
                "total": "any",
                "keeps": {fx["expect"]["exercise"]: list(fx["expect"]["keeps"])},
            }
            if fx["expect"].get("loses_on"):  # what another GPU's thresholds take (note 76)
                expected[student]["loses_on"] = fx["expect"]["loses_on"]
        while len(expected) < size:
            student = f"c{len(expected):03d}_reference_copy"
            _write(out, student, kinds[len(expected) % 3], {"kernels.cu": solution})
            expected[student] = {"total": "full"}

    (out / "expected.json").write_text(json.dumps(expected, indent=1, ensure_ascii=False) + "\n")
    n = len(expected)
    print(f"class_batch: {n} submissions in {out}{said}")
    if size is None and n < 30:  # issue 6's class of at least 30: fixtures went missing
        print(f"class_batch: the whole class is {n}, under issue 6's 30: are the fixtures of "
              f"{LAB} (grader/tests/known_bad) all there?", file=sys.stderr)
        return 1
    return 0


ORDER_SEED = "lab 3.3 class"  # class_order's shuffle: the same order on every machine


def class_order(subs: list[Path]) -> list[Path]:
    """The submissions in the order a class's names would give them, uncorrelated with what
    each does: the id order shuffled with a fixed seed (``ORDER_SEED``), so every run grades
    the same order."""
    order = sorted(subs)
    random.Random(ORDER_SEED).shuffle(order)
    return order


def _gradebook(path: Path) -> dict[str, dict]:
    with open(path, newline="") as f:
        return {row["id"]: row for row in csv.DictReader(f)}


def _check(
    student: str, row: dict, report: dict | None, expect: dict, sandboxed: bool, limited: bool
) -> list:
    """What in this student's grade contradicts the expectation (empty: all held).
    ``expect["needs"]``: "sandbox" or "memory" (a memory cgroup) for the expectation to
    apply; without it only the absence of a grader error is checked."""
    problems = []
    if not {"sandbox": sandboxed, "memory": limited}.get(expect.get("needs"), True):
        return [] if not row["status"].startswith("error") else [f"status '{row['status']}'"]
    total, maximum = float(row["total"] or 0), float(row["max"])
    want = expect["total"]
    if want == "full_if_sandboxed":
        want = "full" if sandboxed else "any"
    if want == "full" and total != maximum:
        problems.append(f"total {total}/{maximum}, expected full marks")
    if want == "zero" and total != 0:
        problems.append(f"total {total}, expected 0")
    if want == "partial" and not 0 <= total < maximum:
        problems.append(f"total {total}/{maximum}, expected points lost")
    if want == "correct" and report is not None:
        for ex in report["exercises"]:
            for part in ("correctness", "static"):
                p = ex["parts"][part]
                if p["max"] and p["points"] != p["max"]:
                    problems.append(f"{ex['name']} {part}: {p['points']}/{p['max']}")
    if "status" in expect and not row["status"].startswith(expect["status"]):
        problems.append(f"status '{row['status']}', expected '{expect['status']}…'")
    if "says" in expect and expect["says"] not in json.dumps(report, ensure_ascii=False):
        problems.append(f"the report does not say '{expect['says']}'")
    for exercise, parts in expect.get("keeps", {}).items():
        ex = next((e for e in (report or {}).get("exercises", []) if e["name"] == exercise), None)
        if ex is None:
            problems.append("no report")
            continue
        kept = {"keeps": parts, "loses_on": expect.get("loses_on", {})}
        for part in fixtures.kept_on(kept, report.get("device")):
            p = ex["parts"][part]
            if p["points"] != p["max"]:
                problems.append(f"{exercise} {part}: {p['points']}/{p['max']}, expected full")
    for exercise, parts in expect.get("lost", {}).items():
        if report is None:
            problems.append("no report")
            continue
        ex = next(e for e in report["exercises"] if e["name"] == exercise)
        for part in parts:
            p = ex["parts"][part]
            if p["points"] is not None and p["points"] >= p["max"]:
                problems.append(f"{exercise} {part}: full points, expected a loss")
    return problems


def _phase_totals(dest: Path) -> str:
    """Where a grading's time went: each phase's wall seconds summed over the students'
    reports (report.json "timings_s"), and the slowest student in that phase."""
    sums: dict[str, float] = {}
    worst: dict[str, tuple[float, str]] = {}
    for rep in sorted(dest.glob("*/report.json")):
        for phase, s in json.loads(rep.read_text()).get("timings_s", {}).items():
            sums[phase] = sums.get(phase, 0.0) + s
            if s > worst.get(phase, (-1.0, ""))[0]:
                worst[phase] = (s, rep.parent.name)
    if not sums:
        return "no phase timings in the reports"
    return ", ".join(
        f"{p} {sums[p]:.0f} s (longest {worst[p][0]:.0f} s, {worst[p][1]})" for p in sums
    )


def summarize(
    out: Path, expected: dict, books: list, walls: list, lab_toml: bytes, once: bool = False
) -> int:
    """Checks every verdict of the first grading and, once there are two, their agreement;
    writes OUT/summary.txt and OUT/summary.json; returns the exit status (0: every verdict as
    expected, the course tree unchanged, and the two gradings the same, or one with ``once``)."""
    lines = [f"grading {i + 1}: {w:.0f} s wall, exit {rc}" for i, (w, rc) in enumerate(walls)]
    unchanged = (ROOT / "labs" / LAB / "lab.toml").read_bytes() == lab_toml
    unchanged = unchanged and not PWNED.exists()
    lines.append(
        f"course tree: {'unchanged' if unchanged else 'CHANGED (lab.toml, or ' + str(PWNED) + ')'}"
    )
    # The grading's sandbox and limits, read from the reference's report, or (``--only``
    # without it) from the first report there is: the batch runs every student alike.
    ref = out / "grading-1" / "s01_reference" / "report.txt"
    if not ref.is_file():  # the first report with a sandbox line (a rejected one has none)
        ref = next((r for r in sorted((out / "grading-1").glob("*/report.txt"))
                    if "  sandbox  " in r.read_text(errors="replace")), ref)
    sandboxed = ref.is_file() and "sandbox      passed" in ref.read_text()
    limited = ref.is_file() and "GiB of memory per run" in ref.read_text()
    lines.append(f"sandbox: {'bubblewrap' if sandboxed else 'not available (limits only)'}")
    lines.append(f"memory limit per run: {'yes' if limited else 'no'}")
    failures, differ = 0, 0
    for student, expect in expected.items():
        rows = [book.get(student) for book in books]
        if any(row is None for row in rows):
            lines.append(f"{student}: MISSING from a gradebook")
            failures += 1
            continue
        rep_path = out / "grading-1" / student / "report.json"
        report = json.loads(rep_path.read_text()) if rep_path.is_file() else None
        problems = _check(student, rows[0], report, expect, sandboxed, limited)
        failures += bool(problems)
        verdict = "ok" if not problems else "NOT AS EXPECTED: " + "; ".join(problems)
        agree = ""
        if len(rows) == 2:
            same = rows[0] == rows[1]
            differ += not same
            agree = "same " if same else f"DIFFERS (second: {rows[1]['total']}) "
        lines.append(
            f"{student}: {rows[0]['total']}/{rows[0]['max']} [{rows[0]['status']}] {agree}{verdict}"
        )
    for i in range(1, len(books) + 1):
        lines.append(f"grading {i}: {_phase_totals(out / f'grading-{i}')}")
    lines.append(
        f"{len(expected)} submissions, {failures} not as expected"
        + (f", {differ} differ between the two gradings" if len(books) == 2 else "")
    )
    text = "\n".join(lines) + "\n"
    (out / "summary.txt").write_text(text)
    summary = {
        "wall_s": [w for w, _ in walls],
        "exit": [rc for _, rc in walls],
        "submissions": len(expected),
        "not_as_expected": failures,
        "differ": differ if len(books) == 2 else None,
        "course_tree_unchanged": unchanged,
        "sandboxed": sandboxed,
        "memory_limited": limited,
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    print(text, end="", flush=True)
    graded = len(books) == (1 if once else 2)
    return 0 if failures == 0 and differ == 0 and unchanged and graded else 1


def _grading(i: int, subs: list, out: Path, extra: list[str], gpu: str | None):
    """Starts grading i (1 or 2) of the class into OUT/grading-i; returns the process, its
    log and its start time. gpu: the CUDA device it may use (CUDA_VISIBLE_DEVICES)."""
    dest = out / f"grading-{i}"
    cmd = [sys.executable, "-m", "grader", "batch", f"labs/{LAB}", *map(str, subs)]
    # no --force: each grading has its own folder, so running this again resumes both
    cmd += ["--out", str(dest), "--seed", "7", *extra]
    env = dict(os.environ)
    if gpu is not None:
        env["CUDA_VISIBLE_DEVICES"] = gpu
    log = open(out / f"grading-{i}.log", "w")
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=env)
    return proc, log, time.monotonic()


def _wait(i: int, started, out: Path) -> tuple[tuple[float, int], dict]:
    """Waits for grading i (``_grading``'s result): ((wall seconds, exit status), its
    gradebook)."""
    proc, log, start = started
    code = proc.wait()
    log.close()
    wall = time.monotonic() - start
    return (wall, code), _gradebook(out / f"grading-{i}" / "gradebook.csv")


def run(
    sub_dir: Path,
    out: Path,
    extra: list[str],
    gpus: list[str] | None = None,
    only: list[str] | None = None,
    once: bool = False,
    in_id_order: bool = False,
) -> int:
    """Grades the class twice. Without ``gpus`` one grading after the other, on the default
    GPU; with two GPUs (``--gpus 0,1``) both at once, grading i alone on GPU i - 1 with half
    the CPU cores, so that neither grading's timed runs share a GPU with the other's runs.
    ``only``: the students whose id starts with one of these prefixes (a short check).
    ``once``: one grading (a class's wall time on one GPU; nothing to compare).
    ``in_id_order``: the batch takes the class in id order, not ``class_order``."""
    expected = json.loads((sub_dir / "expected.json").read_text())
    subs = [p for p in sub_dir.iterdir() if p.name != "expected.json"]
    subs = sorted(subs) if in_id_order else class_order(subs)
    if only:
        subs = [p for p in subs if p.name.startswith(tuple(only))]
        expected = {k: v for k, v in expected.items() if k.startswith(tuple(only))}
    out.mkdir(parents=True, exist_ok=True)
    box = sandbox.choose((ROOT,), default="auto")
    if box.kind != "bwrap":
        # without a pid namespace a fork bomb run as root can take the machine down before
        # the wall-clock limit kills its process group: leave it out, and say so
        print(f"class_batch: no sandbox ({box.notice}): h04_fork_bomb left out", flush=True)
        subs = [p for p in subs if not p.name.startswith("h04_")]
        expected = {k: v for k, v in expected.items() if not k.startswith("h04_")}
    lab_toml = (ROOT / "labs" / LAB / "lab.toml").read_bytes()
    walls, books, rc = [], [], 1
    if gpus:
        if "--jobs" not in extra:
            extra = [*extra, "--jobs", str(max(1, (os.cpu_count() or 2) // 2))]
        started = [_grading(i, subs, out, extra, gpu) for i, gpu in zip((1, 2), gpus)]
        for i, handle in enumerate(started, 1):
            wall, book = _wait(i, handle, out)
            walls.append(wall)
            books.append(book)
        print(f"== after gradings 1 and 2 (at once, on GPUs {', '.join(gpus)})", flush=True)
        return summarize(out, expected, books, walls, lab_toml)
    for i in (1,) if once else (1, 2):
        wall, book = _wait(i, _grading(i, subs, out, extra, None), out)
        walls.append(wall)
        books.append(book)
        print(f"== after grading {i}", flush=True)
        rc = summarize(out, expected, books, walls, lab_toml, once)  # a cut-off run keeps one
    return rc


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make")
    m.add_argument("dir", type=Path)
    m.add_argument("--size", type=int, help="extend the class to this many students")
    r = sub.add_parser("run")
    r.add_argument("dir", type=Path)
    r.add_argument("out", type=Path)
    r.add_argument(
        "--gpus",
        type=lambda t: t.split(","),
        help="two CUDA devices, e.g. 0,1: run the two gradings at once, one on each",
    )
    r.add_argument(
        "--only",
        type=lambda t: t.split(","),
        help="grade only the students whose id starts with one of these, e.g. s01,h16,h17",
    )
    r.add_argument("--once", action="store_true", help="grade once, not twice")
    r.add_argument(
        "--in-id-order",
        action="store_true",
        help="hand the batch the class in id order (the heavy fixtures last), not shuffled",
    )
    r.add_argument("extra", nargs="*", help="more grader batch options, e.g. --no-perf")
    args = ap.parse_args()
    if args.cmd == "make":
        return make(args.dir, args.size)
    if args.gpus is not None and len(args.gpus) != 2:
        ap.error("--gpus takes two CUDA devices, e.g. 0,1")
    if args.once and args.gpus is not None:
        ap.error("--once grades on one GPU: leave --gpus out")
    return run(args.dir, args.out, args.extra, args.gpus, args.only, args.once, args.in_id_order)


if __name__ == "__main__":
    sys.exit(main())
