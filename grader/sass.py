"""SASS and resource usage of compiled objects, and the static rules of lab.toml.

``cuobjdump -sass OBJ`` lists, per cubin (``code for sm_90``), each function::

        Function : _Z19matmul_tiled_kernelILi32EEvPKfS1_Pfiii
        /*0050*/                   LDS R2, [R3] ;      /* 0x... */
        /*0060*/              @!PT LDS RZ, [RZ] ;      /* never executes: ignored */

``parse_sass`` keeps, per function, the opcode of each instruction (the mnemonic with its
modifiers, ``LDG.E.128.CONSTANT``) and the instruction text; instructions predicated
``@!PT`` / ``@!UPT`` never execute and are dropped. ``cuobjdump -res-usage OBJ`` gives
``REG STACK SHARED LOCAL CONSTANT[0] ...`` per function: ``parse_res_usage``.

Function names are Itanium-mangled unless the kernel is ``extern "C"``; ``plain_name``
gives the unqualified name (``_Z19matmul_tiled_kernelILi32EEv...`` → matmul_tiled_kernel,
``_ZN2ns9ns_kernelEPf`` → ns_kernel).

Opcode patterns (docs/protocol.md) are regular expressions matched at the start of the
opcode and ending at a word boundary, ``re.match(rf"(?:{pattern})\\b", opcode)``: ``LDS``
matches ``LDS`` and ``LDS.128`` but not ``LDSM``; ``LDG\\.E.*CONSTANT`` matches
``LDG.E.128.CONSTANT``. Text patterns (``require_text`` / ``forbid_text``) are searched
anywhere in the instruction's text, operands included, without its predicate guard:
``c\\[0x3\\]\\[`` finds a read of the user constant bank. Every instance of the kernel
(each template instantiation) must satisfy the rules. Device functions the compiler did
not inline are separate functions: their instructions do not count for the kernel.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from grader import jobs, tools
from grader import run as runner
from grader.manifest import StaticRules
from grader.tools import Tool

_FUNCTION = re.compile(r"^\s*Function\s*:\s*(\S+)\s*$")
_ARCH = re.compile(r"^\s*code for (sm_\w+)")
_INSTR = re.compile(r"^\s*/\*([0-9a-fA-F]{4,})\*/\s+(.*?)\s*$")
_PREDICATE = re.compile(r"^@(!?)(U?P[A-Z0-9]+)\s+")
_RES_FUNCTION = re.compile(r"^\s*Function\s+(\S+?):\s*$")
_RES_ITEM = re.compile(r"([A-Z_]+(?:\[\d+\])?):(\d+)")
_RES_ARCH = re.compile(r"^\s*arch\s*=\s*(sm_\w+)")

# What common mnemonics are, for readable messages (not lab-specific: CUDA facts).
DESCRIPTIONS = {
    "LDS": "shared-memory load",
    "STS": "shared-memory store",
    "BAR": "barrier: __syncthreads",
    "LDL": "local-memory load, from a spill or a run-time-indexed per-thread array",
    "STL": "local-memory store, from a spill or a run-time-indexed per-thread array",
    "LDG": "global-memory load",
    "STG": "global-memory store",
    "LDC": "constant-bank load",
    "ULDC": "uniform constant-bank load",
    "TEX": "texture fetch",
    "TLD": "texture load",
    "TLD4": "texture gather",
    "SULD": "surface load",
    "SUST": "surface store",
    "LDGSTS": "asynchronous global-to-shared copy, cp.async",
    "DEPBAR": "this thread's wait for its asynchronous copies (cp.async.wait_group) or other "
    "long-latency results (a texture fetch's); not a barrier between threads",
    "LDSM": "shared-memory matrix load, ldmatrix",
    "STSM": "shared-memory matrix store, stmatrix",
    "UBLKCP": "bulk asynchronous copy, cp.async.bulk",
    "UTMALDG": "tensor-memory-accelerator load",
    "SYNCS": "mbarrier operation",
    "UCGABAR_ARV": "thread-block-cluster barrier: arrive",
    "UCGABAR_WAIT": "thread-block-cluster barrier: wait",
    "ATOMS": "shared-memory atomic",
    "ATOMG": "global-memory atomic",
    "RED": "global-memory reduction",
    "SHFL": "warp shuffle",
}


@dataclass
class Instruction:
    address: int
    opcode: str  # mnemonic with modifiers, e.g. "LDG.E.128.CONSTANT"
    text: str  # the instruction without the address and encoding, e.g. "LDS R2, [R3]"

    @property
    def body(self) -> str:
        """The text without its predicate guard: "@P0 LDG.E R2, desc[UR4][R2.64]" →
        "LDG.E R2, desc[UR4][R2.64]"; what text patterns are searched in."""
        p = _PREDICATE.match(self.text)
        return self.text[p.end() :] if p else self.text


@dataclass
class Function:
    mangled: str
    arch: str | None
    instructions: list[Instruction] = field(default_factory=list)

    @property
    def name(self) -> str:
        return plain_name(self.mangled)


def _skip_template_args(s: str, i: int) -> int:
    """Index after the ``I...E`` template argument list starting at s[i] == "I"."""
    depth = 0
    while i < len(s):
        ch = s[i]
        if ch.isdigit():
            j = i
            while j < len(s) and s[j].isdigit():
                j += 1
            i = j + int(s[i:j])
            continue
        if ch in "INLX":
            depth += 1
        elif ch == "E":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return i


def _read_source_name(s: str, i: int) -> tuple[str | None, int]:
    j = i
    while j < len(s) and s[j].isdigit():
        j += 1
    if j == i:
        return None, i
    n = int(s[i:j])
    return s[j : j + n], j + n


def demangle_components(mangled: str) -> list[str]:
    """The name components of an Itanium-mangled function name (["ns", "ns_kernel"]);
    [mangled] when it is not mangled (extern "C"), [] when it cannot be read."""
    if not mangled.startswith("_Z"):
        return [mangled]
    s, i = mangled, 2
    if s.startswith("L", i):  # internal linkage
        i += 1
    if s.startswith("N", i):
        i += 1
        while i < len(s) and s[i] in "rVKRO":  # cv- and ref-qualifiers
            i += 1
        parts = []
        while i < len(s) and s[i] != "E":
            if s[i].isdigit():
                name, i = _read_source_name(s, i)
                parts.append(name)
            elif s[i] == "I":
                i = _skip_template_args(s, i)
            elif s.startswith("St", i):
                parts.append("std")
                i += 2
            elif s[i] == "S":  # other substitutions: S_, S0_, Sa, Sb, ...
                j = s.find("_", i)
                i = i + 2 if s[i + 1 : i + 2].isalpha() else (j + 1 if j > 0 else len(s))
            else:
                return []
        return [p for p in parts if p]
    name, _ = _read_source_name(s, i)
    return [name] if name else []


def plain_name(mangled: str) -> str:
    """The function's unqualified name; the input itself when it cannot be demangled."""
    parts = demangle_components(mangled)
    return parts[-1] if parts else mangled


