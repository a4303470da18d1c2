"""The written report (lab.toml [report], grader/writeup.py) without a GPU or a compiler: the
manifest's rules, the "filled in" check on good and bad reports, its scoring and exit status,
and how the text and JSON reports, Gradescope's results.json and the gradebook show the
automatic and the manual points."""

from __future__ import annotations

import csv
import json
import time
from pathlib import Path

import pytest

from grader import batch, gradescope, manifest, report, scoring, writeup
from grader.errors import GraderError
from grader.results import ExerciseResult, Grade, Part, ReportResult
from helpers import FAKELAB, REPO

TEMPLATE = """# Fake lab report

Fill in every section. Numbers come from your own runs. Keep the headings.

## 1. GPU and method

- GPU (name, as the grader prints it):
- How you measured:

## 2. Space per array

| Array | Space | Why |
|-------|-------|-----|
| 1 in  |       |     |
| 2 out |       |     |

## 3. Speed-up

The ratio at 128 x 128 over the naive kernel, and what bought it.
"""

SECTIONS = ["## 1. GPU and method", "## 2. Space per array", "## 3. Speed-up"]
REPORT_TOML = """
[report]
file = "REPORT.md"
template = "REPORT.template.md"
sections = ["## 1. GPU and method", "## 2. Space per array", "## 3. Speed-up"]
need_numbers = ["## 1. GPU and method", "## 3. Speed-up"]
points = { filled = 2, manual = 8 }
"""
BASE = (FAKELAB / "labs" / "9.1-fake" / "lab.toml").read_text()
WITH_REPORT = BASE.replace('["kernels.cu"]', '["kernels.cu", "REPORT.md"]') + REPORT_TOML

# a report filled in as a student would: answers after the prompts, a table row, a figure
FILLED = (
    TEMPLATE.replace(
        "- GPU (name, as the grader prints it):",
        "- GPU (name, as the grader prints it): Fake GPU, 25 timed repetitions of 0.42 ms",
    )
    .replace("| 1 in  |       |     |", "| 1 in  | shared | each value is read 9 times |")
    .replace("what bought it.", "what bought it.\n\nMine runs 2.5x the naive kernel.")
)


def make_lab(tmp_path: Path, text: str = WITH_REPORT, template: str = TEMPLATE) -> Path:
    lab = tmp_path / "labs" / "9.1-fake"
    lab.mkdir(parents=True)
    (lab / "lab.toml").write_text(text)
    (lab / "kernels.cu").write_text("// skeleton\n")
    (lab / "REPORT.md").write_text(template)
    (lab / "REPORT.template.md").write_text(template)
    return lab


@pytest.fixture
def spec(tmp_path) -> manifest.ReportSpec:
    return manifest.load(make_lab(tmp_path)).report


def check(spec, text: str | bytes):
    data = text.encode() if isinstance(text, str) else text
    return writeup.check(spec, data)


def statuses(found) -> list[str]:
    return [row["status"] for row in found.sections]


# -- the manifest -------------------------------------------------------------------------


def test_valid_report_table(tmp_path):
    lab = manifest.load(make_lab(tmp_path))
    r = lab.report
    assert (r.file, r.template, r.filled, r.manual) == ("REPORT.md", "REPORT.template.md", 2, 8)
    assert r.sections == tuple(SECTIONS)
    assert r.need_numbers == ("## 1. GPU and method", "## 3. Speed-up")
    assert r.template_text == TEMPLATE
    assert lab.max_points == 17 + 2 and lab.manual_points == 8
    assert lab.required_files == ("kernels.cu",)  # a missing report costs only its points


def test_report_is_optional(tmp_path):
    lab = manifest.load(make_lab(tmp_path, BASE))
    assert lab.report is None and lab.manual_points == 0
    assert lab.required_files == ("kernels.cu",)


