"""The messages a lab harness gives a failed check in the course's words (``CML_CHECK_SAYING``,
common/cml_check.h): each reaches the judge's document whole — printable ASCII, shorter than
the student's process's ERROR message holds (common/cml_ipc.h), which the judge would cut or
turn into "?" — and ends with the CUDA error's name in parentheses, so that the student can
still look it up. Read from the sources: the checks themselves run on a GPU only."""

from __future__ import annotations

import re

from helpers import REPO

_SAYING = re.compile(r"CML_CHECK_SAYING\((?P<expr>.*?),\s*(?P<message>\w+|\"(?:[^\"\\]|\\.)*\")\)")
_DEFINE = r"#define\s+{name}\s*\\?\s*(?P<body>(?:\"(?:[^\"\\]|\\.)*\"\s*\\?\s*)+)"
_LITERAL = re.compile(r"\"((?:[^\"\\]|\\.)*)\"")


def ipc_message_bytes() -> int:
    """The size of cml_msg_error's message field (common/cml_ipc.h)."""
    text = (REPO / "common" / "cml_ipc.h").read_text()
    return int(re.search(r"char message\[(\d+)\];", text).group(1))


def saying_messages(text: str) -> dict[str, str]:
    """{the check's expression: its message} for each CML_CHECK_SAYING of a C source, the
    message a string literal or a macro of concatenated literals defined in the same file."""
    found = {}
    for m in _SAYING.finditer(text):
        arg = m.group("message")
        if not arg.startswith('"'):
            define = re.search(_DEFINE.format(name=re.escape(arg)), text)
            assert define, f"{arg}: no #define of string literals in the file"
            arg = define.group("body")
        found[m.group("expr")] = "".join(_LITERAL.findall(arg))
    return found


def test_saying_messages_are_read_from_macros_and_literals():
    text = (
        '#define WORDS                \\\n    "a "    \\\n    "b (cudaErrorX)"\n'
        'CML_CHECK_SAYING(f(h), WORDS);\nCML_CHECK_SAYING(g(), "c (cudaErrorY)");\n'
    )
    assert saying_messages(text) == {"f(h)": "a b (cudaErrorX)", "g()": "c (cudaErrorY)"}


def test_every_harness_message_reaches_the_judge_whole():
    cap = ipc_message_bytes()
    seen = 0
    for path in sorted(REPO.glob("labs/*/harness.cu")):
        for expr, message in saying_messages(path.read_text()).items():
            seen += 1
            where = f"{path.relative_to(REPO)}: CML_CHECK_SAYING({expr}, ...)"
            assert "\\" not in message, f"{where}: an escape in {message!r}"
            assert all(0x20 <= ord(c) < 0x7F for c in message), f"{where}: not printable ASCII"
            assert len(message.encode()) < cap, f"{where}: {len(message)} bytes, {cap - 1} at most"
            assert re.search(r"\(cudaError\w+\)$", message), f"{where}: no CUDA error's name last"
    assert seen, "no CML_CHECK_SAYING in any harness (lab 3.2a's release check has one)"


def test_lab_3_2_release_check_says_what_it_found():
    text = (REPO / "labs" / "3.2-global-memory" / "harness.cu").read_text()
    message = saying_messages(text)["host_copy_expect_released(h)"]
    assert message.startswith("host_copy_free left the buffer page-locked: ")
    assert "cudaFreeHost" in message and "already mapped" not in message
    assert message.endswith("(cudaErrorHostMemoryAlreadyRegistered)")