def parse_sass(text: str) -> list[Function]:
    """Functions of a ``cuobjdump -sass`` listing, in order."""
    functions: list[Function] = []
    current: Function | None = None
    arch = None
    for line in text.splitlines():
        m = _ARCH.match(line)
        if m:
            arch, current = m.group(1), None
            continue
        m = _FUNCTION.match(line)
        if m:
            current = Function(m.group(1), arch)
            functions.append(current)
            continue
        if current is None:
            continue
        m = _INSTR.match(line)
        if not m:
            continue
        text_ = m.group(2).split("/*", 1)[0].strip().rstrip(";").strip()
        if text_ in ("{", "}"):
            continue
        text_ = text_.strip("{} ")
        p = _PREDICATE.match(text_)
        if p:
            if p.group(1) == "!" and p.group(2) in ("PT", "UPT"):
                continue  # @!PT: never executes
            body = text_[p.end() :]
        else:
            body = text_
        opcode = re.split(r"[\s;]", body, maxsplit=1)[0]
        if opcode:
            current.instructions.append(Instruction(int(m.group(1), 16), opcode, text_))
    return functions


def parse_res_usage(text: str) -> dict[str, dict[str, int]]:
    """``{mangled name: {"REG": 38, "STACK": 0, "SHARED": 8192, ...}}``; with several
    cubins (architectures) the last one listed wins (callers pass -arch)."""
    usage: dict[str, dict[str, int]] = {}
    current = None
    for line in text.splitlines():
        m = _RES_FUNCTION.match(line)
        if m:
            current = m.group(1)
            continue
        if current is not None:
            items = _RES_ITEM.findall(line)
            if items:
                usage[current] = {k: int(v) for k, v in items}
                current = None
    return usage


def matches(pattern: str, opcode: str) -> bool:
    """Does the opcode pattern, or any instruction family of the job it names
    (docs/protocol.md), match this opcode?"""
    if jobs.is_job(pattern):
        return any(matches(f, opcode) for f in jobs.families(pattern))
    return re.match(rf"(?:{pattern})\b", opcode) is not None


