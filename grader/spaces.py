"""Which memory spaces each kernel of a submission uses, read from its SASS: the report's
"spaces" step. Evidence, not a rule — no points depend on it (the static rules of lab.toml
do that); it shows students, and lab 3.5's report, where each kernel's data lives.

Classification of sm_80/sm_90 instructions (FACTS.md, "SASS mnemonics"; CUDA Binary
Utilities, "Instruction Set Reference"):

- shared: LDS, STS, LDSM, STSM, ATOMS, LDGSTS (cp.async, global to shared) and sm_90's bulk
  copies into shared memory, UBLKCP (cp.async.bulk) and UTMALDG (a TMA tensor load)
- global: LDG (other than the read-only path), STG, ATOMG, ATOM, RED, REDG (sm_90's
  reduction to global memory, ``atomicAdd`` whose result is unused)
- read-only: LDG…CONSTANT (``__ldg`` / ``const __restrict__``)
- constant bank c[0x3]: any operand ``c[0x3][…]`` (``__constant__`` variables; bank 0x0 holds
  the kernel's parameters and is not counted; the label names the bank, as handout 3.4 does)
- texture: TEX, TLD, TLD4, TXD, TXQ; surface: SULD, SUST, SUATOM, SURED
- local (spills or run-time-indexed per-thread arrays): LDL, STL
- warp shuffle (a value from another lane's registers, no memory at all): SHFL
  (``__shfl_sync`` and its kin; a lab 3.5 trial's shuffle-based Sobel showed no sign of its
  design, and an instructor reading the report's claims could not see it)
- barrier: BAR, sm_90's thread-block-cluster barrier UCGABAR_ARV / UCGABAR_WAIT, and the mbarrier
  operations SYNCS (a cuda::barrier's or a block-scope cuda::pipeline's arrive and wait)
- commit and wait (one thread's, not a barrier between threads): LDGDEPBAR, the commit of its
  asynchronous copies (``__pipeline_commit``), and DEPBAR, the wait for them
  (``__pipeline_wait_prior``: lab 3.2e requires the wait, and a student sees it here; the two
  were one "wait" label, and a lab 3.2 trial with the wait left out read "wait (LDGDEPBAR×2)"
  beside the static check's "no wait"); DEPBAR also waits for other
  long-latency results, such as a texture fetch's (a lab 3.4 trial read "barrier (DEPBAR×2)"
  in a texture kernel and looked for a __syncthreads that was not there)

Each instruction is named by its opcode's first word and its width: a 64- or 128-bit access
keeps it (``LDG.128×1``: a float4 load, ``LDG.E.128`` in the SASS), so a vectorised kernel shows
as one, and the read-only path's loads end in ``.CONSTANT`` (``LDG.E.CONSTANT`` in the SASS is
``LDG.CONSTANT`` here). A global load keeps its coherence scope, as handout 3.1 tells a
student to check: ``__ldcg`` (cache in L2 only) is ``LDG.STRONG.GPU``, ``__ldca``
``LDG.STRONG.SM``, ``__ldcv`` and a volatile load ``LDG.STRONG.SYS`` (a lab 3.1 trial's chase
with the bypass flag ignored read as plain LDG). The scope is not the cache operator itself:
``ld.relaxed.gpu`` shows as ``__ldcg`` does, and eviction hints (``__ldcs``: ``.EF``,
``__ldlu``: ``.LU``) and stores' scopes are not shown.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from grader.sass import Dump, Function, plain_name, shown_names

# (space, opcode regex matched at the start of the opcode); first match wins
_OPCODES = (
    ("read-only", re.compile(r"LDG\.\S*CONSTANT")),
    ("shared", re.compile(r"(LDS|STS|LDSM|STSM|ATOMS|LDGSTS|UBLKCP|UTMALDG)\b")),
    ("global", re.compile(r"(LDG|STG|ATOMG|ATOM|REDG|RED)\b")),
    ("texture", re.compile(r"(TEX|TLD|TLD4|TXD|TXQ)\b")),
    ("surface", re.compile(r"(SULD|SUST|SUATOM|SURED)\b")),
    ("local", re.compile(r"(LDL|STL)\b")),
    ("warp shuffle", re.compile(r"SHFL\b")),
    ("barrier", re.compile(r"(BAR|UCGABAR_ARV|UCGABAR_WAIT|SYNCS)\b")),
    ("commit", re.compile(r"LDGDEPBAR\b")),
    ("wait", re.compile(r"DEPBAR\b")),
)
_CONSTANT_BANK = re.compile(r"c\[0x3\]\[")
CONSTANT_BANK = "constant bank c[0x3]"  # the space of operands _CONSTANT_BANK finds
_WIDTH = re.compile(r"\.(64|128)(?=\.|$)")  # a vector access: LDG.E.128, STS.64
_SCOPE = re.compile(r"\.STRONG\.(GPU|SM|SYS)\b")  # a global load's cache operator (__ldcg: .GPU)
ORDER = (
    "shared", "global", "read-only", CONSTANT_BANK, "texture", "surface", "local",
    "warp shuffle", "barrier", "commit", "wait",
)


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
                elif space == "global" and mnemonic.startswith("LDG"):
                    scope = _SCOPE.search(ins.opcode)
                    if scope:
                        mnemonic += scope.group(0)
                counts = found.setdefault(space, {})
                counts[mnemonic] = counts.get(mnemonic, 0) + 1
                break
        if _CONSTANT_BANK.search(ins.body):
            counts = found.setdefault(CONSTANT_BANK, {})
            counts[mnemonic] = counts.get(mnemonic, 0) + 1
    return found


# A kernel with no load and no store (the skeleton's, before its TODO is done): said so, since a
# student without a GPU sees no other sign of it (a lab 3.2 trial).
NO_MEMORY = "registers only: no load or store at all (not written yet?)"


def unwritten(dumped: Dump, kernel: str) -> bool:
    """Every instance of ``kernel`` in ``dumped`` is one that ``lines`` calls ``NO_MEMORY``: no
    instruction of any space at all, the skeleton's kernel before its TODO is done. False where
    the kernel is not there (that message says what to do)."""
    instances = dumped.instances(kernel)
    return bool(instances) and not any(of_function(fn) for fn in instances)


def lines(
    dumped: Dump, skipped: dict[str, str] | None = None, hidden: Collection[str] = ()
) -> list[str]:
    """One line per function of the student objects, in the listing's order:
    "scale_rows_kernel: global (LDG×3, STG×1)"; functions of several architectures once.
    Instances of one template are told apart by their arguments ("blur_tile_kernel<true>");
    more than MAX_INSTANCES of them with the same spaces share a line (``_grouped``).
    ``skipped``: {kernel: why} of the exercises this architecture does not grade (lab 3.2g on
    sm_80): such a kernel without memory instructions is said to be that, not "not written
    yet?" (a student trial's finished kernel, built for sm_80, read as unwritten). ``hidden``:
    kernels (plain names) left out, those of the exercises a grade of some exercises
    (--exercise) does not grade."""
    skipped = skipped or {}
    shown = []
    for fn, name in _shown(dumped, hidden):
        found = of_function(fn)
        parts = [f"{space} ({_counts(found[space])})" for space in ORDER if space in found]
        empty = f"not graded here ({skipped[fn.name]})" if fn.name in skipped else NO_MEMORY
        shown.append((fn.name, name, "; ".join(parts) if parts else empty))
    return _grouped(shown)


# A template's instances beyond this many, the same spaces each, share one line (a lab 3.5
# trial's kernel templated on radius and border mode read as 40 lines of one kernel)
MAX_INSTANCES = 3


def _grouped(shown: list[tuple[str, str, str]]) -> list[str]:
    """"name: spaces" of each (plain name, shown name, spaces) of ``shown``, in its order;
    where one plain name has more than MAX_INSTANCES instances, those with the same spaces
    are one line at the first one's place: "blur_kernel<1, true> and 11 other instances of
    blur_kernel: global (LDG×9, STG×1)"."""
    per_name: dict[str, int] = {}
    for plain, _, _ in shown:
        per_name[plain] = per_name.get(plain, 0) + 1
    groups: dict[tuple[str, str], list[str]] = {}
    for plain, name, body in shown:
        key = (plain, body) if per_name[plain] > MAX_INSTANCES else (name, body)
        groups.setdefault(key, []).append(name)
    out = []
    for (key, body), names in groups.items():
        if len(names) == 1:
            out.append(f"{names[0]}: {body}")
        else:
            other = "instance" if len(names) == 2 else "instances"
            out.append(f"{names[0]} and {len(names) - 1} other {other} of {key}: {body}")
    return out


