"""Which memory spaces each kernel of a submission uses, read from its SASS: the report's
"spaces" step. Evidence, not a rule — no points depend on it (the static rules of lab.toml
do that); it shows students, and lab 3.5's report, where each kernel's data lives.

Classification of sm_80/sm_90 instructions (FACTS.md, "SASS mnemonics"; CUDA Binary
Utilities, "Instruction Set Reference"):

- shared: LDS, STS, LDSM, ATOMS, and LDGSTS (cp.async, global to shared)
- global: LDG (other than the read-only path), STG, ATOMG, ATOM, RED, REDG (sm_90's
  reduction to global memory, ``atomicAdd`` whose result is unused)
- read-only: LDG…CONSTANT (``__ldg`` / ``const __restrict__``)
- constant bank: any operand ``c[0x3][…]`` (``__constant__`` variables; bank 0x0 holds the
  kernel's parameters and is not counted)
- texture: TEX, TLD, TLD4, TXD, TXQ; surface: SULD, SUST, SUATOM, SURED
- local (spills or run-time-indexed per-thread arrays): LDL, STL
- barrier: BAR

A 64- or 128-bit access keeps its width in the count (``LDG.128×1``: a float4 load), so a
vectorised kernel shows as one.
"""

from __future__ import annotations

import re

from grader.sass import Dump, Function

# (space, opcode regex matched at the start of the opcode); first match wins
_OPCODES = (
    ("read-only", re.compile(r"LDG\.\S*CONSTANT")),
    ("shared", re.compile(r"(LDS|STS|LDSM|ATOMS|LDGSTS)\b")),
    ("global", re.compile(r"(LDG|STG|ATOMG|ATOM|REDG|RED)\b")),
    ("texture", re.compile(r"(TEX|TLD|TLD4|TXD|TXQ)\b")),
    ("surface", re.compile(r"(SULD|SUST|SUATOM|SURED)\b")),
    ("local", re.compile(r"(LDL|STL)\b")),
    ("barrier", re.compile(r"BAR\b")),
)
_CONSTANT_BANK = re.compile(r"c\[0x3\]\[")
_WIDTH = re.compile(r"\.(64|128)(?=\.|$)")  # a vector access: LDG.E.128, STS.64
ORDER = ("shared", "global", "read-only", "constant bank", "texture", "surface", "local", "barrier")


def of_function(fn: Function) -> dict[str, dict[str, int]]:
    """{space: {mnemonic: count}} for one function's instructions."""
    found: dict[str, dict[str, int]] = {}
    for ins in fn.instructions:
        mnemonic = ins.opcode.split(".")[0]
        width = _WIDTH.search(ins.opcode)
        if width and mnemonic != "ULDC":  # ULDC.64: a uniform load of two constants
            mnemonic += f".{width.group(1)}"
        for space, pattern in _OPCODES:
            if pattern.match(ins.opcode):
                if space == "read-only":
                    mnemonic += ".CONSTANT"
                counts = found.setdefault(space, {})
                counts[mnemonic] = counts.get(mnemonic, 0) + 1
                break
        if _CONSTANT_BANK.search(ins.body):
            counts = found.setdefault("constant bank", {})
            counts[mnemonic] = counts.get(mnemonic, 0) + 1
    return found


def lines(dumped: Dump) -> list[str]:
    """One line per function of the student objects, in the listing's order:
    "scale_rows_kernel: global (LDG×3, STG×1)"; functions of several architectures once."""
    out, seen = [], set()
    for fn in dumped.functions:
        if fn.mangled in seen:
            continue
        seen.add(fn.mangled)
        found = of_function(fn)
        parts = []
        for space in ORDER:
            if space in found:
                counts = ", ".join(f"{m}×{n}" for m, n in sorted(found[space].items()))
                parts.append(f"{space} ({counts})")
        out.append(f"{fn.name}: {'; '.join(parts) if parts else 'registers only'}")
    return out