def test_points_default_to_zero_and_need_numbers_to_none(tmp_path):
    text = WITH_REPORT.replace("points = { filled = 2, manual = 8 }", "points = { manual = 5 }")
    text = text.replace('need_numbers = ["## 1. GPU and method", "## 3. Speed-up"]\n', "")
    r = manifest.load(make_lab(tmp_path, text)).report
    assert (r.filled, r.manual, r.need_numbers) == (0, 5, ())


def test_lenient_section_names_in_the_manifest(tmp_path):
    # the manifest's headings are compared with the template's as a student's are
    text = WITH_REPORT.replace('"## 2. Space per array"', '"##   2. SPACE per array"')
    assert manifest.load(make_lab(tmp_path, text)).report.sections[1] == "##   2. SPACE per array"


INVALID = [
    (
        "unknown key",
        WITH_REPORT.replace('file = "REPORT.md"', 'file = "REPORT.md"\nweight = 2'),
        "unknown key 'report.weight' (known: file, template, sections, need_numbers, points)",
    ),
    (
        "not a table",
        BASE.replace('["kernels.cu"]', '["kernels.cu", "REPORT.md"]\nreport = "REPORT.md"'),
        "[report] must be a table",
    ),
    (
        "file not a student file",
        BASE + REPORT_TOML,
        "report.file: 'REPORT.md' is not one of student_files (kernels.cu): the report must "
        "be a file taken from the submission",
    ),
    (
        "file missing",
        WITH_REPORT.replace('file = "REPORT.md"\n', ""),
        "report.file is missing",
    ),
    (
        "template is the student file",
        WITH_REPORT.replace('template = "REPORT.template.md"', 'template = "REPORT.md"'),
        "report.template: 'REPORT.md' is a student file; the template must be a pristine copy",
    ),
    (
        "template absent",
        WITH_REPORT.replace('template = "REPORT.template.md"', 'template = "NOPE.md"'),
        "report.template: cannot read",
    ),
    (
        "template with a path",
        WITH_REPORT.replace('template = "REPORT.template.md"', 'template = "../REPORT.md"'),
        "report.template: '../REPORT.md' must be a plain file name in the lab folder",
    ),
    (
        "sections missing",
        WITH_REPORT.replace(
            'sections = ["## 1. GPU and method", "## 2. Space per array", "## 3. Speed-up"]\n',
            "",
        ),
        "report.sections is missing",
    ),
    (
        "sections empty",
        WITH_REPORT.replace(
            'sections = ["## 1. GPU and method", "## 2. Space per array", "## 3. Speed-up"]',
            "sections = []",
        ).replace('need_numbers = ["## 1. GPU and method", "## 3. Speed-up"]', ""),
        "report.sections must not be empty",
    ),
    (
        "section not a heading",
        WITH_REPORT.replace('"## 2. Space per array",', '"2. Space per array",'),
        "report.sections[1]: '2. Space per array' is not a Markdown heading",
    ),
    (
        "section not in the template",
        WITH_REPORT.replace('"## 3. Speed-up"]', '"## 3. Speedup"]'),
        "report.sections[2]: '## 3. Speedup' is not a heading of",
    ),
    (
        "sections out of order",
        WITH_REPORT.replace(
            '["## 1. GPU and method", "## 2. Space per array", "## 3. Speed-up"]',
            '["## 2. Space per array", "## 1. GPU and method", "## 3. Speed-up"]',
        ),
        "report.sections[1]: '## 1. GPU and method' comes before the section listed before it",
    ),
    (
        "section twice",
        WITH_REPORT.replace('"## 3. Speed-up"]', '"## 3. Speed-up", "## 3. speed-up"]'),
        "report.sections[3]: '## 3. speed-up' is listed twice",
    ),
    (
        "need_numbers not a section",
        WITH_REPORT.replace(
            'need_numbers = ["## 1. GPU and method"', 'need_numbers = ["## 4. Accuracy"'
        ),
        "report.need_numbers[0]: '## 4. Accuracy' is not one of report.sections",
    ),
    (
        "points a number",
        WITH_REPORT.replace("points = { filled = 2, manual = 8 }", "points = 10"),
        "report.points must be a table: points = { filled = N, manual = M }",
    ),
    (
        "points missing",
        WITH_REPORT.replace("points = { filled = 2, manual = 8 }\n", ""),
        "report.points is missing",
    ),
    (
        "points unknown part",
        WITH_REPORT.replace("manual = 8 }", "manual = 8, style = 1 }"),
        "unknown key 'report.points.style' (known: filled, manual)",
    ),
    (
        "points negative",
        WITH_REPORT.replace("manual = 8", "manual = -8"),
        "report.points.manual must be a non-negative integer",
    ),
    (
        "points fractional",
        WITH_REPORT.replace("filled = 2", "filled = 2.5"),
        "report.points.filled must be a non-negative integer",
    ),
    (
        "points both zero",
        WITH_REPORT.replace("filled = 2, manual = 8", "filled = 0, manual = 0"),
        "report.points: give filled or manual points (both are 0)",
    ),
]