def text_matches(pattern: str, ins: Instruction) -> bool:
    """Is the text pattern (``require_text`` / ``forbid_text``, docs/protocol.md) found in
    the instruction's text, opcode and operands, predicate guard removed?"""
    return re.search(pattern, ins.body) is not None


def describe(pattern: str) -> str:
    """ "LDS (shared-memory load)" for a pattern whose mnemonic we know, "a store into shared
    memory (STS, STSM, LDGSTS, UBLKCP or UTMALDG)" for a job, else the pattern."""
    if jobs.is_job(pattern) and pattern in jobs.JOBS:
        what, families = jobs.JOBS[pattern]
        names = [jobs.shown(f) for f in families]
        listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
        return f"{what} ({listed})"
    mnemonic = re.match(r"[A-Z0-9_]+", pattern)
    if mnemonic and mnemonic.group(0) in DESCRIPTIONS:
        return f"{pattern} ({DESCRIPTIONS[mnemonic.group(0)]})"
    return pattern


@dataclass
class Dump:
    """SASS and resource usage of one or more objects."""

    functions: list[Function]
    usage: dict[str, dict[str, int]]
    error: str | None = None  # cuobjdump failed: its message
    # the failure was cuobjdump's verdict on the object (it exited non-zero), not the
    # machine's (a time limit, a signal, no memory)
    refused: bool = False
    # mangled names whose SHARED includes the 1 KB an sm_90 module reserves per block once one
    # of its kernels has dynamic shared memory (its ELF's .nv.reservedSmem): measured with CUDA
    # 13.0, a kernel with no shared memory at all reads SHARED:1024 beside such a kernel, 0
    # without one, and 0 either way on sm_80
    reserved: set[str] = field(default_factory=set)

    def instances(self, kernel: str) -> list[Function]:
        return [f for f in self.functions if f.name == kernel]


RESERVED_SMEM_MARK = ".nv.reservedSmem"
RESERVED_SMEM_BYTES = 1024  # cudaDevAttrReservedSharedMemoryPerBlock on sm_80 and sm_90


def static_shared(dumped: Dump, mangled: str, shared: int) -> tuple[int, str]:
    """(bytes of the kernel's own static shared memory, a note): cuobjdump's SHARED with the
    reserved 1 KB it counts in (``Dump.reserved``) taken out, and the note naming it."""
    if mangled in dumped.reserved and shared >= RESERVED_SMEM_BYTES:
        return shared - RESERVED_SMEM_BYTES, "+ 1 KB the GPU reserves per block; "
    return shared, ""


def dump(tool: Tool, objects: list[Path], arch: str | None = None) -> Dump:
    """Runs cuobjdump -sass, -res-usage and -elf on each object and merges the results."""
    functions: list[Function] = []
    usage: dict[str, dict[str, int]] = {}
    reserved: set[str] = set()
    arch_args = ["-arch", arch] if arch else []
    for obj in objects:
        names: set[str] = set()
        for flag in ("-sass", "-res-usage", "-elf"):
            if flag == "-elf" and not any(
                usage[n].get("SHARED", 0) >= RESERVED_SMEM_BYTES for n in names
            ):
                continue  # nothing the reserved kilobyte could be counted into
            out = runner.run(
                [tool.path, flag, *arch_args, str(obj)],
                timeout_s=120,
                env=tool.env(),
                max_output=64 * 1024 * 1024,
                limits=False,
                background=True,
            )
            if not out.ok:
                detail = (out.stderr or out.stdout).strip().splitlines()
                msg = detail[-1] if detail else out.describe()
                return Dump(
                    functions,
                    usage,
                    f"cuobjdump {flag} {obj.name}: {msg}",
                    refused=out.kind == "exited",
                )
            if flag == "-sass":
                functions.extend(parse_sass(out.stdout))
            elif flag == "-res-usage":
                found = parse_res_usage(out.stdout)
                usage.update(found)
                names = set(found)
            elif RESERVED_SMEM_MARK in out.stdout:
                reserved |= names
    return Dump(functions, usage, reserved=reserved)


