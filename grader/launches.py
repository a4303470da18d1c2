"""Which kernels each launcher launches, read from the host code of the student's objects.

The static rules (lab.toml ``[exercise.static]``) read the SASS of the kernel that bears the
exercise's name. Nothing else tied that kernel to the one the launcher starts: a red-team
review defined a ``conv2d_tiled_kernel`` with a shared tile and a barrier that nothing
launched, had ``conv2d_tiled`` launch a copy of the naive baseline under another name, and
the static check passed. The launcher is host code in the same object, so the grader reads it
(it never runs it): ``objdump -d -r`` gives each host function's references (calls, jumps,
addresses taken: through a relocation, or resolved by the assembler within a section), and
``objdump -r`` those of the data sections (a table of kernel pointers). A kernel's host-side
symbol has the kernel's own mangled name (nvcc's stub, which passes its own address to
``cudaLaunchKernel``; ``kernel<<<...>>>``, ``cudaLaunchKernel((void *)kernel, ...)`` and a
pointer to it all refer to it), so a kernel is launched by a launcher when its symbol is
reachable from the launcher's (``extern "C"``, unmangled) through these references.

The reading errs toward "launched": a launch under a condition never true counts, a reference
into a data section that no symbol covers reaches everything the section's relocations name,
a function's ``.cold`` part is the function, and what runs before main (a constructor, a
dynamic initialiser) counts for every launcher. What it misses a hostile object can arrange
on purpose: an address computed from another symbol's (pointer arithmetic, asm), a
reference past the end of a symbol or hidden in a run of zeros objdump skips. Hence
``Reach.unreached``, the kernels no launcher reaches: an exercise of one kernel per launcher
(``require_in_every_kernel``, lab 3.3) fails on any. What no reading of the object can tell
is whether the instructions a launched kernel holds run (a dead branch): docs/design-notes.md,
note 75.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from pathlib import Path

from grader import run as runner
from grader import sass

_SYMBOL = re.compile(
    r"^([0-9a-f]+) (.{7}) (\S+)\s+([0-9a-f]+)\s+(?:\.hidden |\.protected |\.internal )?(\S+)$"
)
_FUNCTION_HEAD = re.compile(r"^([0-9a-f]+) <(.+)>:$")
_INLINE_RELOC = re.compile(r"\s[0-9a-f]+: (R_\S+)\s+(\S+)")
_TARGET = re.compile(r"<([^<>+]+)(?:\+0x[0-9a-f]+)?>")
_RECORDS = re.compile(r"^RELOCATION RECORDS FOR \[(.+)\]:$")
_RECORD = re.compile(r"^([0-9a-f]+)\s+(R_\S+)\s+(\S+)$")
_ADDEND = re.compile(r"^(.+?)([+-]0x[0-9a-f]+)?$")
_SECTION = re.compile(r"^\s*\d+\s+(\S+)\s.*?\s([A-Z_, ]+)$")
# loaded sections whose relocations are no references of the program's: unwind tables
_UNWIND = (".eh_frame", ".eh_frame_hdr")
# what runs before main or at exit: each of its functions counts as reached by every
# launcher (a constructor that stores a kernel's address in a pointer a launcher calls
# through, a red-team review), but nvcc's own registration of every kernel
_STARTUP = (".init_array", ".fini_array", ".preinit_array", ".ctors", ".dtors")
_REGISTRATION = "_ZL24__sti____cudaRegisterAllv"  # its local symbol, exactly
STARTUP = "startup"  # the node of _STARTUP's functions
_STUB = "__device_stub__"


def _stub_of(kernel: str) -> str:
    """What the names of ``kernel``'s host launch stub hold: ``__device_stub__`` and its
    mangled name without the first ``_`` (an ``extern "C"`` kernel ``k`` is mangled as a
    C++ one there: ``Z1k``...)."""
    name = kernel[1:] if kernel.startswith("_Z") else f"Z{len(kernel)}{kernel}"
    return _STUB + name


def kernel_key(mangled: str) -> str:
    """A kernel's mangled name as its host stub and its SASS both give it: a kernel of
    internal linkage (``static``) is ``_ZL1kPf`` on the host, ``_Z1kPf`` in the SASS (the
    ``L`` before its name's length dropped; a review's finding)."""
    return re.sub(r"L(?=\d)", "", mangled)


@dataclass
class Reach:
    """``launched``: per launcher (its symbol), the mangled names of the kernels it reaches;
    ``unreached``: the kernels (mangled) that no launcher reaches; ``missing``: launchers not
    defined in the objects read."""

    launched: dict[str, set[str]] = field(default_factory=dict)
    unreached: set[str] = field(default_factory=set)
    missing: set[str] = field(default_factory=set)


class Graph:
    """References between the symbols of host objects: nodes are symbol names (a local
    symbol is named ``<object index>:<name>``, a ``.cold`` part by its function's name)."""

    def __init__(self) -> None:
        self.edges: dict[str, set[str]] = {}
        # per (object, section): [(start, end, node)] of its symbols, for section+offset targets
        self._spans: dict[tuple[int, str], list[tuple[int, int, str]]] = {}
        self._names: dict[tuple[int, str], str] = {}  # (object, symbol) -> node

    def add_symbols(self, k: int, table: str) -> None:
        """The symbols of object ``k`` from ``objdump -t -w`` (section and file symbols
        left out: a reference to a section is resolved by offset, ``target``)."""
        rows = []
        for line in table.splitlines():
            m = _SYMBOL.match(line)
            if m and m.group(3) not in ("*UND*", "*ABS*") and m.group(2)[5] != "d":
                rows.append(m.groups())
        local = {name: flags[0] == "l" for _, flags, _, _, name in rows}
        for value, flags, section, size, name in rows:
            base = name.removesuffix(".cold")
            base = base if base in local else name
            node = f"{k}:{base}" if local[base] else base
            self._names[(k, name)] = node
            span = (int(value, 16), int(value, 16) + max(int(size, 16), 1), node)
            self._spans.setdefault((k, section), []).append(span)

    def node(self, k: int, name: str) -> str:
        return self._names.get((k, name), name)

    def target(self, k: int, text: str, kind: str = "") -> str:
        """The node a relocation's value (``sym``, ``sym-0x4``, ``.bss+0xc``) of type
        ``kind`` refers to: a symbol, the symbol of its section that holds the offset, or
        the whole section (``section:<object>:<name>``). An x86-64 PC-relative addend is
        the target less the bytes from the field to the instruction's end: 4, or more when
        an immediate follows."""
        name, addend = _ADDEND.match(text).groups()
        if (k, name) in self._names:
            return self._names[(k, name)]
        spans = self._spans.get((k, name))
        if spans is None:
            return name  # a symbol of another object (or undefined: an API function)
        off = int(addend or "0", 16)
        relative = kind.startswith(("R_X86_64_PC", "R_X86_64_PLT"))
        for at in (off + 4, off + 5, off + 6, off + 8) if relative else (off,):
            for start, end, node in spans:
                if start <= at < end:
                    return node
        return f"section:{k}:{name}"

    def link(self, src: str, dst: str) -> None:
        if src != dst:
            self.edges.setdefault(src, set()).add(dst)

    def add_code(self, k: int, disassembly: str) -> None:
        """The references of object ``k``'s functions from ``objdump -d -r -w``: code
        before a section's first symbol is credited to the section."""
        current = None
        for line in disassembly.splitlines():
            head = _FUNCTION_HEAD.match(line)
            if head:
                current = self.node(k, head.group(2))
                continue
            if line.startswith("Disassembly of section "):
                current = f"section:{k}:{line.removeprefix('Disassembly of section ')[:-1]}"
                continue
            if current is None:
                continue
            relocs = _INLINE_RELOC.findall(line)
            for kind, value in relocs:  # the operands are these; a <...> is a placeholder
                self.link(current, self.target(k, value, kind))
            if not relocs:
                for name in _TARGET.findall(line):
                    self.link(current, self.node(k, name))

    def add_data(self, k: int, headers: str, records: str) -> None:
        """The references of object ``k``'s data from ``objdump -r -w``, from the symbol
        holding each record and from the section: every loaded section but code (read by
        ``add_code``) and unwind tables, whatever its name (a student's table of kernel
        pointers in a section named ``.fini_arrayz`` was skipped by a first version that
        went by names). ``headers``: ``objdump -h -w``, for the sections' flags. The
        functions of startup and exit arrays (``_STARTUP``) are linked from ``STARTUP``."""
        flags = {}
        for line in headers.splitlines():
            m = _SECTION.match(line)
            if m:
                flags[m.group(1)] = {f.strip() for f in m.group(2).split(",")}
        section = None
        for line in records.splitlines():
            head = _RECORDS.match(line)
            if head:
                section = head.group(1)
                kinds = flags.get(section, {"ALLOC"})  # unknown: read it (err toward reach)
                skip = "ALLOC" not in kinds or "CODE" in kinds or section in _UNWIND
                startup = section in _STARTUP or section.startswith(
                    tuple(name + "." for name in _STARTUP)
                )
                continue
            m = _RECORD.match(line)
            if not m or section is None or skip:
                continue
            dst = self.target(k, m.group(3), m.group(2))
            if startup:
                if dst != f"{k}:{_REGISTRATION}":
                    self.link(STARTUP, dst)
                continue
            self.link(f"section:{k}:{section}", dst)
            holder = self.target(k, f"{section}+0x{m.group(1)}")
            if not holder.startswith("section:"):
                self.link(holder, dst)

    def reachable(self, start: str) -> set[str]:
        seen, todo = {start}, [start]
        while todo:
            for nxt in self.edges.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen


# a listing of a course object is some 60 KB; a hostile one (host code of nops, `.fill` by
# asm) could list gigabytes into the grader's memory, shared by a batch's gradings
MAX_LISTING_BYTES = 32 * 1024 * 1024


class Unreadable(Exception):
    """objdump ran and refused the object, or listed more than ``MAX_LISTING_BYTES``: the
    object's doing (nvcc's objects are read in a few KB)."""


def objdump(path: str, obj: Path, *flags: str) -> str:
    """``objdump -w FLAGS OBJ``'s output (bytes that are not UTF-8 replaced), through the
    grader's runner: niced, its output capped. Unreadable when objdump exits non-zero or
    lists more than ``MAX_LISTING_BYTES``; OSError when it could not be run or did not end
    (a time limit, a signal: the machine's trouble, not the object's)."""
    out = runner.run(
        [path, "-w", *flags, str(obj)],
        timeout_s=120,
        max_output=MAX_LISTING_BYTES,
        output_cap=MAX_LISTING_BYTES,
        limits=False,
        background=True,
    )
    if out.kind == "flooded":
        raise Unreadable(f"objdump {flags[0]} {obj.name} listed more than "
                         f"{MAX_LISTING_BYTES // 2**20} MB")
    if out.kind == "exited" and out.code != 0:
        lines = (out.stderr or out.stdout).strip().splitlines()
        raise Unreadable(f"objdump {flags[0]} {obj.name}: {lines[-1] if lines else out.describe()}")
    if not out.ok:
        raise OSError(f"objdump {flags[0]} {obj.name} {out.describe()}")
    return out.stdout


def read(tool: str, objects: list[Path], launchers: list[str], kernels: set[str]) -> Reach:
    """Which of ``kernels`` (mangled names, from the SASS) each of ``launchers`` (host
    symbols: every launcher of the lab, so that ``unreached`` means launched by none)
    reaches in the host code of ``objects``, read with the objdump at ``tool``; what the
    startup and exit functions reach counts for every launcher."""
    graph = Graph()
    for k, obj in enumerate(objects):
        graph.add_symbols(k, objdump(tool, obj, "-t"))
    for k, obj in enumerate(objects):
        graph.add_code(k, objdump(tool, obj, "-d", "-r", "--no-show-raw-insn"))
        graph.add_data(k, objdump(tool, obj, "-h"), objdump(tool, obj, "-r"))
    defined = {node for node in graph._names.values()}
    # a kernel has a launch stub on the host (nvcc's __device_stub__Z<its name>...); another
    # SASS function (a device function compiled apart) is no kernel
    stubs = [name for (_, name) in graph._names if _STUB in name]
    kernels = {k for k in kernels if any(_stub_of(k) in stub for stub in stubs)}
    by_key: dict[str, set[str]] = {}
    for name in kernels:
        by_key.setdefault(kernel_key(name), set()).add(name)
    startup = graph.reachable(STARTUP)
    out = Reach()
    for launcher in launchers:
        if launcher not in defined:
            out.missing.add(launcher)
            continue
        # a kernel of one file only (static, or a template's instance) is a local symbol
        nodes = graph.reachable(launcher) | startup
        keys = {kernel_key(node.partition(":")[2] or node) for node in nodes}
        out.launched[launcher] = set().union(*(by_key.get(key, set()) for key in keys))
    out.unreached = kernels - set().union(set(), *out.launched.values())
    return out


def launched_by(reach: Reach, launchers) -> set[str]:
    """The kernels (mangled) that any of ``launchers`` launches, as ``reach`` read them (none
    for a launcher it did not find)."""
    return set().union(*(reach.launched.get(name, set()) for name in launchers))


def check(
    res: sass.StaticResult,
    reach: Reach,
    dumped: sass.Dump,
    ex,
    sources: str,
    named_kernels: set[str] = frozenset(),
) -> None:
    """Adds to ``res`` (the static rules applied to ``ex.kernel``) what the launchers of
    ``ex`` launch. The named kernel must be one of them: a decoy that nothing launches
    passes no rule. Every other kernel they launch (a helper: a fill, a last step) must keep
    the forbidden instructions out; with ``require_in_every_kernel`` (an exercise of one
    kernel, lab 3.3) it must hold the required ones too, so that a decoy launched under a
    condition never true, beside the kernel that does the work, passes nothing either, and
    no kernel but the exercises' own (``named_kernels``, mangled) may be launched by no
    launcher: its address could be reached by arithmetic from another's, which no reading
    of references sees (a review). ``res`` fails on any of these; the check is left out
    when no launcher of ``ex`` is in the objects read (a lab whose launchers lie in the
    course's code)."""
    present = [name for name in ex.launchers if name not in reach.missing]
    if not present:
        return
    launched = launched_by(reach, present)
    named = {fn.mangled for fn in dumped.instances(ex.kernel)}
    by = " or ".join(present)
    if named and not named & launched:
        others = sorted({sass.plain_name(m) for m in launched})
        res.passed = False
        # one launcher: "X does not launch K"; two (lab 3.4a's coefficient setter beside its
        # launcher): "neither X nor Y launches K"; more: "none of X, Y and Z launches K", so
        # that no one reads that the setter may launch it instead (a student's trial)
        if len(present) == 1:
            lead, it, who = f"{by} does not launch", "it launches", f"{by} must"
        else:
            lead = (
                f"neither {present[0]} nor {present[1]} launches" if len(present) == 2
                else f"none of {', '.join(present[:-1])} and {present[-1]} launches"
            )
            it, who = "they launch", "the exercise's launcher must"
        res.messages.append(
            f"{lead} {ex.kernel}"
            + (f" ({it} {', '.join(others)})" if others else " (no kernel is launched: not "
               "implemented yet?)")
            + f": the static rules read {ex.kernel}'s SASS, so {who} launch that kernel "
            f"(keep its name from the skeleton, in {sources})"
        )
    every = ex.static.require_in_every_kernel
    rules = ex.static if every else dataclasses.replace(
        ex.static, require=(), require_text=(), max_stack_bytes=None
    )
    why = (
        f"and in this exercise every kernel it launches must meet the rules: do the work in "
        f"{ex.kernel} (an output cleared first is cudaMemsetAsync's, not a kernel's)"
        if every
        else "which must keep the forbidden instructions out too"
    )
    for name in sorted({sass.plain_name(m) for m in launched - named}):
        other = sass.check_kernel(dumped, name, rules, sources)
        if other.passed:
            continue
        res.passed = False  # its patterns are not the named kernel's: not in res.missing
        res.messages.extend(f"{by} also launches {name}, {why}: {m}" for m in other.messages)
    stray = sorted({sass.plain_name(m) for m in reach.unreached - set(named_kernels)})
    if every and stray:
        res.passed = False
        res.messages.append(
            f"{', '.join(stray)} in {sources} {'is' if len(stray) == 1 else 'are'} launched "
            "by no launcher: in this lab each launcher launches its exercise's kernel and "
            "nothing else, and the static rules read that kernel; until you remove kernels "
            "that nothing launches, every exercise loses its static points"
        )