@pytest.mark.parametrize("text,message", [c[1:] for c in INVALID], ids=[c[0] for c in INVALID])
def test_invalid_report_table(tmp_path, text, message):
    with pytest.raises(GraderError) as e:
        manifest.load(make_lab(tmp_path, text))
    assert message in str(e.value)
    assert "lab.toml: " in str(e.value)


def test_binary_template_is_refused(tmp_path):
    lab = make_lab(tmp_path)
    (lab / "REPORT.template.md").write_bytes(b"\x00\x01\xff" * 100)
    with pytest.raises(GraderError, match="report.template: .* is not a text file"):
        manifest.load(lab)


def test_students_own_report_never_breaks_the_manifest(tmp_path):
    # in a working copy labs/<lab>/REPORT.md is the student's: headings renamed, binary,
    # anything; the manifest reads only the template
    lab = make_lab(tmp_path)
    (lab / "REPORT.md").write_bytes(b"\x00garbage\xff")
    assert manifest.load(lab).report.file == "REPORT.md"


# -- the check ----------------------------------------------------------------------------


def test_complete_report_passes(spec):
    found = check(spec, FILLED)
    assert found.passed, found.messages
    assert statuses(found) == ["ok", "ok", "ok"]
    assert found.info == "all 3 sections filled in, measured figures quoted in the 2 that need them"


def test_untouched_template_fails_with_one_message(spec):
    found = check(spec, TEMPLATE)
    assert found.messages == ["REPORT.md is the template, unchanged: fill in every section"]
    assert statuses(found) == ["template", "template", "template"]
    # trailing spaces, CRLF line ends and a BOM do not make the template a report
    dressed = "\ufeff" + TEMPLATE.replace("\n", "  \r\n")
    assert check(spec, dressed).messages == found.messages


def test_missing_section_is_named(spec):
    found = check(spec, FILLED.replace("## 2. Space per array\n", ""))
    assert found.messages == [
        "REPORT.md: section '## 2. Space per array' is missing: keep the template's headings"
    ]
    assert statuses(found) == ["ok", "missing", "ok"]
    assert found.info == "2 of 3 sections filled in"


def test_placeholder_only_section_is_named(spec):
    text = FILLED.replace("| 1 in  | shared | each value is read 9 times |", "| 1 in  |  |  |")
    found = check(spec, text)
    assert found.messages == [
        "REPORT.md: section '## 2. Space per array' still holds only the template's text: "
        "write your own"
    ]
    assert statuses(found) == ["ok", "template", "ok"]


def test_template_lines_deleted_is_empty(spec):
    start = FILLED.index("| Array")
    end = FILLED.index("## 3.")
    found = check(spec, FILLED[:start] + "\n---\n\n" + FILLED[end:])
    assert statuses(found) == ["ok", "empty", "ok"]
    assert "section '## 2. Space per array' is empty" in found.messages[0]