def shown_names(mangled: list[str]) -> dict[str, str]:
    """{mangled: "blur_tile_kernel<true>"} through binutils' c++filt (the arguments dropped);
    {} where c++filt is missing or fails (the caller then shows the mangled names)."""
    tool = tools.find("c++filt")
    if tool is None or not mangled:
        return {}
    try:
        out = subprocess.run(
            [tool.path], input="\n".join(mangled), capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return {}
    names = out.stdout.splitlines()
    if out.returncode != 0 or len(names) != len(mangled):
        return {}
    return {m: _with_template_args(n, plain_name(m)) for m, n in zip(mangled, names)}


def _with_template_args(demangled: str, name: str) -> str:
    """ "void blur_tile_kernel<true>(float const*, ...)" -> "blur_tile_kernel<true>": the
    name and its template arguments, up to the parameter list."""
    start = demangled.find(name + "<")
    if start < 0:
        return name
    depth = 0
    for i in range(start + len(name), len(demangled)):
        depth += {"<": 1, ">": -1}.get(demangled[i], 0)
        if depth == 0:
            return demangled[start : i + 1]
    return name


@dataclass
class StaticResult:
    """The static rules applied to one kernel: ``passed`` and one message per finding."""

    passed: bool
    messages: list[str]
    info: str = ""  # resource summary: "38 registers, 8192 B static shared (...), 0 B stack"
    missing: list[str] = field(default_factory=list)  # required patterns not found
    forbidden: list[str] = field(default_factory=list)  # forbidden patterns found


def check_kernel(dumped: Dump, kernel: str, rules: StaticRules, source_files: str) -> StaticResult:
    """Applies ``rules`` to every instance of ``kernel`` in ``dumped``."""
    instances = dumped.instances(kernel)
    if not instances:
        return StaticResult(
            False,
            [
                f"kernel {kernel} not found in {source_files}: keep the kernel's name from "
                "the skeleton"
            ],
        )
    messages: list[str] = []
    missing: list[str] = []
    forbidden: list[str] = []
    infos = []
    several = len(instances) > 1
    shown = shown_names([fn.mangled for fn in instances]) if several else {}
    for fn in instances:
        label = shown.get(fn.mangled, fn.mangled) if several else kernel
        absent = [
            p for p in rules.require if not any(matches(p, ins.opcode) for ins in fn.instructions)
        ]
        if absent:
            missing.extend(absent)
            parts = []
            opcodes = [p for p in absent if not jobs.is_job(p)]
            named_jobs = [p for p in absent if jobs.is_job(p)]
            if opcodes:
                parts.append(f"has no {', '.join(describe(p) for p in opcodes)} instruction")
            if len(named_jobs) == 1:
                parts.append("does not show " + describe(named_jobs[0]))
            elif named_jobs:
                parts.append("shows none of: " + "; ".join(describe(p) for p in named_jobs))
            messages.append(f"{label}: its SASS " + ", and ".join(parts))
        absent_text = [
            p
            for p in rules.require_text
            if not any(text_matches(p, ins) for ins in fn.instructions)
        ]
        if absent_text:
            missing.extend(absent_text)
            what = ", ".join(rules.words(p) for p in absent_text)
            messages.append(f"{label}: its SASS lacks {what}")
        forbid = [(p, lambda p, ins: matches(p, ins.opcode), describe(p)) for p in rules.forbid]
        forbid += [(p, text_matches, rules.words(p)) for p in rules.forbid_text]
        for pattern, test, what in forbid:
            found = [ins for ins in fn.instructions if test(pattern, ins)]
            if found:
                forbidden.append(pattern)
                messages.append(
                    f"{label}: {len(found)} {what} instruction"
                    f"{'s' if len(found) > 1 else ''} in its SASS, which this exercise "
                    f"forbids (first: /*{found[0].address:04x}*/ {found[0].text})"
                )
        res = dumped.usage.get(fn.mangled)
        if res is not None:
            shared, note = static_shared(dumped, fn.mangled, res.get("SHARED", 0))
            infos.append(
                (f"{label}: " if several else "")
                + f"{res.get('REG', 0)} registers, {shared} B static shared ({note}any dynamic "
                f"shared memory comes on top, sized at launch), {res.get('STACK', 0)} B stack"
            )
        if rules.max_stack_bytes is not None:
            if res is None:
                messages.append(f"{label}: no resource usage listed by cuobjdump -res-usage")
            elif res.get("STACK", 0) > rules.max_stack_bytes:
                messages.append(
                    f"{label}: stack frame of {res['STACK']} bytes, at most "
                    f"{rules.max_stack_bytes} allowed (local memory: spills or a "
                    "run-time-indexed per-thread array)"
                )
    return StaticResult(
        not messages,
        messages,
        "; ".join(dict.fromkeys(infos)),
        sorted(set(missing)),
        sorted(set(forbidden)),
    )