def _counts(counts: dict[str, int]) -> str:
    """"LDL×12, STL.128×15": a space's mnemonics and their counts, by mnemonic."""
    return ", ".join(f"{m}×{n}" for m, n in sorted(counts.items()))


def _shown(dumped: Dump, hidden: Collection[str] = ()) -> list[tuple[Function, str]]:
    """(function, the name a report shows) of each function of ``dumped`` once (a mangled
    name comes once per architecture), in the listing's order, less those whose plain name
    is in ``hidden``: the plain name, or the instance's arguments too where one name has
    several instances ("blur_tile_kernel<true>")."""
    by_name: dict[str, set[str]] = {}
    for fn in dumped.functions:
        by_name.setdefault(fn.name, set()).add(fn.mangled)
    twins = sorted(m for group in by_name.values() if len(group) > 1 for m in group)
    full = shown_names(twins)
    out, seen = [], set()
    for fn in dumped.functions:
        if fn.mangled in seen or fn.name in hidden:
            continue
        seen.add(fn.mangled)
        out.append((fn, full.get(fn.mangled, fn.mangled) if fn.mangled in twins else fn.name))
    return out


# the warning for a kernel no static rule reads whose SASS shows local memory (grade.py):
# handout 3.5's section 5 measured a 72-byte stack for a window filled in a loop to
# 2 * radius + 1, and none once both loops were unrolled over the maximum, each tap guarded
LOCAL_MEMORY_MARK = "uses local memory"
LOCAL_MEMORY = (
    "{kernel} " + LOCAL_MEMORY_MARK + " (spaces line: {counts}): a per-thread array "
    "indexed at run time (a window filled in a loop whose bound is a run-time value) or "
    "spilled registers, both in device memory behind L1. Keep the values in registers: loop "
    "over a compile-time bound with #pragma unroll and guard each step (if (k <= 2 * radius)), "
    "so that every index is a constant, or make the size a template argument; -Xptxas -v "
    "shows the stack frame (a printf's arguments use it too). No points depend on it"
)


def local_uses(dumped: Dump) -> list[tuple[str, str, str]]:
    """(plain name, shown name, "LDL×12, STL.128×15") of each function of ``dumped`` whose
    SASS touches local memory (LDL, STL), as the spaces line gives them."""
    out = []
    for fn, name in _shown(dumped):
        found = of_function(fn).get("local")
        if found:
            out.append((fn.name, name, _counts(found)))
    return out