def test_section_without_a_number(spec):
    found = check(spec, FILLED.replace("Mine runs 2.5x the naive kernel.", "Mine is faster."))
    assert found.messages == [
        "REPORT.md: section '## 3. Speed-up' quotes no measured figure of yours: give the "
        "figures with their units (ms, GB/s, %, x, dB) or the metric they are (ratio, "
        "pct_of_copy, psnr_db)"
    ]
    assert statuses(found) == ["ok", "ok", "no_number"]


def test_template_numbers_and_glued_digits_are_no_numbers(spec):
    # "128" is the template's, even quoted again; "H200", "sm_90" and "v2" are names
    text = FILLED.replace(
        "Fake GPU, 25 timed repetitions of 0.42 ms", "an H200, sm_90 build, method v2"
    )
    text = text.replace("Mine runs 2.5x the naive kernel.", "Still 128 x 128, and faster.")
    assert statuses(check(spec, text)) == ["no_number", "ok", "no_number"]
    # a section without need_numbers may do without
    text = FILLED.replace("each value is read 9 times", "each value is read many times")
    assert check(spec, text).passed


def test_lenient_headings(spec):
    text = (
        FILLED.replace("## 1. GPU and method", "#   1.  gpu AND Method  ##")
        .replace("## 2. Space per array", "##2. Space per array:")
        .replace("## 3. Speed-up", "### **3. Speed-up**")
    )
    found = check(spec, text)
    assert found.passed, found.messages


def test_sections_out_of_order(spec):
    one = FILLED.index("## 1.")
    two = FILLED.index("## 2.")
    three = FILLED.index("## 3.")
    swapped = FILLED[:one] + FILLED[two:three] + FILLED[one:two] + FILLED[three:]
    found = check(spec, swapped)
    assert statuses(found) == ["ok", "out_of_order", "ok"]
    assert found.messages == [
        "REPORT.md: section '## 2. Space per array' is out of order: keep the template's order "
        "of sections"
    ]


def test_headings_inside_code_and_hash_words_are_not_headings(spec):
    # a fenced block may hold anything; "#include" in prose ends no section
    text = FILLED.replace(
        "Mine runs 2.5x the naive kernel.",
        "```c\n## 3. Speed-up\n#include <cuda.h>\n```\n#include is not a heading\n"
        "Mine runs 2.5x the naive kernel.",
    )
    found = check(spec, text)
    assert found.passed, found.messages


def test_subheadings_stay_in_their_section(spec):
    text = FILLED.replace("Mine runs 2.5x", "### Measured\n\nMine runs 2.5x")
    assert check(spec, text).passed
    # a heading of the same level ends the section: the figure is then in no section
    text = FILLED.replace("Mine runs 2.5x", "## Appendix\n\nMine runs 2.5x")
    assert statuses(check(spec, text))[2] == "template"


BAD_FILES = [
    ("binary garbage", bytes(range(256)) * 64, "is not a text file (it holds NUL bytes)"),
    ("not UTF-8", "é".encode("utf-16-le").replace(b"\0", b"\xe9") * 500, "is not UTF-8 text"),
    ("empty", b"", "REPORT.md is empty"),
    ("blank", b" \n\n\t\r\n", "REPORT.md is empty"),
]


@pytest.mark.parametrize("data,message", [c[1:] for c in BAD_FILES], ids=[c[0] for c in BAD_FILES])
def test_bad_files_fail_without_crashing(spec, data, message):
    found = writeup.check(spec, data)
    assert not found.passed
    assert len(found.messages) == 1 and message in found.messages[0]
    assert statuses(found) == ["not_checked"] * 3


def test_missing_report_says_why(spec):
    found = writeup.check(spec, None, "missing REPORT.md in submission")
    assert found.messages == ["missing REPORT.md in submission"]


def test_a_few_bytes_not_utf8_are_read(spec):
    # a report saved as Latin-1 with a few accents: read, with a note, and graded
    found = writeup.check(spec, FILLED.replace("Mine", "Mine (café)").encode("latin-1"))
    assert found.passed, found.messages
    assert found.note == "REPORT.md is not valid UTF-8: 1 bytes could not be read"


def test_huge_and_hostile_input_is_linear(spec):
    start = time.monotonic()
    for data in (
        b"#" * 2_000_000,
        b"## " + b" " * 2_000_000 + b"#",
        b"1." * 1_000_000,
        (b"| " * 50 + b"\n") * 20_000,
        FILLED.encode() + b"x" * 2_000_000,
    ):
        writeup.check(spec, data)
    assert time.monotonic() - start < 20


# -- scoring, exit status and the reports -------------------------------------------------


def graded(report_status: str | None, correct: bool = True, with_manual: bool = True) -> Grade:
    """A scored Grade of one exercise (10 + 5 points) and a report (2 filled, 8 manual)."""
    frac = 1 if correct else 0
    parts = {
        "correctness": Part("correctness", 10, "passed" if correct else "failed", frac),
        "static": Part("static", 5, "passed", 1),
        "sanitizer": Part("sanitizer", 0, "skipped", None, reason="not part of this exercise"),
        "performance": Part("performance", 0, "skipped", None, reason="n/a"),
    }
    g = Grade("9.1-fake", "9.1", "Fake lab", "sub", None, None, exercises=[])
    g.exercises.append(ExerciseResult("scale", parts))
    if report_status is not None:
        r = ReportResult("REPORT.md", 2, 8 if with_manual else 0, status=report_status)
        r.info = "all 3 sections filled in" if report_status == "passed" else "2 of 3 ..."
        if report_status == "failed":
            r.messages = ["REPORT.md: section '## 3. Speed-up' quotes no number of yours: .."]
        r.sections = [{"heading": s, "status": "ok"} for s in SECTIONS]
        g.report = r
    scoring.score(g)
    return g


def test_scoring_full_marks_with_manual_pending_is_0():
    g = graded("passed")
    assert (g.total, g.max, g.manual_pending, g.exit_code) == (17, 17, 8, 0)
    assert g.report.points == 2


def test_scoring_unfilled_report_loses_its_points_for_certain():
    g = graded("failed")
    assert (g.total, g.max, g.report.points, g.exit_code) == (15, 17, 0, 1)


def test_scoring_report_not_checked_is_pending():
    g = graded("not_run")
    assert g.report.points is None and g.exit_code == 3 and g.total == 15


def test_text_report_shows_automatic_and_manual_points():
    out = report.text(graded("passed"))
    assert "REPORT.md (your report)" in out
    assert "  filled in    passed  all 3 sections filled in" in out
    assert (
        "  manual       pending manual review: 8 points for REPORT.md, graded by the instructor "
        "(not in the automatic score)" in out
    )
    table = out[out.index("exercise ") :]
    assert "REPORT.md " in table and "2/2" in table
    assert "manual review" in table and "8 pending" in table
    assert out.rstrip().endswith(
        "score 17/17 automatic, 8 manual pending: every automatic check ran, full automatic "
        "marks; REPORT.md awaits the instructor's review"
    )


def test_text_report_of_an_unfilled_report():
    out = report.text(graded("failed"))
    assert "  filled in    FAILED" in out
    assert "  => REPORT.md: section '## 3. Speed-up' quotes no number" in out
    assert out.rstrip().endswith("score 15/17 automatic, 8 manual pending: points lost")


def test_text_report_without_manual_points_reads_as_before():
    out = report.text(graded("passed", with_manual=False))
    assert "manual" not in out and "automatic" not in out
    assert out.rstrip().endswith("score 17/17: every check ran, full marks")


def test_json_report():
    doc = report.to_json(graded("failed"))
    assert doc["total"] == 15 and doc["max"] == 17 and doc["manual_pending"] == 8
    r = doc["report"]
    assert r["file"] == "REPORT.md" and r["points"] == 0 and r["max"] == 2
    assert r["status"] == "failed" and r["messages"]
    assert r["sections"][0] == {"heading": "## 1. GPU and method", "status": "ok"}
    assert r["manual"] == {"max": 8, "points": None, "status": "pending manual review"}
    json.dumps(doc)
    assert report.to_json(graded(None))["report"] is None
    assert report.to_json(graded(None))["manual_pending"] == 0


def test_gradescope_tests_hold_the_manual_points_out():
    g = graded("passed")
    doc = gradescope.results(g, 1.0)
    assert doc["score"] == 17
    filled, manual = doc["tests"][-2:]
    assert filled == {
        "name": "REPORT.md: filled in",
        "number": "2.1",
        "score": 2,
        "max_score": 2,
        "status": "passed",
        "output": "filled in    passed  all 3 sections filled in\n",
        "visibility": "visible",
        "tags": ["report", "filled"],
    }
    # neither earned nor lost: no score, no max_score, no status (Gradescope's spec makes
    # them optional when the document has a top-level score)
    assert set(manual) == {"name", "number", "output", "visibility", "tags"}
    assert manual["name"] == "REPORT.md: manual review (8 points, graded by hand)"
    assert manual["number"] == "2.2" and manual["tags"] == ["report", "manual"]
    assert manual["output"].startswith("pending manual review: 8 points for REPORT.md")
    assert sum(t.get("max_score", 0) for t in doc["tests"]) == g.max == 17
    assert "8 manual pending" in doc["output"]


def test_gradescope_unfilled_report_fails_its_test():
    doc = gradescope.results(graded("failed"), 1.0)
    filled = next(t for t in doc["tests"] if t["name"] == "REPORT.md: filled in")
    assert filled["score"] == 0 and filled["status"] == "failed"
    assert "=> REPORT.md: section '## 3. Speed-up' quotes no number" in filled["output"]


def _row(sid: str, g: Grade, lab_id: str = "9.1") -> dict:
    return {
        "batch_row": batch.ROW_SCHEMA,
        "id": sid,
        "lab": lab_id,
        "submission": sid,
        "status": "graded",
        "exercises": {ex.name: ex.total for ex in g.exercises},
        "report": g.report.points if g.report else None,
        "total": g.total,
        "max": g.max,
        "manual_pending": g.manual_pending,
        "seed": None,
        "exit_code": g.exit_code,
        "elapsed_s": 1.0,
    }


def test_gradebook_columns(tmp_path):
    lab = manifest.load(make_lab(tmp_path / "course"))
    out = tmp_path / "out"
    for sid, g in (("alice", graded("passed")), ("bob", graded("failed"))):
        (out / sid).mkdir(parents=True)
        (out / sid / "batch.json").write_text(json.dumps(_row(sid, g)))
    # a row of the grader's own failure has no report points
    row = _row("carol", graded("passed"))
    row.update(status="error: boom", report=None, exercises={})
    (out / "carol").mkdir()
    (out / "carol" / "batch.json").write_text(json.dumps(row))
    batch.write_gradebook(out, lab)
    with open(out / "gradebook.csv", newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == [
        "id", "scale", "offset", "report", "total", "max", "lost", "pending", "manual_pending", "status",
        "gpu", "warnings",
    ]  # fmt: skip
    # rows written before the warnings count (none here): an empty cell, not 0
    assert rows[1] == ["alice", "15", "", "2", "17", "17", "0", "0", "8", "graded", "", ""]
    assert rows[2] == ["bob", "15", "", "0", "15", "17", "2", "0", "8", "graded", "", ""]
    assert rows[3][3] == "" and rows[3][6:9] == ["", "", "8"]


def test_gradebook_of_a_lab_without_a_report_is_unchanged(tmp_path):
    lab = manifest.load(make_lab(tmp_path / "course", BASE))
    out = tmp_path / "out"
    (out / "alice").mkdir(parents=True)
    (out / "alice" / "batch.json").write_text(json.dumps(_row("alice", graded(None))))
    batch.write_gradebook(out, lab)
    header = (out / "gradebook.csv").read_text().splitlines()[0]
    assert header == "id,scale,offset,total,max,lost,pending,status,gpu,warnings"


def test_a_partial_row_shows_only_the_points_lost_for_certain(tmp_path):
    """A partial grade's cells stay empty (nothing provisional to import), and its ``lost``
    column tells a submission that lost points already (a skeleton) from one that waits for
    its GPU checks (an instructor's trial): max - so far - pending."""
    lab = manifest.load(make_lab(tmp_path / "course", BASE))
    out = tmp_path / "out"
    for sid, so_far, pending in (("alice", 0, 15), ("carol", 3, 8)):  # of 15
        row = _row(sid, graded(None))
        row.update(status="partial (no GPU)", total=so_far, pending_points=pending)
        (out / sid).mkdir(parents=True)
        (out / sid / "batch.json").write_text(json.dumps(row))
    batch.write_gradebook(out, lab)
    with open(out / "gradebook.csv", newline="") as f:
        rows = list(csv.reader(f))
    assert rows[1] == ["alice", "", "", "", "15", "0", "15", "partial (no GPU)", "", ""]
    assert rows[2] == ["carol", "", "", "", "15", "4", "8", "partial (no GPU)", "", ""]


@pytest.mark.parametrize(
    "line, waits",
    [
        ("- GPU: not measured: no GPU", True),
        ("- GPU: **not measured**: no GPU", True),
        ("- GPU: `Not Measured - No GPU`", True),
        ("- GPU: not measured\n  : no GPU", True),
        # the student's word, whatever figure is quoted beside it (a trial quoted the handout's)
        ("- GPU: not measured: no GPU; the handout's floor is 141 µs", True),
        ("- GPU: an H100 of some kind", False),
    ],
)
def test_not_measured_is_the_students_own_line(tmp_path, line, waits):
    """A ``need_numbers`` section that says "not measured: no GPU" in a line of the
    student's (emphasis, case, spacing and a dash aside) is ``not_measured``, a figure quoted
    beside it or not;
    the template's own instruction to write it is not the student saying it (a review:
    lab 3.5's template holds that line, so a student who kept it and wrote any text passed
    for one who had no GPU)."""
    template = TEMPLATE.replace(
        "- How you measured:", "- How you measured:\n- No GPU? Write `not measured: no GPU`."
    )
    lab = make_lab(tmp_path, template=template)
    spec = manifest.load(lab).report
    text = FILLED.replace(
        "- How you measured:", "- How you measured:\n- No GPU? Write `not measured: no GPU`."
    ).replace(
        "- GPU (name, as the grader prints it): Fake GPU, 25 timed repetitions of 0.42 ms", line
    )
    found = writeup.check(spec, text.encode())
    first = found.sections[0]["status"]
    assert first == ("not_measured" if waits else "no_number"), found.sections
    assert writeup.waits_for_gpu(found.sections) == waits


# -- a measured figure, not any digit (a student's trial: "4 bytes per pixel" counted) ------


@pytest.mark.parametrize(
    "answer",
    [
        "Mine takes 0.59 ms.", "Mine takes 120 µs.", "Mine takes 120 us.", "410 GB/s.",
        "95 % of the copy.", "95% of the copy.", "It runs 1.31x the naive one.", "2.5× faster.",
        "PSNR 84.7 dB.", "The largest error is 0.5 grey levels.", "The ratio is 9.3.",
        "`timing.ratio`: 9.3", "`pct_of_copy` = 2.7", "PSNR of 84.7", "max_abs_err 0.505",
        "| kernel | GB/s |\n|---|---:|\n| mine | 410 |",
        "| kernel | speed-up |\n|---|---|\n| mine | 2.5 |",
    ],
)
def test_a_measured_figure_fills_a_section(spec, answer):
    found = check(spec, FILLED.replace("Mine runs 2.5x the naive kernel.", answer))
    assert statuses(found) == ["ok", "ok", "ok"], (answer, found.messages)


@pytest.mark.parametrize(
    "answer",
    [
        "It saves 4 bytes per pixel.", "I timed it at 4096 x 4096 and 4096 × 4096.",
        "25 reps on 132 SMs with CUDA 13.0.", "Two stages fused: 3 kernels instead of 5.",
        "| kernel | bytes per pixel |\n|---|---|\n| mine | 9 |",  # a column of no measure
        # the table ended: pipes in a later paragraph are no cells of its GB/s column
        "| kernel | GB/s |\n|---|---|\n| mine | fast |\n\nThen:\n| mine | 9 |",
    ],
)
def test_counts_and_sizes_are_no_figures(spec, answer):
    found = check(spec, FILLED.replace("Mine runs 2.5x the naive kernel.", answer))
    assert statuses(found) == ["ok", "ok", "no_number"], (answer, found.messages)
    assert "quotes no measured figure of yours" in found.messages[0]


LAB35 = REPO / "labs" / "3.5-project"
SOLUTION35 = REPO / "solutions" / "3.5-project" / "REPORT.md"


def test_lab_35s_reference_report_is_filled_in_and_the_template_not():
    """The filled-in example report (solutions/3.5-project/REPORT.md) passes the check that
    selfcheck runs on a GPU, here without one; the template does not, and neither does the
    example with every figure of sections 4 to 7 reduced to a bare count."""
    if not SOLUTION35.is_file():
        pytest.skip("no solutions/ in this copy: it is a student release")
    spec35 = manifest.load(LAB35).report
    assert "## 1. GPU and method" not in spec35.need_numbers  # asks for no measurement
    text = SOLUTION35.read_text()
    found = check(spec35, text)
    assert found.passed, found.messages
    assert not check(spec35, spec35.template_text).passed
    # sections 4 to 7, each line replaced by a line of counts and sizes
    head, tail = text.split("## 4. Roofline table", 1)
    counts = "the result: 4 bytes per pixel, 3 kernels, at 8192 x 8192."
    lines = [ln if ln.startswith("## ") or not ln.strip() else counts for ln in tail.splitlines()]
    found = check(spec35, head + "## 4. Roofline table" + "\n".join(lines))
    assert [r["status"] for r in found.sections][3:] == ["no_number"] * 4, found.sections


def test_a_row_counts_its_reports_source_warnings(tmp_path):
    """An instructor's trial (session 46): the source warnings were only in each student's
    report. The row counts them, each text once across exercises that share it, and the
    gradebook's last column shows the count."""
    lab = manifest.load(make_lab(tmp_path / "course"))
    shared = "kernels.cu:9: a grid dimension rounds the grid down"
    g = Grade("9.1-fake", lab.id, "t", "s", 1, "sm_90", max=lab.max_points, exercises=[
        ExerciseResult("scale", {}, warnings=[shared, "kernels.cu:4: another"]),
        ExerciseResult("offset", {}, warnings=[shared]),
    ])
    row = batch._row(batch.Submission("ann", tmp_path, "dir"), lab, g, "graded", 1.0, "d")
    assert row["warnings"] == 2
    (tmp_path / "out" / "ann").mkdir(parents=True)
    (tmp_path / "out" / "ann" / "batch.json").write_text(json.dumps(row))
    batch.write_gradebook(tmp_path / "out", lab)
    with open(tmp_path / "out" / "gradebook.csv", newline="") as f:
        header, ann = list(csv.reader(f))
    assert header[-1] == "warnings" and ann[-1] == "2"
